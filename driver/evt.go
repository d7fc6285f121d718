package driver

import (
	"context"
	"fmt"
	"sync"

	"github.com/vianic/vianic/internal/hw"
)

// The NIC's interrupt vectors (via_evt; docs/vi.md, "Interrupt vectors").
//
// Every session gets one of the NIC's vectors when it opens (the least used
// one: sessions share vectors only when there are more sessions than
// vectors). The driver routes each VI and CQ the session creates to the
// session's vector (EVT_MAP), so the session's waiters wait on that vector's
// IRQ_STATUS bit only and never wake for another session's completions. A
// waiter arms what it waits for (Arm, ArmCQ: one posted write) before it
// blocks; the vector's interrupt is moderated as SetModeration says.

// NumVectors is the number of interrupt vectors of the NIC (EVT_CAP.NUM at
// the default parameters; IRQ_STATUS.VEC has one bit per vector).
const NumVectors = 8

// vecState is the driver's view of the vectors: which sessions use which,
// and the moderation it set (written again after a NIC reset).
type vecState struct {
	mu    sync.Mutex
	users [NumVectors]int
	mod   [NumVectors]uint32 // EVT_MOD words set (0: the reset value)
	epoch uint64             // NIC.resets when mod was last written
}

// allocVector picks the least used vector for a new session.
func (n *NIC) allocVector() int {
	n.vec.mu.Lock()
	defer n.vec.mu.Unlock()
	best := 0
	for v := range NumVectors {
		if n.vec.users[v] < n.vec.users[best] {
			best = v
		}
	}
	n.vec.users[best]++
	return best
}

// freeVector returns a session's vector (its Close).
func (n *NIC) freeVector(v int) {
	n.vec.mu.Lock()
	defer n.vec.mu.Unlock()
	if n.vec.users[v] > 0 {
		n.vec.users[v]--
	}
}

// Vector returns the session's interrupt vector (0..NumVectors-1).
func (s *Session) Vector() int { return s.vec }

// Events returns the completion path of the session's vector: the one its
// waiters block on (Completions, with IRQ_STATUS.VEC's bit of the vector
// and the asynchronous errors). Sessions that share a vector share it.
func (s *Session) Events() *Completions { return s.n.VectorEvents(s.vec) }

// VectorEvents returns the completion path of vector v (one per vector).
func (n *NIC) VectorEvents(v int) *Completions {
	n.vecOnce[v].Do(func() {
		n.vecEv[v] = newCompletions(n, uint32(1)<<(int(hw.IrqStatusVec.LSB)+v), fmt.Sprintf("vector %d", v), true)
	})
	return n.vecEv[v]
}

// routeLocked routes VI index (or CQ index, when cq) to vector v: EVT_MAP
// (which also disarms it). Call with n.mu held.
func (n *NIC) routeLocked(ctx context.Context, index uint32, cq bool, v int) error {
	if err := n.restoreModLocked(ctx); err != nil {
		return err
	}
	return n.b.Write32(ctx, hw.RegEvtMap, hw.EvtMapIndex.Val(index)|hw.EvtMapCq.Val(b2u(cq))|hw.EvtMapVec.Val(uint32(v)))
}

func (s *Session) route(ctx context.Context, index uint32, cq bool) error {
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return err
	}
	return n.routeLocked(ctx, index, cq, s.vec)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// restoreModLocked writes the vectors' moderation again after a NIC reset
// (which set every vector back to COUNT 1, TIME 0). Call with n.mu held.
func (n *NIC) restoreModLocked(ctx context.Context) error {
	n.vec.mu.Lock()
	defer n.vec.mu.Unlock()
	cur := n.resets.Load()
	if n.vec.epoch == cur {
		return nil
	}
	for v, w := range n.vec.mod {
		if w == 0 {
			continue
		}
		if err := n.writeModLocked(ctx, v, w); err != nil {
			return err
		}
	}
	n.vec.epoch = cur
	return nil
}

// writeModLocked writes vector v's EVT_MOD word. Call with n.mu held.
func (n *NIC) writeModLocked(ctx context.Context, v int, w uint32) error {
	return n.writeRegs(ctx, [2]uint32{hw.RegEvtVsel, uint32(v)}, [2]uint32{hw.RegEvtMod, w})
}

// Arm arms the completion interrupt of queue q (QueueSend, QueueRecv) of
// one of the session's VIs: its next completions count for the session's
// vector until the vector's interrupt is raised. Take the completion
// generation, look at the queue, Arm, look again, then Wait: a completion
// after the arm raises the interrupt. One posted write; on a free-running
// NIC a read follows, so the arm is in place when Arm returns.
func (s *Session) Arm(ctx context.Context, vi VI, q int) error {
	const op = "Arm"
	if err := checkQueue(q); err != nil {
		return vipErr(op, hw.VipReturnInvalidParameter, err, "")
	}
	s.mu.Lock()
	err := s.viLookup(op, vi)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.arm(ctx, op, hw.EvtArmIndex.Val(uint32(vi))|hw.EvtArmQueue.Val(uint32(q)))
}

// ArmCQ arms the completion interrupt of one of the session's CQs, as Arm
// does a queue's: the CQ's next entries count for the session's vector.
func (s *Session) ArmCQ(ctx context.Context, cq CQ) error {
	const op = "ArmCQ"
	s.mu.Lock()
	_, err := s.cqLookup(op, cq)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.arm(ctx, op, hw.EvtArmIndex.Val(uint32(cq))|hw.EvtArmCq.Val(1))
}

func (s *Session) arm(ctx context.Context, op string, w uint32) error {
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	if err := n.b.Write32(ctx, hw.RegEvtArm, w); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	if n.b.Info().FreeRunning {
		if _, err := n.b.Read32(ctx, hw.RegEvtArm); err != nil {
			return vipErr(op, hw.VipReturnErrorResource, err, "")
		}
	}
	return nil
}

// MaxModerationCount and MaxModerationCycles are the largest moderation
// settings (EVT_MOD.COUNT, EVT_MOD.TIME).
const (
	MaxModerationCount  = 255
	MaxModerationCycles = 65535
)

// SetModeration sets the moderation of the session's vector: once a
// completion of an armed queue or CQ has come, the interrupt is raised when
// count of them have come or cycles NIC cycles after the first, whichever
// is first (count 0 or 1: at once; cycles 0: no time limit, only count
// raises it). Sessions that share a vector share its moderation.
// VIP_INVALID_PARAMETER beyond MaxModerationCount or MaxModerationCycles.
func (s *Session) SetModeration(ctx context.Context, count, cycles uint32) error {
	const op = "SetModeration"
	if count > MaxModerationCount || cycles > MaxModerationCycles {
		return vipErr(op, hw.VipReturnInvalidParameter, nil, "count %d (at most %d), %d cycles (at most %d)", count, MaxModerationCount, cycles, MaxModerationCycles)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	if err := n.restoreModLocked(ctx); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	w := hw.EvtModCount.Val(count) | hw.EvtModTime.Val(cycles)
	if err := n.writeModLocked(ctx, s.vec, w); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	n.vec.mu.Lock()
	n.vec.mod[s.vec] = w
	n.vec.mu.Unlock()
	return nil
}

// VectorStats are a vector's counters (EVT_RAISED, EVT_EVENTS).
type VectorStats struct {
	Raised uint32 // interrupts raised (wraps)
	Events uint32 // completions of armed queues and CQs counted (wraps)
}

// VectorStats reads vector v's counters.
func (n *NIC) VectorStats(ctx context.Context, v int) (VectorStats, error) {
	if v < 0 || v >= NumVectors {
		return VectorStats{}, fmt.Errorf("driver: VectorStats: vector %d (0..%d)", v, NumVectors-1)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return VectorStats{}, err
	}
	if err := n.b.Write32(ctx, hw.RegEvtVsel, uint32(v)); err != nil {
		return VectorStats{}, err
	}
	r, err := n.b.Read32(ctx, hw.RegEvtRaised)
	if err != nil {
		return VectorStats{}, err
	}
	e, err := n.b.Read32(ctx, hw.RegEvtEvents)
	if err != nil {
		return VectorStats{}, err
	}
	return VectorStats{Raised: r, Events: e}, nil
}
