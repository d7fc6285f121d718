package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const blocky = `layout demo regmap "demo map"
const MAGIC 0x1234 "magic"
region GLOBAL 0x0 0x1000 "globals"
block id "identification"
reg ID 0x000 ro hwconst "id"
  field VALUE 31:0 reset=MAGIC "value"
reg SCRATCH 0x004 rw "scratch"
block ctl "control"
reg CTRL 0x008 wo "control"
  field GO 0:0 "go"
reg LOG 0x00C ro hwre "log"
block id
reg MODE 0x010 rw "mode"
  field SPEED 3:1 reset=5 "speed"
`

func TestBlocks(t *testing.T) {
	l, err := Parse("demo.layout", strings.NewReader(blocky))
	require.NoError(t, err)
	require.Len(t, l.Blocks, 2)
	assert.Equal(t, []string{"ID", "SCRATCH", "MODE"}, regNames(l.Blocks[0].Regs))
	assert.Equal(t, []string{"CTRL", "LOG"}, regNames(l.Blocks[1].Regs))
	assert.True(t, l.Regs[0].HasHW("hwconst"))
	assert.True(t, l.Regs[3].HasHW("hwre"))

	// blocks and hardware attributes are not part of the hash
	plain := blocky
	for _, s := range []string{" hwconst", " hwre"} {
		plain = strings.ReplaceAll(plain, s, "")
	}
	var lines []string
	for _, line := range strings.Split(plain, "\n") {
		if !strings.HasPrefix(line, "block") {
			lines = append(lines, line)
		}
	}
	p, err := Parse("demo.layout", strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	assert.Equal(t, p.Hash, l.Hash)

	outs := l.RegBlockOutputs()
	require.Len(t, outs, 2)
	assert.Equal(t, "rtl/generated/via_demo_id_regs.v", outs[0].Path)
	v := string(outs[0].Data)
	assert.Contains(t, v, "module via_demo_id_regs (")
	assert.Contains(t, v, "output wire [31:0] scratch_q")
	assert.Contains(t, v, "output wire [2:0]  mode_speed_q")
	assert.Contains(t, v, "mode_speed_q_reg <= 3'h5;")
	assert.Contains(t, v, "rd_word[31:0] = 32'h1234;")
	c := string(outs[1].Data)
	assert.Contains(t, c, "output wire        ctrl_go_pulse")
	assert.Contains(t, c, "output wire        log_re")
	assert.Contains(t, c, "input  wire [31:0] log_i")
	require.Len(t, l.RegTableOutput(), 1)
}

func regNames(rs []*Reg) []string {
	var n []string
	for _, r := range rs {
		n = append(n, r.Name)
	}
	return n
}

func TestBlockErrors(t *testing.T) {
	head := "layout demo regmap \"d\"\nregion G 0x0 0x1000 \"g\"\n"
	cases := map[string]string{
		"reg outside a block": "block a \"a\"\nreg X 0x0 ro \"x\"\n" + "block b \"b\"\n" + "reg Y 0x4 ro \"y\"\n" + "block c \"c\"\n",
		"reg before blocks":   "reg X 0x0 ro \"x\"\nblock a \"a\"\nreg Y 0x4 ro \"y\"\n",
		"unknown attribute":   "block a \"a\"\nreg X 0x0 ro hwfoo \"x\"\n",
		"hwext on ro":         "block a \"a\"\nreg X 0x0 ro hwext \"x\"\n",
		"hwconst no reset":    "block a \"a\"\nreg X 0x0 ro hwconst \"x\"\n",
		"duplicate block":     "block a \"a\"\nreg X 0x0 ro \"x\"\nblock a \"again\"\n",
		"new block, no doc":   "block a\nreg X 0x0 ro \"x\"\n",
		"bad block name":      "block A \"a\"\nreg X 0x0 ro \"x\"\n",
		"attribute twice":     "block a \"a\"\nreg X 0x0 ro hwre hwre \"x\"\n",
		"hwre on plain rw":    "block a \"a\"\nreg X 0x0 rw hwre \"x\"\n",
	}
	for name, body := range cases {
		_, err := Parse("demo.layout", strings.NewReader(head+body))
		var pe *ParseError
		assert.ErrorAs(t, err, &pe, name)
	}
}
