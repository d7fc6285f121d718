package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// TestRegs dumps a running NIC's registers by name over a monitor
// connection while a driver holds the node.
func TestRegs(t *testing.T) {
	simtest.RequireHDL(t)
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	conn := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleDriver, Node: 1, Name: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, conn.Write32(ctx, hw.RegScratch, 0xfeedf00d))
	_, err := conn.Read32(ctx, hw.RegScratch) // the write is applied
	require.NoError(t, err)

	code, out, errs := runCLI("regs", "-socket", s.Addr(), "-node", "1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "node 1, cycle ")
	assert.Regexp(t, `0x00010\s+SCRATCH\s+0xfeedf00d`, out)
	assert.Regexp(t, `0x00000\s+MAGIC\s+0x5649414e`, out)
	assert.Regexp(t, `CAP_VI\s+0x00000040\s+NUM_VI=0x40`, out)
	assert.NotContains(t, out, "DIAG_CTRL", "write-only registers are not read")

	code, out, errs = runCLI("regs", "-socket", "unix:"+s.Addr(), "-node", "0", "-json", "scratch", "HW_VERSION")
	require.Equal(t, 0, code, errs)
	var got struct {
		Node      int
		Registers []regValue
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Registers, 2)
	assert.Equal(t, "HW_VERSION", got.Registers[0].Name)
	assert.Equal(t, uint32(hw.VersionMinor), got.Registers[0].Fields["MINOR"])
	assert.Equal(t, uint32(0), got.Registers[1].Value, "node 0's SCRATCH is its own")

	code, _, errs = runCLI("regs", "-socket", s.Addr(), "NO_SUCH_REG")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no register NO_SUCH_REG")
	code, _, errs = runCLI("regs", "-socket", s.Addr(), "-node", "7")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "node 7")
	t.Setenv("VIANIC_SOCKET", "")
	code, _, errs = runCLI("regs")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no simulator given")
}

// TestDemo runs the main job with a small copy and checks its report.
// TestDemo runs the main job small: two vipl-perf processes on two nodes,
// the table, the waveform and the capture (read back with the dissector
// when tshark is there).
func TestDemo(t *testing.T) {
	simtest.RequireHDL(t)
	dir := t.TempDir()
	wave, capture := filepath.Join(dir, "demo.vcd"), filepath.Join(dir, "demo.pcap")
	code, out, errs := runCLI("demo", "-iters", "3", "-sizes", "8,5000", "-stream-count", "3", "-wave", wave, "-wave-cycles", "5000", "-pcap", capture)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `pingpong\s+8\s+3\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+`, out)
	assert.Regexp(t, `pingpong\s+5000\s+3\s`, out)
	assert.Regexp(t, `stream\s+65536\s+3\s+[0-9.]+\s+[0-9.]+ %`, out)
	assert.Regexp(t, `connection set-up \(ConnectRequest until CONNECTED.*\): [0-9.]+ us \([0-9]+ cycles\)`, out)
	assert.Contains(t, out, filepath.Join("sim-scripts", "gtkwave", "cosim.gtkw")+" "+wave)
	assert.Contains(t, out, "lua_script:")
	for _, f := range []string{wave, capture} {
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.Greater(t, st.Size(), int64(1000), f)
	}
	// 3 + 3 pings of 8 and 5000 bytes (2 frames each way for 5000), the
	// stream's 3 x 16 frames, and the control messages: tens of frames
	b, err := os.ReadFile(capture)
	require.NoError(t, err)
	assert.Greater(t, len(b), 3*16*4096, "the stream's frames are in the capture")

	code, _, errs = runCLI("demo", "-iters", "0")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errs, "iters")
}

func TestDemoTPT(t *testing.T) {
	simtest.RequireHDL(t)
	wave := filepath.Join(t.TempDir(), "demo.vcd")
	code, out, errs := runCLI("demo-tpt", "-bytes", "8192", "-wave", wave)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, 2, strings.Count(out, "verified"), out)
	assert.Equal(t, 2, strings.Count(out, "STALE"), out)
	assert.Contains(t, out, "gtkwave -a ")
	assert.Contains(t, out, filepath.Join("sim-scripts", "gtkwave", "cosim.gtkw")+" "+wave)
	st, err := os.Stat(wave)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10000))

	code, _, errs = runCLI("demo-tpt", "-bytes", "7")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "multiple of 8")
}

// TestTPTProbe asks a real TPT about a registered buffer.
func TestTPTProbe(t *testing.T) {
	simtest.RequireHDL(t)
	code, out, errs := runCLI("tpt", "probe", "-rdma-read")
	require.Equal(t, 0, code, errs)
	for _, want := range []string{"OK", "BOUNDS", "ACCESS", "hit", "miss", "TPT: "} {
		assert.Contains(t, out, want)
	}
	assert.Contains(t, errs, "registered 12800 bytes")
	// remote-read is allowed with -rdma-read, remote-write is not
	assert.Regexp(t, `remote-read\s.*\sOK\s`, out)
	assert.Regexp(t, `remote-write\s.*\sACCESS\s`, out)

	code, out, errs = runCLI("tpt", "probe", "-deregister", "local-read:0:8", "local-write:@0x1000:8")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, 2, strings.Count(out, "STALE"), out)

	code, out, errs = runCLI("tpt", "probe", "-ptag", "0x4242", "-json", "local-read")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"answer": "PTAG"`)

	code, _, errs = runCLI("tpt", "probe", "sideways:0:8")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "kind \"sideways\"")
	code, _, _ = runCLI("tpt")
	assert.NotEqual(t, 0, code)
}
