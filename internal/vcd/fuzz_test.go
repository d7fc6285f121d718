package vcd_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

// FuzzReader feeds arbitrary bytes to the Reader: it must never panic or
// hang, must report every problem as a *SyntaxError with a line number, and
// must only return well-formed events.
func FuzzReader(f *testing.F) {
	for _, file := range []string{"testdata/verilator.vcd", "testdata/icarus.vcd"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		// The declarations and the first value changes: long seeds make
		// the fuzzer slow to minimize what it finds.
		f.Add(b[:min(len(b), 3000)])
	}
	for _, s := range []string{
		"",
		head + "$var wire 4 ! v [3:0] $end $upscope $end $enddefinitions $end #0 b1x !",
		"$var real 64 ! r $end $enddefinitions $end r1e3 ! #1 $dumpoff r0 ! $end",
		"$var wire 2 !! a $end $var wire 2 !! b $end $enddefinitions $end b0 !! bZ !!",
		"$scope begin b $end $upscope $end $enddefinitions $end $comment x $end #5",
		"$var wire 1 ! a $end $enddefinitions $end 1! #18446744073709551615",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := vcd.NewReader(bytes.NewReader(data))
		if err != nil {
			checkSyntaxError(t, err)
			return
		}
		for _, v := range r.Vars() {
			if r.Lookup(v.Name) == nil {
				t.Fatalf("Lookup(%q) = nil for a declared variable", v.Name)
			}
		}
		for n := 0; ; n++ {
			ev, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				checkSyntaxError(t, err)
				return
			}
			if n > len(data) {
				t.Fatalf("%d events from %d bytes", n, len(data))
			}
			if ev.Kind != vcd.ValueChange || ev.Value == nil {
				continue
			}
			if len(ev.Value) != ev.Signal.Width {
				t.Fatalf("value of %d bits for a signal of width %d", len(ev.Value), ev.Signal.Width)
			}
			for _, c := range ev.Value {
				if c != '0' && c != '1' && c != 'x' && c != 'z' {
					t.Fatalf("bad bit %q in a value", c)
				}
			}
		}
	})
}

func checkSyntaxError(t *testing.T, err error) {
	t.Helper()
	var se *vcd.SyntaxError
	if !errors.As(err, &se) || se.Line < 1 {
		t.Fatalf("error %v (%T) is not a *SyntaxError with a line", err, err)
	}
}
