package vipl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
)

// Options configure OpenNic. The zero value works.
type Options struct {
	// Name names the process in the simulator's and the driver's logs.
	Name string
	// MemoryBytes is the node's host memory (0: 64 MiB). Today the kernel
	// agent runs in the calling process and attaches the node's memory
	// itself.
	MemoryBytes int
	// Logger receives the driver's warnings and the firmware's log lines
	// (nil: slog.Default()).
	Logger *slog.Logger
	// Seed sets the order in which the agent hands out scattered physical
	// pages (0: 1), so that runs are repeatable.
	Seed uint64
	// PollInterval is the simulated time, in NIC clock cycles, that
	// SendDone and RecvDone let pass when they find nothing done, so
	// that a polling loop progresses in lockstep mode (where time passes
	// only while the process waits) and takes the same cycles every run.
	// 0: DefaultPollInterval in lockstep mode, none when the NIC's time
	// runs free; negative: none (a polling loop in lockstep then never
	// sees a completion).
	PollInterval int64
}

// Buffer is memory from Nic.Alloc: virtually contiguous, backed by the
// node's host memory, the only memory RegisterMem accepts. VA is the
// address of Bytes[0] as the NIC sees it.
type Buffer struct {
	VA    uint64
	Bytes []byte
}

// Nic is an open NIC (VIP_NIC_HANDLE): the calling process's use of one
// simulated vianic node. Safe for concurrent use.
type Nic struct {
	agent KernelAgent
	attrs NicAttributes
	poll  atomic.Int64 // Options.PollInterval

	mu      sync.Mutex
	closed  bool
	bufs    map[uint64]*Buffer     // by VA
	regions map[MemHandle]memRange // registered through this Nic
	ns      *nameService           // NSInit's table, nil when not started
	vis     map[ViID]*Vi           // the VIs created through this Nic
	cqs     map[CQID]*CQ           // the CQs created through this Nic
	errs    *errorQueue            // ErrorCallback's (errors.go), nil until set

	notifyOnce sync.Once
	nt         atomic.Pointer[notifier] // the Notify handlers (notify.go), nil until the first
}

type memRange struct {
	va     uint64
	length int
}

// OpenNic opens node of the simulator at address (a Unix socket path,
// unix:PATH or tcp:HOST:PORT; vianic-sim prints it when it starts) for the
// calling process (VipOpenNic). Today the kernel agent runs in-process:
// OpenNic connects as the node's driver, boots its firmware and manages
// its host memory, so one program at a time opens a node.
func OpenNic(ctx context.Context, address string, node int, opts Options) (*Nic, error) {
	const op = "OpenNic"
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("vipl node %d", node)
	}
	n, err := simbus.OpenNode(ctx, address, node, simbus.NodeOptions{
		Name:        name,
		MemoryBytes: opts.MemoryBytes,
		Driver:      driver.Options{Logger: opts.Logger},
		Memory:      driver.MemoryOptions{Seed: opts.Seed},
	})
	if err != nil {
		return nil, newErr(op, ErrorResource, err, "node %d at %s", node, address)
	}
	s, err := n.NIC.OpenSession(name, 0)
	if err != nil {
		n.Close()
		return nil, newErr(op, ErrorResource, err, "node %d", node)
	}
	a := NewLocalAgent(n.NIC, s)
	a.onClose = n.Close
	// Doorbells ring on the process's own connection (userconn.go).
	if err := a.DialUser(ctx, address, node, name+" doorbells"); err != nil {
		a.Close(context.Background())
		return nil, err
	}
	nic, err := NewNic(ctx, a)
	if err != nil {
		a.Close(context.Background())
		return nil, err
	}
	nic.SetPollInterval(opts.PollInterval)
	return nic, nil
}

// NewNic opens a NIC through agent, a kernel agent the caller set up (a
// LocalAgent over a driver session, or one in another process). The Nic
// owns the agent from then on: Close closes it.
func NewNic(ctx context.Context, agent KernelAgent) (*Nic, error) {
	attrs, err := agent.QueryNic(ctx)
	if err != nil {
		return nil, wrapErr("OpenNic", err)
	}
	return &Nic{agent: agent, attrs: attrs, bufs: map[uint64]*Buffer{}, regions: map[MemHandle]memRange{}, vis: map[ViID]*Vi{}}, nil
}

// SetPollInterval sets the NIC's Options.PollInterval (for a Nic of
// NewNic, whose default is 0).
func (n *Nic) SetPollInterval(cycles int64) { n.poll.Store(cycles) }

// Cycle returns the NIC's clock cycle as the process last saw it: the
// simulated time, for measuring (not a VIPL call).
func (n *Nic) Cycle() uint64 { return n.agent.Events().Cycle() }

// ClockPS returns the length of one NIC clock cycle in picoseconds (0:
// unknown), to turn Cycle differences into time (not a VIPL call).
func (n *Nic) ClockPS() uint32 { return n.agent.Events().ClockPS() }

// Park blocks on the simulator until ctx is done, letting simulated time
// run for the other clients, then returns nil (or, if its wait on the NIC
// failed on its own, a closed connection say, that error). Not a VIPL call. In
// lockstep, time advances only while every client of the simulator is
// blocked on it or gone, so a process that waits for something outside the
// simulator with a Nic open (another process, another Nic of its own, a
// user at a prompt) stops time for everyone until it parks the Nic or
// closes it (docs/vipl.md, "Several NICs and processes in lockstep"). Park waits
// for completions without a deadline. When every client is parked and the
// NICs have nothing to do, the simulator reports a deadlock; a client
// still to connect may be what everyone waits for, so Park waits a
// millisecond of wall time and parks again, until ctx ends. On a
// free-running simulator it only waits for ctx.
func (n *Nic) Park(ctx context.Context) error {
	if err := n.checkLocked("Park"); err != nil {
		return err
	}
	ev := n.agent.Events()
	g := ev.Gen()
	for {
		var err error
		g, err = ev.Wait(ctx, g, 0)
		n.waited()
		if ctx.Err() != nil {
			// the end of the park; unless the wait failed for a reason
			// of its own (a closed connection), which must not go unseen
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return wrapErr("Park", err)
			}
			return nil
		}
		if errors.Is(err, driver.ErrBusStalled) {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Millisecond):
			}
			continue
		}
		if err != nil {
			return wrapErr("Park", err)
		}
	}
}

// pollCycles is what a Done that finds nothing lets pass.
func (n *Nic) pollCycles() uint64 {
	switch p := n.poll.Load(); {
	case p < 0:
		return 0
	case p > 0:
		return uint64(p)
	}
	if n.agent.Events().FreeRunning() {
		return 0
	}
	return DefaultPollInterval
}

// Close closes the NIC (VipCloseNic) as the process's exit would: the
// agent deregisters its regions, destroys its protection tags and frees
// its memory. Buffers from Alloc are unusable afterwards. Closing twice
// does nothing.
func (n *Nic) Close(ctx context.Context) error {
	if nt := n.nt.Load(); nt != nil {
		nt.close()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	if n.errs != nil {
		n.errs.stop()
	}
	for _, b := range n.bufs {
		b.Bytes = nil
	}
	for _, c := range n.cqs {
		c.mu.Lock()
		c.destroyed, c.ring = true, nil
		c.mu.Unlock()
	}
	clear(n.cqs)
	clear(n.bufs)
	clear(n.regions)
	return wrapErr("CloseNic", n.agent.Close(ctx))
}

// check fails when the NIC is closed. Call with n.mu held.
func (n *Nic) check(op string) error {
	if n.closed {
		return newErr(op, InvalidParameter, nil, "the NIC is closed")
	}
	return nil
}

// Query answers the NIC's attributes (VipQueryNic).
func (n *Nic) Query(ctx context.Context) (NicAttributes, error) {
	const op = "QueryNic"
	n.mu.Lock()
	err := n.check(op)
	n.mu.Unlock()
	if err != nil {
		return NicAttributes{}, err
	}
	a, err := n.agent.QueryNic(ctx)
	return a, wrapErr(op, err)
}

// CreatePtag creates a protection tag (VipCreatePtag).
func (n *Nic) CreatePtag(ctx context.Context) (Ptag, error) {
	const op = "CreatePtag"
	if err := n.checkLocked(op); err != nil {
		return 0, err
	}
	p, err := n.agent.CreatePtag(ctx)
	return p, wrapErr(op, err)
}

// DestroyPtag destroys a protection tag (VipDestroyPtag); it fails with
// VIP_ERROR_RESOURCE while a region uses it.
func (n *Nic) DestroyPtag(ctx context.Context, p Ptag) error {
	const op = "DestroyPtag"
	if err := n.checkLocked(op); err != nil {
		return err
	}
	return wrapErr(op, n.agent.DestroyPtag(ctx, p))
}

func (n *Nic) checkLocked(op string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.check(op)
}

// RegisterMem registers [va, va+length) of memory from Alloc for the NIC
// (VipRegisterMem) and returns the region's memory handle. The same memory
// may be registered more than once.
func (n *Nic) RegisterMem(ctx context.Context, va uint64, length int, attrs MemAttributes) (MemHandle, error) {
	const op = "RegisterMem"
	if err := n.checkLocked(op); err != nil {
		return 0, err
	}
	h, err := n.agent.RegisterMem(ctx, va, length, attrs)
	if err != nil {
		return 0, wrapErr(op, err)
	}
	n.mu.Lock()
	n.regions[h] = memRange{va: va, length: length}
	n.mu.Unlock()
	return h, nil
}

// DeregisterMem deregisters the region h that starts at va
// (VipDeregisterMem). When it returns, the NIC no longer touches the
// region's memory and h is invalid.
func (n *Nic) DeregisterMem(ctx context.Context, va uint64, h MemHandle) error {
	const op = "DeregisterMem"
	if err := n.checkLocked(op); err != nil {
		return err
	}
	if err := n.agent.DeregisterMem(ctx, va, h); err != nil {
		return wrapErr(op, err)
	}
	n.mu.Lock()
	delete(n.regions, h)
	n.mu.Unlock()
	return nil
}

// QueryMem answers the attributes of region h that starts at va
// (VipQueryMem).
func (n *Nic) QueryMem(ctx context.Context, va uint64, h MemHandle) (MemAttributes, error) {
	const op = "QueryMem"
	if err := n.checkLocked(op); err != nil {
		return MemAttributes{}, err
	}
	a, err := n.agent.QueryMem(ctx, va, h)
	return a, wrapErr(op, err)
}

// SetMemAttributes changes the attributes of region h that starts at va
// (VipSetMemAttributes); its handle stays valid.
func (n *Nic) SetMemAttributes(ctx context.Context, va uint64, h MemHandle, attrs MemAttributes) error {
	const op = "SetMemAttributes"
	if err := n.checkLocked(op); err != nil {
		return err
	}
	return wrapErr(op, n.agent.SetMemAttributes(ctx, va, h, attrs))
}

// Alloc allocates a buffer of size bytes (whole pages underneath) that can
// be registered: virtually contiguous, physically scattered over the
// node's host memory. Reading and writing Bytes reads and writes what the
// NIC sees.
func (n *Nic) Alloc(ctx context.Context, size int) (*Buffer, error) {
	const op = "Alloc"
	if err := n.checkLocked(op); err != nil {
		return nil, err
	}
	m, err := n.agent.Alloc(ctx, size)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	b := &Buffer{VA: m.VA, Bytes: m.Bytes}
	n.mu.Lock()
	n.bufs[b.VA] = b
	n.mu.Unlock()
	return b, nil
}

// Free returns b's memory. Memory still registered cannot be freed
// (VIP_ERROR_RESOURCE); a buffer not from this Nic's Alloc, or freed
// already, is VIP_INVALID_PARAMETER. Free sets b.Bytes to nil.
func (n *Nic) Free(ctx context.Context, b *Buffer) error {
	const op = "Free"
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.check(op); err != nil {
		return err
	}
	if b == nil || n.bufs[b.VA] != b {
		return newErr(op, InvalidParameter, nil, "not a buffer of this NIC's Alloc")
	}
	if err := n.agent.Free(ctx, b.VA); err != nil {
		return wrapErr(op, err)
	}
	delete(n.bufs, b.VA)
	b.Bytes = nil
	return nil
}

// bytesAt returns the bytes [va, va+size) of a live buffer. Call with n.mu
// held.
func (n *Nic) bytesAt(va uint64, size int) ([]byte, bool) {
	for _, b := range n.bufs {
		if va < b.VA {
			continue
		}
		off := va - b.VA
		if off > uint64(len(b.Bytes)) || uint64(size) > uint64(len(b.Bytes))-off {
			continue
		}
		return b.Bytes[off : off+uint64(size) : off+uint64(size)], true
	}
	return nil, false
}
