package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/vianic/vianic/internal/bench"
)

func init() {
	register(command{"bench", "measure the co-simulation bridge (`vianic bench bridge [-json]`)", runBench})
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stderr, "bridge [-json] [-quick]")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	quick := fs.Bool("quick", false, "fewer iterations (a smoke run; figures are noisier)")
	if len(args) == 0 || args[0] != "bridge" {
		fs.Usage()
		return errUsage
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	o := bench.BenchOptions{Progress: stderr}
	o.Sim.Stderr = io.Discard
	if *quick {
		o.Writes, o.Reads, o.Rounds = 200000, 300, 3
		o.DMABytes, o.BusyCopies, o.BusyBytes, o.IdleCycles = 1<<20, 2, 64<<10, 10_000_000
	}
	f, err := bench.BenchBridge(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	printFigures(stdout, f)
	return nil
}

func printFigures(w io.Writer, f bench.BridgeFigures) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tvalue\ttarget\n")
	fmt.Fprintf(tw, "posted MMIO writes/s (client)\t%.0f\t>= 1,000,000\n", f.WritesPerSec)
	fmt.Fprintf(tw, "posted MMIO writes/s (applied by the simulator)\t%.0f\t\n", f.WritesAppliedPerSec)
	fmt.Fprintf(tw, "MMIO read round trip\t%.1f us\t\n", f.ReadRoundTripUS)
	fmt.Fprintf(tw, "raw Unix-socket echo (Go <-> C++)\t%.1f us\t\n", f.EchoRoundTripUS)
	fmt.Fprintf(tw, "read / echo\t%.2f\t<= 1.5\n", f.ReadEchoRatio)
	fmt.Fprintf(tw, "DMA model: bytes/cycle measured / configured\t%.3f / %.3f = %.3f\t0.95 .. 1.05\n", f.DMABytesPerCycle, f.DMAConfiguredPerCycle, f.DMAModelRatio)
	fmt.Fprintf(tw, "DMA wall-clock\t%.1f MB/s\t\n", f.DMAWallMBps)
	fmt.Fprintf(tw, "DMA reference profile: bytes/cycle, wall-clock\t%.3f, %.1f MB/s\t\n", f.DMARefBytesPerCycle, f.DMARefWallMBps)
	for _, r := range f.CycleRates {
		fmt.Fprintf(tw, "cycles/s, 2 nodes, trace %s: busy / idle\t%.0f / %.0f (idle %.0fx cheaper)\tidle >= 20x\n", r.Trace, r.BusyPerSec, r.IdlePerSec, r.IdleBusyRatio)
	}
	tw.Flush()
}
