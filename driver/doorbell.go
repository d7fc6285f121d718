package driver

import (
	"context"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// Doorbell pages (docs/vi.md, "Queues and doorbells" and "Doorbell and
// queue-state block"): VI k's page is BAR0 DoorbellBase + k*DoorbellStride;
// queue q (QueueSend 0, QueueRecv 1) has its registers at QueueStride*q.
const (
	QueueSend = 0 // the send queue's index in a doorbell page
	QueueRecv = 1 // the receive queue's index

	QueueStride    = 0x10 // bytes between the two queues' registers
	DoorbellOffset = 0x00 // 64-bit DOORBELL: the descriptor's VA (low word, then high word, which posts)
	HandleOffset   = 0x08 // 32-bit HANDLE: the memory handle of the next doorbell's descriptor
)

// Doorbell is one of a session's VIs' doorbell page, as the session's
// process has it mapped: its writes are posted straight to the NIC,
// without an admin command. Safe for concurrent use (the bus is), but the
// writes of one queue must come from one goroutine at a time, in post
// order (vipl serializes them per queue).
type Doorbell struct {
	n    *NIC
	vi   VI
	base uint32
}

// Doorbell maps the doorbell page of vi, one of the session's VIs
// (VIP_INVALID_PARAMETER otherwise). The mapping stays valid while the VI
// exists; writes after DestroyVI are dropped by the NIC (a disabled VI).
func (s *Session) Doorbell(vi VI) (*Doorbell, error) {
	const op = "Doorbell"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return nil, err
	}
	base, stride := s.n.caps.DoorbellBase, s.n.caps.DoorbellStride
	if base == 0 {
		base = hw.DoorbellBase
	}
	if stride == 0 {
		stride = hw.DoorbellStride
	}
	return &Doorbell{n: s.n, vi: vi, base: base + uint32(vi)*stride}, nil
}

// VI returns the VI whose page this is.
func (d *Doorbell) VI() VI { return d.vi }

// Offset returns the BAR0 offset of the page.
func (d *Doorbell) Offset() uint32 { return d.base }

func checkQueue(q int) error {
	if q != QueueSend && q != QueueRecv {
		return fmt.Errorf("driver: doorbell: queue %d is neither QueueSend nor QueueRecv", q)
	}
	return nil
}

// Ring posts the descriptor at va on queue q: one posted 64-bit write of
// va to the queue's DOORBELL (the bridge sends it as one message, low word
// first; the NIC acts on the high word). It does not wait for the NIC.
func (d *Doorbell) Ring(ctx context.Context, q int, va uint64) error {
	if err := checkQueue(q); err != nil {
		return err
	}
	if d.n.closed.Load() {
		return ErrClosed
	}
	return d.n.b.Write64(ctx, d.base+uint32(q)*QueueStride+DoorbellOffset, va)
}

// SetHandle posts a write of h to queue q's HANDLE register: the memory
// handle the NIC pairs with the next doorbells' addresses. Write it only
// when it changes (the NIC keeps it; a new VI's queues start at 0, which
// is never a valid handle).
func (d *Doorbell) SetHandle(ctx context.Context, q int, h MemHandle) error {
	if err := checkQueue(q); err != nil {
		return err
	}
	if d.n.closed.Load() {
		return ErrClosed
	}
	return d.n.b.Write32(ctx, d.base+uint32(q)*QueueStride+HandleOffset, uint32(h))
}

// Flush hands the posted writes to the NIC (they go anyway at the next
// read or wait of the bus).
func (d *Doorbell) Flush(ctx context.Context) error { return d.n.b.Flush(ctx) }
