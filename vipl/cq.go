package vipl

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// CQID names a completion queue to the kernel agent: its index on the NIC.
type CQID uint32

// CQ is a completion queue (VIP_CQ_HANDLE): the send and receive queues of
// VIs created with it (CreateViWithCQ) report their completions to it, and
// CQDone and CQWait say which queue completed, as VIA's do; the descriptor
// is then reaped from that queue with SendDone or RecvDone.
//
// The NIC writes the entries into a ring in the process's memory (mapped by
// the kernel agent); CQDone reads them there without calling the agent,
// and tells the NIC what it took with one posted write. The ring holds the
// entries CreateCQ asked for, rounded up to a power of two; a CQ with more
// completions not taken than that overflows: the NIC stops writing its
// entries (the descriptors still complete in their queues) and the
// ErrorCallback gets VIP_ERROR_CATASTROPHIC for ResourceCQ. Safe for
// concurrent use.
type CQ struct {
	nic *Nic
	id  CQID

	mu        sync.Mutex
	ring      []byte // the mapping of the ring (len: entries * 8)
	cons      uint16 // entries taken, modulo 2**16 (the next entry's SEQ)
	destroyed bool
}

// ID is the CQ's number on its NIC.
func (c *CQ) ID() CQID { return c.id }

// Entries is the number of entries the CQ's ring holds.
func (c *CQ) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ring) / hw.DescCqEntryBytes
}

// CreateCQ creates a completion queue of at least entries entries
// (VipCreateCQ): VIP_INVALID_PARAMETER outside 1..NicAttributes.MaxCQEntries,
// VIP_ERROR_RESOURCE when the NIC has no CQ left.
func (n *Nic) CreateCQ(ctx context.Context, entries int) (*CQ, error) {
	const op = "CreateCQ"
	if err := n.checkLocked(op); err != nil {
		return nil, err
	}
	id, m, err := n.agent.CreateCQ(ctx, entries)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	c := &CQ{nic: n, id: id, ring: m.Bytes}
	n.mu.Lock()
	if n.cqs == nil {
		n.cqs = map[CQID]*CQ{}
	}
	n.cqs[id] = c
	n.mu.Unlock()
	return c, nil
}

func (c *CQ) check(op string) error {
	if err := c.nic.checkLocked(op); err != nil {
		return err
	}
	if c.destroyed {
		return newErr(op, InvalidParameter, nil, "CQ %d was destroyed", c.id)
	}
	return nil
}

// Destroy destroys the CQ (VipDestroyCQ): VIP_ERROR_RESOURCE while a VI
// created with it still exists.
func (c *CQ) Destroy(ctx context.Context) error {
	const op = "DestroyCQ"
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(op); err != nil {
		return err
	}
	if err := c.nic.agent.DestroyCQ(ctx, c.id); err != nil {
		return wrapErr(op, err)
	}
	c.destroyed = true
	c.ring = nil
	c.nic.mu.Lock()
	if c.nic.cqs[c.id] == c {
		delete(c.nic.cqs, c.id)
	}
	c.nic.mu.Unlock()
	return nil
}

// Resize gives the CQ room for at least entries entries (VipResizeCQ); the
// entries not taken yet stay, in order. VIP_INVALID_PARAMETER if entries
// cannot hold them (or is outside 1..MaxCQEntries): the CQ is unchanged.
// Completions that arrive meanwhile wait in the NIC.
func (c *CQ) Resize(ctx context.Context, entries int) error {
	const op = "ResizeCQ"
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(op); err != nil {
		return err
	}
	m, err := c.nic.agent.ResizeCQ(ctx, c.id, entries)
	if err != nil {
		return wrapErr(op, err)
	}
	c.ring = m.Bytes
	return nil
}

// entry reads slot i of the ring in one 8-byte load (the NIC writes an
// entry in one 8-byte write).
func (c *CQ) entry(i int) driver.CQEntry {
	p := (*uint64)(unsafe.Pointer(&c.ring[i*hw.DescCqEntryBytes]))
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], atomic.LoadUint64(p))
	return driver.ParseCQEntry(b[:])
}

// take returns the next entry if the NIC has written it, and reports it
// taken. Entries of VIs this Nic no longer has (destroyed after their
// completion) are skipped. Call with c.mu held.
func (c *CQ) take(ctx context.Context, op string) (*Vi, Queue, bool, error) {
	for {
		n := len(c.ring) / hw.DescCqEntryBytes
		e := c.entry(int(c.cons) & (n - 1))
		if !e.Valid || e.Seq != c.cons {
			return nil, 0, false, nil
		}
		c.cons++
		if err := c.nic.agent.CQConsumed(ctx, c.id, c.cons); err != nil {
			return nil, 0, false, wrapErr(op, err)
		}
		c.nic.mu.Lock()
		v := c.nic.vis[ViID(e.VI)]
		c.nic.mu.Unlock()
		if v != nil {
			return v, Queue(e.Queue), true, nil
		}
	}
}

// Done takes the CQ's next entry (VipCQDone): the VI and the queue
// (SendQueue or RecvQueue) whose descriptor completed; reap it with
// SendDone or RecvDone. VIP_NOT_DONE (ErrNotDone) when there is none; in
// lockstep mode that lets Options.PollInterval cycles pass first, as
// SendDone does.
func (c *CQ) Done(ctx context.Context) (*Vi, Queue, error) {
	const op = "CQDone"
	c.mu.Lock()
	if err := c.check(op); err != nil {
		c.mu.Unlock()
		return nil, 0, err
	}
	v, q, ok, err := c.take(ctx, op)
	c.mu.Unlock()
	if err != nil || ok {
		return v, q, err
	}
	return nil, 0, c.nic.notDone(ctx, op)
}

// Wait waits for the CQ's next entry (VipCQWait): as Done, but it blocks on
// the NIC's completion interrupt (raised when an entry is in memory) for up
// to timeoutMs milliseconds of simulated time (Infinite: no limit), then
// fails with VIP_TIMEOUT (ErrTimeout).
func (c *CQ) Wait(ctx context.Context, timeoutMs uint32) (*Vi, Queue, error) {
	const op = "CQWait"
	c.mu.Lock()
	err := c.check(op)
	c.mu.Unlock()
	if err != nil {
		return nil, 0, err
	}
	var v *Vi
	var q Queue
	what := func() string { return fmt.Sprintf("no entry on CQ %d", c.id) }
	arm := func() error { return c.nic.agent.Events().ArmCQ(ctx, c.id) }
	err = c.nic.waitFor(ctx, op, timeoutMs, what, arm, func() (bool, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.check(op); err != nil {
			return false, err
		}
		var ok bool
		var err error
		v, q, ok, err = c.take(ctx, op)
		return ok, err
	})
	return v, q, err
}

// CreateViWithCQ creates a VI whose send queue reports to sendCQ and whose
// receive queue reports to recvCQ (VipCreateVi with its CQ arguments; nil:
// that queue reports to no CQ). The CQs must be this Nic's
// (VIP_INVALID_PARAMETER); the rest is CreateVi's.
func (n *Nic) CreateViWithCQ(ctx context.Context, attrs ViAttributes, sendCQ, recvCQ *CQ) (*Vi, error) {
	const op = "CreateVi"
	for _, c := range []*CQ{sendCQ, recvCQ} {
		if c == nil {
			continue
		}
		if c.nic != n {
			return nil, newErr(op, InvalidParameter, nil, "CQ %d belongs to another NIC", c.id)
		}
		c.mu.Lock()
		err := c.check(op)
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	v, err := n.CreateVi(ctx, attrs)
	if err != nil {
		return nil, err
	}
	for q, c := range []*CQ{sendCQ, recvCQ} {
		if c == nil {
			continue
		}
		if err := n.agent.BindCQ(ctx, v.id, Queue(q), c.id); err != nil {
			if derr := v.Destroy(ctx); derr != nil {
				return nil, wrapErr(op, derr)
			}
			return nil, wrapErr(op, err)
		}
	}
	return v, nil
}

// CreateCQ implements KernelAgent: driver.Session.CreateCQ.
func (a *LocalAgent) CreateCQ(ctx context.Context, entries int) (CQID, Mapping, error) {
	if err := a.fence(ctx); err != nil {
		return 0, Mapping{}, agentErr("CreateCQ", err)
	}
	cq, b, err := a.s.CreateCQ(ctx, entries)
	if err != nil {
		return 0, Mapping{}, agentErr("CreateCQ", err)
	}
	return CQID(cq), Mapping{VA: b.VA, Bytes: b.Bytes}, nil
}

// DestroyCQ implements KernelAgent.
func (a *LocalAgent) DestroyCQ(ctx context.Context, id CQID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("DestroyCQ", err)
	}
	return agentErr("DestroyCQ", a.s.DestroyCQ(ctx, driver.CQ(id)))
}

// ResizeCQ implements KernelAgent.
func (a *LocalAgent) ResizeCQ(ctx context.Context, id CQID, entries int) (Mapping, error) {
	if err := a.fence(ctx); err != nil {
		return Mapping{}, agentErr("ResizeCQ", err)
	}
	b, err := a.s.ResizeCQ(ctx, driver.CQ(id), entries)
	if err != nil {
		return Mapping{}, agentErr("ResizeCQ", err)
	}
	return Mapping{VA: b.VA, Bytes: b.Bytes}, nil
}

// BindCQ implements KernelAgent.
func (a *LocalAgent) BindCQ(ctx context.Context, id ViID, q Queue, cq CQID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("BindCQ", err)
	}
	return agentErr("BindCQ", a.s.BindCQ(ctx, driver.VI(id), int(q), driver.CQ(cq)))
}

// CQConsumed implements KernelAgent: a posted write, no round trip.
func (a *LocalAgent) CQConsumed(ctx context.Context, id CQID, count uint16) error {
	return agentErr("CQConsumed", a.s.CQConsumed(ctx, driver.CQ(id), count))
}
