package driver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/vianic/vianic/internal/hw"
)

// The DMA diagnostic engine copies a range of host memory to another range
// through the NIC's DMA path (DIAG_* registers). It needs no firmware: a NIC
// opened with Options.NoBoot can use it.

// irqDiag is IRQ_STATUS.DIAG_DONE.
var irqDiag = hw.IrqStatusDiagDone.Mask()

// DiagRequest is one diagnostic copy of Len bytes from host address Src to
// host address Dst.
type DiagRequest struct {
	Src, Dst uint64
	// Len is the number of bytes, 1 to 2^32-1. Src, Dst and Len must be
	// multiples of the datapath width in bytes (Caps.DataWidth/8).
	Len int
	// MaxBurst limits the engine's bursts to this many beats and
	// MaxOutstanding its read bursts in flight (DIAG_CFG); 0 means the
	// hardware's maximum, as does a value above it.
	MaxBurst, MaxOutstanding int
	// TimeoutCycles bounds DiagCopy's wait for the engine in device
	// cycles (0: no bound). On a timeout the copy may still run
	// (DiagAbort stops it).
	TimeoutCycles uint64
	// Xlat, when not nil, runs the copy in translated mode: Src and Dst
	// are virtual addresses in registered memory regions, translated and
	// checked by the NIC's TPT page by page.
	Xlat *DiagXlat
}

// DiagXlat are the translated mode's inputs (DIAG_XLAT, DIAG_*_HANDLE):
// the regions of the source and the destination, the ptag presented and
// the access kinds checked (hw.TptKind*: a copy reads its source,
// TptKindLocalRead or TptKindRemoteRead, and writes its destination,
// TptKindLocalWrite or TptKindRemoteWrite).
type DiagXlat struct {
	SrcHandle, DstHandle MemHandle
	Ptag                 Ptag
	SrcKind, DstKind     hw.TptKind
}

// DiagResult is what the engine reports about a finished copy.
type DiagResult struct {
	Status   uint32 // DIAG_STATUS (hw.DiagStatus* fields)
	Cycles   uint64 // DIAG_CYCLES: clock cycles from START to DONE
	Bytes    uint32 // DIAG_BYTES: bytes written and acknowledged
	IRQCycle uint64 // device cycle at which DIAG_DONE was seen
	// ErrAddr is DIAG_ERR_ADDR, the start of the burst that got the first
	// error response; read only when the copy failed.
	ErrAddr uint64
}

// DiagBursts are the burst counters of the engine's last copy.
type DiagBursts struct {
	Read, Write uint32 // DIAG_RD_BURSTS, DIAG_WR_BURSTS
	MaxInflight uint32 // DIAG_MAX_INFLIGHT: most read bursts in flight at once
}

// Errors of the diagnostic copy.
var (
	// ErrDiagParam means DiagCopy or DiagStart refused a request before
	// touching the NIC: misaligned, empty, too long or wrapping.
	ErrDiagParam = errors.New("driver: diag: bad request")
	// ErrDiagFailed is matched by *DiagError.
	ErrDiagFailed = errors.New("driver: diag: copy failed")
)

// DiagError is a copy the engine finished with DIAG_STATUS.ERROR set. It
// matches ErrDiagFailed.
type DiagError struct {
	Node   int
	Result DiagResult
}

// Error names the engine's error bits, as in "driver: diag: copy on node 0
// failed: RD_ERR (AXI response 3) at host address 0x40000000".
func (e *DiagError) Error() string {
	st := e.Result.Status
	var bits []string
	for _, f := range []hw.Field{hw.DiagStatusBadParam, hw.DiagStatusRdErr, hw.DiagStatusWrErr, hw.DiagStatusAborted} {
		if f.Get(st) != 0 {
			bits = append(bits, f.Name)
		}
	}
	if hw.DiagStatusXlatErr.Get(st) != 0 {
		side := "source"
		if hw.DiagStatusXlatDst.Get(st) != 0 {
			side = "destination"
		}
		bits = append(bits, fmt.Sprintf("XLAT_ERR (the %s's translation: %s)", side, hw.TptErr(hw.DiagStatusXlatCode.Get(st))))
	}
	s := fmt.Sprintf("driver: diag: copy on node %d failed: %s (DIAG_STATUS 0x%x)", e.Node, strings.Join(bits, "+"), st)
	if hw.DiagStatusRdErr.Get(st) != 0 || hw.DiagStatusWrErr.Get(st) != 0 {
		s += fmt.Sprintf(", AXI response %d at host address 0x%x", hw.DiagStatusResp.Get(st), e.Result.ErrAddr)
	}
	return s
}

// Is matches ErrDiagFailed.
func (e *DiagError) Is(target error) bool { return target == ErrDiagFailed }

// XlatErr returns the TPT's answer that stopped a translated copy and
// whether it was the destination's, or TptErrOk if no translation failed.
func (r DiagResult) XlatErr() (code hw.TptErr, dst bool) {
	if hw.DiagStatusXlatErr.Get(r.Status) == 0 {
		return hw.TptErrOk, false
	}
	return hw.TptErr(hw.DiagStatusXlatCode.Get(r.Status)), hw.DiagStatusXlatDst.Get(r.Status) != 0
}

// DiagCopy runs one copy of the DMA diagnostic engine to its end: it
// enables and waits for the DIAG_DONE interrupt (which stays enabled),
// reads the result and clears the interrupt. A copy the engine reports
// failed returns its result with a *DiagError. The NIC's other calls wait
// while a copy runs.
func (n *NIC) DiagCopy(ctx context.Context, req DiagRequest) (DiagResult, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return DiagResult{}, ErrClosed
	}
	if err := n.checkDiag(req); err != nil {
		return DiagResult{}, err
	}
	n.irqEn |= irqDiag
	n.b.Write32(ctx, hw.RegIrqEnable, n.irqEn)
	if err := n.diagStart(ctx, req); err != nil {
		return DiagResult{}, err
	}
	irq, err := n.b.WaitIRQ(ctx, irqDiag, req.TimeoutCycles)
	if err != nil {
		return DiagResult{}, fmt.Errorf("driver: diag: waiting for DIAG_DONE: %w", err)
	}
	if irq.Vector&irqDiag == 0 {
		return DiagResult{}, fmt.Errorf("driver: diag: interrupt wait returned lines 0x%x without DIAG_DONE", irq.Vector)
	}
	r := DiagResult{IRQCycle: irq.Cycle}
	if r.Status, err = n.b.Read32(ctx, hw.RegDiagStatus); err != nil {
		return r, fmt.Errorf("driver: diag: reading DIAG_STATUS: %w", err)
	}
	cb, err := n.b.Read64(ctx, hw.RegDiagCycles) // DIAG_CYCLES, DIAG_BYTES
	if err != nil {
		return r, fmt.Errorf("driver: diag: reading DIAG_CYCLES: %w", err)
	}
	r.Cycles, r.Bytes = uint64(uint32(cb)), uint32(cb>>32)
	if err := n.b.Write32(ctx, hw.RegIrqStatus, irqDiag); err != nil {
		return r, err
	}
	if hw.DiagStatusError.Get(r.Status) != 0 {
		if r.ErrAddr, err = n.b.Read64(ctx, hw.RegDiagErrAddrLo); err != nil {
			return r, fmt.Errorf("driver: diag: reading DIAG_ERR_ADDR: %w", err)
		}
		return r, &DiagError{Node: n.node, Result: r}
	}
	return r, nil
}

// DiagStart programs the engine and starts a copy without waiting for it
// (nor enabling its interrupt): for tests that need a copy running while
// they do something else. DiagAbort stops it; its status is in
// DIAG_STATUS.
func (n *NIC) DiagStart(ctx context.Context, req DiagRequest) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	if err := n.checkDiag(req); err != nil {
		return err
	}
	return n.diagStart(ctx, req)
}

// DiagAbort asks the engine to stop issuing bursts: it finishes those in
// flight and reports ABORTED (a posted write).
func (n *NIC) DiagAbort(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	return n.b.Write32(ctx, hw.RegDiagCtrl, hw.DiagCtrlAbort.Val(1))
}

// DiagBursts reads the burst counters of the engine's last copy.
func (n *NIC) DiagBursts(ctx context.Context) (DiagBursts, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return DiagBursts{}, ErrClosed
	}
	rw, err := n.b.Read64(ctx, hw.RegDiagRdBursts) // DIAG_RD_BURSTS, DIAG_WR_BURSTS
	if err != nil {
		return DiagBursts{}, fmt.Errorf("driver: diag: reading the burst counters: %w", err)
	}
	in, err := n.b.Read32(ctx, hw.RegDiagMaxInflight)
	if err != nil {
		return DiagBursts{}, fmt.Errorf("driver: diag: reading the burst counters: %w", err)
	}
	return DiagBursts{Read: uint32(rw), Write: uint32(rw >> 32), MaxInflight: in}, nil
}

// checkDiag refuses what the engine would refuse (BAD_PARAM) or what its
// registers cannot hold.
func (n *NIC) checkDiag(r DiagRequest) error {
	align := uint64(n.caps.DataWidth / 8)
	if align == 0 {
		align = 1
	}
	switch {
	case r.Len <= 0 || uint64(r.Len) > math.MaxUint32:
		return fmt.Errorf("%w: length %d (1 to %d bytes)", ErrDiagParam, r.Len, uint64(math.MaxUint32))
	case r.Src%align != 0 || r.Dst%align != 0 || uint64(r.Len)%align != 0:
		return fmt.Errorf("%w: source 0x%x, destination 0x%x and length %d must be multiples of %d bytes (the datapath width)",
			ErrDiagParam, r.Src, r.Dst, r.Len, align)
	case r.Xlat == nil && (r.Src > math.MaxUint64-uint64(r.Len) || r.Dst > math.MaxUint64-uint64(r.Len)):
		// (in translated mode the TPT answers BOUNDS)
		return fmt.Errorf("%w: the range wraps the address space", ErrDiagParam)
	case r.MaxBurst < 0 || uint32(r.MaxBurst) > hw.DiagCfgMaxBurst.Mask()>>hw.DiagCfgMaxBurst.LSB:
		return fmt.Errorf("%w: MaxBurst %d does not fit DIAG_CFG.MAX_BURST", ErrDiagParam, r.MaxBurst)
	case r.MaxOutstanding < 0 || uint32(r.MaxOutstanding) > hw.DiagCfgMaxOutstanding.Mask()>>hw.DiagCfgMaxOutstanding.LSB:
		return fmt.Errorf("%w: MaxOutstanding %d does not fit DIAG_CFG.MAX_OUTSTANDING", ErrDiagParam, r.MaxOutstanding)
	case r.Xlat != nil && (r.Xlat.SrcKind > hw.TptKindRemoteWrite || r.Xlat.DstKind > hw.TptKindRemoteWrite):
		return fmt.Errorf("%w: access kinds %d and %d (0..3)", ErrDiagParam, r.Xlat.SrcKind, r.Xlat.DstKind)
	case r.Xlat != nil && uint32(r.Xlat.Ptag) > hw.DiagXlatPtag.Mask()>>hw.DiagXlatPtag.LSB:
		return fmt.Errorf("%w: ptag 0x%x does not fit DIAG_XLAT.PTAG", ErrDiagParam, uint32(r.Xlat.Ptag))
	}
	return nil
}

// diagStart programs and starts a checked request (posted writes). Call
// with mu held.
func (n *NIC) diagStart(ctx context.Context, r DiagRequest) error {
	xlat := uint32(0) // physical mode
	var xerr error
	if x := r.Xlat; x != nil {
		xlat = hw.DiagXlatMode.Val(1) | hw.DiagXlatSrcKind.Val(uint32(x.SrcKind)) |
			hw.DiagXlatDstKind.Val(uint32(x.DstKind)) | hw.DiagXlatPtag.Val(uint32(x.Ptag))
		xerr = errors.Join(
			n.b.Write32(ctx, hw.RegDiagSrcHandle, uint32(x.SrcHandle)),
			n.b.Write32(ctx, hw.RegDiagDstHandle, uint32(x.DstHandle)))
	}
	return errors.Join(xerr,
		n.b.Write32(ctx, hw.RegDiagXlat, xlat),
		n.b.Write32(ctx, hw.RegDiagCfg, hw.DiagCfgMaxBurst.Val(uint32(r.MaxBurst))|hw.DiagCfgMaxOutstanding.Val(uint32(r.MaxOutstanding))),
		n.b.Write64(ctx, hw.RegDiagSrcLo, r.Src),
		n.b.Write64(ctx, hw.RegDiagDstLo, r.Dst),
		n.b.Write32(ctx, hw.RegDiagLen, uint32(r.Len)),
		n.b.Write32(ctx, hw.RegDiagCtrl, hw.DiagCtrlStart.Val(1)))
}
