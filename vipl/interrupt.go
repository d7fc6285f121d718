package vipl

import (
	"context"
	"time"
)

// Moderation is how the process's completion interrupt is moderated
// (coalesced): once a completion of a queue or CQ that a waiter armed has
// come, the interrupt is raised when Count of them have come or Delay of
// simulated time after the first, whichever comes first. The zero value
// (and Count 1) raises it at every completion, at once.
//
// A process blocked in SendWait, RecvWait or CQWait wakes on the interrupt;
// with moderation it wakes less often and finds several completions at
// once. Delay 0 with Count above 1 waits for Count completions however
// long that takes: only set it when that many are sure to come. Delay is
// rounded up to whole NIC clock cycles, at most 65,535 of them (262 us at
// the reference 250 MHz); Count is at most 255.
type Moderation struct {
	Count int
	Delay time.Duration
}

// SetModeration sets the moderation of the process's completion interrupt
// (a vianic extension; VIA leaves it to the provider). The interrupt is
// the process's own (its VIs' and CQs'); if more processes use the NIC
// than it has interrupt vectors (8), processes share a vector and its
// moderation. VIP_INVALID_PARAMETER for a negative or too large Count or
// Delay.
func (n *Nic) SetModeration(ctx context.Context, m Moderation) error {
	const op = "SetModeration"
	if err := n.checkLocked(op); err != nil {
		return err
	}
	if m.Count < 0 || m.Count > 255 || m.Delay < 0 {
		return newErr(op, InvalidParameter, nil, "count %d (0..255), delay %v (not negative)", m.Count, m.Delay)
	}
	ps := cyclePS(n.agent.Events().ClockPS())
	cycles := (uint64(m.Delay.Nanoseconds())*1000 + ps - 1) / ps
	if cycles > 65535 {
		return newErr(op, InvalidParameter, nil, "delay %v is %d NIC cycles (at most 65,535)", m.Delay, cycles)
	}
	return wrapErr(op, n.agent.SetModeration(ctx, uint32(m.Count), uint32(cycles)))
}

// Interrupts returns how many times the process has taken its completion
// interrupt (the wake-ups of its waits; moderation makes them fewer).
func (n *Nic) Interrupts() uint64 { return n.agent.Events().Gen() }
