package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/hostvm"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

// The memory-registration figures (docs/performance.md, issue 8): the cost
// of RegisterMem and DeregisterMem by size, in simulated time (the admin
// command's round trip, exact) and wall time (the driver's page-list
// writes, the bridge and the firmware; noisy); the translated copy against
// the physical one in the same simulator; the TPT's counters; the largest
// registration the default host memory allows.

// MemOptions configure BenchMemory. Zero fields take the defaults shown.
type MemOptions struct {
	// Sim is the base of the simulator started (Root, Binary, NoBuild,
	// Stderr); the benchmark keeps the reference DMA profile.
	Sim simulator.SimOptions
	// HostBytes is the node's host memory (256 MiB, the default).
	HostBytes int
	// Sizes are the registration sizes timed (4 KiB, 1 MiB, 64 MiB).
	Sizes []int
	// Rounds per size (5; the median is reported).
	Rounds int
	// CopyBytes is the size of the physical and the translated copy
	// (1 MiB).
	CopyBytes int
	// Progress receives one line per step; nil is silent.
	Progress io.Writer
}

// RegFigure is RegisterMem and DeregisterMem for one size (medians).
type RegFigure struct {
	Bytes       int     `json:"bytes"`
	Pages       int     `json:"pages"`
	RegCycles   uint64  `json:"register_cycles"`
	RegUS       float64 `json:"register_us_simulated"`
	RegWallUS   float64 `json:"register_us_wall"`
	DeregCycles uint64  `json:"deregister_cycles"`
	DeregUS     float64 `json:"deregister_us_simulated"`
	DeregWallUS float64 `json:"deregister_us_wall"`
	PinWallUS   float64 `json:"pin_us_wall"` // pinning alone, a part of RegWallUS
}

// MemFigures are BenchMemory's results.
type MemFigures struct {
	ClockMHz  float64     `json:"clock_mhz"`
	HostBytes int         `json:"host_bytes"`
	Regs      []RegFigure `json:"registrations"`

	CopyBytes             int     `json:"copy_bytes"`
	PhysCopyCycles        uint64  `json:"physical_copy_cycles"`
	PhysBytesPerCycle     float64 `json:"physical_bytes_per_cycle"`
	XlatCopyCycles        uint64  `json:"translated_copy_cycles"`
	XlatBytesPerCycle     float64 `json:"translated_bytes_per_cycle"`
	XlatOverPhys          float64 `json:"translated_over_physical"`
	XlatLookups           uint32  `json:"translated_copy_lookups"`
	XlatHits              uint32  `json:"translated_copy_hits"`
	XlatMisses            uint32  `json:"translated_copy_misses"`
	XlatHitRate           float64 `json:"translated_copy_hit_rate"`
	XlatLookupsPerKCycles float64 `json:"translated_copy_lookups_per_1000_cycles"`

	LargestBytes  int     `json:"largest_registration_bytes"`
	LargestCycles uint64  `json:"largest_registration_cycles"`
	LargestWallMS float64 `json:"largest_registration_ms_wall"`
}

// BenchMemory measures the memory-registration figures in one simulator.
func BenchMemory(ctx context.Context, o MemOptions) (MemFigures, error) {
	if o.HostBytes == 0 {
		o.HostBytes = 256 << 20
	}
	if len(o.Sizes) == 0 {
		o.Sizes = []int{4 << 10, 1 << 20, 64 << 20}
	}
	if o.Rounds == 0 {
		o.Rounds = 5
	}
	if o.CopyBytes == 0 {
		o.CopyBytes = 1 << 20
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "bench mem: "+format+"\n", args...)
		}
	}
	f := MemFigures{HostBytes: o.HostBytes, CopyBytes: o.CopyBytes}

	so := o.Sim
	so.Nodes = 1
	so.Mode = cosim.ModeLockstep
	so.Trace = ""
	so.DMA = nil // the reference profile: the simulator's defaults
	s, err := simulator.StartSimulator(ctx, so)
	if err != nil {
		return f, err
	}
	defer s.Stop()
	c, err := s.Dial(ctx, cosim.Options{Name: "bench mem", Interrupts: true})
	if err != nil {
		return f, err
	}
	defer c.Close()
	f.ClockMHz = 1e6 / float64(c.Device().ClockPS)
	b, err := simbus.New(c)
	if err != nil {
		return f, err
	}
	nic, err := driver.Open(ctx, b, driver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return f, err
	}
	defer nic.Close()
	mem, err := cosim.NewMemory(o.HostBytes)
	if err != nil {
		return f, err
	}
	defer mem.Close()
	if err := nic.AttachMemory(ctx, mem); err != nil {
		return f, err
	}
	if err := nic.ManageMemory(mem, driver.MemoryOptions{}); err != nil {
		return f, err
	}
	sess, err := nic.OpenSession("bench", 0)
	if err != nil {
		return f, err
	}
	defer sess.Close(context.Background())
	ptag, err := sess.CreatePtag(ctx)
	if err != nil {
		return f, err
	}
	us := func(cyc uint64) float64 { return float64(cyc) / f.ClockMHz }

	// registration latency by size
	for _, size := range o.Sizes {
		buf, err := sess.Alloc(size)
		if err != nil {
			return f, fmt.Errorf("bench mem: allocating %d bytes: %w", size, err)
		}
		var rc, dc []uint64
		var rw, dw, pw []float64
		for range o.Rounds {
			t0 := time.Now()
			if _, err := sess.Space().Pin(buf.VA, size); err != nil { // the driver's part alone
				return f, err
			}
			pw = append(pw, float64(time.Since(t0).Microseconds()))
			if err := sess.Space().Unpin(buf.VA, size); err != nil {
				return f, err
			}
			t0 = time.Now()
			h, err := sess.RegisterMem(ctx, buf.VA, size, driver.MemAttrs{Ptag: ptag})
			if err != nil {
				return f, fmt.Errorf("bench mem: registering %d bytes: %w", size, err)
			}
			rw = append(rw, float64(time.Since(t0).Nanoseconds())/1e3)
			a := nic.LastAdmin()
			rc = append(rc, a.TotalCycles())
			t0 = time.Now()
			if err := sess.DeregisterMem(ctx, buf.VA, h); err != nil {
				return f, err
			}
			dw = append(dw, float64(time.Since(t0).Nanoseconds())/1e3)
			dc = append(dc, nic.LastAdmin().TotalCycles())
		}
		r := RegFigure{
			Bytes: size, Pages: (size + hostvm.PageSize - 1) / hostvm.PageSize,
			RegCycles: median(rc), RegWallUS: median(rw), DeregCycles: median(dc), DeregWallUS: median(dw),
			PinWallUS: median(pw),
		}
		r.RegUS, r.DeregUS = us(r.RegCycles), us(r.DeregCycles)
		f.Regs = append(f.Regs, r)
		progress("register %d bytes (%d pages): %d cycles = %.2f us simulated, %.0f us wall (pinning %.0f us); deregister %d cycles = %.2f us, %.0f us wall",
			size, r.Pages, r.RegCycles, r.RegUS, r.RegWallUS, r.PinWallUS, r.DeregCycles, r.DeregUS, r.DeregWallUS)
		if err := sess.Free(buf); err != nil {
			return f, err
		}
	}

	// physical against translated copy, same simulator
	n := o.CopyBytes
	np := (n + hostvm.PageSize - 1) / hostvm.PageSize
	pa, err := nic.Phys().AllocContig(2 * np) // source and destination, physically contiguous
	if err != nil {
		return f, err
	}
	phys := mem.Bytes()
	for i := range n {
		phys[pa+uint64(i)] = byte(i*7 + 1)
	}
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: pa, Dst: pa + uint64(np)*hostvm.PageSize, Len: n})
	if err != nil {
		return f, fmt.Errorf("bench mem: physical copy: %w", err)
	}
	if err := nic.Phys().FreeContig(pa, 2*np); err != nil {
		return f, err
	}
	f.PhysCopyCycles = r.Cycles
	f.PhysBytesPerCycle = float64(n) / float64(r.Cycles)
	src, err := sess.Alloc(n)
	if err != nil {
		return f, err
	}
	dst, err := sess.Alloc(n)
	if err != nil {
		return f, err
	}
	for i := range n {
		src.Bytes[i] = byte(i*13 + 5)
	}
	hs, err := sess.RegisterMem(ctx, src.VA, n, driver.MemAttrs{Ptag: ptag})
	if err != nil {
		return f, err
	}
	hd, err := sess.RegisterMem(ctx, dst.VA, n, driver.MemAttrs{Ptag: ptag})
	if err != nil {
		return f, err
	}
	st0, err := nic.TPTStats(ctx)
	if err != nil {
		return f, err
	}
	r, err = nic.DiagCopy(ctx, driver.DiagRequest{Src: src.VA, Dst: dst.VA, Len: n, Xlat: &driver.DiagXlat{
		SrcHandle: hs, DstHandle: hd, Ptag: ptag, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}})
	if err != nil {
		return f, fmt.Errorf("bench mem: translated copy: %w", err)
	}
	if !slices.Equal(src.Bytes, dst.Bytes) {
		return f, fmt.Errorf("bench mem: the translated copy differs")
	}
	st1, err := nic.TPTStats(ctx)
	if err != nil {
		return f, err
	}
	f.XlatCopyCycles = r.Cycles
	f.XlatBytesPerCycle = float64(n) / float64(r.Cycles)
	f.XlatOverPhys = f.XlatBytesPerCycle / f.PhysBytesPerCycle
	f.XlatLookups, f.XlatHits, f.XlatMisses = st1.Lookups-st0.Lookups, st1.Hits-st0.Hits, st1.Misses-st0.Misses
	if f.XlatHits+f.XlatMisses > 0 {
		f.XlatHitRate = float64(f.XlatHits) / float64(f.XlatHits+f.XlatMisses)
	}
	f.XlatLookupsPerKCycles = 1000 * float64(f.XlatLookups) / float64(r.Cycles)
	progress("copy of %d bytes: physical %d cycles (%.3f B/cycle), translated %d cycles (%.3f B/cycle), ratio %.3f; TPT %d lookups, %d hits, %d misses (hit rate %.3f)",
		n, f.PhysCopyCycles, f.PhysBytesPerCycle, f.XlatCopyCycles, f.XlatBytesPerCycle, f.XlatOverPhys, f.XlatLookups, f.XlatHits, f.XlatMisses, f.XlatHitRate)
	for _, x := range []struct {
		va uint64
		h  driver.MemHandle
	}{{src.VA, hs}, {dst.VA, hd}} {
		if err := sess.DeregisterMem(ctx, x.va, x.h); err != nil {
			return f, err
		}
	}
	if err := sess.Free(src); err != nil {
		return f, err
	}
	if err := sess.Free(dst); err != nil {
		return f, err
	}

	// the largest registration: every free page in one buffer (its page
	// list comes from the driver's pool)
	pages := nic.Phys().Stats().Free
	big, err := sess.Alloc(pages * hostvm.PageSize)
	if err != nil {
		return f, fmt.Errorf("bench mem: allocating %d pages: %w", pages, err)
	}
	t0 := time.Now()
	h, err := sess.RegisterMem(ctx, big.VA, pages*hostvm.PageSize, driver.MemAttrs{Ptag: ptag})
	if err != nil {
		return f, fmt.Errorf("bench mem: registering %d bytes: %w", pages*hostvm.PageSize, err)
	}
	f.LargestWallMS = float64(time.Since(t0).Microseconds()) / 1e3
	f.LargestBytes = pages * hostvm.PageSize
	f.LargestCycles = nic.LastAdmin().TotalCycles()
	progress("largest registration: %d bytes (%d pages of %d MiB host memory) in %d cycles, %.1f ms wall",
		f.LargestBytes, pages, o.HostBytes>>20, f.LargestCycles, f.LargestWallMS)
	if err := sess.DeregisterMem(ctx, big.VA, h); err != nil {
		return f, err
	}
	return f, sess.Free(big)
}
