package vipl_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/vipl"
)

// A fault of the NIC's firmware is every process's asynchronous error:
// CATASTROPHIC, about the NIC, with the trap in the message, once per
// fault; after a recovery the NIC works again and the handler stays.
func TestCosimAsyncErrorCatastrophic(t *testing.T) {
	node, _, n := openDriverNic(t) // first: it may build the simulator
	ctx := ctxT(t)
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

// A raw doorbell that posts past MaxDescriptorsPerQueue (vipl refuses
// such a post; a program ringing the page itself can do it): the NIC drops
// the post (VI_DB_OVERFLOW) and the process gets VI_OVERRUN for the VI,
// once per dropped post; the VI's queue keeps what it had.
func TestCosimAsyncErrorOverrun(t *testing.T) {
	ctx := ctxT(t)
	node, sess, n := openDriverNic(t)
	t.Cleanup(func() { n.Close(context.Background()) })
	e := newDataEnvOn(t, n)
	errs := logErrors(t, n)
	attrs, err := n.Query(ctx)
	require.NoError(t, err)
	max := int(attrs.MaxDescriptorsPerQueue)
	recv := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	db, err := sess.Doorbell(driver.VI(e.b.ID()))
	require.NoError(t, err)
	require.NoError(t, db.SetHandle(ctx, driver.QueueRecv, driver.MemHandle(e.h)))
	over0, err := node.Conn().Read32(ctx, hw.RegViDbOverflow)
	require.NoError(t, err)
	// nothing is sent to b: its receives stay queued
	for range max + 2 {
		require.NoError(t, db.Ring(ctx, driver.QueueRecv, recv.VA()))
	}
	require.NoError(t, db.Flush(ctx))
	_, err = node.NIC.Idle(ctx, 20_000)
	require.NoError(t, err)
	over1, err := node.Conn().Read32(ctx, hw.RegViDbOverflow)
	require.NoError(t, err)
	assert.Equal(t, uint32(2), over1-over0, "two posts past %d dropped", max)
	got := errs.list()
	require.Len(t, got, 2, "one VI_OVERRUN per dropped post")
	for _, d := range got {
		assert.Equal(t, vipl.ErrorViOverrun, d.ErrorCode)
		assert.Equal(t, vipl.ResourceVi, d.ResourceCode)
		assert.Equal(t, e.b.ID(), d.ViID)
		assert.Same(t, e.b, d.Vi)
	}
	info, err := e.b.Query(ctx)
	require.NoError(t, err)
	assert.False(t, info.RecvQueueEmpty)
	assert.Equal(t, vipl.ViConnected, info.State, "the VI keeps working")
}

// errLog collects a Nic's asynchronous errors (its ErrorCallback), in the
// order they came.
type errLog struct {
	mu  sync.Mutex
	got []vipl.ErrorDescriptor
}

// logErrors makes a new errLog n's error handler.
func logErrors(t *testing.T, n *vipl.Nic) *errLog {
	t.Helper()
	l := &errLog{}
	require.NoError(t, n.ErrorCallback(l.add))
	return l
}

func (l *errLog) add(d vipl.ErrorDescriptor) {
	l.mu.Lock()
	l.got = append(l.got, d)
	l.mu.Unlock()
}

// list returns the errors so far.
func (l *errLog) list() []vipl.ErrorDescriptor {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]vipl.ErrorDescriptor(nil), l.got...)
}
