package driver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/vianic/vianic/internal/hw"
)

// The TPT probe: the driver asks the NIC's translation and protection table
// what it would answer for any (handle, VA, length, ptag, kind), without
// moving data (TPT_PROBE_* registers, docs/memory.md). Only the driver's
// connection reaches these registers.

// TPTProbe is one question to the TPT.
type TPTProbe struct {
	Handle MemHandle
	VA     uint64
	Len    uint32
	Ptag   Ptag
	Kind   hw.TptKind
	// TimeoutCycles bounds the wait for the answer (0: 100,000 cycles; a
	// page-list fetch takes a DMA round trip).
	TimeoutCycles uint64
}

// TPTAnswer is the TPT's answer to a probe.
type TPTAnswer struct {
	Err   hw.TptErr // TptErrOk or the one error
	Hit   bool      // the page-list entry came from the translation cache
	PA    uint64    // physical address of VA (0 on an error or a zero length)
	Bytes uint32    // contiguous bytes at PA: to the end of its page, at most Len
	// Cycles is how long the probe took, from the GO write to the read
	// that saw DONE (an upper bound: the driver polls).
	Cycles uint64
}

// TPTStats are the TPT's counters since reset (they wrap at 2^32).
type TPTStats struct {
	Lookups, Hits, Misses, Errors uint32
}

// HitRate is Hits / (Hits + Misses), or 0 with no lookup that needed a
// page.
func (s TPTStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// ErrProbeTimeout means the TPT did not answer a probe in time.
var ErrProbeTimeout = errors.New("driver: TPT probe did not complete")

// ProbeTPT runs one probe lookup and returns the TPT's answer. A probe
// answered with an error is not a failure of the call: the answer says
// which error.
func (n *NIC) ProbeTPT(ctx context.Context, p TPTProbe) (TPTAnswer, error) {
	if p.Kind > hw.TptKindRemoteWrite {
		return TPTAnswer{}, fmt.Errorf("driver: ProbeTPT: access kind %d (0..3)", p.Kind)
	}
	if uint32(p.Ptag) > math.MaxUint16 {
		return TPTAnswer{}, fmt.Errorf("driver: ProbeTPT: ptag 0x%x does not fit 16 bits", uint32(p.Ptag))
	}
	timeout := p.TimeoutCycles
	if timeout == 0 {
		timeout = 100_000
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return TPTAnswer{}, ErrClosed
	}
	if err := errors.Join(
		n.b.Write32(ctx, hw.RegTptProbeHandle, uint32(p.Handle)),
		n.b.Write32(ctx, hw.RegTptProbeVaLo, uint32(p.VA)),
		n.b.Write32(ctx, hw.RegTptProbeVaHi, uint32(p.VA>>32)),
		n.b.Write32(ctx, hw.RegTptProbeLen, p.Len),
		n.b.Write32(ctx, hw.RegTptProbeCtrl, hw.TptProbeCtrlPtag.Val(uint32(p.Ptag))|hw.TptProbeCtrlKind.Val(uint32(p.Kind))),
		n.b.Write32(ctx, hw.RegTptProbeGo, 1)); err != nil {
		return TPTAnswer{}, fmt.Errorf("driver: ProbeTPT: %w", err)
	}
	start := n.b.Cycle()
	// Most answers come within a few cycles; a miss takes a DMA round
	// trip. Poll with a growing step.
	step := uint64(4)
	for {
		st, err := n.b.Read32(ctx, hw.RegTptProbeStatus)
		if err != nil {
			return TPTAnswer{}, fmt.Errorf("driver: ProbeTPT: reading TPT_PROBE_STATUS: %w", err)
		}
		if hw.TptProbeStatusDone.Get(st) != 0 && hw.TptProbeStatusBusy.Get(st) == 0 {
			a := TPTAnswer{
				Err: hw.TptErr(hw.TptProbeStatusErr.Get(st)),
				Hit: hw.TptProbeStatusHit.Get(st) != 0,
			}
			lo, err := n.b.Read32(ctx, hw.RegTptProbePaLo)
			if err != nil {
				return a, fmt.Errorf("driver: ProbeTPT: reading TPT_PROBE_PA: %w", err)
			}
			hi, err := n.b.Read32(ctx, hw.RegTptProbePaHi)
			if err != nil {
				return a, fmt.Errorf("driver: ProbeTPT: reading TPT_PROBE_PA: %w", err)
			}
			a.PA = uint64(hi)<<32 | uint64(lo)
			if a.Bytes, err = n.b.Read32(ctx, hw.RegTptProbeBytes); err != nil {
				return a, fmt.Errorf("driver: ProbeTPT: reading TPT_PROBE_BYTES: %w", err)
			}
			a.Cycles = n.b.Cycle() - start
			return a, nil
		}
		if n.b.Cycle()-start > timeout {
			return TPTAnswer{}, fmt.Errorf("%w within %d cycles (TPT_PROBE_STATUS 0x%x)", ErrProbeTimeout, timeout, st)
		}
		if _, err := n.b.Run(ctx, step); err != nil {
			return TPTAnswer{}, fmt.Errorf("driver: ProbeTPT: %w", err)
		}
		step = min(2*step, 256)
	}
}

// TPTStats reads the TPT's counters.
func (n *NIC) TPTStats(ctx context.Context) (TPTStats, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return TPTStats{}, ErrClosed
	}
	lh, err := n.b.Read64(ctx, hw.RegTptLookups) // TPT_LOOKUPS, TPT_HITS
	if err != nil {
		return TPTStats{}, fmt.Errorf("driver: reading the TPT counters: %w", err)
	}
	me, err := n.b.Read64(ctx, hw.RegTptMisses) // TPT_MISSES, TPT_ERRORS
	if err != nil {
		return TPTStats{}, fmt.Errorf("driver: reading the TPT counters: %w", err)
	}
	return TPTStats{Lookups: uint32(lh), Hits: uint32(lh >> 32), Misses: uint32(me), Errors: uint32(me >> 32)}, nil
}
