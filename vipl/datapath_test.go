package vipl

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dpEnv is a Nic over the fake agent with two VIs, a buffer of 4 pages
// registered as two regions (pages 0-1 and 2-3), for the data path's unit
// tests.
type dpEnv struct {
	f      *fakeAgent
	n      *Nic
	a, b   *Vi
	buf    *Buffer
	h1, h2 MemHandle
}

func newDpEnv(t *testing.T) *dpEnv {
	t.Helper()
	ctx := context.Background()
	e := &dpEnv{f: newFakeAgent()}
	var err error
	e.n, err = NewNic(ctx, e.f)
	require.NoError(t, err)
	p, err := e.n.CreatePtag(ctx)
	require.NoError(t, err)
	e.buf, err = e.n.Alloc(ctx, 4*4096)
	require.NoError(t, err)
	e.h1, err = e.n.RegisterMem(ctx, e.buf.VA, 8192, MemAttributes{Ptag: p})
	require.NoError(t, err)
	e.h2, err = e.n.RegisterMem(ctx, e.buf.VA+8192, 8192, MemAttributes{Ptag: p})
	require.NoError(t, err)
	attrs := ViAttributes{ReliabilityLevel: Unreliable, MaxTransferSize: 4096, Ptag: p}
	e.a, err = e.n.CreateVi(ctx, attrs)
	require.NoError(t, err)
	e.b, err = e.n.CreateVi(ctx, attrs)
	require.NoError(t, err)
	return e
}

// desc builds a one-segment descriptor in slot i (64 bytes each) of the
// first region (i < 64) or the second (i >= 64... within 128).
func (e *dpEnv) desc(t *testing.T, i int) *Desc {
	t.Helper()
	h := e.h1
	if i >= 128 {
		h = e.h2
	}
	d, err := e.n.NewDesc(e.buf.VA+uint64(i)*64, h, &Descriptor{Segments: []DataSegment{{Addr: e.buf.VA + 4096, Handle: e.h1, Length: 8}}})
	require.NoError(t, err)
	return d
}

func next(d *Desc) (uint64, MemHandle) {
	return binary.LittleEndian.Uint64(d.b[0:]), MemHandle(binary.LittleEndian.Uint32(d.b[8:]))
}

// complete makes the fake NIC complete d with s (DONE added).
func complete(d *Desc, s Status) { storeStatus(d.b, s|StatusDone) }

func TestPostRecvLinksAndRings(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	d0, d1, d2 := e.desc(t, 0), e.desc(t, 1), e.desc(t, 128)
	// garbage a reposted descriptor may hold: a status, a successor
	storeStatus(d1.b, StatusDone|StatusLocalLengthError)
	binary.LittleEndian.PutUint64(d1.b[0:], 0xdead_0000)

	require.NoError(t, e.a.PostRecv(ctx, d0), "receives go on an IDLE VI")
	require.NoError(t, e.a.PostRecv(ctx, d1))
	require.NoError(t, e.a.PostRecv(ctx, d2))
	assert.Equal(t, []string{
		fmt.Sprintf("vi0 receive handle 0x%x", uint32(e.h1)),
		fmt.Sprintf("vi0 receive ring 0x%x", d0.VA()),
		fmt.Sprintf("vi0 receive ring 0x%x", d1.VA()),
		fmt.Sprintf("vi0 receive handle 0x%x", uint32(e.h2)),
		fmt.Sprintf("vi0 receive ring 0x%x", d2.VA()),
	}, e.f.doorbells(), "HANDLE only when it changes, one ring per post")

	va, h := next(d0)
	assert.Equal(t, d1.VA(), va)
	assert.Equal(t, e.h1, h)
	va, h = next(d1)
	assert.Equal(t, d2.VA(), va, "the tail links to its successor")
	assert.Equal(t, e.h2, h, "with the successor's handle")
	va, h = next(d2)
	assert.Zero(t, va, "the new tail has no successor")
	assert.Zero(t, h)
	assert.Equal(t, Status(0), d1.Status(), "posting clears Status")

	// the send queue keeps its own HANDLE and tail
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	s0 := e.desc(t, 10)
	require.NoError(t, e.a.PostSend(ctx, s0))
	assert.Equal(t, []string{
		fmt.Sprintf("vi0 send handle 0x%x", uint32(e.h1)),
		fmt.Sprintf("vi0 send ring 0x%x", s0.VA()),
	}, e.f.doorbells())
	va, _ = next(d2)
	assert.Zero(t, va, "a send does not link into the receive queue")

	// reaping the whole queue: the next post links nothing (the reaped
	// descriptors are the application's again) and keeps the HANDLE
	for _, d := range []*Desc{d0, d1, d2} {
		complete(d, CompletedReceive.Status())
		got, err := e.a.RecvDone(ctx)
		require.NoError(t, err)
		assert.Same(t, d, got)
	}
	binary.LittleEndian.PutUint64(d2.b[0:], 0x1234_0000)
	d3 := e.desc(t, 129)
	require.NoError(t, e.a.PostRecv(ctx, d3))
	va, _ = next(d2)
	assert.Equal(t, uint64(0x1234_0000), va, "a reaped tail is not written")
	assert.Equal(t, []string{fmt.Sprintf("vi0 receive ring 0x%x", d3.VA())}, e.f.doorbells())
}

func TestPostChecks(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	d := e.desc(t, 0)

	requireCode(t, InvalidState, e.a.PostSend(ctx, d), "a send on an IDLE VI")
	assert.Empty(t, e.f.doorbells(), "nothing rung")
	requireCode(t, InvalidParameter, e.a.PostRecv(ctx, nil), "no descriptor")
	requireCode(t, InvalidParameter, e.a.PostRecv(ctx, &Desc{va: e.buf.VA + 8, handle: e.h1, b: e.buf.Bytes[8:40]}), "misaligned")
	requireCode(t, InvalidParameter, e.a.PostRecv(ctx, &Desc{va: e.buf.VA + 8192 - 32, handle: e.h1, b: e.buf.Bytes[8192-32 : 8192+16]}), "runs out of its region")

	require.NoError(t, e.a.PostRecv(ctx, d))
	requireCode(t, InvalidParameter, e.a.PostRecv(ctx, d), "posted twice")
	requireCode(t, InvalidParameter, e.b.PostRecv(ctx, d), "posted on two VIs")

	// the queue holds MaxDescriptorsPerQueue (8) descriptors not reaped
	d1 := e.desc(t, 1)
	require.NoError(t, e.a.PostRecv(ctx, d1))
	for i := 2; i < 8; i++ {
		require.NoError(t, e.a.PostRecv(ctx, e.desc(t, i)))
	}
	extra := e.desc(t, 8)
	requireCode(t, ErrorResource, e.a.PostRecv(ctx, extra), "a ninth")
	complete(d, 0)
	_, err := e.a.RecvDone(ctx)
	require.NoError(t, err)
	require.NoError(t, e.a.PostRecv(ctx, extra), "room again after a reap")
	complete(d1, 0)
	_, err = e.a.RecvDone(ctx)
	require.NoError(t, err)
	require.NoError(t, e.a.PostRecv(ctx, d), "a reaped descriptor may be posted again")

	// a descriptor in a region deregistered since NewDesc
	d2 := e.desc(t, 130)
	require.NoError(t, e.n.DeregisterMem(ctx, e.buf.VA+8192, e.h2))
	requireCode(t, InvalidParameter, e.b.PostRecv(ctx, d2), "deregistered region")

	// a destroyed VI
	v, err := e.n.CreateVi(ctx, ViAttributes{ReliabilityLevel: Unreliable, MaxTransferSize: 4096, Ptag: 1})
	require.NoError(t, err)
	require.NoError(t, v.Destroy(ctx))
	requireCode(t, InvalidParameter, v.PostRecv(ctx, e.desc(t, 20)), "destroyed VI")

	d21 := e.desc(t, 21)
	require.NoError(t, e.n.Close(ctx))
	requireCode(t, InvalidParameter, e.b.PostRecv(ctx, d21), "closed NIC")
}

func TestDoneInOrderAndPolling(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	ev := e.f.ev

	c0 := ev.Cycle()
	requireCode(t, NotDone, second(e.a.SendDone(ctx)), "empty queue")
	assert.Equal(t, c0+DefaultPollInterval, ev.Cycle(), "a Done that finds nothing lets the poll interval pass")

	d0, d1 := e.desc(t, 0), e.desc(t, 1)
	require.NoError(t, e.a.PostSend(ctx, d0))
	require.NoError(t, e.a.PostSend(ctx, d1))
	complete(d1, CompletedSend.Status())
	requireCode(t, NotDone, second(e.a.SendDone(ctx)), "the head is not done, its successor is")
	complete(d0, CompletedSend.Status()|StatusLocalProtectionError)
	got, err := e.a.SendDone(ctx)
	require.NoError(t, err, "a descriptor that failed is still reaped")
	assert.Same(t, d0, got)
	assert.Equal(t, "DONE|LOCAL_PROTECTION_ERROR|op=SEND", got.Status().String())
	got, err = e.a.SendDone(ctx)
	require.NoError(t, err)
	assert.Same(t, d1, got)
	requireCode(t, NotDone, second(e.a.RecvDone(ctx)), "the other queue")

	e.n.SetPollInterval(-1)
	c0 = ev.Cycle()
	requireCode(t, NotDone, second(e.a.SendDone(ctx)))
	assert.Equal(t, c0, ev.Cycle(), "negative interval: no time passes")
	e.n.SetPollInterval(10)
	requireCode(t, NotDone, second(e.a.SendDone(ctx)))
	assert.Equal(t, c0+10, ev.Cycle())
}

// A receive with immediate data, as the NIC writes it back: Length, then
// ImmediateData, then Status.
func TestRecvDoneWriteBack(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	d := e.desc(t, 0)
	require.NoError(t, e.a.PostRecv(ctx, d))
	binary.LittleEndian.PutUint32(d.b[24:], 5)
	binary.LittleEndian.PutUint32(d.b[20:], 0xC0FFEE)
	complete(d, CompletedReceive.Status()|StatusImmediate)
	got, err := e.a.RecvDone(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint32(5), got.Length())
	assert.Equal(t, uint32(0xC0FFEE), got.ImmediateData())
	assert.True(t, got.Status().Immediate())
	assert.Equal(t, CompletedReceive, got.Status().Op())
	assert.Equal(t, "DONE|op=RECEIVE|IMMEDIATE", got.Status().String())
}

// pollLoop posts a send on a fake NIC that completes it lat cycles after
// the doorbell and polls; it returns the polls and the cycles taken.
func pollLoop(t *testing.T, lat uint64) (int, uint64) {
	ctx := context.Background()
	e := newDpEnv(t)
	e.f.ringLatency = lat
	e.f.ringStatus = CompletedSend.Status()
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	d := e.desc(t, 0)
	start := e.f.ev.Cycle()
	require.NoError(t, e.a.PostSend(ctx, d))
	for polls := 1; ; polls++ {
		got, err := e.a.SendDone(ctx)
		if err == nil {
			assert.Same(t, d, got)
			return polls, e.f.ev.Cycle() - start
		}
		requireCode(t, NotDone, err)
		require.Less(t, polls, 1000)
	}
}

func TestPollingDeterministic(t *testing.T) {
	p1, c1 := pollLoop(t, 1000)
	p2, c2 := pollLoop(t, 1000)
	assert.Equal(t, p1, p2)
	assert.Equal(t, c1, c2)
	assert.Equal(t, 1000/DefaultPollInterval+2, p1, "one poll per interval until the completion")
	assert.Equal(t, uint64((1000/DefaultPollInterval+1)*DefaultPollInterval), c1)
}

func TestWaitTimeout(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	ev := e.f.ev

	c0 := ev.Cycle()
	requireCode(t, Timeout, second(e.a.SendWait(ctx, 2)), "nothing posted")
	assert.Equal(t, c0+2*250_000, ev.Cycle(), "2 ms of simulated time at 4 ns per cycle")

	c0 = ev.Cycle()
	requireCode(t, Timeout, second(e.a.RecvWait(ctx, 0)), "timeout 0 looks once")
	assert.Equal(t, c0, ev.Cycle())

	// a completion inside the timeout ends the wait at its cycle
	e.f.ringLatency, e.f.ringStatus = 5000, CompletedSend.Status()
	d := e.desc(t, 0)
	c0 = ev.Cycle()
	require.NoError(t, e.a.PostSend(ctx, d))
	got, err := e.a.SendWait(ctx, 1)
	require.NoError(t, err)
	assert.Same(t, d, got)
	assert.Equal(t, c0+5000, ev.Cycle())

	// and one after it does not
	d = e.desc(t, 1)
	e.f.ringLatency = 300_000
	require.NoError(t, e.a.PostSend(ctx, d))
	requireCode(t, Timeout, second(e.a.SendWait(ctx, 1)))
	got, err = e.a.SendWait(ctx, Infinite)
	require.NoError(t, err)
	assert.Same(t, d, got)
}

func TestMsToCycles(t *testing.T) {
	assert.Equal(t, uint64(250_000), msToCycles(1, 4000))
	assert.Equal(t, uint64(250_000), msToCycles(1, 0), "unknown clock: the reference 250 MHz")
	assert.Equal(t, uint64(0xFFFFFFFE)*250_000, msToCycles(0xFFFFFFFE, 4000), "no overflow")
	assert.Equal(t, uint64(1_000_000), msToCycles(1, 1000))
}

// Waiters on several VIs and queues at once each get their own
// descriptor, whatever order the completions come in (run with -race).
func TestWaitConcurrent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e := newDpEnv(t)
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	type w struct {
		v    *Vi
		send bool
		d    *Desc
	}
	ws := []*w{{v: e.a, send: true}, {v: e.a}, {v: e.b, send: true}, {v: e.b}}
	for i, x := range ws {
		x.d = e.desc(t, i)
		if x.send {
			require.NoError(t, x.v.PostSend(ctx, x.d))
		} else {
			require.NoError(t, x.v.PostRecv(ctx, x.d))
		}
	}
	var wg sync.WaitGroup
	got := make([]*Desc, len(ws))
	errs := make([]error, len(ws))
	for i, x := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if x.send {
				got[i], errs[i] = x.v.SendWait(ctx, Infinite)
			} else {
				got[i], errs[i] = x.v.RecvWait(ctx, Infinite)
			}
		}()
	}
	// let them block, then complete in reverse order, one at a time
	for e.f.ev.blocked() < 1 {
		time.Sleep(time.Millisecond)
	}
	for i := len(ws) - 1; i >= 0; i-- {
		e.f.ev.complete(func() { complete(ws[i].d, 0) })
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	for i, x := range ws {
		require.NoError(t, errs[i])
		assert.Same(t, x.d, got[i])
	}
}

func TestConnectLoopbackChecks(t *testing.T) {
	ctx := context.Background()
	e := newDpEnv(t)
	requireCode(t, InvalidParameter, e.a.ConnectLoopback(ctx, nil))
	requireCode(t, InvalidParameter, e.a.ConnectLoopback(ctx, e.a), "itself")
	other := newDpEnv(t)
	requireCode(t, InvalidParameter, e.a.ConnectLoopback(ctx, other.b), "a VI of another NIC")
	requireCode(t, InvalidState, e.a.Disconnect(ctx), "not connected")

	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	requireCode(t, InvalidState, e.b.ConnectLoopback(ctx, e.a), "connected already")
	d := e.desc(t, 0)
	require.NoError(t, e.b.PostSend(ctx, d), "the peer is CONNECTED too")
	require.NoError(t, e.b.Disconnect(ctx))
	requireCode(t, InvalidState, e.a.PostSend(ctx, e.desc(t, 1)), "the peer's disconnect made it IDLE")
	requireCode(t, InvalidState, e.b.PostSend(ctx, e.desc(t, 2)))
}
