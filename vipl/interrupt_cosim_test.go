package vipl_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/vipl"
)

// Interrupts armed per queue and CQ, routed to the process's own vector,
// moderated (issue 11 item 3; docs/vi.md, "Interrupt vectors").

// sendOne posts a receive on e.b and a send of 8 bytes on e.a (slots i and
// i+1) and returns the receive.
func sendOne(t *testing.T, e *dataEnv, i int) *vipl.Desc {
	t.Helper()
	ctx := ctxT(t)
	recv := e.desc(t, i, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	send := e.desc(t, i+1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 8)}})
	require.NoError(t, e.b.PostRecv(ctx, recv))
	require.NoError(t, e.a.PostSend(ctx, send))
	return recv
}

func vecStats(t *testing.T, drv *driver.NIC, v int) driver.VectorStats {
	t.Helper()
	st, err := drv.VectorStats(ctxT(t), v)
	require.NoError(t, err)
	return st
}

// Two processes (sessions) on one NIC: B arms its receive queue (as its
// RecvWait would before it blocks), then A sends and waits 20 times; B's
// interrupt is never raised, until a message for B comes. (The waits are
// not concurrent: in lockstep a wait of B's left outstanding while A's
// goroutine runs would let time run on without A.)
func TestCosimInterruptRouting(t *testing.T) {
	node, sa, na := openDriverNic(t)
	ctx := ctxT(t)
	t.Cleanup(func() { na.Close(context.Background()) })
	sb, err := node.NIC.OpenSession("B", 0)
	require.NoError(t, err)
	nb, err := vipl.NewNic(ctx, vipl.NewLocalAgent(node.NIC, sb))
	require.NoError(t, err)
	t.Cleanup(func() { nb.Close(context.Background()) })
	require.NotEqual(t, sa.Vector(), sb.Vector(), "two sessions get two vectors")
	ea, eb := newDataEnvOn(t, na), newDataEnvOn(t, nb)
	evA, evB := sa.Events(), sb.Events()
	a0, b0 := vecStats(t, node.NIC, sa.Vector()), vecStats(t, node.NIC, sb.Vector())
	bBit := uint32(1) << (hw.IrqStatusVec.LSB + uint8(sb.Vector()))

	// A session cannot arm another session's VI or CQ.
	assert.ErrorContains(t, sa.Arm(ctx, driver.VI(eb.b.ID()), 1), "VIP_INVALID_PARAMETER", "A arms B's VI")
	assert.ErrorContains(t, sa.ArmCQ(ctx, 0), "VIP_INVALID_PARAMETER", "A arms a CQ it does not have")
	assert.ErrorContains(t, sb.Arm(ctx, driver.VI(eb.b.ID()), 2), "VIP_INVALID_PARAMETER", "queue 2")

	recvB := eb.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{eb.seg(8192, 64)}})
	require.NoError(t, eb.b.PostRecv(ctx, recvB))
	require.NoError(t, sb.Arm(ctx, driver.VI(eb.b.ID()), 1))
	gb := evB.Gen()
	for i := range 20 {
		recv := sendOne(t, ea, 0)
		d, err := ea.b.RecvWait(ctx, 10)
		require.NoError(t, err, "A's receive %d", i)
		require.Same(t, recv, d)
		d, err = ea.a.SendWait(ctx, 10)
		require.NoError(t, err, "A's send %d", i)
		require.NotNil(t, d)
	}
	st, err := node.Conn().Read32(ctx, hw.RegIrqStatus)
	require.NoError(t, err)
	assert.Zero(t, st&bBit, "B's IRQ_STATUS bit stayed clear through A's 40 completions")
	assert.Equal(t, gb, evB.Gen())
	a1, b1 := vecStats(t, node.NIC, sa.Vector()), vecStats(t, node.NIC, sb.Vector())
	assert.Zero(t, b1.Raised-b0.Raised, "B's vector raised nothing")
	assert.Zero(t, b1.Events-b0.Events, "B's vector counted nothing")
	assert.GreaterOrEqual(t, a1.Raised-a0.Raised, uint32(1), "A's waits woke on A's vector")
	assert.LessOrEqual(t, a1.Raised-a0.Raised, uint32(40))
	assert.Greater(t, evA.Gen(), uint64(0))

	// Now a message for B: B's wait returns on B's interrupt, raised once.
	send := eb.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{eb.seg(4096, 8)}})
	copy(eb.buf.Bytes[4096:], "to B!!!!")
	require.NoError(t, eb.a.PostSend(ctx, send))
	d, err := eb.b.RecvWait(ctx, 10)
	require.NoError(t, err)
	assert.Same(t, recvB, d)
	assert.Equal(t, "to B!!!!", string(eb.buf.Bytes[8192:8200]))
	assert.Greater(t, evB.Gen(), gb, "B woke on its vector")
	b2 := vecStats(t, node.NIC, sb.Vector())
	assert.Equal(t, uint32(1), b2.Raised-b0.Raised, "B's vector raised once, for B's receive")
	assert.Equal(t, uint32(1), b2.Events-b0.Events, "B's vector counted B's armed receive only")
	_, err = eb.a.SendWait(ctx, 10)
	require.NoError(t, err)
}

// recvLatency posts a receive and a send and returns the cycles from the
// post to RecvWait's return, and the vector's raises meanwhile.
func recvLatency(t *testing.T, e *dataEnv, sess *driver.Session, drv *driver.NIC) (uint64, uint32) {
	t.Helper()
	ctx := ctxT(t)
	r0 := vecStats(t, drv, sess.Vector()).Raised
	start := e.n.Cycle()
	recv := sendOne(t, e, 0)
	d, err := e.b.RecvWait(ctx, 10)
	require.NoError(t, err)
	require.Same(t, recv, d)
	end := e.n.Cycle()
	_, err = e.a.SendWait(ctx, 10)
	require.NoError(t, err)
	return end - start, vecStats(t, drv, sess.Vector()).Raised - r0
}

// Moderation: a time limit delays the wake-up of a lone completion by that
// many cycles; a count makes one interrupt of a burst.
func TestCosimInterruptModeration(t *testing.T) {
	node, sess, n := openDriverNic(t)
	ctx := ctxT(t)
	t.Cleanup(func() { n.Close(context.Background()) })
	e := newDataEnvOn(t, n)

	recvLatency(t, e, sess, node.NIC) // warm the TPT's cache
	base, raised := recvLatency(t, e, sess, node.NIC)
	assert.Equal(t, uint32(1), raised)
	base2, _ := recvLatency(t, e, sess, node.NIC)
	assert.Equal(t, base, base2, "lockstep: the same latency every time")

	// 2 us = 500 cycles at the reference clock: COUNT 100 never comes
	require.NoError(t, n.SetModeration(ctx, vipl.Moderation{Count: 100, Delay: 2 * time.Microsecond}))
	mod, raised := recvLatency(t, e, sess, node.NIC)
	assert.Equal(t, uint32(1), raised)
	t.Logf("doorbell to RecvWait's return: %d cycles, %d with a 500-cycle moderation", base, mod)
	assert.InDelta(t, float64(base+500), float64(mod), 4, "the time limit delays the wake-up by 500 cycles")

	// COUNT 8, no time limit: 8 messages posted at once, one interrupt;
	// the first RecvWait returns once the 8th has come
	require.NoError(t, n.SetModeration(ctx, vipl.Moderation{Count: 8}))
	r0 := vecStats(t, node.NIC, sess.Vector())
	var recvs []*vipl.Desc
	for i := range 8 {
		recvs = append(recvs, e.desc(t, i, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192+64*i, 64)}}))
		require.NoError(t, e.b.PostRecv(ctx, recvs[i]))
	}
	for i := range 8 {
		send := e.desc(t, 8+i, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 8)}})
		require.NoError(t, e.a.PostSend(ctx, send))
	}
	d, err := e.b.RecvWait(ctx, 10)
	require.NoError(t, err)
	require.Same(t, recvs[0], d)
	for i := 1; i < 8; i++ {
		require.True(t, recvs[i].Status().Done(), "receive %d is done when the first wait returns", i)
	}
	r1 := vecStats(t, node.NIC, sess.Vector())
	assert.Equal(t, uint32(1), r1.Raised-r0.Raised, "one interrupt for 8 completions")
	assert.GreaterOrEqual(t, r1.Events-r0.Events, uint32(8))
	for i := 1; i < 8; i++ {
		d, err := e.b.RecvWait(ctx, 10)
		require.NoError(t, err)
		require.Same(t, recvs[i], d)
	}
	for range 8 {
		_, err := e.a.SendWait(ctx, 10)
		require.NoError(t, err)
	}

	// back to no moderation
	require.NoError(t, n.SetModeration(ctx, vipl.Moderation{}))
	again, _ := recvLatency(t, e, sess, node.NIC)
	assert.Equal(t, base, again)

	// bad settings
	requireCode(t, vipl.InvalidParameter, n.SetModeration(ctx, vipl.Moderation{Count: 256}))
	requireCode(t, vipl.InvalidParameter, n.SetModeration(ctx, vipl.Moderation{Count: -1}))
	requireCode(t, vipl.InvalidParameter, n.SetModeration(ctx, vipl.Moderation{Delay: time.Second}))
	requireCode(t, vipl.InvalidParameter, n.SetModeration(ctx, vipl.Moderation{Delay: -time.Nanosecond}))
}
