package vcd_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

func TestWriterOutput(t *testing.T) {
	var buf bytes.Buffer
	w, err := vcd.NewWriter(&buf, "10 ns")
	if err != nil {
		t.Fatal(err)
	}
	w.Date = "today"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	handle := func(h vcd.Handle, err error) vcd.Handle {
		t.Helper()
		must(err)
		return h
	}
	must(w.Scope("tb"))
	clk := handle(w.Wire("clk", 1))
	must(w.Scope("dut"))
	data := handle(w.Reg("data", 8))
	wide := handle(w.Wire("wide", 70))
	temp := handle(w.Real("temp"))
	never := handle(w.Wire("never", 3))
	// Time ends the declarations and closes the open scopes.
	must(w.Time(0))
	must(w.Set(clk, 0))
	must(w.Set(data, 0x05))
	must(w.SetBits(wide, "x"))
	must(w.SetReal(temp, 1.5))
	must(w.Time(10))
	must(w.Set(clk, 1))
	must(w.Set(data, 0x05))                       // unchanged: elided
	must(w.SetWords(wide, []uint64{1, 1<<6 | 3})) // bit 70 is beyond the width
	must(w.Time(20))                              // nothing changes at 20: no #20
	must(w.SetReal(temp, 1.5))
	must(w.Time(30))
	must(w.SetBits(data, "z1"))
	must(w.SetBits(wide, "0x"))
	must(w.Set(never, 7))
	must(w.Close())
	_ = never
	want := `$date
	today
$end
$version
	vianic vcd
$end
$timescale 10ns $end
$scope module tb $end
$var wire 1 ! clk $end
$scope module dut $end
$var reg 8 " data [7:0] $end
$var wire 70 # wide [69:0] $end
$var real 64 $ temp $end
$var wire 3 % never [2:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b101 "
bx #
r1.5 $
bx %
$end
#10
1!
b110000000000000000000000000000000000000000000000000000000000000001 #
#30
bz1 "
b0x #
b111 %
`
	if got := buf.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	// The same dump read back.
	got, err := events(t, buf.String())
	if err != nil {
		t.Fatal(err)
	}
	wantEv := "#0 tb.clk=0 tb.dut.data=00000101 tb.dut.wide=" + strings.Repeat("x", 70) + " tb.dut.temp=r1.5 tb.dut.never=xxx " +
		"#10 tb.clk=1 tb.dut.wide=0000" + "11" + strings.Repeat("0", 63) + "1 " +
		"#30 tb.dut.data=zzzzzzz1 tb.dut.wide=" + strings.Repeat("0", 69) + "x tb.dut.never=111"
	if g := strings.Join(got, " "); g != wantEv {
		t.Errorf("read back\n got %s\nwant %s", g, wantEv)
	}
}

func TestWriterEmptyAndImplicitTime(t *testing.T) {
	var buf bytes.Buffer
	w, _ := vcd.NewWriter(&buf, "1ps")
	w.Version = ""
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "$timescale 1ps $end\n$enddefinitions $end\n" {
		t.Errorf("empty dump = %q", got)
	}

	// A Set before any Time belongs to time 0.
	buf.Reset()
	w, _ = vcd.NewWriter(&buf, "1ps")
	w.Version = ""
	a, _ := w.Wire("a", 1)
	if err := w.Set(a, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "$timescale 1ps $end\n$var wire 1 ! a $end\n$enddefinitions $end\n#0\n$dumpvars\n1!\n$end\n"
	if got := buf.String(); got != want {
		t.Errorf("dump = %q, want %q", got, want)
	}
}

type failWriter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errDisk
	}
	return len(p), nil
}

func TestWriterErrors(t *testing.T) {
	if _, err := vcd.NewWriter(nil, "3ns"); err == nil {
		t.Error("NewWriter accepted timescale 3ns")
	}
	if _, err := vcd.NewWriter(nil, "1 fortnight"); err == nil {
		t.Error("NewWriter accepted unit fortnight")
	}
	for _, ts := range []string{"1s", "10ms", "100 us", "1ns", "10ps", "100fs", "ns"} {
		if _, err := vcd.NewWriter(nil, ts); err != nil {
			t.Errorf("NewWriter(%q): %v", ts, err)
		}
	}

	var buf bytes.Buffer
	w, _ := vcd.NewWriter(&buf, "1ns")
	checks := []struct {
		name string
		err  error
	}{
		{"Up at top", w.Up()},
		{"empty scope name", w.Scope("")},
		{"name with space", w.Scope("a b")},
		{"name starting with $", w.Scope("$end")},
		{"zero width", second(w.Wire("z", 0))},
		{"too wide", second(w.Wire("z", vcd.MaxWidth+1))},
		{"bad var name", second(w.Reg("a\tb", 1))},
	}
	for _, c := range checks {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	v, _ := w.Wire("v", 4)
	r, _ := w.Real("r")
	if _, err := w.Reg("v", 4); err == nil {
		t.Error("a second variable v: no error")
	}
	w.Scope("sub")
	if _, err := w.Reg("v", 4); err != nil {
		t.Errorf("v in another scope: %v", err)
	}
	w.Up()
	if err := w.Time(10); err != nil {
		t.Fatal(err)
	}
	checks = []struct {
		name string
		err  error
	}{
		{"declaration after values", second(w.Wire("late", 1))},
		{"scope after values", w.Scope("late")},
		{"time backwards", w.Time(9)},
		{"zero handle", w.Set(0, 1)},
		{"unknown handle", w.Set(99, 1)},
		{"Set on real", w.Set(r, 1)},
		{"SetWords on real", w.SetWords(r, nil)},
		{"SetBits on real", w.SetBits(r, "1")},
		{"SetReal on vector", w.SetReal(v, 1)},
		{"SetBits too long", w.SetBits(v, "10101")},
		{"SetBits empty", w.SetBits(v, "")},
		{"SetBits bad bit", w.SetBits(v, "1u")},
	}
	for _, c := range checks {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Misuse does not spoil the writer.
	if err := w.SetBits(v, "1x"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Set(v, 1); err == nil {
		t.Error("Set after Close: no error")
	}
	if err := w.Time(20); err == nil {
		t.Error("Time after Close: no error")
	}
	if !strings.Contains(buf.String(), "b1x !\n") || !strings.Contains(buf.String(), "$var reg 4 # v [3:0] $end") {
		t.Errorf("dump lacks the value set after the errors:\n%s", buf.String())
	}

	// A failed write sticks.
	w, _ = vcd.NewWriter(&failWriter{n: 100}, "1ns")
	a, _ := w.Wire("a", 1)
	var err error
	for i := uint64(0); i < 100000 && err == nil; i++ {
		if err = w.Time(i); err == nil {
			err = w.Set(a, i&1)
		}
	}
	if !errors.Is(err, errDisk) {
		t.Fatalf("error = %v, want %v", err, errDisk)
	}
	if err := w.Set(a, 0); !errors.Is(err, errDisk) {
		t.Errorf("later Set error = %v", err)
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Errorf("Close error = %v", err)
	}
}

func second(_ vcd.Handle, err error) error { return err }
