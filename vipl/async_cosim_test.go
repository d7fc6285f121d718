package vipl_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/vipl"
)

// A fault of the NIC's firmware is every process's asynchronous error:
// CATASTROPHIC, about the NIC, with the trap in the message, once per
// fault; after a recovery the NIC works again and the handler stays.
func TestCosimAsyncErrorCatastrophic(t *testing.T) {
	ctx := ctxT(t)
	node, _, n := openDriverNic(t)
	got := make(chan vipl.ErrorDescriptor, 4)
	require.NoError(t, n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))

	// the fault test image traps on its first admin command
	require.NoError(t, node.NIC.Reload(ctx, firmware.FaultTestImage()))
	_, err := n.CreatePtag(ctx)
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
