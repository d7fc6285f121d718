package driver_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
)

// TestCosimSimulatorKeepsFirmwareLog checks the simulator's side of the
// firmware log: it reads the driver.NIC's fw_log debug port and publishes the
// lines in STATS with the cycle they started, which `vianic fw log` shows.
func TestCosimSimulatorKeepsFirmwareLog(t *testing.T) {
	requireNIC(t)
	s := startSim(t, 1)
	n, _, conn, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	require.NoError(t, n.Nop(ctxT(t)))
	stats, err := conn.Stats(ctxT(t))
	require.NoError(t, err)
	line, ok := stats["fw_log.node0.0"]
	require.True(t, ok, "no fw_log.node0.0 in STATS: %v", stats)
	cycle, text, _ := strings.Cut(line, " ")
	c, err := strconv.ParseUint(cycle, 10, 64)
	require.NoError(t, err)
	boot := n.Boot()
	assert.Greater(t, c, boot.ReleaseCycle, "the boot line starts after the core is released")
	assert.Less(t, c, boot.ReadyCycle, "and before the driver sees FW_READY")
	assert.Contains(t, text, "vianic fw ")
}
