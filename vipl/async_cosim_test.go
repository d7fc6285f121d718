package vipl_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/vipl"
)

// A fault of the NIC's firmware is every process's asynchronous error:
// CATASTROPHIC, about the NIC, with the trap in the message, once per
// fault; after a recovery the NIC works again and the handler stays.
func TestCosimAsyncErrorCatastrophic(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	ctx := ctxT(t)
	node, err := simbus.OpenNode(ctx, simAddress(s), 0, simbus.NodeOptions{Name: t.Name(), MemoryBytes: testMemBytes,
		Driver: driver.Options{Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	t.Cleanup(func() { node.Close() })
	sess, err := node.NIC.OpenSession(t.Name(), 0)
	require.NoError(t, err)
	n, err := vipl.NewNic(ctx, vipl.NewLocalAgent(node.NIC, sess))
	require.NoError(t, err)
	got := make(chan vipl.ErrorDescriptor, 4)
	require.NoError(t, n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))

	// the fault test image traps on its first admin command
	require.NoError(t, node.NIC.Reload(ctx, firmware.FaultTestImage()))
	_, err = n.CreatePtag(ctx)
	requireCode(t, vipl.ErrorResource, err, "the firmware faulted")
	var d vipl.ErrorDescriptor
	select {
	case d = <-got:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no asynchronous error for the fault")
	}
	assert.Equal(t, vipl.ErrorCatastrophic, d.ErrorCode)
	assert.Equal(t, vipl.ResourceNic, d.ResourceCode)
	assert.Nil(t, d.Vi)
	assert.Contains(t, d.Message, "illegal instruction at pc 0x00000100")
	assert.Contains(t, d.String(), "CATASTROPHIC on the NIC")
	_, err = n.CreatePtag(ctx)
	requireCode(t, vipl.ErrorResource, err, "still faulted")
	assert.Empty(t, got, "one error per fault")

	require.NoError(t, node.NIC.Recover(ctx))
	_, err = n.CreatePtag(ctx)
	require.NoError(t, err, "after the recovery")
	assert.Empty(t, got)
	require.NoError(t, n.Close(ctx))
}
