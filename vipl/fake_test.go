package vipl

import (
	"context"
	"fmt"
	"sync"
)

// fakeAgent is a KernelAgent in memory, for the unit tests of what vipl
// checks itself; the co-simulation tests use the real one.
type fakeAgent struct {
	attrs NicAttributes

	mu      sync.Mutex
	next    uint64
	bufs    map[uint64][]byte
	ptags   map[Ptag]bool
	regions map[MemHandle]MemAttributes
	nextH   MemHandle
	nextP   Ptag
	closed  bool
	nextVi  ViID
	vis     map[ViID]ViState
	peers   map[ViID]ViID
	ev      *fakeEvents
	db      []string // doorbell writes, in order: "vi0 send handle 0x1", "vi0 send ring 0x7000..."
	// ringLatency, when nonzero, makes the fake NIC complete every rung
	// descriptor that many cycles after its doorbell with ringStatus
	// (DONE is added).
	ringLatency uint64
	ringStatus  Status
}

func newFakeAgent() *fakeAgent {
	return &fakeAgent{
		attrs: NicAttributes{Name: "fake", MaxSegmentsPerDesc: 4, MaxTransferSize: 1 << 16, MaxDescriptorsPerQueue: 8},
		next:  0x7000_0000_0000, bufs: map[uint64][]byte{}, ptags: map[Ptag]bool{}, regions: map[MemHandle]MemAttributes{},
		vis: map[ViID]ViState{}, peers: map[ViID]ViID{}, ev: newFakeEvents(),
	}
}

func (f *fakeAgent) QueryNic(context.Context) (NicAttributes, error) { return f.attrs, nil }

func (f *fakeAgent) SetErrorHandler(func(AsyncError)) {}

func (f *fakeAgent) CreatePtag(context.Context) (Ptag, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextP++
	f.ptags[f.nextP] = true
	return f.nextP, nil
}

func (f *fakeAgent) DestroyPtag(_ context.Context, p Ptag) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[p] {
		return &Error{Op: "DestroyPtag", Code: InvalidPtag}
	}
	delete(f.ptags, p)
	return nil
}

func (f *fakeAgent) RegisterMem(_ context.Context, va uint64, length int, attrs MemAttributes) (MemHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[attrs.Ptag] {
		return 0, &Error{Op: "RegisterMem", Code: InvalidPtag}
	}
	f.nextH++
	f.regions[f.nextH] = attrs
	return f.nextH, nil
}

func (f *fakeAgent) DeregisterMem(_ context.Context, va uint64, h MemHandle) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.regions[h]; !ok {
		return &Error{Op: "DeregisterMem", Code: InvalidParameter}
	}
	delete(f.regions, h)
	return nil
}

func (f *fakeAgent) QueryMem(_ context.Context, va uint64, h MemHandle) (MemAttributes, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.regions[h]
	if !ok {
		return a, &Error{Op: "QueryMem", Code: InvalidParameter}
	}
	return a, nil
}

func (f *fakeAgent) SetMemAttributes(_ context.Context, va uint64, h MemHandle, attrs MemAttributes) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.regions[h] = attrs
	return nil
}

// Alloc hands out Go memory at made-up, page-aligned addresses: enough for
// the builder, which only needs VA and Bytes to agree.
func (f *fakeAgent) Alloc(_ context.Context, n int) (Mapping, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	va := f.next
	f.next += uint64(n+4095) &^ 4095
	f.bufs[va] = make([]byte, n)
	return Mapping{VA: va, Bytes: f.bufs[va]}, nil
}

func (f *fakeAgent) Free(_ context.Context, va uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.bufs, va)
	return nil
}

func (f *fakeAgent) Close(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeAgent) CreateVi(_ context.Context, attrs ViAttributes) (ViID, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[attrs.Ptag] {
		return 0, &Error{Op: "CreateVi", Code: InvalidPtag}
	}
	id := f.nextVi
	f.nextVi++
	f.vis[id] = ViIdle
	return id, nil
}

func (f *fakeAgent) DestroyVi(_ context.Context, id ViID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.vis[id]
	if !ok {
		return &Error{Op: "DestroyVi", Code: InvalidParameter}
	}
	if st != ViIdle {
		return &Error{Op: "DestroyVi", Code: InvalidState}
	}
	delete(f.vis, id)
	return nil
}

func (f *fakeAgent) QueryVi(_ context.Context, id ViID) (ViInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ViInfo{State: f.vis[id]}, nil
}

func (f *fakeAgent) Listen(context.Context, []byte) (uint32, error) { return 0, errFakeCM }
func (f *fakeAgent) Unlisten(context.Context, uint32) error         { return errFakeCM }
func (f *fakeAgent) ConnectRequest(context.Context, ViID, uint32, []byte) (uint32, error) {
	return 0, errFakeCM
}
func (f *fakeAgent) ConnectPeerRequest(context.Context, ViID, uint32, []byte) (uint32, error) {
	return 0, errFakeCM
}
func (f *fakeAgent) ConnectAccept(context.Context, uint32, ViID) error { return errFakeCM }
func (f *fakeAgent) ConnectReject(context.Context, uint32) error       { return errFakeCM }
func (f *fakeAgent) ConnectCancel(context.Context, ViID) error         { return errFakeCM }
func (f *fakeAgent) WaitCM(context.Context, func(CMEvent) bool, uint64) (CMEvent, error) {
	return CMEvent{}, errFakeCM
}

// the fake has no connection manager (the co-simulation tests cover it)
var errFakeCM = &Error{Op: "fake", Code: ErrorResource}

func (f *fakeAgent) ConnectRemote(_ context.Context, id ViID, _ uint32, _ ViID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.vis[id] != ViIdle {
		return &Error{Op: "ConnectRemote", Code: InvalidState}
	}
	f.vis[id] = ViConnected
	return nil
}

func (f *fakeAgent) ConnectLoopback(_ context.Context, a, b ViID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	sa, oka := f.vis[a]
	sb, okb := f.vis[b]
	switch {
	case !oka || !okb || a == b:
		return &Error{Op: "ConnectLoopback", Code: InvalidParameter}
	case sa != ViIdle || sb != ViIdle:
		return &Error{Op: "ConnectLoopback", Code: InvalidState}
	}
	f.vis[a], f.vis[b] = ViConnected, ViConnected
	f.peers[a], f.peers[b] = b, a
	return nil
}

func (f *fakeAgent) Disconnect(_ context.Context, id ViID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.vis[id] != ViConnected {
		return &Error{Op: "Disconnect", Code: InvalidState}
	}
	p := f.peers[id]
	f.vis[id], f.vis[p] = ViIdle, ViIdle
	delete(f.peers, id)
	delete(f.peers, p)
	return nil
}

func (f *fakeAgent) MapDoorbell(_ context.Context, id ViID) (Doorbell, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.vis[id]; !ok {
		return nil, &Error{Op: "MapDoorbell", Code: InvalidParameter}
	}
	return &fakeDoorbell{f: f, vi: id}, nil
}

func (f *fakeAgent) Events() Events { return f.ev }

// bytesAt returns the fake host memory at va.
func (f *fakeAgent) bytesAt(va uint64, n int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	for base, b := range f.bufs {
		if va >= base && va+uint64(n) <= base+uint64(len(b)) {
			return b[va-base : va-base+uint64(n)]
		}
	}
	return nil
}

// doorbells returns the doorbell writes so far and forgets them.
func (f *fakeAgent) doorbells() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.db
	f.db = nil
	return d
}

type fakeDoorbell struct {
	f  *fakeAgent
	vi ViID
}

func (d *fakeDoorbell) SetHandle(_ context.Context, q Queue, h MemHandle) error {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	d.f.db = append(d.f.db, fmt.Sprintf("vi%d %s handle 0x%x", d.vi, q, uint32(h)))
	return nil
}

func (d *fakeDoorbell) Ring(_ context.Context, q Queue, va uint64) error {
	d.f.mu.Lock()
	d.f.db = append(d.f.db, fmt.Sprintf("vi%d %s ring 0x%x", d.vi, q, va))
	lat, st := d.f.ringLatency, d.f.ringStatus
	d.f.mu.Unlock()
	if lat > 0 {
		b := d.f.bytesAt(va, ControlBytes)
		d.f.ev.at(d.f.ev.Cycle()+lat, func() { storeStatus(b, st|StatusDone) })
	}
	return nil
}

// fakeEvents is a discrete-event clock: time passes only in Idle and Wait
// (as in lockstep), running the scheduled events (a fake NIC's
// completions, each of which also raises VI_DONE) in cycle order.
type fakeEvents struct {
	mu      sync.Mutex
	cycle   uint64
	gen     uint64
	events  []fakeEvent
	changed chan struct{}
	waits   int // Wait calls that blocked
	arms    int // Arm and ArmCQ calls
}

type fakeEvent struct {
	cycle uint64
	fn    func()
}

func newFakeEvents() *fakeEvents { return &fakeEvents{changed: make(chan struct{})} }

// at schedules fn (a completion: fn writes the status, then VI_DONE) at
// cycle.
func (e *fakeEvents) at(cycle uint64, fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := len(e.events)
	for i > 0 && e.events[i-1].cycle > cycle {
		i--
	}
	e.events = append(e.events, fakeEvent{})
	copy(e.events[i+1:], e.events[i:])
	e.events[i] = fakeEvent{cycle, fn}
}

// complete runs fn now, as a completion from another goroutine (the
// NIC's time being free): it raises VI_DONE.
func (e *fakeEvents) complete(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn()
	e.raise()
}

func (e *fakeEvents) raise() {
	e.gen++
	close(e.changed)
	e.changed = make(chan struct{})
}

// runTo runs the events up to cycle and sets the clock there; with
// stopAtDone, it stops at the first event's cycle. Call with mu held.
func (e *fakeEvents) runTo(cycle uint64, stopAtDone bool) bool {
	for len(e.events) > 0 && e.events[0].cycle <= cycle {
		ev := e.events[0]
		e.events = e.events[1:]
		if ev.cycle > e.cycle {
			e.cycle = ev.cycle
		}
		ev.fn()
		e.raise()
		if stopAtDone {
			return true
		}
	}
	if cycle > e.cycle {
		e.cycle = cycle
	}
	return false
}

func (e *fakeEvents) Gen() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gen
}

func (e *fakeEvents) Wait(ctx context.Context, gen uint64, timeout uint64) (uint64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	end := e.cycle + timeout
	for e.gen == gen {
		if len(e.events) > 0 && (timeout == 0 || e.events[0].cycle <= end) {
			e.runTo(e.events[0].cycle, true)
			continue
		}
		if timeout != 0 {
			e.cycle = end
			return e.gen, &Error{Op: "Wait", Code: Timeout}
		}
		e.waits++
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		e.mu.Lock()
		if ctx.Err() != nil {
			return e.gen, ctx.Err()
		}
	}
	return e.gen, nil
}

func (e *fakeEvents) Idle(_ context.Context, cycles uint64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runTo(e.cycle+cycles, false)
	return nil
}

func (e *fakeEvents) Cycle() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cycle
}

func (e *fakeEvents) ClockPS() uint32   { return 4000 }
func (e *fakeEvents) FreeRunning() bool { return false }

func (f *fakeAgent) SetViAttributes(context.Context, ViID, ViAttributes) error { return nil }

// blocked returns how many Wait calls have blocked so far.
func (e *fakeEvents) blocked() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.waits
}

// The fake NIC has no completion queues (the co-simulation tests cover
// them against the real one).
func (f *fakeAgent) CreateCQ(context.Context, int) (CQID, Mapping, error) {
	return 0, Mapping{}, &Error{Op: "CreateCQ", Code: ErrorNotSupported}
}
func (f *fakeAgent) DestroyCQ(context.Context, CQID) error {
	return &Error{Op: "DestroyCQ", Code: InvalidParameter}
}
func (f *fakeAgent) ResizeCQ(context.Context, CQID, int) (Mapping, error) {
	return Mapping{}, &Error{Op: "ResizeCQ", Code: InvalidParameter}
}
func (f *fakeAgent) BindCQ(context.Context, ViID, Queue, CQID) error {
	return &Error{Op: "BindCQ", Code: InvalidParameter}
}
func (f *fakeAgent) CQConsumed(context.Context, CQID, uint16) error {
	return &Error{Op: "CQConsumed", Code: InvalidParameter}
}

// The fake NIC raises its interrupt at every completion, armed or not
// (what an armed queue would see); Arm and ArmCQ only count.
func (e *fakeEvents) Arm(context.Context, ViID, Queue) error {
	e.mu.Lock()
	e.arms++
	e.mu.Unlock()
	return nil
}

func (e *fakeEvents) ArmCQ(context.Context, CQID) error {
	e.mu.Lock()
	e.arms++
	e.mu.Unlock()
	return nil
}

func (f *fakeAgent) SetModeration(context.Context, uint32, uint32) error {
	return &Error{Op: "SetModeration", Code: ErrorNotSupported}
}
