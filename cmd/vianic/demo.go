package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"demo-tpt", "register memory and copy it through the TPT on two simulated NICs; show the waveform", runDemoTPT})
}

type demoResult struct {
	node               int
	bytes              int
	cycles, irqCycle   uint64
	rdBursts, wrBursts uint32
	inflight           uint32
	status             uint32
	verified           bool
	physRuns           int    // physically contiguous runs of the destination's pages
	lookups, hits      uint32 // TPT lookups and cache hits of the copy
	misses             uint32
	afterDereg         string // the TPT's answer to a copy after deregistration
	handles            [2]driver.MemHandle
	ptag               driver.Ptag
}

func runDemoTPT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo-tpt", stderr, "[-nodes N] [-bytes N] [-wave FILE] [-freerun]")
	nodes := fs.Int("nodes", 2, "simulated NICs")
	size := fs.Int("bytes", 64<<10, "bytes each NIC copies")
	wave := fs.String("wave", "", "waveform file, .vcd or .fst (default build/demo/demo.vcd)")
	freerun := fs.Bool("freerun", false, "free-running time instead of lockstep")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *size <= 0 || *size%8 != 0 || *size > 16<<20 {
		return fmt.Errorf("-bytes must be a positive multiple of 8 up to 16 MiB")
	}
	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	if *wave == "" {
		*wave = filepath.Join(root, "build", "demo", "demo-tpt.vcd")
	}
	if *wave, err = filepath.Abs(*wave); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*wave), 0o755); err != nil {
		return err
	}
	mode := cosim.ModeLockstep
	if *freerun {
		mode = cosim.ModeFreeRun
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	fmt.Fprintf(stdout, "demo: starting a simulator with %d NICs (%s, waveform %s)\n", *nodes, mode, *wave)
	sim, err := simulator.StartSimulator(ctx, simulator.SimOptions{Root: root, Nodes: *nodes, Mode: mode, Trace: *wave, Stderr: stderr})
	if err != nil {
		return err
	}
	defer sim.Stop()

	// Connect in node order (lockstep applies messages in connection
	// order, so this keeps the waveform the same from run to run), then let
	// every NIC copy at once.
	conns := make([]*cosim.Conn, *nodes)
	for n := range conns {
		c, err := sim.Dial(ctx, cosim.Options{Node: n, Name: fmt.Sprintf("demo driver %d", n), Interrupts: true})
		if err != nil {
			return fmt.Errorf("node %d: %w", n, err)
		}
		defer c.Close()
		conns[n] = c
	}
	results := make([]demoResult, *nodes)
	errs := make([]error, *nodes)
	// Together: in lockstep a node that is done must stay blocked on the
	// simulator until the others are done too, or time stops for them.
	simulator.Together(ctx, conns, func(n int) {
		results[n], errs[n] = demoNode(ctx, conns[n], n, *size)
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := sim.Stop(); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}

	dev := 4.0 // ns per cycle at the reference 250 MHz
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	for _, r := range results {
		fmt.Fprintf(stdout, "node %d: ptag 0x%x, source handle 0x%08x, destination handle 0x%08x (%d physically contiguous runs)\n",
			r.node, uint32(r.ptag), uint32(r.handles[0]), uint32(r.handles[1]), r.physRuns)
	}
	fmt.Fprintln(tw, "node\tbytes\tcycles\tus @250MHz\tbytes/cycle\tMB/s\tread bursts\twrite bursts\tTPT lookups\thit rate\tirq at cycle\tdata\tafter deregistration\t")
	for _, r := range results {
		ok := "verified"
		if !r.verified {
			ok = "WRONG"
		}
		us := float64(r.cycles) * dev / 1000
		rate := 0.0
		if r.hits+r.misses > 0 {
			rate = float64(r.hits) / float64(r.hits+r.misses)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.2f\t%.2f\t%.0f\t%d\t%d\t%d\t%.2f\t%d\t%s\t%s\t\n", r.node, r.bytes, r.cycles, us,
			float64(r.bytes)/float64(r.cycles), float64(r.bytes)/us, r.rdBursts, r.wrBursts, r.lookups, rate, r.irqCycle, ok, r.afterDereg)
	}
	tw.Flush()
	for _, r := range results {
		if !r.verified {
			return fmt.Errorf("node %d: the copy is wrong (DIAG_STATUS %#x)", r.node, r.status)
		}
	}
	fmt.Fprintf(stdout, "\ndemo: waveform %s\ndemo: open it with\n  %s\n", *wave, shellQuote(waveCommand(root, *wave)))
	return nil
}

// demoNode opens one NIC with the driver (firmware boot included), gives
// the driver its host memory, opens a session (a process) with a
// protection tag, allocates a source and a destination buffer (virtually
// contiguous, physically scattered), registers both, has the DMA
// diagnostic engine copy source to destination through the TPT, checks the
// copy byte for byte through the physical pages, then deregisters the
// destination and shows that a copy into it is refused (STALE) and writes
// nothing.
func demoNode(ctx context.Context, c *cosim.Conn, node, size int) (demoResult, error) {
	res := demoResult{node: node, bytes: size}
	fail := func(err error) (demoResult, error) { return res, fmt.Errorf("node %d: %w", node, err) }
	nic, err := openNIC(ctx, c, driver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fail(err)
	}
	defer nic.Close()
	mem, err := cosim.NewMemory(4*size + 1<<20)
	if err != nil {
		return fail(err)
	}
	defer mem.Close()
	if err := nic.AttachMemory(ctx, mem); err != nil {
		return fail(err)
	}
	if err := nic.ManageMemory(mem, driver.MemoryOptions{Seed: uint64(node) + 1}); err != nil {
		return fail(err)
	}
	sess, err := nic.OpenSession(fmt.Sprintf("demo process %d", node), 0)
	if err != nil {
		return fail(err)
	}
	defer sess.Close(context.Background())
	ptag, err := sess.CreatePtag(ctx)
	if err != nil {
		return fail(err)
	}
	src, err := sess.Alloc(size)
	if err != nil {
		return fail(err)
	}
	dst, err := sess.Alloc(size + 4096)
	if err != nil {
		return fail(err)
	}
	for i := range size {
		src.Bytes[i] = byte(i*7 + node*31 + i>>8)
	}
	dstVA := dst.VA + 2048 // the destination starts mid-page
	hs, err := sess.RegisterMem(ctx, src.VA, size, driver.MemAttrs{Ptag: ptag})
	if err != nil {
		return fail(err)
	}
	hd, err := sess.RegisterMem(ctx, dstVA, size, driver.MemAttrs{Ptag: ptag})
	if err != nil {
		return fail(err)
	}
	res.handles, res.ptag = [2]driver.MemHandle{hs, hd}, ptag
	st0, err := nic.TPTStats(ctx)
	if err != nil {
		return fail(err)
	}
	x := &driver.DiagXlat{SrcHandle: hs, DstHandle: hd, Ptag: ptag, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: src.VA, Dst: dstVA, Len: size, Xlat: x})
	res.status, res.cycles, res.irqCycle = r.Status, r.Cycles, r.IRQCycle
	if err != nil && !errors.Is(err, driver.ErrDiagFailed) {
		return fail(err)
	}
	st1, err := nic.TPTStats(ctx)
	if err != nil {
		return fail(err)
	}
	res.lookups, res.hits, res.misses = st1.Lookups-st0.Lookups, st1.Hits-st0.Hits, st1.Misses-st0.Misses
	bursts, err := nic.DiagBursts(ctx)
	if err != nil {
		return fail(err)
	}
	res.rdBursts, res.wrBursts, res.inflight = bursts.Read, bursts.Write, bursts.MaxInflight
	res.verified = hw.DiagStatusDone.Get(res.status) == 1 && hw.DiagStatusError.Get(res.status) == 0
	// check through the physical pages: what the NIC wrote
	pages, err := sess.Space().Translate(dst.VA, size+4096)
	if err != nil {
		return fail(err)
	}
	phys := mem.Bytes()
	res.physRuns = 1
	for i := 1; i < len(pages); i++ {
		if pages[i] != pages[i-1]+4096 {
			res.physRuns++
		}
	}
	for i := 0; i < size && res.verified; i++ {
		off := 2048 + i
		res.verified = phys[pages[off/4096]+uint64(off%4096)] == src.Bytes[i]
	}
	// deregister the destination: a copy into it is refused, nothing moves
	if err := sess.DeregisterMem(ctx, dstVA, hd); err != nil {
		return fail(err)
	}
	clear(dst.Bytes)
	r, err = nic.DiagCopy(ctx, driver.DiagRequest{Src: src.VA, Dst: dstVA, Len: size, Xlat: x})
	if !errors.Is(err, driver.ErrDiagFailed) {
		return fail(fmt.Errorf("a copy into deregistered memory was not refused (%v)", err))
	}
	code, _ := r.XlatErr()
	res.afterDereg = code.String()
	for _, b := range dst.Bytes {
		if b != 0 {
			res.afterDereg += ", WROTE"
			res.verified = false
			break
		}
	}
	if err := sess.DeregisterMem(ctx, src.VA, hs); err != nil {
		return fail(err)
	}
	return res, nil
}
