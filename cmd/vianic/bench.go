package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/vianic/vianic/internal/bench"
)

func init() {
	register(command{"bench", "measure the bridge (`vianic bench bridge`), memory registration (`vianic bench mem`), the data path (`vianic bench vi`) or the data path between nodes (`vianic bench remote`)", runBench})
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stderr, "bridge|mem|vi|remote [-json] [-quick]")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	quick := fs.Bool("quick", false, "fewer iterations (a smoke run; figures are noisier)")
	if len(args) == 0 || args[0] != "bridge" && args[0] != "mem" && args[0] != "vi" && args[0] != "remote" {
		fs.Usage()
		return errUsage
	}
	if args[0] == "mem" {
		return runBenchMem(ctx, fs, args[1:], asJSON, quick, stdout, stderr)
	}
	if args[0] == "vi" {
		return runBenchVI(ctx, fs, args[1:], asJSON, quick, stdout, stderr)
	}
	if args[0] == "remote" {
		return runBenchRemote(ctx, fs, args[1:], asJSON, quick, stdout, stderr)
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

func runBenchMem(ctx context.Context, fs *flag.FlagSet, args []string, asJSON, quick *bool, stdout, stderr io.Writer) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	o := bench.MemOptions{Progress: stderr}
	o.Sim.Stderr = io.Discard
	if *quick {
		o.Rounds, o.Sizes, o.HostBytes = 1, []int{4 << 10, 1 << 20}, 64<<20
	}
	f, err := bench.BenchMemory(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "registration\tpages\tregister cycles\tus simulated\tus wall\tderegister cycles\tus simulated\tus wall\n")
	for _, r := range f.Regs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.0f\t%d\t%.2f\t%.0f\n", sizeName(r.Bytes), r.Pages, r.RegCycles, r.RegUS, r.RegWallUS, r.DeregCycles, r.DeregUS, r.DeregWallUS)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "copy of %s: physical %.3f B/cycle, translated %.3f B/cycle (ratio %.3f); TPT %d lookups, hit rate %.3f, %.2f lookups per 1000 cycles\n",
		sizeName(f.CopyBytes), f.PhysBytesPerCycle, f.XlatBytesPerCycle, f.XlatOverPhys, f.XlatLookups, f.XlatHitRate, f.XlatLookupsPerKCycles)
	fmt.Fprintf(stdout, "largest registration: %s of %s host memory, %d cycles, %.1f ms wall\n", sizeName(f.LargestBytes), sizeName(f.HostBytes), f.LargestCycles, f.LargestWallMS)
	return nil
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
