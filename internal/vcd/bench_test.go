package vcd_test

import (
	"os"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

// dmaBench is the RTL bench whose dump TestRTLBenchHandshakes checks: the
// DMA diagnostic engine, an AXI4 master, against memory models that apply
// random back-pressure.
const dmaBench = "via_dma_diag"

// minStalls is how many edges with valid high and ready low the bench must
// show at least, so that the check cannot pass for want of stalls.
const minStalls = 100

// TestRTLBenchHandshakes runs the DMA bench in Verilator and in Icarus with
// a waveform and checks, from the waveform alone, the AXI handshake rule on
// every valid/ready pair: once valid is high at a rising clock edge while
// ready is low, valid is still high at the next edge and the channel's
// payload has not changed.
func TestRTLBenchHandshakes(t *testing.T) {
	t.Parallel()
	for _, sim := range []string{"verilator", "icarus"} {
		t.Run(sim, func(t *testing.T) {
			t.Parallel()
			path := benchVCD(t, dmaBench, sim)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := vcd.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := checkHandshakes(r)
			if err != nil {
				t.Fatal(err)
			}
			stalledPairs := 0
			for _, h := range rep.pairs {
				t.Logf("%-60s %6d beats %6d stalls %d problems, payload %d signals", h, h.beats, h.stalls, h.problems, len(h.payload))
				if h.stalls > 0 {
					stalledPairs++
				}
			}
			t.Logf("%d pairs, %d rising edges, %d stalls", len(rep.pairs), rep.edges, rep.stalls)
			for _, p := range rep.problems {
				t.Error(p)
			}
			if rep.nproblem > len(rep.problems) {
				t.Errorf("... and %d more violations", rep.nproblem-len(rep.problems))
			}
			if len(rep.pairs) < 5 {
				t.Errorf("found %d valid/ready pairs, want at least the 5 channels of an AXI4 master", len(rep.pairs))
			}
			if rep.stalls < minStalls || stalledPairs < 5 {
				t.Errorf("%d stalls on %d pairs: the bench must stall at least %d times, on 5 pairs or more, for the check to mean anything",
					rep.stalls, stalledPairs, minStalls)
			}
		})
	}
}
