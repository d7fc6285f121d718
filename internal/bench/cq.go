package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vianic/vianic/vipl"
)

// CQFigures are the completion queues' figures (issue 11), on the
// loopback of node 0 with a second VI pair whose send and receive queues
// report to one CQ.
type CQFigures struct {
	// Entry rate: RateMessages 8-byte receives pre-posted, as many sends
	// posted at once; every completion (send and receive) is taken from
	// the CQ, polling every cycle, and reaped from its queue.
	Entries         int     `json:"entries"`
	Cycles          uint64  `json:"cycles"`             // first doorbell to the last entry taken
	CyclesPerEntry  float64 `json:"cycles_per_entry"`   // after the first entry
	EntriesPerSec   float64 `json:"entries_per_sec"`    // Entries over Cycles at the NIC clock
	SteadyPerSec    float64 `json:"steady_per_sec"`     // after the first entry
	LatencyPoll     uint64  `json:"latency_poll"`       // 8 B, doorbell to the receive's entry taken, polling every cycle
	LatencyWait     uint64  `json:"latency_wait"`       // the same through CQWait (the interrupt wakes the process)
	WakeupOverhead  int64   `json:"wakeup_overhead"`    // LatencyWait - LatencyPoll
	LatencyNoCQPoll uint64  `json:"latency_no_cq_poll"` // 8 B, doorbell to RecvDone, polling, the pair without a CQ

	// Interrupt moderation (Nic.SetModeration): ModCount completions or
	// ModCycles cycles after the first, whichever comes first.
	ModCount     int    `json:"mod_count"`
	ModCycles    uint64 `json:"mod_cycles"`
	LatencyMod   uint64 `json:"latency_mod"`    // LatencyWait with moderation (a lone message waits for the time limit)
	BurstWait    uint64 `json:"burst_wait"`     // the entry-rate burst taken through CQWait: first doorbell to the last entry
	BurstIRQs    uint64 `json:"burst_irqs"`     // ... interrupts the process took for it
	BurstModWait uint64 `json:"burst_mod_wait"` // the same with moderation
	BurstModIRQs uint64 `json:"burst_mod_irqs"`
}

// viCQ measures CQ figures on n (after the other figures: descriptor
// slots 0.. are free again).
func viCQ(ctx context.Context, n *viNode, o ViOptions, f *ViFigures, progress func(string, ...any)) error {
	cq, err := n.nic.CreateCQ(ctx, 2*o.RateMessages)
	if err != nil {
		return err
	}
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: n.ptag, EnableRdmaWrite: true}
	c, err := n.nic.CreateViWithCQ(ctx, attrs, cq, nil)
	if err != nil {
		return err
	}
	d, err := n.nic.CreateViWithCQ(ctx, attrs, nil, cq)
	if err != nil {
		return err
	}
	if err := c.ConnectLoopback(ctx, d); err != nil {
		return err
	}
	n.nic.SetPollInterval(1)
	// take reads one entry (polling every cycle, or waiting) and reaps its
	// descriptor; it returns the cycle and whether it was a receive.
	take := func(wait bool) (uint64, bool, error) {
		for {
			var v *vipl.Vi
			var q vipl.Queue
			var err error
			if wait {
				v, q, err = cq.Wait(ctx, vipl.Infinite)
			} else {
				v, q, err = cq.Done(ctx)
			}
			if errors.Is(err, vipl.ErrNotDone) {
				continue
			}
			if err != nil {
				return 0, false, err
			}
			at := n.nic.Cycle()
			var x *vipl.Desc
			if q == vipl.RecvQueue {
				x, err = v.RecvDone(ctx)
			} else {
				x, err = v.SendDone(ctx)
			}
			if err != nil {
				return 0, false, fmt.Errorf("bench cq: the entry's descriptor: %w", err)
			}
			if err := checkDone(x, q == vipl.RecvQueue, 8); err != nil {
				return 0, false, err
			}
			return at, q == vipl.RecvQueue, nil
		}
	}
	post := func(k int) error {
		var recvs, sends []*vipl.Desc
		for i := range k {
			r, err := n.desc(2*i+1, n.rbuf+i*64, 8)
			if err != nil {
				return err
			}
			s, err := n.desc(2*i, n.sbuf, 8)
			if err != nil {
				return err
			}
			recvs, sends = append(recvs, r), append(sends, s)
		}
		for _, r := range recvs {
			if err := d.PostRecv(ctx, r); err != nil {
				return err
			}
		}
		if err := n.pass(ctx, 2000); err != nil {
			return err
		}
		for _, s := range sends {
			if err := c.PostSend(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	// warm up (TPT and descriptor caches, doorbell mappings)
	for range 2 {
		if err := post(1); err != nil {
			return err
		}
		for range 2 {
			if _, _, err := take(false); err != nil {
				return err
			}
		}
	}
	// latency: polling, then waiting, then the first pair without a CQ
	latency := func(wait bool) (uint64, error) {
		if err := post(1); err != nil {
			return 0, err
		}
		c0 := n.nic.Cycle()
		var recvAt uint64
		for range 2 {
			at, recv, err := take(wait)
			if err != nil {
				return 0, err
			}
			if recv {
				recvAt = at
			}
		}
		return recvAt - c0, nil
	}
	g := CQFigures{}
	if g.LatencyPoll, err = latency(false); err != nil {
		return err
	}
	if g.LatencyWait, err = latency(true); err != nil {
		return err
	}
	g.WakeupOverhead = int64(g.LatencyWait) - int64(g.LatencyPoll)
	s, err := n.desc(0, n.sbuf, 8)
	if err != nil {
		return err
	}
	r, err := n.desc(1, n.rbuf, 8)
	if err != nil {
		return err
	}
	c0, at, _, err := n.timed(ctx, []*vipl.Desc{s}, []*vipl.Desc{r}, []int{8})
	if err != nil {
		return err
	}
	g.LatencyNoCQPoll = at[0] - c0
	progress("CQ latency 8 B: %d cycles polling the CQ, %d through CQWait, %d polling RecvDone without a CQ", g.LatencyPoll, g.LatencyWait, g.LatencyNoCQPoll)

	// entry rate (burst: every entry taken as it comes, polling or waiting)
	burst := func(wait bool) (c0, first, last, irqs uint64, err error) {
		if err := post(o.RateMessages); err != nil {
			return 0, 0, 0, 0, err
		}
		c0, i0 := n.nic.Cycle(), n.nic.Interrupts()
		for i := range 2 * o.RateMessages {
			at, _, err := take(wait)
			if err != nil {
				return 0, 0, 0, 0, err
			}
			if i == 0 {
				first = at
			}
			last = at
		}
		return c0, first, last, n.nic.Interrupts() - i0, nil
	}
	c0, first, last, _, err := burst(false)
	if err != nil {
		return err
	}
	g.Entries = 2 * o.RateMessages
	g.Cycles = last - c0
	ps := float64(f.ClockPS)
	g.EntriesPerSec = float64(g.Entries) / (float64(g.Cycles) * ps * 1e-12)
	if g.Entries > 1 && last > first {
		g.CyclesPerEntry = float64(last-first) / float64(g.Entries-1)
		g.SteadyPerSec = 1 / (g.CyclesPerEntry * ps * 1e-12)
	}
	progress("CQ entries: %d (sends and receives of %d x 8 B) in %d cycles: %.3g entries/s, %.1f cycles/entry after the first",
		g.Entries, o.RateMessages, g.Cycles, g.EntriesPerSec, g.CyclesPerEntry)

	// interrupts: the burst through CQWait, then with moderation; the lone
	// message's wake-up with moderation
	c0, _, last, g.BurstIRQs, err = burst(true)
	if err != nil {
		return err
	}
	g.BurstWait = last - c0
	g.ModCount, g.ModCycles = 16, 250
	mod := vipl.Moderation{Count: g.ModCount, Delay: time.Duration(g.ModCycles*uint64(f.ClockPS)/1000) * time.Nanosecond}
	if err := n.nic.SetModeration(ctx, mod); err != nil {
		return err
	}
	c0, _, last, g.BurstModIRQs, err = burst(true)
	if err != nil {
		return err
	}
	g.BurstModWait = last - c0
	if g.LatencyMod, err = latency(true); err != nil {
		return err
	}
	if err := n.nic.SetModeration(ctx, vipl.Moderation{}); err != nil {
		return err
	}
	progress("CQ interrupts: %d entries through CQWait in %d cycles with %d interrupts; moderated (%d entries or %d cycles) %d cycles with %d interrupts; a lone 8 B message %d cycles (%d without)",
		g.Entries, g.BurstWait, g.BurstIRQs, g.ModCount, g.ModCycles, g.BurstModWait, g.BurstModIRQs, g.LatencyMod, g.LatencyWait)
	f.CQ = &g
	if err := c.Disconnect(ctx); err != nil {
		return err
	}
	for _, v := range []*vipl.Vi{c, d} {
		if err := v.Destroy(ctx); err != nil {
			return err
		}
	}
	return cq.Destroy(ctx)
}
