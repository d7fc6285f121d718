package vipl_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/vipl"
)

// Completion queues (issue 11) on the real NIC: the NIC writes an entry
// per completed descriptor of a bound queue into the CQ's ring, after the
// descriptor's Status; CQDone and CQWait name the VI and queue, and the
// descriptor is then reaped from its queue.

// cqEnv is one node with a registered buffer: descriptors in pages 0..3
// (256 slots of 64 bytes: one data segment each), send data in pages 4..5, receive buffers in
// pages 6..13 (64 of 512 bytes).
type cqEnv struct {
	node  *simbus.Node
	n     *vipl.Nic
	p     vipl.Ptag
	buf   *vipl.Buffer
	h     vipl.MemHandle
	attrs vipl.ViAttributes
	slot  int
}

const (
	cqDescSlot = 64
	cqSrc      = 4 * 4096
	cqRecv     = 6 * 4096
	cqRecvLen  = 512
)

func newCQEnv(t *testing.T) *cqEnv {
	t.Helper()
	ctx := ctxT(t)
	node, _, n := openDriverNic(t)
	var err error
	t.Cleanup(func() {
		if !t.Failed() {
			assert.NoError(t, n.Close(context.Background()))
		}
	})
	e := &cqEnv{node: node, n: n, p: mustPtag(t, n)}
	e.buf, err = n.Alloc(ctx, 14*4096)
	require.NoError(t, err)
	e.h, err = n.RegisterMem(ctx, e.buf.VA, len(e.buf.Bytes), vipl.MemAttributes{Ptag: e.p})
	require.NoError(t, err)
	e.attrs = vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: e.p}
	for i := cqSrc; i < cqRecv; i++ {
		e.buf.Bytes[i] = byte(i*5 + 3)
	}
	return e
}

// awaitEntries lets time pass until CQ_ENTRIES reaches n (every read is a
// bus round trip: simulated time passes).
func (e *cqEnv) awaitEntries(t *testing.T, n uint32) {
	t.Helper()
	for i := 0; e.counter(t, hw.RegCqEntries) < n; i++ {
		require.Less(t, i, 10000, "CQ_ENTRIES stays below %d", n)
	}
}

func (e *cqEnv) counter(t *testing.T, off uint32) uint32 {
	t.Helper()
	v, err := e.node.Conn().Read32(ctxT(t), off)
	require.NoError(t, err)
	return v
}

// pair makes two VIs with the CQs given (nil: none) and joins them: a's
// send queue reports to aSend, b's receive queue to bRecv.
func (e *cqEnv) pair(t *testing.T, aSend, bRecv *vipl.CQ) (a, b *vipl.Vi) {
	t.Helper()
	ctx := ctxT(t)
	a, err := e.n.CreateViWithCQ(ctx, e.attrs, aSend, nil)
	require.NoError(t, err)
	b, err = e.n.CreateViWithCQ(ctx, e.attrs, nil, bRecv)
	require.NoError(t, err)
	require.NoError(t, a.ConnectLoopback(ctx, b))
	return a, b
}

// next returns a new descriptor in the next of the 256 slots (a test has
// fewer than 256 posted at once).
func (e *cqEnv) next(t *testing.T, d *vipl.Descriptor) *vipl.Desc {
	t.Helper()
	x, err := e.n.NewDesc(e.buf.VA+uint64(e.slot%256*cqDescSlot), e.h, d)
	require.NoError(t, err)
	e.slot++
	return x
}

// message posts a receive on to (buffer k) and a send of n bytes (k-th
// pattern) on from; it does not wait.
func (e *cqEnv) message(t *testing.T, from, to *vipl.Vi, k, n int) (send, recv *vipl.Desc) {
	t.Helper()
	ctx := ctxT(t)
	off := cqRecv + k%64*cqRecvLen
	recv = e.next(t, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: e.buf.VA + uint64(off), Handle: e.h, Length: cqRecvLen}}})
	require.NoError(t, to.PostRecv(ctx, recv))
	send = e.next(t, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: e.buf.VA + uint64(cqSrc+k%97), Handle: e.h, Length: uint32(n)}}})
	require.NoError(t, from.PostSend(ctx, send))
	return send, recv
}

// reap takes one entry of cq (waiting up to 1 ms) and reaps the
// descriptor it names from its queue: the descriptor must be done at once.
func reap(t *testing.T, cq *vipl.CQ) (*vipl.Vi, vipl.Queue, *vipl.Desc) {
	t.Helper()
	v, q, err := cq.Wait(ctxT(t), 1)
	require.NoError(t, err, "an entry on CQ %d within 1 ms", cq.ID())
	return v, q, reapNamed(t, v, q)
}

// reapDone is reap with CQ.Done: the entry must be there.
func reapDone(t *testing.T, cq *vipl.CQ) (*vipl.Vi, vipl.Queue, *vipl.Desc) {
	t.Helper()
	v, q, err := cq.Done(ctxT(t))
	require.NoError(t, err, "an entry on CQ %d", cq.ID())
	return v, q, reapNamed(t, v, q)
}

// reapNamed reaps the head of queue q of v, which must be done.
func reapNamed(t *testing.T, v *vipl.Vi, q vipl.Queue) *vipl.Desc {
	t.Helper()
	require.NotNil(t, v)
	ctx := ctxT(t)
	var d *vipl.Desc
	var err error
	if q == vipl.SendQueue {
		d, err = v.SendDone(ctx)
	} else {
		d, err = v.RecvDone(ctx)
	}
	require.NoError(t, err, "the entry's descriptor (VI %d, %s queue) is done when the entry is seen", v.ID(), q)
	return d
}

func TestCosimCQ(t *testing.T) {
	e := newCQEnv(t)
	ctx := ctxT(t)
	attrs, err := e.n.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint32(16), attrs.MaxCQ, "MaxCQ: CQ_CAP.NUM")
	assert.Equal(t, uint32(4096), attrs.MaxCQEntries, "MaxCQEntries: 2**CQ_CAP.MAX_LOG2")

	sendCQ, err := e.n.CreateCQ(ctx, 50)
	require.NoError(t, err)
	assert.Equal(t, 64, sendCQ.Entries(), "50 entries round up to 64")
	recvCQ, err := e.n.CreateCQ(ctx, 64)
	require.NoError(t, err)
	assert.NotEqual(t, sendCQ.ID(), recvCQ.ID())
	// two pairs report to the same two CQs; a third pair reports to none
	a, b := e.pair(t, sendCQ, recvCQ)
	c, d := e.pair(t, sendCQ, recvCQ)
	x, y := e.pair(t, nil, nil)
	entries0 := e.counter(t, hw.RegCqEntries)

	// 24 messages on each bound pair, interleaved, and 4 on the unbound one
	const per = 24
	sends := map[*vipl.Vi][]*vipl.Desc{}
	recvs := map[*vipl.Vi][]*vipl.Desc{}
	for k := range per {
		for i, pr := range [][2]*vipl.Vi{{a, b}, {c, d}} {
			s, r := e.message(t, pr[0], pr[1], 2*k+i, 8+k*13+i)
			sends[pr[0]] = append(sends[pr[0]], s)
			recvs[pr[1]] = append(recvs[pr[1]], r)
		}
		if k < 4 {
			e.message(t, x, y, 48+k, 16)
		}
	}
	// every entry names a queue whose head is done; per queue, in order
	for range 2 * per {
		v, q, got := reap(t, recvCQ)
		require.Equal(t, vipl.RecvQueue, q)
		require.True(t, v == b || v == d, "a receive entry names b or d, not VI %d", v.ID())
		require.NotEmpty(t, recvs[v])
		require.Same(t, recvs[v][0], got, "receives of VI %d come in order", v.ID())
		recvs[v] = recvs[v][1:]
		assertStatus(t, recvOK, got, "receive")
	}
	// (the send entries are all written by now: CQ.Done takes them without
	// waiting)
	e.awaitEntries(t, entries0+4*per)
	for range 2 * per {
		v, q, got := reapDone(t, sendCQ)
		require.Equal(t, vipl.SendQueue, q)
		require.True(t, v == a || v == c)
		require.Same(t, sends[v][0], got)
		sends[v] = sends[v][1:]
		assertStatus(t, sendOK, got, "send")
	}
	// nothing more: the unbound pair's completions wrote no entry
	_, _, err = recvCQ.Done(ctx)
	assert.ErrorIs(t, err, vipl.ErrNotDone)
	_, _, err = sendCQ.Wait(ctx, 0)
	assert.ErrorIs(t, err, vipl.ErrTimeout)
	assert.Equal(t, uint32(4*per), e.counter(t, hw.RegCqEntries)-entries0, "CQ_ENTRIES: one per bound completion")
	for range 4 {
		_, err := x.SendWait(ctx, 1)
		require.NoError(t, err)
		r, err := y.RecvWait(ctx, 1)
		require.NoError(t, err)
		assertStatus(t, recvOK, r, "unbound pair")
	}
	assert.True(t, bytes.Equal(e.buf.Bytes[cqSrc+3:cqSrc+3+8], e.buf.Bytes[cqRecv+3*cqRecvLen:cqRecv+3*cqRecvLen+8]), "the data arrived")

	// the rings lap: 2 more rounds of 40 through 64-entry rings (taken
	// once all are written: Done, no wait)
	for round := range 2 {
		n0 := e.counter(t, hw.RegCqEntries)
		for k := range 40 {
			e.message(t, a, b, k, 8+round)
		}
		e.awaitEntries(t, n0+80)
		for range 40 {
			v, _, got := reapDone(t, recvCQ)
			require.Same(t, b, v)
			assertStatus(t, recvOK, got, "lap")
			v, _, got = reapDone(t, sendCQ)
			require.Same(t, a, v)
			assertStatus(t, sendOK, got, "lap")
		}
	}

	// a CQ in use is not destroyed; once its VIs are gone it is
	assert.ErrorIs(t, sendCQ.Destroy(ctx), vipl.ErrErrorResource)
	for _, pr := range [][2]*vipl.Vi{{a, b}, {c, d}, {x, y}} {
		require.NoError(t, pr[0].Disconnect(ctx))
		for _, v := range pr {
			require.NoError(t, v.Destroy(ctx))
		}
	}
	require.NoError(t, sendCQ.Destroy(ctx))
	require.NoError(t, recvCQ.Destroy(ctx))
	assert.ErrorIs(t, sendCQ.Destroy(ctx), vipl.ErrInvalidParameter, "destroyed twice")
	_, _, err = sendCQ.Done(ctx)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter)
	_, err = e.n.CreateViWithCQ(ctx, e.attrs, sendCQ, nil)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter, "a destroyed CQ")
}

func TestCosimCQErrors(t *testing.T) {
	e := newCQEnv(t)
	ctx := ctxT(t)
	for _, n := range []int{0, -1, 4097} {
		_, err := e.n.CreateCQ(ctx, n)
		assert.ErrorIs(t, err, vipl.ErrInvalidParameter, "%d entries", n)
	}
	var cqs []*vipl.CQ
	for range 16 {
		cq, err := e.n.CreateCQ(ctx, 1)
		require.NoError(t, err)
		assert.Equal(t, 2, cq.Entries(), "the smallest ring is 2 entries")
		cqs = append(cqs, cq)
	}
	_, err := e.n.CreateCQ(ctx, 8)
	assert.ErrorIs(t, err, vipl.ErrErrorResource, "the 17th CQ")
	require.NoError(t, cqs[5].Destroy(ctx))
	cq, err := e.n.CreateCQ(ctx, 4096)
	require.NoError(t, err, "a destroyed CQ's slot is reused")
	assert.Equal(t, cqs[5].ID(), cq.ID())
	assert.Equal(t, 4096, cq.Entries())

	// a CQ of another NIC is refused
	other := newCQEnv(t)
	ocq, err := other.n.CreateCQ(ctx, 4)
	require.NoError(t, err)
	_, err = e.n.CreateViWithCQ(ctx, e.attrs, ocq, nil)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter)
	// a VI whose creation fails binds nothing
	bad := e.attrs
	bad.Ptag = 0x7777
	_, err = e.n.CreateViWithCQ(ctx, bad, cq, cq)
	assert.ErrorIs(t, err, vipl.ErrInvalidPtag)
	require.NoError(t, cq.Destroy(ctx), "nothing is bound to it")
}

// TestCosimCQOverflow: a CQ of 4 entries with 6 completions not taken: the
// first 4 are written, the 5th sets OVERFLOW and raises one asynchronous
// error (CATASTROPHIC, resource CQ, this CQ) to the owner, the 6th is
// dropped; the descriptors all complete in their queues; nothing is
// written outside the ring.
func TestCosimCQOverflow(t *testing.T) {
	e := newCQEnv(t)
	ctx := ctxT(t)
	got := make(chan vipl.ErrorDescriptor, 8)
	require.NoError(t, e.n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))
	cq, err := e.n.CreateCQ(ctx, 4)
	require.NoError(t, err)
	a, b := e.pair(t, cq, nil)
	dropped0 := e.counter(t, hw.RegCqDropped)
	var sends []*vipl.Desc
	for k := range 6 {
		s, _ := e.message(t, a, b, k, 32)
		sends = append(sends, s)
	}
	for i := range 6 {
		r, err := b.RecvWait(ctx, 1)
		require.NoError(t, err)
		assertStatus(t, recvOK, r, "receive")
		_ = i
	}
	// the sends completed (their Status), whatever the CQ could take
	for _, s := range sends {
		for !s.Status().Done() {
			_, err := a.RecvDone(ctx) // lets simulated time pass
			require.ErrorIs(t, err, vipl.ErrNotDone)
		}
		assertStatus(t, sendOK, s, "send")
	}
	for i := range 4 {
		v, q, err := cq.Done(ctx)
		require.NoError(t, err, "entry %d", i)
		assert.Same(t, a, v)
		assert.Equal(t, vipl.SendQueue, q)
		d, err := a.SendDone(ctx)
		require.NoError(t, err)
		assert.Same(t, sends[i], d)
	}
	_, _, err = cq.Done(ctx)
	assert.ErrorIs(t, err, vipl.ErrNotDone, "the 5th and 6th were not written")
	assert.Equal(t, uint32(2), e.counter(t, hw.RegCqDropped)-dropped0, "CQ_DROPPED")
	// the error reaches the callback while the process waits (b has no
	// receive posted: the wait times out)
	_, err = b.RecvWait(ctx, 0)
	assert.ErrorIs(t, err, vipl.ErrTimeout)
	var d vipl.ErrorDescriptor
	select {
	case d = <-got:
	default:
		_, _, _ = cq.Wait(ctx, 1)
		select {
		case d = <-got:
		case <-ctx.Done():
			t.Fatal("no asynchronous error for the overflow")
		}
	}
	assert.Equal(t, vipl.ErrorCatastrophic, d.ErrorCode)
	assert.Equal(t, vipl.ResourceCQ, d.ResourceCode)
	assert.Same(t, cq, d.CQ)
	assert.Equal(t, cq.ID(), d.CQID)
	select {
	case d := <-got:
		t.Errorf("a second asynchronous error: %s", d)
	default:
	}
	// the last two sends are still in the send queue, done
	for i := 4; i < 6; i++ {
		d, err := a.SendDone(ctx)
		require.NoError(t, err)
		assert.Same(t, sends[i], d)
	}
}

// TestCosimCQResize: entries not taken move with the ring, in order, and
// completions that come while it moves are not lost; a ring too small for
// what it holds is refused and the CQ stays as it was.
func TestCosimCQResize(t *testing.T) {
	e := newCQEnv(t)
	ctx := ctxT(t)
	cq, err := e.n.CreateCQ(ctx, 8)
	require.NoError(t, err)
	a, b := e.pair(t, nil, cq)
	entries0 := e.counter(t, hw.RegCqEntries)
	var recvs []*vipl.Desc
	post := func(n int) {
		for k := range n {
			_, r := e.message(t, a, b, len(recvs)+k, 24)
			recvs = append(recvs, r)
		}
	}
	post(6)
	for range 6 {
		_, err := a.SendWait(ctx, 1)
		require.NoError(t, err)
	}
	e.awaitEntries(t, entries0+6)
	// take 2 of the 6 (the ring's producer is past its first half)
	for range 2 {
		v, _, d := reap(t, cq)
		require.Same(t, b, v)
		require.Same(t, recvs[0], d)
		recvs = recvs[1:]
	}
	err = cq.Resize(ctx, 2)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter, "4 entries not taken do not fit 2")
	assert.Equal(t, 8, cq.Entries())
	require.NoError(t, cq.Resize(ctx, 100))
	assert.Equal(t, 128, cq.Entries())
	// traffic while resizing: post 20, resize back down mid-way
	post(10)
	require.NoError(t, cq.Resize(ctx, 40))
	post(10)
	for len(recvs) > 0 {
		v, q, d := reap(t, cq)
		require.Same(t, b, v)
		require.Equal(t, vipl.RecvQueue, q)
		require.Same(t, recvs[0], d, "receives in order across the resizes")
		assertStatus(t, recvOK, d, "receive")
		recvs = recvs[1:]
	}
	for range 20 {
		_, err := a.SendWait(ctx, 1)
		require.NoError(t, err)
	}
	_, _, err = cq.Done(ctx)
	assert.True(t, errors.Is(err, vipl.ErrNotDone))
}

// TestCosimNotify: SendNotify, RecvNotify and CQ.Notify run their handler
// once, with the next completion taken for it, when a wait of the program
// returns from the NIC (lockstep); several handlers of one queue take one
// completion each, in order; a cancelled one never runs and leaves its
// completion to the program; handlers may call vipl.
func TestCosimNotify(t *testing.T) {
	e := newCQEnv(t)
	ctx := ctxT(t)
	cq, err := e.n.CreateCQ(ctx, 16)
	require.NoError(t, err)
	a, b := e.pair(t, nil, nil)
	c, d := e.pair(t, nil, cq)

	// until collects n values from ch, letting simulated time pass through
	// a Done call's poll interval meanwhile
	until := func(n int, ch <-chan *vipl.Desc) []*vipl.Desc {
		t.Helper()
		var got []*vipl.Desc
		for i := 0; len(got) < n; i++ {
			require.Less(t, i, 100000, "%d of %d handlers ran", len(got), n)
			select {
			case x := <-ch:
				got = append(got, x)
			default:
				_, err := b.SendDone(ctx) // b sends nothing: NotDone, time passes
				require.ErrorIs(t, err, vipl.ErrNotDone)
			}
		}
		return got
	}

	// three RecvNotify handlers on b, one SendNotify on a; 3 messages
	recvs := make(chan *vipl.Desc, 8)
	for range 3 {
		_, err := b.RecvNotify(func(x *vipl.Desc) { recvs <- x })
		require.NoError(t, err)
	}
	sends := make(chan *vipl.Desc, 8)
	_, err = a.SendNotify(func(x *vipl.Desc) { sends <- x })
	require.NoError(t, err)
	var ss, rs []*vipl.Desc
	for k := range 3 {
		s, r := e.message(t, a, b, k, 40+k)
		ss, rs = append(ss, s), append(rs, r)
	}
	got := until(3, recvs)
	for i := range got {
		assert.Same(t, rs[i], got[i], "handler %d got receive %d", i, i)
		assertStatus(t, recvOK, got[i], "notified receive")
	}
	gotS := until(1, sends)
	assert.Same(t, ss[0], gotS[0], "the send handler took the first send")
	// the other two sends were not taken: the program reaps them
	for i := 1; i < 3; i++ {
		x, err := a.SendWait(ctx, 1)
		require.NoError(t, err)
		assert.Same(t, ss[i], x)
	}
	_, err = b.RecvDone(ctx)
	assert.ErrorIs(t, err, vipl.ErrNotDone, "the handlers took every receive")

	// a cancelled handler never runs; its completion stays in the queue
	x, err := b.RecvNotify(func(*vipl.Desc) { t.Error("a cancelled handler ran") })
	require.NoError(t, err)
	assert.True(t, x.Cancel())
	assert.False(t, x.Cancel(), "cancelled twice")
	_, r := e.message(t, a, b, 5, 16)
	got1, err := b.RecvWait(ctx, 1)
	require.NoError(t, err)
	assert.Same(t, r, got1)
	_, err = a.SendWait(ctx, 1)
	require.NoError(t, err)

	// CQ.Notify: the handler gets the VI and queue and reaps the receive
	// itself (a handler may call vipl)
	entries := make(chan *vipl.Desc, 8)
	_, err = cq.Notify(func(v *vipl.Vi, q vipl.Queue) {
		if v != d || q != vipl.RecvQueue {
			t.Errorf("CQ handler: VI %d, %s queue; want VI %d, receive", v.ID(), q, d.ID())
		}
		x, err := v.RecvDone(ctx)
		if err != nil {
			t.Errorf("CQ handler: RecvDone: %v", err)
		}
		entries <- x
	})
	require.NoError(t, err)
	_, r = e.message(t, c, d, 7, 24)
	gotE := until(1, entries)
	assert.Same(t, r, gotE[0])
	assertStatus(t, recvOK, gotE[0], "receive reaped in the CQ handler")
	_, err = c.SendWait(ctx, 1)
	require.NoError(t, err)

	// bad input
	_, err = b.RecvNotify(nil)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter)
	_, err = cq.Notify(nil)
	assert.ErrorIs(t, err, vipl.ErrInvalidParameter)
	// a handler still waiting when the Nic closes never runs (Cleanup
	// closes it)
	_, err = b.RecvNotify(func(*vipl.Desc) { t.Error("a handler ran after Close") })
	require.NoError(t, err)
}
