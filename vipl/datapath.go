package vipl

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
)

// Queue names one of a VI's two work queues.
type Queue int

// The queues, in the order of the doorbell page's registers.
const (
	SendQueue Queue = 0
	RecvQueue Queue = 1
)

func (q Queue) String() string {
	if q == SendQueue {
		return "send"
	}
	return "receive"
}

// Infinite is the timeout (VIP_INFINITE) with which SendWait and RecvWait
// wait until a descriptor completes, however long that takes.
const Infinite uint32 = 0xFFFFFFFF

// DefaultPollInterval is the simulated time, in NIC clock cycles (4 ns
// each at the reference 250 MHz), that SendDone and RecvDone let pass when
// they find nothing done and the simulator runs in lockstep (where time
// passes only while the process waits): 64 cycles, 256 ns, a few percent
// of a short message's latency.
const DefaultPollInterval = 64

// Doorbell is a VI's doorbell page mapped into the calling process (as
// Mapping.Bytes is memory): its writes go to the NIC without the kernel
// agent, posted, in order. vipl writes one queue from one goroutine at a
// time.
type Doorbell interface {
	// SetHandle writes the queue's HANDLE register: the memory handle of
	// the region holding the descriptors of the next doorbells.
	SetHandle(ctx context.Context, q Queue, h MemHandle) error
	// Ring writes the descriptor's address to the queue's DOORBELL (one
	// 64-bit posted write): the post.
	Ring(ctx context.Context, q Queue, va uint64) error
}

// Events is the calling process's view of the NIC's completion interrupt
// (IRQ_STATUS.VI_DONE, one for every descriptor any VI completes) and of
// its clock. The kernel agent owns the interrupt: it clears VI_DONE and
// counts a generation, so that several waiters never lose each other's
// wake-ups (see Wait).
type Events interface {
	// Gen returns the completion generation, which grows every time the
	// agent has seen and cleared the process's completion interrupt.
	Gen() uint64
	// Wait blocks until the generation is past gen, or timeoutCycles
	// cycles have passed (0: no timeout; an *Error with VIP_TIMEOUT), or
	// ctx ends. A waiter takes Gen, checks its descriptor, and only then
	// calls Wait with what it took: a completion after the check ends the
	// wait.
	Wait(ctx context.Context, gen uint64, timeoutCycles uint64) (uint64, error)
	// Idle lets cycles NIC clock cycles of simulated time pass (in
	// lockstep mode, time passes only while the process waits).
	Idle(ctx context.Context, cycles uint64) error
	// Cycle is the NIC's clock cycle as last seen.
	Cycle() uint64
	// ClockPS is the length of a NIC clock cycle in picoseconds (0:
	// unknown, taken as 4,000).
	ClockPS() uint32
	// FreeRunning says time passes on its own (real hardware, a
	// free-running simulator).
	FreeRunning() bool
	// Arm and ArmCQ arm the completion interrupt of one of the process's
	// VI queues or CQs: its next completions raise the process's interrupt
	// (after the moderation SetModeration set), which grows the
	// generation. A waiter takes Gen, looks, arms, looks again, and only
	// then calls Wait. The interrupt is the process's own: completions of
	// other processes' queues do not grow its generation.
	Arm(ctx context.Context, vi ViID, q Queue) error
	ArmCQ(ctx context.Context, cq CQID) error
}

// queue is vipl's bookkeeping of one work queue: the descriptors posted
// and not yet reaped, in order (the last is the tail the next post links
// to), and the handle last written to the queue's HANDLE register.
type queue struct {
	mu     sync.Mutex
	posted []*Desc
	handle MemHandle // 0: none written (a new VI's HANDLE is 0, never a valid handle)
}

// doorbell maps the VI's doorbell page on first use.
func (v *Vi) doorbell(ctx context.Context) (Doorbell, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.db != nil {
		return v.db, nil
	}
	db, err := v.nic.agent.MapDoorbell(ctx, v.id)
	if err != nil {
		return nil, err
	}
	v.db = db
	return db, nil
}

// PostSend posts d on the VI's send queue (VipPostSend): it sets d's
// Status to 0 (pending) and its Next to none, links it behind the queue's
// tail, writes the queue's HANDLE register if d's region differs from the
// last one written, and rings the doorbell. It does not wait for the NIC.
//
// Checks: d must be a descriptor of this Nic's NewDesc, 64-byte aligned,
// inside a region still registered through this Nic, and not already
// posted (VIP_INVALID_PARAMETER); the VI must be CONNECTED
// (VIP_INVALID_STATE); the queue must hold fewer than
// MaxDescriptorsPerQueue descriptors not yet reaped (VIP_ERROR_RESOURCE).
// That the descriptor and its data lie in memory of the VI's protection
// tag is the NIC's to check: it completes the descriptor with an error.
func (v *Vi) PostSend(ctx context.Context, d *Desc) error {
	return v.post(ctx, "PostSend", SendQueue, d)
}

// PostRecv posts d on the VI's receive queue (VipPostRecv), with the
// checks of PostSend but the state: receives may be posted on a VI in any
// state but ERROR, before it is connected too.
func (v *Vi) PostRecv(ctx context.Context, d *Desc) error {
	return v.post(ctx, "PostRecv", RecvQueue, d)
}

func (v *Vi) queue(q Queue) *queue {
	if q == SendQueue {
		return &v.sq
	}
	return &v.rq
}

func (v *Vi) post(ctx context.Context, op string, q Queue, d *Desc) error {
	n := v.nic
	if d == nil || d.b == nil {
		return newErr(op, InvalidParameter, nil, "no descriptor")
	}
	if d.va%DescAlign != 0 {
		return newErr(op, InvalidParameter, nil, "descriptor 0x%x is not %d-byte aligned", d.va, DescAlign)
	}
	n.mu.Lock()
	if err := n.check(op); err != nil {
		n.mu.Unlock()
		return err
	}
	r, ok := n.regions[d.handle]
	n.mu.Unlock()
	if !ok || d.va < r.va || d.va-r.va > uint64(r.length) || uint64(len(d.b)) > uint64(r.length)-(d.va-r.va) {
		return newErr(op, InvalidParameter, nil, "descriptor 0x%x does not lie in region 0x%x registered through this NIC", d.va, uint32(d.handle))
	}
	v.mu.Lock()
	state := v.state
	v.mu.Unlock()
	if v.destroyed.Load() {
		return newErr(op, InvalidParameter, nil, "VI %d was destroyed", v.id)
	}
	if q == SendQueue && state != ViConnected {
		return newErr(op, InvalidState, nil, "VI %d is %s, not CONNECTED", v.id, state)
	}
	if q == RecvQueue && state == ViError {
		return newErr(op, InvalidState, nil, "VI %d is in ERROR", v.id)
	}
	db, err := v.doorbell(ctx)
	if err != nil {
		return wrapErr(op, err)
	}

	qu := v.queue(q)
	qu.mu.Lock()
	defer qu.mu.Unlock()
	if max := n.attrs.MaxDescriptorsPerQueue; max > 0 && len(qu.posted) >= int(max) {
		return newErr(op, ErrorResource, nil, "the %s queue of VI %d holds %d descriptors, MaxDescriptorsPerQueue", q, v.id, len(qu.posted))
	}
	if !d.posted.CompareAndSwap(false, true) {
		return newErr(op, InvalidParameter, nil, "descriptor 0x%x is already posted", d.va)
	}
	// The descriptor: no successor yet, pending. Then the link from the
	// tail, if the queue has one that is not reaped (a reaped one is the
	// application's memory again, and the NIC has moved past it).
	clear(d.b[0:12])
	storeStatus(d.b, 0)
	if len(qu.posted) > 0 {
		tail := qu.posted[len(qu.posted)-1]
		binary.LittleEndian.PutUint32(tail.b[8:], uint32(d.handle))
		binary.LittleEndian.PutUint64(tail.b[0:], d.va)
	}
	if qu.handle != d.handle {
		if err := db.SetHandle(ctx, q, d.handle); err != nil {
			d.posted.Store(false)
			return wrapErr(op, err)
		}
		qu.handle = d.handle
	}
	if err := db.Ring(ctx, q, d.va); err != nil {
		d.posted.Store(false)
		return wrapErr(op, err)
	}
	qu.posted = append(qu.posted, d)
	return nil
}

// SendDone reaps the send queue's head (VipSendDone): if its Status is
// done, it is removed from the queue and returned, with the status, Length
// and ImmediateData the NIC wrote back (Desc.Status, Length,
// ImmediateData); else VIP_NOT_DONE (ErrNotDone), also on an empty queue.
// A descriptor that completed with an error is returned without error:
// its Status says what went wrong.
//
// In lockstep mode, where simulated time passes only while the process
// waits, a SendDone that finds nothing lets Options.PollInterval cycles
// pass first, so a polling loop makes progress, the same way every run.
func (v *Vi) SendDone(ctx context.Context) (*Desc, error) {
	return v.done(ctx, "SendDone", SendQueue)
}

// RecvDone reaps the receive queue's head (VipRecvDone), as SendDone. On a
// completed receive, Length is the bytes received and, when
// Status().Immediate(), ImmediateData the sender's immediate data.
func (v *Vi) RecvDone(ctx context.Context) (*Desc, error) {
	return v.done(ctx, "RecvDone", RecvQueue)
}

// reap removes and returns the queue's head if it is done.
func (v *Vi) reap(q Queue) *Desc {
	qu := v.queue(q)
	qu.mu.Lock()
	defer qu.mu.Unlock()
	if len(qu.posted) == 0 {
		return nil
	}
	d := qu.posted[0]
	if !d.Status().Done() {
		return nil
	}
	qu.posted[0] = nil
	qu.posted = qu.posted[1:]
	if len(qu.posted) == 0 {
		qu.posted = nil
	}
	d.posted.Store(false)
	return d
}

func (v *Vi) done(ctx context.Context, op string, q Queue) (*Desc, error) {
	if err := v.nic.checkLocked(op); err != nil {
		return nil, err
	}
	if d := v.reap(q); d != nil {
		return d, nil
	}
	return nil, v.nic.notDone(ctx, op)
}

// notDone is a Done call's miss: in lockstep mode it lets the poll
// interval pass first (the notifier looks afterwards); VIP_NOT_DONE.
func (n *Nic) notDone(ctx context.Context, op string) error {
	if c := n.pollCycles(); c > 0 {
		err := n.agent.Events().Idle(ctx, c)
		n.waited()
		if err != nil {
			return wrapErr(op, err)
		}
	}
	return newErr(op, NotDone, nil, "")
}

// waitFor blocks on the process's completion interrupt until look finds
// what the caller waits for (true), fails, or timeoutMs milliseconds of
// simulated time have passed (Infinite: no limit; VIP_TIMEOUT with what,
// after one last look; what() says what did not come). Before it blocks it
// arms what it waits for (arm) and looks once more: the generation is
// taken before the first look, so a completion after it either is found by
// the second look or raises the armed interrupt and ends the wait. The
// notifier looks after each wait.
func (n *Nic) waitFor(ctx context.Context, op string, timeoutMs uint32, what func() string, arm func() error, look func() (bool, error)) error {
	ev := n.agent.Events()
	limited := timeoutMs != Infinite
	var deadline uint64
	if limited {
		deadline = ev.Cycle() + msToCycles(timeoutMs, ev.ClockPS())
	}
	for {
		g := ev.Gen()
		if ok, err := look(); err != nil || ok {
			return err
		}
		var left uint64 // 0: no limit
		if limited {
			now := ev.Cycle()
			if now >= deadline {
				return newErr(op, Timeout, nil, "%s within %d ms", what(), timeoutMs)
			}
			left = deadline - now
		}
		if err := arm(); err != nil {
			return wrapErr(op, err)
		}
		if ok, err := look(); err != nil || ok {
			return err
		}
		_, err := ev.Wait(ctx, g, left)
		n.waited()
		if err != nil {
			if Code(err) == Timeout {
				if ok, err := look(); err != nil || ok {
					return err
				}
				return newErr(op, Timeout, err, "%s within %d ms", what(), timeoutMs)
			}
			return wrapErr(op, err)
		}
	}
}

// SendWait waits for the send queue's head to complete and reaps it
// (VipSendWait): as SendDone, but it blocks on the NIC's completion
// interrupt for up to timeoutMs milliseconds of simulated time (Infinite:
// no limit) and then fails with VIP_TIMEOUT (ErrTimeout). Timeout 0 looks
// once. Several goroutines may wait at once, on any VIs and queues.
func (v *Vi) SendWait(ctx context.Context, timeoutMs uint32) (*Desc, error) {
	return v.wait(ctx, "SendWait", SendQueue, timeoutMs)
}

// RecvWait waits for the receive queue's head (VipRecvWait), as SendWait.
func (v *Vi) RecvWait(ctx context.Context, timeoutMs uint32) (*Desc, error) {
	return v.wait(ctx, "RecvWait", RecvQueue, timeoutMs)
}

// msToCycles converts a timeout in milliseconds to NIC clock cycles (ps
// picoseconds each; 0: the reference 4,000).
func msToCycles(ms uint32, ps uint32) uint64 {
	return uint64(ms) * 1_000_000_000 / cyclePS(ps)
}

// cyclePS is a NIC cycle's length in picoseconds (ps; 0: the reference
// 4,000).
func cyclePS(ps uint32) uint64 {
	if ps == 0 {
		return 4000
	}
	return uint64(ps)
}

func (v *Vi) wait(ctx context.Context, op string, q Queue, timeoutMs uint32) (*Desc, error) {
	if err := v.nic.checkLocked(op); err != nil {
		return nil, err
	}
	var d *Desc
	what := func() string { return fmt.Sprintf("nothing completed on the %s queue of VI %d", q, v.id) }
	arm := func() error { return v.nic.agent.Events().Arm(ctx, v.id, q) }
	err := v.nic.waitFor(ctx, op, timeoutMs, what, arm, func() (bool, error) {
		d = v.reap(q)
		return d != nil, nil
	})
	return d, err
}

// ConnectLoopback joins the VI with peer, another IDLE VI of the same NIC
// with the same reliability level and MaxTransferSize: both become
// CONNECTED, and what one sends the other receives through the NIC's
// loopback path. It is not a VIPL call: it stands in for connection
// management (VipConnectRequest and the rest), which comes later, and
// lets an application use the data path today. Errors: a peer of another
// Nic or the VI itself (VIP_INVALID_PARAMETER), a VI not IDLE
// (VIP_INVALID_STATE), different levels (VIP_INVALID_RELIABILITY_LEVEL) or
// sizes (VIP_INVALID_MTU).
func (v *Vi) ConnectLoopback(ctx context.Context, peer *Vi) error {
	const op = "ConnectLoopback"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	if peer == nil || peer.nic != v.nic || peer == v || peer.id == v.id {
		return newErr(op, InvalidParameter, nil, "the peer must be another VI of the same NIC")
	}
	if err := v.nic.agent.ConnectLoopback(ctx, v.id, peer.id); err != nil {
		return wrapErr(op, err)
	}
	for _, x := range [2]*Vi{v, peer} {
		x.mu.Lock()
		x.state = ViConnected
		x.mu.Unlock()
	}
	v.mu.Lock()
	v.peer = peer
	v.mu.Unlock()
	peer.mu.Lock()
	peer.peer = v
	peer.mu.Unlock()
	return nil
}

// ConnectRemote connects the VI, IDLE, to VI peer of the NIC at address
// remote (another node; NSGetHostByName gives the address of a name)
// without a handshake: the VI becomes CONNECTED, sends to that VI and
// takes messages only from it. The far side connects its VI back the same
// way. Like ConnectLoopback it is not a VIPL call: it brings up the data
// path between nodes for tests and bring-up (as a verbs QP moved to RTR by
// hand); ConnectRequest and ConnectWait are the VIPL's way. Errors: an address that is
// not a vianic node's or is this NIC's, a peer id above 65535
// (VIP_INVALID_PARAMETER); a VI not IDLE (VIP_INVALID_STATE).
func (v *Vi) ConnectRemote(ctx context.Context, remote NetAddress, peer ViID) error {
	const op = "ConnectRemote"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	node, ok := remote.Node()
	if !ok {
		return newErr(op, InvalidParameter, nil, "%v is not a vianic host address (one byte: the node)", remote.Host)
	}
	if err := v.nic.agent.ConnectRemote(ctx, v.id, uint32(node), peer); err != nil {
		return wrapErr(op, err)
	}
	v.mu.Lock()
	v.state, v.peer = ViConnected, nil
	v.mu.Unlock()
	return nil
}

// Disconnect ends the VI's connection (the loopback join of
// ConnectLoopback, or ConnectRemote's): the VI and its peer on this NIC go
// back to IDLE. Descriptors
// still queued stay queued (flushing them is later work). Not a VIPL call
// under this name (VipDisconnect comes with connection management).
// Errors: a VI not CONNECTED (VIP_INVALID_STATE).
func (v *Vi) Disconnect(ctx context.Context) error {
	const op = "Disconnect"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	if err := v.nic.agent.Disconnect(ctx, v.id); err != nil {
		return wrapErr(op, err)
	}
	v.mu.Lock()
	peer := v.peer
	v.state, v.peer = ViIdle, nil
	v.mu.Unlock()
	if peer != nil {
		peer.mu.Lock()
		peer.state, peer.peer = ViIdle, nil
		peer.mu.Unlock()
	}
	return nil
}
