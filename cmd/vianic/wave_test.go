package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vianic wave opens a co-simulation dump (node0, node1, ... at the top)
// with cosim.gtkw and a bench's dump with via_nic.gtkw; the save files show
// the VI data path's groups (sim-scripts/gtkwave/waves.txt).
func TestWaveSaveFileForDump(t *testing.T) {
	dir := t.TempDir()
	cosim := filepath.Join(dir, "cosim.vcd")
	bench := filepath.Join(dir, "bench.vcd")
	require.NoError(t, os.WriteFile(cosim, []byte("$timescale 1ps $end\n$scope module node0 $end\n$var wire 1 ! clk $end\n$upscope $end\n$enddefinitions $end\n"), 0o644))
	require.NoError(t, os.WriteFile(bench, []byte("$timescale 1ps $end\n$scope module TOP $end\n$scope module tb_via_nic $end\n$var wire 1 ! clk $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n"), 0o644))
	root := "/r"
	assert.Equal(t, []string{"gtkwave", "-a", "/r/sim-scripts/gtkwave/cosim.gtkw", cosim}, waveCommand(root, cosim))
	assert.Equal(t, []string{"gtkwave", "-a", "/r/sim-scripts/gtkwave/via_nic.gtkw", bench}, waveCommand(root, bench))
	assert.Equal(t, "/r/sim-scripts/gtkwave/cosim.gtkw", waveCommand(root, filepath.Join(dir, "x.fst"))[2], "only the simulator writes FST")

	// Both save files show the engines' states by name.
	for _, f := range []string{"cosim.gtkw", "via_nic.gtkw"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "sim-scripts", "gtkwave", f))
		require.NoError(t, err)
		assert.Contains(t, string(b), "^1 /vianic-gtkwave/filters/desc_tx_out.txt\n", f)
		assert.Contains(t, string(b), "^1 /vianic-gtkwave/filters/desc_ctl_status.txt\n", f)
		assert.Contains(t, string(b), "VI doorbells (regfile to queues_inst)\n", f)
	}
}
