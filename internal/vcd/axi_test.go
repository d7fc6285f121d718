package vcd_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

// axiDump simulates, cycle by cycle, a master that issues addresses on an
// AXI read address channel against random back-pressure, and dumps it the
// way a simulator would: the registered outputs change in the same time step
// as the rising clock edge. fault, if not nil, may corrupt the master's
// outputs at a cycle.
func axiDump(t *testing.T, cycles int, fault func(cycle int, valid *string, addr *uint64)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := vcd.NewWriter(&buf, "1ns")
	w.Scope("tb")
	w.Scope("dut")
	clk, _ := w.Wire("clk", 1)
	rst, _ := w.Wire("rst", 1)
	valid, _ := w.Wire("m_axi_arvalid", 1)
	ready, _ := w.Wire("m_axi_arready", 1)
	addr, _ := w.Wire("m_axi_araddr", 32)
	other, _ := w.Wire("other_data", 8) // not part of the channel
	rng := rand.New(rand.NewPCG(1, 2))
	v, a, rdy := "x", uint64(0), uint64(0)
	for c := 0; c < cycles; c++ {
		w.Time(uint64(10 * c))
		w.Set(clk, 0)
		w.Set(ready, rdy)
		w.Time(uint64(10*c + 5))
		w.Set(clk, 1)
		// Register update at the edge, from the values sampled at it.
		if c < 3 {
			v = "0"
		} else if v != "1" || rdy == 1 {
			v = []string{"0", "1"}[rng.IntN(2)]
			a += 64
		}
		if fault != nil {
			fault(c, &v, &a)
		}
		w.Set(rst, map[bool]uint64{true: 1, false: 0}[c < 2])
		w.SetBits(valid, v)
		w.Set(addr, a)
		w.Set(other, uint64(c))
		rdy = uint64(rng.IntN(3) / 2) // ready one edge in three
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHandshakeChecker(t *testing.T) {
	tests := []struct {
		name    string
		fault   func(c int, valid *string, addr *uint64)
		problem string // "" if the dump is correct
	}{
		{"good", nil, ""},
		{"valid drops", func(c int, v *string, _ *uint64) {
			if c == 60 {
				*v = "0"
			}
		}, "valid dropped before ready"},
		{"payload changes", func(c int, _ *string, a *uint64) {
			if c == 60 {
				*a ^= 4
			}
		}, "m_axi_araddr changed"},
		{"x valid", func(c int, v *string, _ *uint64) {
			if c == 60 {
				*v = "x"
			}
		}, "valid is x outside reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dump := axiDump(t, 200, tt.fault)
			r, err := vcd.NewReader(bytes.NewReader(dump))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := checkHandshakes(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.pairs) != 1 || rep.pairs[0].String() != "tb.dut.m_axi_arvalid/m_axi_arready" {
				t.Fatalf("pairs = %v", rep.pairs)
			}
			if p := rep.pairs[0].payload; len(p) != 1 || p[0].Ref != "m_axi_araddr" {
				t.Errorf("payload = %v", p)
			}
			if rep.edges != 200 || rep.stalls < 30 {
				t.Errorf("%d edges, %d stalls; want 200 edges and some stalls", rep.edges, rep.stalls)
			}
			switch {
			case tt.problem == "" && rep.nproblem != 0:
				t.Errorf("problems in a correct dump: %q", rep.problems)
			case tt.problem != "" && rep.nproblem == 0:
				// The fault only shows if cycle 60 falls in a stall;
				// the fixed seed makes sure of it.
				t.Errorf("no problem found, want %q", tt.problem)
			case tt.problem != "" && !strings.Contains(strings.Join(rep.problems, "\n"), tt.problem):
				t.Errorf("problems %q, want %q", rep.problems, tt.problem)
			}
		})
	}
}

// TestSimulatorDumps reads dumps that Verilator 5 and Icarus Verilog 11
// wrote of the same small design (an AXI-like master against random
// back-pressure) and checks that both give the same view of it.
func TestSimulatorDumps(t *testing.T) {
	type sample struct {
		time               uint64
		addr, valid, wdata string
	}
	read := func(file string) (*vcd.Reader, []sample) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := vcd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if ts := r.Header().Timescale; ts != "1ps" {
			t.Errorf("%s: timescale %q", file, ts)
		}
		dut := "tb_vcd_sample.dut."
		clk, rst := r.Lookup(dut+"clk"), r.Lookup(dut+"rst")
		addr, valid, wdata := r.Lookup(dut+"m_axi_araddr"), r.Lookup(dut+"m_axi_arvalid"), r.Lookup(dut+"m_axi_wdata")
		if clk == nil || rst == nil || addr == nil || valid == nil || wdata == nil {
			t.Fatalf("%s: signals of %s missing", file, dut)
		}
		if wdata.Width != 512 || wdata.Range != "[511:0]" || addr.Width != 32 {
			t.Errorf("%s: widths %d %q %d", file, wdata.Width, wdata.Range, addr.Width)
		}
		if tbv := r.Lookup("tb_vcd_sample.arvalid"); tbv == nil || tbv.Signal != valid.Signal {
			t.Errorf("%s: tb_vcd_sample.arvalid is not an alias of %s", file, valid.Name)
		}
		if v := r.Lookup("tb_vcd_sample.vcd"); v == nil || v.Width != 2048 {
			t.Errorf("%s: the 2048-bit vcd variable is missing", file)
		}
		var out []sample
		e := newEdgeSampler(r, []*vcd.Signal{clk.Signal}, []*vcd.Signal{rst.Signal, addr.Signal, valid.Signal, wdata.Signal})
		e.onEdge = func(_ *vcd.Signal, t uint64, before func(*vcd.Signal) vcd.Value) {
			if before(rst.Signal)[0] == '0' {
				out = append(out, sample{t, string(before(addr.Signal)), string(before(valid.Signal)), string(before(wdata.Signal))})
			}
		}
		if err := e.run(); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return r, out
	}
	rv, v := read("testdata/verilator.vcd")
	ri, i := read("testdata/icarus.vcd")
	// Icarus's dump has a $dumpoff gap, in which reset reads as x: compare
	// the edges both dumps show.
	byTime := make(map[uint64]sample)
	for _, s := range i {
		byTime[s.time] = s
	}
	common := 0
	for _, s := range v {
		if is, ok := byTime[s.time]; ok {
			common++
			if s != is {
				t.Fatalf("Verilator %+v, Icarus %+v", s, is)
			}
		}
	}
	if common != 20 || len(v) != 24 || len(i) != 20 {
		t.Fatalf("%d edges from Verilator, %d from Icarus, %d in common", len(v), len(i), common)
	}
	// Verilator's top scope is TOP; Icarus declares task and begin scopes.
	if s := rv.Root().Scopes; len(s) != 1 || s[0].Name != "TOP" {
		t.Error("Verilator dump lacks its TOP scope")
	}
	if v := rv.Lookup("TOP.tb_vcd_sample.r"); v == nil || v.Type != "real" {
		t.Error("Verilator dump: real variable r missing")
	}
	task := ri.Root().Scopes[0].Scopes[1]
	if task.Kind != "task" || task.Scopes[0].Kind != "begin" || task.Scopes[0].Path != "tb_vcd_sample.foo.blk" {
		t.Errorf("Icarus dump: task scope = %+v", task)
	}

	for _, file := range []string{"testdata/verilator.vcd", "testdata/icarus.vcd"} {
		f, _ := os.Open(file)
		r, err := vcd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := checkHandshakes(r)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, h := range rep.pairs {
			names = append(names, h.String())
		}
		// The testbench's own nets alias the DUT's ports: one pair each.
		if len(names) != 2 || rep.stalls == 0 || rep.nproblem != 0 {
			t.Errorf("%s: pairs %v, %d stalls, problems %q", file, names, rep.stalls, rep.problems)
		}
	}
}
