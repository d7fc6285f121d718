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

// runBenchVI is `vianic bench vi`: the data path's figures (issue 9)
// through vipl, on the reference profile, in lockstep.
func runBenchVI(ctx context.Context, fs *flag.FlagSet, args []string, asJSON, quick *bool, stdout, stderr io.Writer) error {
	noBridge := fs.Bool("nobridge", false, "vi: skip the bridge benchmark's busy figure (the cycle-rate baseline)")
	txlog := fs.String("txlog", "", "vi: write the simulator's transaction log (every MMIO and DMA transaction with its cycle) to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	o := bench.ViOptions{Progress: stderr, NoBridge: *noBridge, Quantum: 25}
	o.Sim.Stderr = io.Discard
	o.Sim.TxLog = *txlog
	if *quick {
		o.LatencyRounds, o.BWMessages, o.RateMessages, o.TrafficRounds = 2, 4, 16, 1
		o.BusyCopies, o.BusyBytes = 2, 64<<10
		o.RdmaBWMessages = 4
	}
	f, err := bench.BenchVI(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	printViFigures(stdout, f)
	return nil
}

func printViFigures(w io.Writer, f bench.ViFigures) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tvalue\ttarget\n")
	for _, l := range f.Latency {
		target := ""
		if l.Bytes == 8 {
			target = "<= 2.0 us (500 cycles)"
		}
		fmt.Fprintf(tw, "loopback latency %s, doorbell to receive DONE\t%d cycles = %.2f us (first round %d)\t%s\n", sizeName(l.Bytes), l.Cycles, l.NS/1000, l.ColdCycles, target)
	}
	fmt.Fprintf(tw, "bandwidth %d x %s, first doorbell to last DONE\t%d cycles, %.3f B/cycle = %.1f %% of line rate\t>= 90 %%\n", f.BWMessages, sizeName(f.BWBytes), f.BWCycles, f.BWBytesPerCycle, 100*f.BWFraction)
	fmt.Fprintf(tw, "message rate, %d x 8 B posted at once\t%d cycles, %.1f cycles/message (%.1f after the first)\t<= 32\n", f.RateMessages, f.RateCycles, f.RatePerMsg, f.RateSteadyMsg)
	for _, l := range f.RdmaLatency {
		fmt.Fprintf(tw, "RDMA write latency %s (immediate data), doorbell to the target's receive DONE\t%d cycles = %.2f us (first round %d)\t\n", sizeName(l.Bytes), l.Cycles, l.NS/1000, l.ColdCycles)
	}
	fmt.Fprintf(tw, "RDMA write bandwidth %d x %s, first doorbell to last DONE\t%d cycles, %.3f B/cycle = %.1f %% of line rate\t\n", f.RdmaBWMessages, sizeName(f.RdmaBWBytes), f.RdmaBWCycles, f.RdmaBWPerCycle, 100*f.RdmaBWFraction)
	for _, l := range f.ReadLatency {
		fmt.Fprintf(tw, "RDMA read latency %s, doorbell to the read's DONE (data placed)\t%d cycles = %.2f us (first round %d)\t\n", sizeName(l.Bytes), l.Cycles, l.NS/1000, l.ColdCycles)
	}
	fmt.Fprintf(tw, "RDMA read bandwidth %d x %s, first doorbell to last DONE (one read per VI in flight)\t%d cycles, %.3f B/cycle = %.1f %% of line rate\t\n", f.ReadBWMessages, sizeName(f.ReadBWBytes), f.ReadBWCycles, f.ReadBWPerCycle, 100*f.ReadBWFraction)
	if g := f.CQ; g != nil {
		fmt.Fprintf(tw, "CQ latency 8 B, doorbell to the receive's CQ entry taken: polling / CQWait\t%d / %d cycles (wakeup +%d; RecvDone without a CQ: %d)\t\n", g.LatencyPoll, g.LatencyWait, g.WakeupOverhead, g.LatencyNoCQPoll)
		fmt.Fprintf(tw, "CQ entries, %d x 8 B posted at once (sends and receives on one CQ)\t%d entries in %d cycles = %.3g entries/s (%.1f cycles/entry after the first = %.3g/s)\t\n", g.Entries/2, g.Entries, g.Cycles, g.EntriesPerSec, g.CyclesPerEntry, g.SteadyPerSec)
		fmt.Fprintf(tw, "completion to wake-up, 8 B, doorbell to CQWait's return: no moderation / moderated (%d entries or %d cycles)\t%d / %d cycles\t\n", g.ModCount, g.ModCycles, g.LatencyWait, g.LatencyMod)
		fmt.Fprintf(tw, "interrupts for %d entries taken through CQWait: no moderation / moderated\t%d in %d cycles / %d in %d cycles\t\n", g.Entries, g.BurstIRQs, g.BurstWait, g.BurstModIRQs, g.BurstModWait)
	}
	fmt.Fprintf(tw, "simulator, 2 nodes under this traffic, no trace\t%.3g cycles/s (%d cycles in %.2f s)\t>= 1,000,000\n", f.CyclesPerSec, f.TrafficCycles, f.TrafficWallSec)
	fmt.Fprintf(tw, "simulator CPU time per simulated cycle, same traffic (all threads)\t%.2f us (%.2f s)\t\n", f.SimCPUPerCycleUS, f.SimCPUSec)
	if q := f.QuantumTraffic; q != nil {
		fmt.Fprintf(tw, "simulator, the same traffic with --quantum %d\t%.3g cycles/s (%d cycles in %.2f s; CPU %.2f us per cycle)\t>= 1,000,000\n", q.Quantum, q.CyclesPerSec, q.Cycles, q.WallSec, q.SimCPUPerCycleUS)
	}
	if len(f.BridgeBusyPerSec) > 0 {
		fmt.Fprintf(tw, "bench bridge busy, same run (before, after)\t%.3g cycles/s\t\n", f.BridgeBusyPerSec)
		fmt.Fprintf(tw, "data path / bridge busy\t%.2f\t\n", f.Ratio)
	}
	tw.Flush()
}

// runBenchRemote is `vianic bench remote`: the data path between two nodes
// across the fabric (issue 10), and the simulator's speed with 2 and 8
// nodes, on the reference profile, in lockstep.
func runBenchRemote(ctx context.Context, fs *flag.FlagSet, args []string, asJSON, quick *bool, stdout, stderr io.Writer) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	o := bench.RemoteOptions{Progress: stderr}
	o.Sim.Stderr = io.Discard
	if *quick {
		o.LatencyRounds, o.BWMessages, o.SpeedRounds, o.SpeedNodes = 2, 4, 1, []int{2}
	}
	f, err := bench.BenchRemote(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tvalue\ttarget\n")
	for _, l := range f.Latency {
		target := ""
		if l.Bytes == 8 {
			target = "<= 2.5 us (625 cycles)"
		}
		fmt.Fprintf(tw, "one-way latency %s, node 0 doorbell to node 1 receive DONE\t%d cycles = %.2f us (first round %d)\t%s\n", sizeName(l.Bytes), l.Cycles, l.NS/1000, l.ColdCycles, target)
	}
	fmt.Fprintf(tw, "bandwidth %d x %s node 0 to node 1, first doorbell to last DONE\t%d cycles, %.3f B/cycle = %.0f MB/s = %.1f %% of line rate\t>= 90 %%\n", f.BWMessages, sizeName(f.BWBytes), f.BWCycles, f.BWPerCycle, f.BWMBps, 100*f.BWFraction)
	for _, sp := range f.Speed {
		q := "meeting every cycle"
		if sp.Quantum > 0 {
			q = fmt.Sprintf("quantum %d", sp.Quantum)
		}
		fmt.Fprintf(tw, "simulator, %d nodes in pairs, %d thread(s), %s, no trace\t%.3g cycles/s (%d cycles in %.2f s)\t\n", sp.Nodes, sp.Threads, q, sp.CyclesPerSec, sp.Cycles, sp.WallSec)
	}
	fmt.Fprintf(tw, "(machine: %d CPUs)\t\t\n", f.CPUs)
	return tw.Flush()
}
