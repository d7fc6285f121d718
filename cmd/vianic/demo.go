package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"demo", "run the DMA diagnostic engine on two simulated NICs and show the waveform", runDemo})
}

type demoResult struct {
	node               int
	bytes              int
	cycles, irqCycle   uint64
	rdBursts, wrBursts uint32
	inflight           uint32
	status             uint32
	verified           bool
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr, "[-nodes N] [-bytes N] [-wave FILE] [-freerun]")
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
		*wave = filepath.Join(root, "build", "demo", "demo.vcd")
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
	var wg sync.WaitGroup
	for n := range conns {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			results[n], errs[n] = demoNode(ctx, conns[n], n, *size)
		}(n)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := sim.Stop(); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}

	dev := 4.0 // ns per cycle at the reference 250 MHz
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "node\tbytes\tcycles\tus @250MHz\tbytes/cycle\tMB/s\tread bursts\twrite bursts\treads in flight\tirq at cycle\tdata\t")
	for _, r := range results {
		ok := "verified"
		if !r.verified {
			ok = "WRONG"
		}
		us := float64(r.cycles) * dev / 1000
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.2f\t%.2f\t%.0f\t%d\t%d\t%d\t%d\t%s\t\n", r.node, r.bytes, r.cycles, us,
			float64(r.bytes)/float64(r.cycles), float64(r.bytes)/us, r.rdBursts, r.wrBursts, r.inflight, r.irqCycle, ok)
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

// demoNode opens one NIC with the driver (no firmware boot: the DMA
// diagnostic engine needs none), attaches host memory, fills a source
// buffer, has the engine copy it (the driver waits for the completion
// interrupt) and checks the copy byte for byte.
func demoNode(ctx context.Context, c *cosim.Conn, node, size int) (demoResult, error) {
	res := demoResult{node: node, bytes: size}
	fail := func(err error) (demoResult, error) { return res, fmt.Errorf("node %d: %w", node, err) }
	nic, err := openNIC(ctx, c, driver.Options{NoBoot: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fail(err)
	}
	defer nic.Close()
	mem, err := cosim.NewMemory(2*size + 8192)
	if err != nil {
		return fail(err)
	}
	defer mem.Close()
	if err := nic.AttachMemory(ctx, mem); err != nil {
		return fail(err)
	}
	src, dst := uint64(0), uint64(size+4096) // the destination starts mid-page
	buf := mem.Bytes()
	for i := 0; i < size; i++ {
		buf[int(src)+i] = byte(i*7 + node*31 + i>>8)
	}
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: src, Dst: dst, Len: size})
	res.status, res.cycles, res.irqCycle = r.Status, r.Cycles, r.IRQCycle
	if err != nil && !errors.Is(err, driver.ErrDiagFailed) {
		return fail(err)
	}
	bursts, err := nic.DiagBursts(ctx)
	if err != nil {
		return fail(err)
	}
	res.rdBursts, res.wrBursts, res.inflight = bursts.Read, bursts.Write, bursts.MaxInflight
	res.verified = hw.DiagStatusDone.Get(res.status) == 1 && hw.DiagStatusError.Get(res.status) == 0
	for i := 0; i < size && res.verified; i++ {
		res.verified = buf[int(dst)+i] == buf[int(src)+i]
	}
	return res, nil
}
