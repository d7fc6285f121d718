package driver

import (
	"context"
	"fmt"
	"sync"

	"github.com/vianic/vianic/internal/hw"
)

// irqVIDone is IRQ_STATUS.VI_DONE: the NIC completed a descriptor (any VI,
// any queue).
const irqVIDone = hw.IrqStatusViDoneMask

// IRQVIDone is the IRQ_STATUS bit the completion path waits on (VI_DONE).
const IRQVIDone = irqVIDone

// Completions is the driver's completion-interrupt path of one NIC: the
// one place that waits for and clears IRQ_STATUS.VI_DONE, so that several
// waiters (goroutines, sessions) never take each other's wake-ups.
//
// It counts a generation: Gen grows every time the driver clears VI_DONE
// after seeing it, and the clear has reached the NIC before the generation
// grows. Since the NIC writes a descriptor's Status before it raises
// VI_DONE, a waiter that
//
//  1. takes g := Gen(),
//  2. checks its descriptor's Status,
//  3. calls Wait(ctx, g, timeout) if the Status was not done, and starts
//     again at 1 when Wait returns without error,
//
// loses no completion: one that came after step 2 either keeps VI_DONE set
// (so the wait ends at once) or was cleared, which grew the generation
// past g. At most one wait on VI_DONE is outstanding on the bus at a time
// (the leader's, until the earliest deadline among the waiters); the
// others wait for its broadcast.
type Completions struct {
	n     *NIC
	bit   uint32 // the IRQ_STATUS bit: VI_DONE, a vector's, or FW_EVENT for FWEvents
	name  string
	async bool // the bus wait also waits for ASYNC_ERR (and drains the errors)

	mu        sync.Mutex
	gen       uint64
	changed   chan struct{}  // closed and replaced at every bump, timeout or leader change
	leader    bool           // a waiter has a WaitIRQ outstanding
	leaderEnd uint64         // the cycle the leader's wait times out (0: never)
	preempt   func()         // cancels the leader's wait
	deadlines map[uint64]int // waiters by deadline cycle (0: none)
}

// Completions returns the NIC's completion path (one per NIC).
func (n *NIC) Completions() *Completions {
	n.complOnce.Do(func() {
		n.compl = newCompletions(n, irqVIDone, "VI_DONE", true)
	})
	return n.compl
}

// FWEvents returns the path of the firmware's host events
// (IRQ_STATUS.FW_EVENT: connection-management news), with the same
// generation scheme as Completions (one per NIC).
func (n *NIC) FWEvents() *Completions {
	n.fwevOnce.Do(func() {
		n.fwev = newCompletions(n, hw.IrqStatusFwEventMask, "FW_EVENT", false)
	})
	return n.fwev
}

func newCompletions(n *NIC, bit uint32, name string, async bool) *Completions {
	return &Completions{n: n, bit: bit, name: name, async: async, changed: make(chan struct{}), deadlines: map[uint64]int{}}
}

// Gen returns the completion generation (see Completions).
func (c *Completions) Gen() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// enable makes sure IRQ_ENABLE has VI_DONE (a boot or recovery rewrites
// IRQ_ENABLE with the driver's own interrupts only).
func (c *Completions) enable(ctx context.Context) error {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	if n.irqEn&c.mask() == c.mask() {
		return nil
	}
	n.irqEn |= c.mask()
	return n.b.Write32(ctx, hw.RegIrqEnable, n.irqEn)
}

// mask is what the path's bus wait waits for: its bit, and on the
// completion paths (VI_DONE, the vectors) the asynchronous errors (drained
// by the leader, so that a process blocked in a wait learns of them:
// async.go).
func (c *Completions) mask() uint32 {
	if c.async {
		return c.bit | irqAsync
	}
	return c.bit
}

// broadcast wakes every waiter. Call with c.mu held.
func (c *Completions) broadcast() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// minDeadline is the earliest waiter deadline (0: none). Call with c.mu
// held.
func (c *Completions) minDeadline() uint64 {
	var m uint64
	for d := range c.deadlines {
		if d != 0 && (m == 0 || d < m) {
			m = d
		}
	}
	return m
}

// Wait blocks until the generation is past gen (a completion was seen, or
// already had been: check again), or timeoutCycles simulated cycles have
// passed since the call (an error matching ErrBusTimeout; 0: no timeout),
// or ctx ends. It returns the generation it saw. In lockstep mode the
// waiting lets simulated time pass.
func (c *Completions) Wait(ctx context.Context, gen uint64, timeoutCycles uint64) (uint64, error) {
	if err := c.enable(ctx); err != nil {
		return gen, err
	}
	var deadline uint64
	if timeoutCycles > 0 {
		deadline = c.n.b.Cycle() + timeoutCycles
	}
	c.mu.Lock()
	c.deadlines[deadline]++
	defer func() {
		if c.deadlines[deadline]--; c.deadlines[deadline] == 0 {
			delete(c.deadlines, deadline)
		}
		if deadline != 0 {
			c.broadcast() // the earliest deadline may have changed
		}
		c.mu.Unlock()
	}()
	for {
		if c.gen != gen {
			return c.gen, nil
		}
		now := c.n.b.Cycle()
		if deadline != 0 && now >= deadline {
			return c.gen, fmt.Errorf("%w: no completion within %d cycles", ErrBusTimeout, timeoutCycles)
		}
		if err := ctx.Err(); err != nil {
			return c.gen, err
		}
		if c.n.closed.Load() {
			return c.gen, ErrClosed
		}
		if m := c.minDeadline(); c.leader || m != 0 && m <= now {
			// Someone waits on the bus already, or another waiter's
			// deadline has passed and it has yet to return (it
			// broadcasts when it does).
			// Make the bus wait end by our deadline if it would not.
			if c.leader && deadline != 0 && (c.leaderEnd == 0 || deadline < c.leaderEnd) && c.preempt != nil {
				c.preempt()
				c.preempt = nil
			}
			ch := c.changed
			c.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
			}
			c.mu.Lock()
			continue
		}
		if err := c.lead(ctx, now); err != nil {
			return c.gen, err
		}
	}
}

// lead waits on the bus for VI_DONE until the earliest deadline of the
// waiters, then clears it and grows the generation, and wakes everyone.
// Call with c.mu held; it is released during the wait.
func (c *Completions) lead(ctx context.Context, now uint64) error {
	end := c.minDeadline()
	var timeout uint64
	if end != 0 {
		timeout = end - now // Wait made sure end > now
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.leader, c.leaderEnd, c.preempt = true, end, cancel
	c.mu.Unlock()
	irq, err := c.n.b.WaitIRQ(wctx, c.mask(), timeout)
	var clearErr error
	if err == nil && irq.Vector&c.mask()&^c.bit != 0 {
		clearErr = c.n.drainAsync(ctx)
	}
	if err == nil && irq.Vector&c.bit != 0 && clearErr == nil {
		// Clear, and know the clear reached the NIC (a read returns after
		// the writes before it) before the generation grows.
		if clearErr = c.n.b.Write32(ctx, hw.RegIrqStatus, c.bit); clearErr == nil {
			_, clearErr = c.n.b.Read32(ctx, hw.RegIrqStatus)
		}
	}
	c.mu.Lock()
	c.leader, c.leaderEnd, c.preempt = false, 0, nil
	if err == nil && irq.Vector&c.bit != 0 && clearErr == nil {
		c.gen++
	}
	c.broadcast()
	switch {
	case clearErr != nil:
		return fmt.Errorf("driver: clearing %s: %w", c.name, clearErr)
	case err == nil, isTimeout(err):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() != nil:
		return nil // preempted by a waiter with an earlier deadline
	}
	return fmt.Errorf("driver: waiting for %s: %w", c.name, err)
}

// Idle lets cycles simulated cycles pass (Bus.Run) and returns the cycle
// reached: what a polling loop does between two looks at host memory in
// lockstep mode, where time passes only while the process waits.
//
// Once a session has an asynchronous-error handler, the cycles pass in a
// bus wait for IRQ_STATUS.ASYNC_ERR instead (the same cycles), and errors
// that come meanwhile are read and dispatched (async.go).
func (n *NIC) Idle(ctx context.Context, cycles uint64) (uint64, error) {
	if n.closed.Load() {
		return 0, ErrClosed
	}
	if !n.hasHandlers() {
		return n.b.Run(ctx, cycles)
	}
	if err := n.enableIRQ(ctx, irqAsync); err != nil {
		return 0, err
	}
	end := n.b.Cycle() + cycles
	for {
		now := n.b.Cycle()
		if now >= end {
			return now, nil
		}
		irq, err := n.b.WaitIRQ(ctx, irqAsync, end-now)
		switch {
		case isTimeout(err):
			return n.b.Cycle(), nil
		case err != nil:
			return 0, err
		}
		if irq.Vector&irqAsync != 0 {
			if err := n.drainAsync(ctx); err != nil {
				return 0, err
			}
		}
	}
}

// enableIRQ makes sure IRQ_ENABLE has the bits of mask.
func (n *NIC) enableIRQ(ctx context.Context, mask uint32) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	if n.irqEn&mask == mask {
		return nil
	}
	n.irqEn |= mask
	return n.b.Write32(ctx, hw.RegIrqEnable, n.irqEn)
}

// Cycle returns the last device cycle the driver's bus saw.
func (n *NIC) Cycle() uint64 { return n.b.Cycle() }

// BusInfo describes the device behind the NIC's bus (its clock, whether
// its time runs free).
func (n *NIC) BusInfo() BusInfo { return n.b.Info() }
