package vcd_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/vianic/vianic/internal/vcd"
)

// events reads a whole dump and renders its events as strings: "#10",
// "name=0101" (the signal's first variable), "name=r1.5", "dumpoff".
func events(t testing.TB, src string) ([]string, error) {
	t.Helper()
	r, err := vcd.NewReader(strings.NewReader(src))
	if err != nil {
		return nil, err
	}
	return drain(r)
}

func drain(r *vcd.Reader) ([]string, error) {
	var out []string
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch ev.Kind {
		case vcd.TimeStep:
			out = append(out, fmt.Sprintf("#%d", ev.Time))
		case vcd.ValueChange:
			if ev.Value == nil {
				out = append(out, fmt.Sprintf("%s=r%g", ev.Signal.Vars[0].Name, ev.Real))
			} else {
				out = append(out, ev.Signal.Vars[0].Name+"="+ev.Value.String())
			}
		case vcd.DumpOff:
			out = append(out, "dumpoff")
		case vcd.DumpOn:
			out = append(out, "dumpon")
		}
	}
}

const head = "$timescale 1ns $end $scope module top $end\n"

func TestReaderValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // events joined by spaces
	}{
		{"scalars", head + "$var wire 1 ! a $end $upscope $end $enddefinitions $end\n#0 0! #5 1! #7 x! #9 Z!",
			"#0 top.a=0 #5 top.a=1 #7 top.a=x #9 top.a=z"},
		{"extend 0", head + "$var wire 8 ! v [7:0] $end $upscope $end $enddefinitions $end\nb101 !",
			"top.v=00000101"},
		{"extend 1 with 0", head + "$var wire 4 ! v [3:0] $end $upscope $end $enddefinitions $end\nb1 !",
			"top.v=0001"},
		{"extend x", head + "$var wire 6 ! v [5:0] $end $upscope $end $enddefinitions $end\nbx01 ! bX !",
			"top.v=xxxx01 top.v=xxxxxx"},
		{"extend z", head + "$var wire 5 ! v [4:0] $end $upscope $end $enddefinitions $end\nbz1 ! BZ0 !",
			"top.v=zzzz1 top.v=zzzz0"},
		{"scalar on vector", head + "$var wire 3 ! v [2:0] $end $upscope $end $enddefinitions $end\n1! x!",
			"top.v=001 top.v=xxx"},
		{"redundant high bits", head + "$var wire 2 ! v [1:0] $end $upscope $end $enddefinitions $end\nb0001 ! bxxx1 !",
			"top.v=01 top.v=x1"},
		{"real", head + "$var real 64 ! r $end $upscope $end $enddefinitions $end\nr1.5 ! R-2e3 !",
			"top.r=r1.5 top.r=r-2000"},
		{"multi-char codes", head + "$var wire 1 !! a $end $var wire 2 #a` b [1:0] $end $upscope $end $enddefinitions $end\n1!! b10 #a`",
			"top.a=1 top.b=10"},
		{"alias reports first var", head + "$var wire 1 ! a $end $scope module sub $end $var wire 1 ! port $end $upscope $end $upscope $end $enddefinitions $end\n1!",
			"top.a=1"},
		{"dump blocks and comments", head + "$var wire 1 ! a $end $upscope $end $enddefinitions $end\n" +
			"$comment some words $end #0 $dumpvars 0! $end #1 $dumpoff x! $end #2 $dumpon 1! $end #3 $dumpall 1! $end",
			"#0 top.a=0 #1 dumpoff top.a=x #2 dumpon top.a=1 #3 top.a=1"},
		{"all on one line", "$timescale 1 ps $end $scope module t $end $var reg 1 ! q $end $upscope $end $enddefinitions $end #0 1! #1 0!",
			"#0 t.q=1 #1 t.q=0"},
		{"CRLF and tabs", "$timescale\r\n\t1ps\r\n$end\r\n$scope module t $end\r\n$var wire 2 ! v [1:0] $end\r\n$upscope $end\r\n$enddefinitions $end\r\n#0\r\nb10\t!\r\n",
			"#0 t.v=10"},
		{"string values skipped", head + "$var string 1 ! s $end $var wire 1 \" a $end $upscope $end $enddefinitions $end\nshello ! 1\"",
			"top.a=1"},
		{"repeated time", head + "$var wire 1 ! a $end $upscope $end $enddefinitions $end\n#4 #4 1!",
			"#4 #4 top.a=1"},
		{"no scope", "$var wire 1 ! loose $end $enddefinitions $end 1!", "loose=1"},
		{"unknown header command", "$attrbegin misc 07 foo 1 $end " + head + "$var wire 1 ! a $end $upscope $end $enddefinitions $end 0!",
			"top.a=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := events(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("events\n got %s\nwant %s", g, tt.want)
			}
		})
	}
}

func TestReaderDeclarations(t *testing.T) {
	src := `$date
	Mon Jan  1 00:00:00 2024
$end
$version Some Tool 1.0 $end
$comment first $end
$timescale 10 ns $end
$scope module tb $end
 $var wire 64 ! bus [63:0] $end
 $var wire 1 " bit0 [0] $end
 $var reg 1 # flag $end
 $var integer 32 $ count [31:0] $end
 $var parameter 8 % P [7:0] $end
 $var real 1 & temp $end
 $var wire 4 ' rev [0:3] $end
 $scope task t1 $end
  $scope begin blk $end
   $var reg 1 # q $end
  $upscope $end
 $upscope $end
 $scope function f $end $upscope $end
 $scope fork par $end $upscope $end
$upscope $end
$enddefinitions $end
`
	r, err := vcd.NewReader(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.Date != "Mon Jan 1 00:00:00 2024" || h.Version != "Some Tool 1.0" || h.Timescale != "10ns" ||
		len(h.Comments) != 1 || h.Comments[0] != "first" {
		t.Errorf("header = %+v", h)
	}
	vars := []struct {
		name, typ, rng  string
		width, msb, lsb int
	}{
		{"tb.bus", "wire", "[63:0]", 64, 63, 0},
		{"tb.bit0", "wire", "[0]", 1, 0, 0},
		{"tb.flag", "reg", "", 1, 0, 0},
		{"tb.count", "integer", "[31:0]", 32, 31, 0},
		{"tb.P", "parameter", "[7:0]", 8, 7, 0},
		{"tb.temp", "real", "", 1, 0, 0},
		{"tb.rev", "wire", "[0:3]", 4, 0, 3},
		{"tb.t1.blk.q", "reg", "", 1, 0, 0},
	}
	for _, w := range vars {
		v := r.Lookup(w.name)
		if v == nil {
			t.Errorf("Lookup(%q) = nil", w.name)
			continue
		}
		if v.Name != w.name || v.Type != w.typ || v.Range != w.rng || v.Width != w.width || v.MSB != w.msb || v.LSB != w.lsb {
			t.Errorf("%s = %+v, want %+v", w.name, *v, w)
		}
	}
	if r.Lookup("tb.nothing") != nil || r.Lookup("bus") != nil {
		t.Error("Lookup found a variable that does not exist")
	}
	if a, b := r.Lookup("tb.flag"), r.Lookup("tb.t1.blk.q"); a.Signal != b.Signal || len(a.Signal.Vars) != 2 {
		t.Error("aliases do not share a signal")
	}
	if n := len(r.Signals()); n != 7 {
		t.Errorf("%d signals, want 7", n)
	}
	for i, s := range r.Signals() {
		if s.Index != i {
			t.Errorf("signal %q has index %d, want %d", s.Code, s.Index, i)
		}
	}
	tb := r.Root().Scopes[0]
	var kinds []string
	for _, s := range tb.Scopes {
		kinds = append(kinds, s.Kind+":"+s.Path)
	}
	if g := strings.Join(kinds, " "); g != "task:tb.t1 function:tb.f fork:tb.par" {
		t.Errorf("scopes = %s", g)
	}
	if k := tb.Scopes[0].Scopes[0]; k.Kind != "begin" || k.Path != "tb.t1.blk" || k.Parent != tb.Scopes[0] {
		t.Errorf("begin scope = %+v", k)
	}
	if tb.Var("count") == nil || tb.Var("q") != nil {
		t.Error("Scope.Var looks in the wrong scope")
	}
}

func TestReaderErrors(t *testing.T) {
	defs := "$timescale 1ns $end\n$scope module m $end\n$var wire 4 ! v [3:0] $end\n$upscope $end\n$enddefinitions $end\n" // 5 lines
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"unknown code", defs + "#0\nb1010 %x\n", 7, `unknown identifier code "%x"`},
		{"unknown scalar code", defs + "1?\n", 6, `unknown identifier code "?"`},
		{"missing code", defs + "1\n", 6, "missing identifier code"},
		{"vector without code at EOF", defs + "#1\nb11", 7, "missing identifier code at end of input"},
		{"bad bit", defs + "b10a1 !\n", 6, `bad bit 'a'`},
		{"too wide", defs + "\n\nb11111 !\n", 8, "value of 5 bits for m.v of width 4"},
		{"bad time", defs + "#12a\n", 6, `bad time "#12a"`},
		{"time backwards", defs + "#5\n#4\n", 7, "time 4 goes back from 5"},
		{"garbage", defs + "hello\n", 6, `unexpected "hello" in the value changes`},
		{"bad real", "$var real 64 ! r $end $enddefinitions $end\nr1.x !", 2, "bad real value"},
		{"no enddefinitions", "$scope module m $end\n", 1, "end of input before $enddefinitions"},
		{"no $end", "$scope module m $end\n$var wire 1 ! a\n", 2, "$var without $end"},
		{"bad width", "$var wire x ! a $end", 1, `bad width "x"`},
		{"zero width", "$var wire 0 ! a $end", 1, `bad width "0"`},
		{"huge width", "$var wire 99999999999 ! a $end", 1, `bad width`},
		{"short var", "\n$var wire 1 ! $end", 2, "$var needs"},
		{"alias width", "$var wire 1 ! a $end\n$var wire 2 ! b $end", 2, "width 2 differs from width 1 of a"},
		{"upscope at root", "$upscope $end", 1, "$upscope without $scope"},
		{"unbalanced", "$scope module m $end $enddefinitions $end", 1, "$enddefinitions inside scope m"},
		{"junk in header", "$timescale 1ns $end\nwire", 2, `unexpected "wire" in the declarations`},
		{"stray $end", "$end", 1, "$end without a command"},
		{"scope without name", "$scope module $end", 1, "$scope needs"},
		{"unterminated comment", defs + "$comment abc", 6, "$comment without $end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := events(t, tt.in)
			var se *vcd.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error = %v, want a *SyntaxError", err)
			}
			if se.Line != tt.line || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("error = %q, want line %d and %q", err, tt.line, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("vcd: line %d: ", tt.line)) {
				t.Errorf("error text %q lacks the line prefix", err)
			}
		})
	}
}

func TestReaderStickyError(t *testing.T) {
	r, err := vcd.NewReader(strings.NewReader("$var wire 1 ! a $end $enddefinitions $end 1! 1? 1!"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err1 := r.Next()
	_, err2 := r.Next()
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v then %v, want the same error twice", err1, err2)
	}
}

// A dump read one byte at a time, or with a read error, must behave.
func TestReaderSmallReadsAndReadErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/icarus.vcd")
	if err != nil {
		t.Fatal(err)
	}
	want, err := events(t, string(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := vcd.NewReader(iotest.OneByteReader(strings.NewReader(string(src))))
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Error("events differ when read one byte at a time")
	}

	boom := errors.New("boom")
	r, err = vcd.NewReader(io.MultiReader(strings.NewReader(string(src[:len(src)/2])), iotest.ErrReader(boom)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(r); !errors.Is(err, boom) {
		t.Errorf("error = %v, want the read error", err)
	}
	if _, err := vcd.NewReader(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("NewReader error = %v, want the read error", err)
	}
}

func TestReaderSelect(t *testing.T) {
	src := head + "$var wire 1 ! a $end $var wire 3 \" b [2:0] $end $var wire 1 # c $end $upscope $end $enddefinitions $end\n" +
		"#0 1! b101 \" 0# #1 0! bzz0 \" 1# #2 b1x1 \""
	r, err := vcd.NewReader(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	r.Select(r.Lookup("top.b").Signal)
	got, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, " "); g != "#0 top.b=101 #1 top.b=zz0 #2 top.b=1x1" {
		t.Errorf("selected events = %s", g)
	}
}

func TestValue(t *testing.T) {
	v := vcd.Value("10x1")
	if v.Bit(0) != '1' || v.Bit(1) != 'x' || v.Bit(3) != '1' || v.Bit(4) != '0' || v.Bit(-1) != '0' {
		t.Error("Bit")
	}
	if x, ok := v.Uint64(); ok || x != 0b1001 {
		t.Errorf("Uint64 = %#b, %v", x, ok)
	}
	if vcd.Value("10x1").Known() || !vcd.Value("0110").Known() {
		t.Error("Known")
	}
	wide := vcd.Value("1" + strings.Repeat("0", 62) + "1" + strings.Repeat("0", 62) + "11") // 128 bits
	if x, ok := wide.Uint64(); !ok || x != 3 {
		t.Errorf("wide Uint64 = %d, %v", x, ok)
	}
	w, ok := wide.AppendWords(nil)
	if !ok || len(w) != 2 || w[0] != 3 || w[1] != 1<<63|1 {
		t.Errorf("AppendWords = %#x, %v", w, ok)
	}
	w, ok = vcd.Value("z1").AppendWords([]uint64{7})
	if ok || len(w) != 2 || w[0] != 7 || w[1] != 1 {
		t.Errorf("AppendWords with z = %#x, %v", w, ok)
	}
}
