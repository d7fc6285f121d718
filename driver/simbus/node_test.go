package simbus_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

func TestSplitAddress(t *testing.T) {
	for in, want := range map[string][2]string{
		"/tmp/x/sim.sock":      {"unix", "/tmp/x/sim.sock"},
		"unix:/tmp/x/sim.sock": {"unix", "/tmp/x/sim.sock"},
		"tcp:127.0.0.1:7000":   {"tcp", "127.0.0.1:7000"},
	} {
		n, a := simbus.SplitAddress(in)
		assert.Equal(t, want, [2]string{n, a}, in)
	}
}

func TestOpenNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := simbus.OpenNode(ctx, "", 0, simbus.NodeOptions{})
	require.Error(t, err)
	_, err = simbus.OpenNode(ctx, t.TempDir()+"/none.sock", 0, simbus.NodeOptions{})
	require.Error(t, err)

	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	n, err := simbus.OpenNode(ctx, s.Addr(), 0, simbus.NodeOptions{Name: t.Name(), MemoryBytes: 4 << 20, Driver: driver.Options{Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	assert.Equal(t, int64(4<<20), n.NIC.Phys().Size())
	sess, err := n.NIC.OpenSession("test", 0)
	require.NoError(t, err)
	_, err = sess.CreatePtag(ctx)
	require.NoError(t, err)
	require.NoError(t, sess.Close(ctx))
	require.NoError(t, n.Close())
	_, err = n.NIC.QueryNIC(ctx)
	assert.ErrorIs(t, err, driver.ErrClosed)
}
