package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}

// TestGenerateIsDeterministic: two runs give the same files (make
// check-generated relies on it).
func TestGenerateIsDeterministic(t *testing.T) {
	root := repoRoot(t)
	a, err := Generate(root)
	require.NoError(t, err)
	require.NotEmpty(t, a)
	b, err := Generate(root)
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

const good = `layout demo regmap "demo map"
const MAGIC 0x1234 "magic"
param WIDTH 64 "width"
region GLOBAL 0x0 0x1000 "globals"
array DB 0x1000 0x1000 WIDTH "doorbells"
reg ID 0x000 ro "id"
  field VALUE 31:0 reset=MAGIC "value"
reg CTRL 0x004 rw "control"
  field GO 0:0 wo "go"
  field MODE 3:1 reset=5 "mode"
`

func TestParseGood(t *testing.T) {
	l, err := Parse("demo.layout", strings.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, "demo", l.Name)
	require.Len(t, l.Regs, 2)
	assert.Equal(t, uint64(0x1234), *l.Regs[0].Fields[0].Reset)
	assert.Equal(t, WO, l.Regs[1].Fields[0].Access)
	assert.Equal(t, RW, l.Regs[1].Fields[1].Access)
	assert.Equal(t, 3, l.Regs[1].Fields[1].Width())
	assert.NotZero(t, l.Hash)

	// doc strings do not change the hash, offsets do
	l2, err := Parse("demo.layout", strings.NewReader(strings.Replace(good, `"control"`, `"the control register"`, 1)))
	require.NoError(t, err)
	assert.Equal(t, l.Hash, l2.Hash)
	l3, err := Parse("demo.layout", strings.NewReader(strings.Replace(good, "CTRL 0x004", "CTRL 0x008", 1)))
	require.NoError(t, err)
	assert.NotEqual(t, l.Hash, l3.Hash)

	for _, out := range [][]byte{l.Verilog(), l.C(), l.Markdown()} {
		assert.Contains(t, string(out), "CTRL")
	}
	src, err := l.Go("hw")
	require.NoError(t, err)
	assert.Contains(t, string(src), "CtrlMode = Field{Reg: RegCtrl, Name: \"MODE\", LSB: 1, Width: 3")
}

// TestParseErrors: every malformed map is rejected with file, line and reason.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		reason    string
	}{
		{"no layout", ``, 0, "no layout line"},
		{"layout not first", `const A 1 "a"`, 1, "the first directive must be layout"},
		{"struct in regmap", "layout x regmap \"x\"\nstruct S 8 \"s\"", 2, "struct is not allowed in a regmap layout"},
		{"reg in struct", "layout x struct \"x\"\nreg R 0 rw \"r\"", 2, "reg is not allowed in a struct layout"},
		{"member outside", "layout x struct \"x\"\nmember M 0 4 \"m\"", 2, "member outside a struct"},
		{"member beyond", "layout x struct \"x\"\nstruct S 8 \"s\"\nmember M 6 4 \"m\"", 3, "lie outside the 8-byte struct"},
		{"member unaligned", "layout x struct \"x\"\nstruct S 8 \"s\"\nmember M 2 4 \"m\"", 3, "must be 4-byte aligned"},
		{"member overlap", "layout x struct \"x\"\nstruct S 8 \"s\"\nmember M 0 4 \"m\"\nmember N 2 2 \"n\"", 4, "overlaps M"},
		{"member field range", "layout x struct \"x\"\nstruct S 8 \"s\"\nmember M 0 2 \"m\"\nfield F 16:0 \"f\"", 4, "15 >= MSB"},
		{"member field wide", "layout x struct \"x\"\nstruct S 8 \"s\"\nmember M 0 8 \"m\"\nfield F 3:0 \"f\"", 4, "at most 4 bytes"},
		{"bad prefix", "layout x struct pre=FW \"x\"", 1, "prefix=UPPER_NAME"},
		{"unknown directive", "layout x regmap \"x\"\nbogus A 1 \"a\"", 2, `unknown directive "bogus"`},
		{"unknown kind", `layout x table "x"`, 1, `unknown layout kind "table"`},
		{"bad layout name", `layout X regmap "x"`, 1, "lower_snake_case"},
		{"two layouts", "layout x regmap \"x\"\nlayout y regmap \"y\"", 2, "layout already declared"},
		{"missing doc", "layout x regmap \"x\"\nconst A 1", 2, "needs a doc string"},
		{"bad number", "layout x regmap \"x\"\nconst A 0xZZ \"a\"", 2, `bad number "0xZZ"`},
		{"lowercase name", "layout x regmap \"x\"\nconst abc 1 \"a\"", 2, "UPPER_SNAKE_CASE"},
		{"duplicate", "layout x regmap \"x\"\nconst A 1 \"a\"\nparam A 2 \"b\"", 3, "already defined on line 2"},
		{"unterminated", "layout x regmap \"x\"\nconst A 1 \"a", 2, "unterminated string"},
		{"unaligned", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x2 rw \"r\"", 3, "not 32-bit aligned"},
		{"outside region", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x100 rw \"r\"", 3, "lies in no region"},
		{"same offset", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\nreg S 0x4 rw \"s\"", 4, "already used by R (line 3)"},
		{"bad access", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rx \"r\"", 3, `unknown access "rx"`},
		{"field first", "layout x regmap \"x\"\nfield F 0:0 \"f\"", 2, "field outside a reg"},
		{"field range", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 32:0 \"f\"", 4, "31 >= MSB >= LSB >= 0"},
		{"field reversed", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:2 \"f\"", 4, "31 >= MSB >= LSB >= 0"},
		{"field overlap", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 3:0 \"f\"\n field G 4:3 \"g\"", 5, "overlaps F"},
		{"reset too wide", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 reset=4 \"f\"", 4, "does not fit 2 bits"},
		{"reset unknown", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 reset=NOPE \"f\"", 4, "NOPE is not a const"},
		{"field attr", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 sticky \"f\"", 4, `unknown field attribute "sticky"`},
		{"region overlap", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nregion H 0x80 0x100 \"h\"", 3, "H overlaps G"},
		{"array count", "layout x regmap \"x\"\narray D 0 0x10 NOPE \"d\"", 2, "neither a number nor a param"},
		{"collision", "layout x regmap \"x\"\nconst R_F 1 \"c\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 \"f\"", 5, "generated name R_F collides"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.layout", strings.NewReader(tc.src))
			require.Error(t, err)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "error %v is not a *ParseError", err)
			assert.Equal(t, "bad.layout", pe.File)
			assert.Equal(t, tc.line, pe.Line, "line of %q", err)
			assert.Contains(t, pe.Reason, tc.reason)
		})
	}
}

// TestCommandRejectsMalformedMap runs the generator on a broken tree and
// checks it names the file and line and writes nothing.
func TestCommandRejectsMalformedMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	tmp := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "rtl", "layouts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "rtl", "layouts", "bad.layout"),
		[]byte("layout bad regmap \"b\"\nregion G 0 0x100 \"g\"\nreg R 0x3 rw \"r\"\n"), 0o644))
	out, err := exec.Command("go", "run", ".", "-root", tmp).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "rtl/layouts/bad.layout:3: reg R: offset 0x3 is not 32-bit aligned")
	_, statErr := os.Stat(filepath.Join(tmp, "docs"))
	assert.True(t, os.IsNotExist(statErr), "nothing is written for a bad map")
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	root, _ := os.Getwd()
	if b, err := os.ReadFile(filepath.Join(root, "..", "..", "rtl", "layouts", "bar0.layout")); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, src string) {
		l, err := Parse("fuzz.layout", strings.NewReader(src))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		l.Verilog()
		l.C()
		l.Markdown()
		if _, err := l.Go("hw"); err != nil {
			t.Fatalf("valid layout produced bad Go: %v", err)
		}
	})
}
