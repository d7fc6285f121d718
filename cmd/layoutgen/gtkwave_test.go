package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilterAndSaveFile(t *testing.T) {
	l, err := Parse("rtl/layouts/x.layout", strings.NewReader("layout x struct \"x\"\nenum EV 8 \"events\"\n value NONE 0 \"n\"\n value TIMER 0x12 \"t\"\nenum R 2 \"r\"\n value OK 0 \"o\"\n value BAD 3 \"b\"\n"))
	require.NoError(t, err)
	assert.Equal(t, "sim-scripts/gtkwave/filters/x_ev.txt", filterPath(l, l.Enums[0]))
	f := string(l.Filter(l.Enums[0]))
	assert.Contains(t, f, "\n00 NONE\n12 TIMER\n", "values as GTKWave shows an 8-bit hex trace")
	assert.Contains(t, string(l.Filter(l.Enums[1])), "\n3 BAD\n")

	enums := map[string]*Enum{"x.EV": l.Enums[0], "x.R": l.Enums[1]}
	filters := map[string]string{"x.EV": filterPath(l, l.Enums[0]), "x.R": filterPath(l, l.Enums[1])}
	saves, err := parseWaves("waves.txt", strings.NewReader(`save a.gtkw TOP.tb.dut. "bench a"
group "Clock"
  signal clk
group "Bus"
  signal resp[1:0] filter=x.R
  signal code[7:0] filter=x.EV
  signal one[3:3]
save b.gtkw - "two nodes"
include a.gtkw node0.nic. "n0 "
`), enums, filters)
	require.NoError(t, err)
	require.Len(t, saves, 2)
	a := string(saves[0].GTKWaveSave())
	for _, want := range []string{
		"[*] prefix TOP.tb.dut.\n", "[savefile] \"/vianic-gtkwave/a.gtkw\"\n", "[treeopen] TOP.tb.dut.\n",
		"@28\nTOP.tb.dut.clk\n",
		"^1 /vianic-gtkwave/filters/x_r.txt\n@2022\nTOP.tb.dut.resp[1:0]\n",
		"^1 /vianic-gtkwave/filters/x_ev.txt\n@2022\nTOP.tb.dut.code[7:0]\n",
		"@28\nTOP.tb.dut.one[3]\n", "@800200\n-Bus\n", "@1000200\n-Bus\n",
	} {
		assert.Contains(t, a, want)
	}
	b := string(saves[1].GTKWaveSave())
	assert.Contains(t, b, "@800200\n-n0 Bus\n")
	assert.Contains(t, b, "@2022\nnode0.nic.resp[1:0]\n")

	for _, tc := range []struct{ src, reason string }{
		{"group \"g\"", "before the first save"},
		{"save a.gtkw x \"a\"", "must end with a dot"},
		{"save a.gtkw - \"a\"\nsignal s", "signal outside a group"},
		{"save a.gtkw - \"a\"\ngroup \"g\"\nsignal s[3:0] filter=x.R", "is 4 bits, enum x.R 2"},
		{"save a.gtkw - \"a\"\ngroup \"g\"\nsignal s filter=x.NOPE", "naming an enum"},
		{"save a.gtkw - \"a\"\ninclude b.gtkw - \"b\"", "no earlier save file b.gtkw"},
		{"save a.gtkw - \"a\"\nsave a.gtkw - \"a\"", "described twice"},
	} {
		_, err := parseWaves("waves.txt", strings.NewReader(tc.src), enums, filters)
		var pe *ParseError
		if assert.True(t, errors.As(err, &pe), "%q: %v", tc.src, err) {
			assert.Contains(t, pe.Reason, tc.reason)
		}
	}
}

// A flags filter names every value of a word of bit fields: independent
// flags, exclusive error bits (MEMBER_ERROR_MASK) and enum fields.
func TestFlagsFilter(t *testing.T) {
	l, err := Parse("rtl/layouts/y.layout", strings.NewReader(`layout y struct "y"
const ST_ERROR_MASK 0x6 "errors"
enum K 2 "kinds"
  value A 0 "a"
  value B 1 "b"
  value C 2 "c"
struct S 8 "s"
  member ST 0 2 "status"
    field DONE 0:0 "d"
    field E1 1:1 "e1"
    field E2 2:2 "e2"
    field K 9:8 enum=K "k"
    field IMM 12:12 "i"
  member BAD 2 2 "bad"
    field WIDE 3:0 "w"
  member C 4 2 "control"
    field K 1:0 enum=K "k"
    field F 2:2 "f"
`))
	require.NoError(t, err)
	s := l.Structs[0]
	assert.Equal(t, "sim-scripts/gtkwave/filters/y_s_st.txt", flagsPath(l, s, s.Members[0]))
	b, err := l.FlagsFilter(s, s.Members[0])
	require.NoError(t, err)
	f := string(b)
	lines := strings.Split(strings.TrimSpace(f), "\n")
	assert.Len(t, lines, 2+2*3*3*2, "comment lines, then DONE x {none,E1,E2} x K x IMM")
	for _, want := range []string{
		"\n0000 0\n", "\n0001 DONE|k=A\n", "\n0003 DONE|E1|k=A\n", "\n0005 DONE|E2|k=A\n",
		"\n0201 DONE|k=C\n", "\n1105 DONE|E2|k=B|IMM\n", "\n0004 E2|k=A\n",
	} {
		assert.Contains(t, f, want)
	}
	assert.NotContains(t, f, "E1|E2", "error bits are exclusive")
	_, err = l.FlagsFilter(s, s.Members[1])
	assert.ErrorContains(t, err, "4 bits without an enum")
	b, err = l.FlagsFilter(s, s.Members[2])
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n0000 k=A\n0001 k=B\n0002 k=C\n0004 k=A|F\n", "without an error mask, 0 has its name")

	// A save file attaches it as filter=LAYOUT.STRUCT.MEMBER.
	enums := map[string]*Enum{"y.S.ST": {Name: "S.ST", Bits: 16}}
	filters := map[string]string{"y.S.ST": flagsPath(l, s, s.Members[0])}
	saves, err := parseWaves("waves.txt", strings.NewReader("save a.gtkw - \"a\"\ngroup \"g\"\nsignal st[15:0] filter=y.S.ST\n"), enums, filters)
	require.NoError(t, err)
	assert.Contains(t, string(saves[0].GTKWaveSave()), "^1 /vianic-gtkwave/filters/y_s_st.txt\n@2022\nst[15:0]\n")
}
