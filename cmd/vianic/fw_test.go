package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

func TestFWUsage(t *testing.T) {
	code, _, errs := runCLI("fw")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "usage: vianic fw SUBCOMMAND")
	code, _, errs = runCLI("fw", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, "disasm")
	code, _, errs = runCLI("fw", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown subcommand "frobnicate"`)
	code, _, errs = runCLI("fw", "log")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no simulator given")
	code, out, _ := runCLI("help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "fw ")
}

func TestFWDisasm(t *testing.T) {
	code, _, errs := runCLI("fw", "disasm", "-image", "/nonexistent/fw.elf")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no firmware ELF")

	saved := objdumpTool
	objdumpTool = "vianic-no-such-objdump"
	code, _, errs = runCLI("fw", "disasm")
	objdumpTool = saved
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "vianic-no-such-objdump not found")
	assert.Contains(t, errs, "make deps")

	if _, err := exec.LookPath(objdumpTool); err != nil {
		t.Skipf("%s is not installed (make deps): not disassembling", objdumpTool)
	}
	code, out, errs := runCLI("fw", "disasm")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "<_start>:")
	assert.Contains(t, out, "elf32-littleriscv")
}

func TestFWBuild(t *testing.T) {
	saved := makeTool
	makeTool = "vianic-no-such-make"
	code, _, errs := runCLI("fw", "build")
	makeTool = saved
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "make deps")

	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	// A dry run: the test must not rewrite the committed images.
	code, out, errs := runCLI("fw", "build", "-n")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "vianic-fw.elf")
}

func TestFWLogStatsLines(t *testing.T) {
	idx, lines := statsLogLines(map[string]string{
		"fw_log.node1.2":  "300 c",
		"fw_log.node1.0":  "100 a",
		"fw_log.node1.10": "900 d",
		"fw_log.node0.1":  "other node",
		"fw_log.node1.x":  "bad index",
		"cycle":           "5",
	}, 1)
	assert.Equal(t, []int{0, 2, 10}, idx)
	assert.Equal(t, []string{"100 a", "300 c", "900 d"}, lines)
}

// TestFWLog runs fw log against a simulator whose node 0 runs the fault
// test firmware, before and after its fault.
func TestFWLog(t *testing.T) {
	simtest.RequireHDL(t)
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	conn := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleDriver, Name: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := openNIC(ctx, conn, driver.Options{Firmware: firmware.FaultTestImage(), Logger: discard()})
	require.NoError(t, err)
	defer n.Close()

	code, out, errs := runCLI("fw", "log", "-socket", s.Addr(), "-node", "0")
	require.Equal(t, 0, code, errs)
	t.Log(out)
	assert.Contains(t, out, "node 0, cycle ")
	assert.Contains(t, out, "firmware: ready, version "+driver.VersionString(firmware.Version))
	assert.Contains(t, out, "core: running")

	require.ErrorIs(t, n.Nop(ctx), driver.ErrFirmwareFault)
	code, out, errs = runCLI("fw", "log", "-socket", s.Addr())
	require.Equal(t, 0, code, errs)
	t.Log(out)
	assert.Contains(t, out, "halted")
	assert.Contains(t, out, "trap: illegal instruction at pc 0x00000100 (mtval 0xc0001073)")
}

func TestFWBench(t *testing.T) {
	simtest.RequireHDL(t)
	if testing.Short() {
		t.Skip("-short: not starting a simulator")
	}
	code, out, errs := runCLI("fw", "bench", "-rounds", "5", "-json")
	require.Equal(t, 0, code, errs)
	var f driver.Figures
	require.NoError(t, json.Unmarshal([]byte(out), &f))
	t.Logf("%+v", f)
	assert.Greater(t, f.BootCycles, uint64(0))
	assert.Greater(t, f.NopDoneCycles, uint64(0))
	assert.Equal(t, 5, f.Rounds)

	code, out, errs = runCLI("fw", "bench", "-rounds", "3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "boot: core released to FW_READY")
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
