package vcd_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/internal/vcd"
	"github.com/vianic/vianic/vipl"
)

// descExchange makes the NIC of s process descriptors: two VIs joined by
// the loopback, then a send with immediate data into a large enough
// receive, then a send into a receive that is too short (the receive
// completes with LOCAL_LENGTH_ERROR). It returns the Status words, as vipl
// names them.
func descExchange(t *testing.T, s *simulator.Sim) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	addr := s.Addr()
	if s.Network() == "tcp" {
		addr = "tcp:" + addr
	}
	n, err := vipl.OpenNic(ctx, addr, 0, vipl.Options{Name: t.Name(), MemoryBytes: 16 << 20, Logger: slog.New(slog.DiscardHandler)})
	must(err)
	defer n.Close(context.Background())
	p, err := n.CreatePtag(ctx)
	must(err)
	buf, err := n.Alloc(ctx, 4*4096)
	must(err)
	h, err := n.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: p})
	must(err)
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: p}
	a, err := n.CreateVi(ctx, attrs)
	must(err)
	b, err := n.CreateVi(ctx, attrs)
	must(err)
	must(a.ConnectLoopback(ctx, b))
	seg := func(off, n int) []vipl.DataSegment {
		return []vipl.DataSegment{{Addr: buf.VA + uint64(off), Handle: h, Length: uint32(n)}}
	}
	slot := 0
	desc := func(d *vipl.Descriptor) *vipl.Desc {
		x, err := n.NewDesc(buf.VA+uint64(slot)*512, h, d)
		must(err)
		slot++
		return x
	}
	copy(buf.Bytes[4096:], "waveform")
	var st []string
	for _, x := range []struct{ send, recv *vipl.Descriptor }{
		{&vipl.Descriptor{Immediate: true, ImmediateData: 0xC0FFEE42, Segments: seg(4096, 8)}, &vipl.Descriptor{Segments: seg(8192, 64)}},
		{&vipl.Descriptor{Segments: seg(4096, 100)}, &vipl.Descriptor{Segments: seg(8192, 64)}},
	} {
		send, recv := desc(x.send), desc(x.recv)
		must(b.PostRecv(ctx, recv))
		must(a.PostSend(ctx, send))
		sd, err := a.SendWait(ctx, 10)
		must(err)
		rd, err := b.RecvWait(ctx, 10)
		must(err)
		st = append(st, sd.Status().String(), rd.Status().String())
	}
	return st
}

// windowNames reads the dump at path: the window from 200 ns before the
// first doorbell after reset to 300 ns after the last receive completion,
// and, for every signal of sigs with a translate filter, the names that
// filter gives the values the signal shows in that window (its value at
// the start and every change up to the end). Values a filter has no name
// for are listed under "?".
func windowNames(t *testing.T, path, scope string, sigs []vcd.SaveSignal) (from, to uint64, names map[string]map[string]bool) {
	t.Helper()
	open := func() *vcd.Reader {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		r, err := vcd.NewReader(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		if u := r.Header().Timescale; u != "1ps" {
			t.Fatalf("timescale %s: the window assumes 1ps", u)
		}
		return r
	}
	lookup := func(r *vcd.Reader, name string) *vcd.Var {
		v := r.Lookup(name)
		if v == nil {
			t.Fatalf("%s is not in the dump", name)
		}
		return v
	}

	// Pass 1: the window.
	r := open()
	rst := lookup(r, scope+"rst")
	db := lookup(r, scope+"vi_engine_inst.queues_inst.db_wr_valid")
	done := lookup(r, scope+"vi_engine_inst.rx_inst.done_pulse")
	r.Select(rst.Signal, db.Signal, done.Signal)
	inReset, first, last := true, uint64(0), uint64(0)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != vcd.ValueChange {
			continue
		}
		switch {
		case ev.Signal == rst.Signal:
			inReset = ev.Value[0] != '0'
		case inReset || ev.Value[0] != '1':
		case ev.Signal == db.Signal && first == 0:
			first = ev.Time
		case ev.Signal == done.Signal:
			last = ev.Time
		}
	}
	if first == 0 || last <= first {
		t.Fatalf("no doorbell followed by a receive completion in the dump (doorbell at %d ps, last completion at %d ps)", first, last)
	}
	from, to = first-min(first, 200_000), last+300_000

	// Pass 2: the values of the filtered signals in the window.
	r = open()
	type watched struct {
		name   string
		filter map[string]string
		digits int
	}
	bySignal := map[*vcd.Signal][]watched{}
	var sel []*vcd.Signal
	names = map[string]map[string]bool{}
	for _, s := range sigs {
		if s.Filter == "" {
			continue
		}
		v := lookup(r, s.Name)
		if bySignal[v.Signal] == nil {
			sel = append(sel, v.Signal)
		}
		bySignal[v.Signal] = append(bySignal[v.Signal], watched{s.Name, readFilter(t, filterFile(t, s.Filter)), (v.Width + 3) / 4})
		names[s.Name] = map[string]bool{}
	}
	r.Select(sel...)
	cur := map[*vcd.Signal]string{} // value before the window, as hex digits
	hexOf := func(v vcd.Value, digits int) string {
		x, ok := v.Uint64()
		if !ok {
			return "x"
		}
		return fmt.Sprintf("%0*X", digits, x)
	}
	note := func(sig *vcd.Signal, val string) {
		for _, w := range bySignal[sig] {
			if n, ok := w.filter[val]; ok {
				names[w.name][n] = true
			} else if val != "x" {
				names[w.name]["?"] = true
			}
		}
	}
	started := false
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time > to {
			break
		}
		if !started && ev.Time >= from {
			started = true
			for sig, val := range cur {
				note(sig, val)
			}
		}
		if ev.Kind != vcd.ValueChange {
			continue
		}
		val := hexOf(ev.Value, bySignal[ev.Signal][0].digits)
		if started {
			note(ev.Signal, val)
		} else {
			cur[ev.Signal] = val
		}
	}
	return from, to, names
}

// TestWaveShotDescriptor: a co-simulation in which vipl sends and receives
// (descriptors fetched, checked, data moved, Status written back, one
// receive too short), its dump shown in GTKWave with the committed save
// file of the VI data path (via_vi.gtkw) over the window of that traffic, and the names the translate
// filters give the values there: the engines' states, the fetch results,
// the operations, the VI states and the Status words as
// DONE|LOCAL_LENGTH_ERROR|op=RECEIVE.
func TestWaveShotDescriptor(t *testing.T) {
	t.Parallel()
	requireTools(t, "gtkwave", "Xvfb")
	root := repoRoot(t)
	wave := simtest.WavePath(t, "vcd")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave})
	st := descExchange(t, s)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	want := []string{"DONE|op=SEND", "DONE|op=RECEIVE|IMMEDIATE", "DONE|op=SEND", "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE"}
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Fatalf("Status words %q, want %q", st, want)
	}

	// The names are checked against the whole NIC's save file (it includes
	// the VI groups, and the TPT's); the screenshot shows the VI groups.
	save := filepath.Join(root, "sim-scripts", "gtkwave", "via_nic.gtkw")
	f, err := os.Open(save)
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := vcd.SaveFileSignals(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The save file names the bench's signals (TOP.tb_via_nic.dut.); the
	// co-simulation's NIC is node0.via_node.via_nic.
	const benchScope, scope = "TOP.tb_via_nic.dut.", "node0.via_node.via_nic."
	for i := range sigs {
		rel, ok := strings.CutPrefix(sigs[i].Name, benchScope)
		if !ok {
			t.Fatalf("%s: %s is not under %s", save, sigs[i].Name, benchScope)
		}
		sigs[i].Name = scope + rel
	}
	from, to, names := windowNames(t, wave, scope, sigs)
	t.Logf("window %d ps to %d ps", from, to)

	// States an engine passes through on any descriptor (not the transient
	// ones a faster design might skip), and the values of this traffic.
	E := scope + "vi_engine_inst."
	for sig, ns := range map[string][]string{
		E + "tx_inst.is_st":             {"IDLE", "SEG_READ", "SEG", "LOOKUP"},
		E + "tx_inst.ph":                {"IDLE", "HDR1", "PAY", "TRL"},
		E + "tx_inst.wa_word":           {"DONE|op=SEND"},
		E + "tx_inst.fetch.res_kind":    {"DESC"},
		E + "tx_inst.fetch.res_check":   {"OK"},
		E + "tx_inst.fetch.res_control": {"op=SEND_RECV|IMMEDIATE", "op=SEND_RECV"},
		E + "tx_inst.fetch.lk_kind":     {"LOCAL_READ"},
		E + "rx_inst.state":             {"HDR", "RECV", "SCATTER"},
		E + "rx_inst.ca_st":             {"IDLE", "LOOKUP", "WRITE_LEN", "WRITE_STATUS"},
		E + "rx_inst.ctx_rd_state":      {"CONNECTED"},
		E + "rx_inst.wb_status":         {"DONE|op=RECEIVE|IMMEDIATE", "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE"},
		E + "rx_inst.u_fetch.res_check": {"OK"},
		E + "rx_inst.u_fetch.res_kind":  {"DESC"},
		E + "queues_inst.work_state":    {"CONNECTED"},
		E + "queues_inst.rxq_rsp_state": {"CONNECTED"},
		scope + "tpt_inst.lk_kind":      {"LOCAL_READ", "LOCAL_WRITE"},
		scope + "tpt_inst.rs_err":       {"OK"},
	} {
		got := names[sig]
		if got == nil {
			t.Errorf("%s: not a filtered signal of the save file", sig)
			continue
		}
		for _, n := range ns {
			if !got[n] {
				t.Errorf("%s never shows %s in the window (it shows %v)", sig, n, sorted(got))
			}
		}
	}
	// The engines' states and the Status words are always named.
	for _, sig := range []string{E + "tx_inst.is_st", E + "tx_inst.ph", E + "rx_inst.state", E + "rx_inst.ca_st",
		E + "tx_inst.wa_word", E + "rx_inst.wb_status", E + "tx_inst.fetch.res_status", E + "rx_inst.u_fetch.res_status"} {
		if names[sig]["?"] {
			t.Errorf("%s shows a value its filter has no name for (%v)", sig, sorted(names[sig]))
		}
	}

	msg := waveShot(t, wave, filepath.Join(root, "sim-scripts", "gtkwave", "via_vi.gtkw"), "-r", fmt.Sprintf("%d:%d", from, to))
	checkFound(t, msg, scope)
}

func sorted(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
