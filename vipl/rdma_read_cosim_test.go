package vipl_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/vipl"
)

// RDMA read (issue 11) on one NIC: ra reads rb's memory through the
// loopback. Reads need a reliable level (QUERY_NIC's RDMAReadSupport):
// the pair is RELIABLE_DELIVERY with RDMA read and write enabled. The
// target's regions over the source pages 6..9 (filled by badEnv):
//   hR   pages 6..9, RDMA read enabled, ptag p (the good target)
//   hQ   pages 6..7, RDMA read enabled, ptag other
//   hW   pages 8..9, RDMA write only
// The local buffers the reads scatter into are in badEnv's guarded pages.

type readEnv struct {
	*badEnv
	ra, rb     *vipl.Vi // the reliable pair: ra reads, rb is the target
	rattrs     vipl.ViAttributes
	hR, hQ, hW vipl.MemHandle
}

const (
	readSrc    = badSrcPage * 4096 // the target range's base (pages 6..9)
	readSrcLen = 4 * 4096
)

func newReadEnv(t *testing.T) *readEnv {
	t.Helper()
	e := &readEnv{badEnv: newBadEnv(t, true)}
	ctx := ctxT(t)
	a, err := e.n.Query(ctx)
	require.NoError(t, err)
	require.Equal(t, vipl.ReliableDelivery, a.RDMAReadSupport&vipl.ReliableDelivery, "QUERY_NIC: RDMA read on RELIABLE_DELIVERY")
	require.Zero(t, a.RDMAReadSupport&vipl.Unreliable, "QUERY_NIC: no RDMA read on UNRELIABLE")
	e.rattrs = vipl.ViAttributes{ReliabilityLevel: vipl.ReliableDelivery, MaxTransferSize: 32768, Ptag: e.p,
		EnableRdmaWrite: true, EnableRdmaRead: true}
	e.ra, err = e.n.CreateVi(ctx, e.rattrs)
	require.NoError(t, err)
	e.rb, err = e.n.CreateVi(ctx, e.rattrs)
	require.NoError(t, err)
	require.NoError(t, e.ra.ConnectLoopback(ctx, e.rb))
	e.hR, err = e.n.RegisterMem(ctx, e.buf.VA+readSrc, readSrcLen, vipl.MemAttributes{Ptag: e.p, EnableRdmaRead: true})
	require.NoError(t, err)
	e.hQ, err = e.n.RegisterMem(ctx, e.buf.VA+readSrc, 2*4096, vipl.MemAttributes{Ptag: e.other, EnableRdmaRead: true})
	require.NoError(t, err)
	e.hW, err = e.n.RegisterMem(ctx, e.buf.VA+readSrc+2*4096, 2*4096, vipl.MemAttributes{Ptag: e.p, EnableRdmaWrite: true})
	require.NoError(t, err)
	return e
}

// dst returns scatter segments for n bytes in the guarded pages starting
// at base: up to three, at odd offsets, the second crossing a page
// boundary, and the spans they cover.
func (e *readEnv) dst(base, n int) ([]vipl.DataSegment, []span) {
	offs := []int{base + 5, base + 2*4096 - n/6, base + 5*4096 + 13}
	parts := []int{n / 3, n / 3, n - 2*(n/3)}
	var segs []vipl.DataSegment
	var spans []span
	for i, p := range parts {
		if p == 0 {
			continue
		}
		segs = append(segs, e.seg(offs[i], p))
		spans = append(spans, span{offs[i], p})
	}
	return segs, spans
}

// gathered returns the bytes the spans hold, in order.
func (e *readEnv) gathered(spans []span) []byte {
	var b []byte
	for _, s := range spans {
		b = append(b, e.buf.Bytes[s.off:s.off+s.n]...)
	}
	return b
}

// read posts an RDMA read of n bytes at (h, off) into segs on vi and waits
// for it.
func (e *readEnv) read(t *testing.T, vi *vipl.Vi, segs []vipl.DataSegment, h vipl.MemHandle, off int, what string) *vipl.Desc {
	t.Helper()
	d := e.desc(t, 4, &vipl.Descriptor{Op: vipl.OpRdmaRead, Remote: vipl.AddressSegment{Addr: e.buf.VA + uint64(off), Handle: h},
		Segments: segs})
	require.NoError(t, vi.PostSend(ctxT(t), d))
	got, err := vi.SendWait(ctxT(t), 1)
	require.NoError(t, err, "%s: the RDMA read completes within 1 ms (status %s)", what, d.Status())
	require.Same(t, d, got)
	return d
}

var rdmaReadOK = want(0, vipl.CompletedRdmaRead)

// connLost lets simulated time run (vi's SendWait, 1 ms at a time) until
// the error handler has had CONN_LOST for every VI of ids.
func connLost(t *testing.T, vi *vipl.Vi, got <-chan vipl.ErrorDescriptor, ids ...vipl.ViID) {
	t.Helper()
	want := map[vipl.ViID]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for range 20 {
	drain:
		for {
			select {
			case d := <-got:
				if d.ErrorCode == vipl.ErrorConnLost && d.ResourceCode == vipl.ResourceVi {
					delete(want, d.ViID)
				}
			default:
				break drain
			}
		}
		if len(want) == 0 {
			return
		}
		_, err := vi.SendWait(ctxT(t), 1)
		require.ErrorIs(t, err, vipl.ErrTimeout)
	}
	require.Failf(t, "no CONN_LOST", "for VIs %v", want)
}

// reconnect takes a broken pair (both ERROR) back to CONNECTED.
func reconnect(t *testing.T, a, b *vipl.Vi) {
	t.Helper()
	ctx := ctxT(t)
	for _, v := range []*vipl.Vi{a, b} {
		info, err := v.Query(ctx)
		require.NoError(t, err)
		require.Equal(t, vipl.ViError, info.State, "VI %d: the reliable connection is broken", v.ID())
		require.NoError(t, v.Disconnect(ctx))
	}
	require.NoError(t, a.ConnectLoopback(ctx, b))
}

func TestCosimRdmaRead(t *testing.T) {
	e := newReadEnv(t)
	rreq0, rresp0 := e.counter(t, hw.RegViRxRreq), e.counter(t, hw.RegViRxRresp)
	n := 0
	for _, c := range []struct{ size, off int }{
		{8, 0}, {1, 4095}, {100, 4096 - 37}, {4096, 4096 + 5}, {3000, 3*4096 + 1000}, {0, 64}, {16384 - 64, 33}, {12345, 7},
	} {
		segs, spans := e.dst(badGuardFirst*4096, c.size)
		d := e.read(t, e.ra, segs, e.hR, readSrc+c.off, "read")
		n++
		assertStatus(t, rdmaReadOK, d, "RDMA read")
		want := e.buf.Bytes[readSrc+c.off : readSrc+c.off+c.size]
		assert.True(t, bytes.Equal(want, e.gathered(spans)), "%d bytes at +%d read", c.size, c.off)
		e.checkGuards(t, "RDMA read", spans...)
	}
	assert.Equal(t, rreq0+uint32(n), e.counter(t, hw.RegViRxRreq), "VI_RX_RREQ")
	assert.Equal(t, rresp0+uint32(n), e.counter(t, hw.RegViRxRresp), "VI_RX_RRESP")
	e.pairWorks(t)
}

// Every remote protection class of an RDMA read: the target's checks
// (handle, generation, ptag, bounds, the region's and the VI's RDMA read
// enable) refuse the range, the target sends no byte of it, and the
// initiator's descriptor completes with RDMA_PROTECTION_ERROR (op
// RDMA_READ); nothing is written into the local segments or around them.
// The error breaks the reliable connection: both VIs go to ERROR and both
// owners hear CONN_LOST; after a Disconnect and a new connection the pair
// reads again.
// Local errors of the read descriptor itself complete it at the initiator
// without a request: a local segment the TPT refuses (LOCAL_PROTECTION_ERROR,
// found when the response is placed), a VI without RDMA read
// (LOCAL_FORMAT_ERROR), a read on an UNRELIABLE VI (the VI cannot enable
// it: LOCAL_FORMAT_ERROR). After each case both pairs still work.
func TestCosimRdmaReadProtection(t *testing.T) {
	e := newReadEnv(t)
	ctx := ctxT(t)
	// a reliable pair whose target VI does not enable RDMA read
	noRead := e.rattrs
	noRead.EnableRdmaRead = false
	x, y := e.loopPair(t, e.rattrs, noRead)
	stale := e.staleHandle(t, readSrc, vipl.MemAttributes{Ptag: e.p, EnableRdmaRead: true})

	got := make(chan vipl.ErrorDescriptor, 64)
	require.NoError(t, e.n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))
	rdmaRProt := want(vipl.StatusRdmaProtectionError, vipl.CompletedRdmaRead)
	cases := []struct {
		name   string
		vi     *vipl.Vi
		h      vipl.MemHandle
		off, n int
	}{
		{"bad handle", e.ra, e.hR ^ 0x00ff0000, readSrc, 64},
		{"stale handle (deregistered)", e.ra, stale, readSrc, 64},
		{"ptag mismatch", e.ra, e.hQ, readSrc, 64},
		{"out of bounds (past the region's end)", e.ra, e.hR, readSrc + readSrcLen - 100, 200},
		{"out of bounds (before the region)", e.ra, e.hR, readSrc - 64, 64},
		{"region without RDMA read", e.ra, e.hW, readSrc + 2*4096, 64},
		{"target VI without RDMA read", x, e.hR, readSrc, 64},
	}
	for _, c := range cases {
		segs, _ := e.dst(badGuardFirst*4096, c.n)
		d := e.read(t, c.vi, segs, c.h, c.off, c.name)
		assertStatus(t, rdmaRProt, d, c.name)
		e.checkGuards(t, c.name) // nothing written, not even into the segments
		// the connection is broken; connected again, the pair reads
		peer := e.rb
		if c.vi == x {
			peer = y
		}
		connLost(t, e.a, got, c.vi.ID(), peer.ID())
		reconnect(t, c.vi, peer)
		segs, spans := e.dst(badGuardFirst*4096, 300)
		vi := c.vi
		if vi == x {
			vi = e.ra
		}
		d = e.read(t, vi, segs, e.hR, readSrc+17, c.name+", a good read after")
		assertStatus(t, rdmaReadOK, d, c.name+", a good read after")
		assert.True(t, bytes.Equal(e.buf.Bytes[readSrc+17:readSrc+317], e.gathered(spans)), "%s: a good read after", c.name)
		e.checkGuards(t, c.name+", a good read after", spans...)
	}

	// a local segment the TPT refuses: the response is refused where it
	// is placed; the segments before it hold their bytes
	segs, spans := e.dst(badGuardFirst*4096, 3000)
	segs[1].Handle ^= 0x00ABC000
	d := e.read(t, e.ra, segs, e.hR, readSrc, "bad local segment")
	assertStatus(t, want(vipl.StatusLocalProtectionError, vipl.CompletedRdmaRead), d, "bad local segment")
	assert.True(t, bytes.Equal(e.buf.Bytes[readSrc:readSrc+spans[0].n], e.gathered(spans[:1])), "bad local segment: the first segment's bytes")
	e.checkGuards(t, "bad local segment", spans[0])
	connLost(t, e.a, got, e.ra.ID(), e.rb.ID())
	reconnect(t, e.ra, e.rb)

	// an RDMA read on a VI that does not enable it, and on an UNRELIABLE
	// VI (which cannot): LOCAL_FORMAT_ERROR at the initiator, no request
	rreq0 := e.counter(t, hw.RegViRxRreq)
	segs, _ = e.dst(badGuardFirst*4096, 64)
	d = e.read(t, y, segs, e.hR, readSrc, "VI without RDMA read")
	assertStatus(t, rdmaRFormat, d, "VI without RDMA read")
	d = e.read(t, e.a, segs, e.hR, readSrc, "UNRELIABLE VI")
	assertStatus(t, rdmaRFormat, d, "UNRELIABLE VI")
	assert.Equal(t, rreq0, e.counter(t, hw.RegViRxRreq), "no request went out")
	e.checkGuards(t, "local format errors")
	_, err := e.n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: e.p, EnableRdmaRead: true})
	assert.ErrorIs(t, err, vipl.ErrInvalidRdmaRead, "UNRELIABLE with RDMA read")
	_, err = e.n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.ReliableReception, MaxTransferSize: 4096, Ptag: e.p})
	assert.ErrorIs(t, err, vipl.ErrInvalidReliabilityLevel, "RELIABLE_RECEPTION")
	e.pairWorks(t)
	e.goodExchange(t, "after the RDMA read errors")
}

// The queue's order around a read: a send posted after an RDMA read (with
// the fence bit, as a program that forwards what it read must post it)
// carries the bytes the read brought; descriptors complete in post order.
func TestCosimRdmaReadFence(t *testing.T) {
	e := newReadEnv(t)
	ctx := ctxT(t)
	const local = 12 * 4096 // the read's destination, then the send's source
	const dst = 16*4096 + 8 // the receive's buffer
	for i := local; i < local+2000; i++ {
		e.buf.Bytes[i] = 0
	}
	recv := e.desc(t, 5, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(dst, 4096)}})
	require.NoError(t, e.rb.PostRecv(ctx, recv))
	rd := e.desc(t, 6, &vipl.Descriptor{Op: vipl.OpRdmaRead, Remote: vipl.AddressSegment{Addr: e.buf.VA + readSrc + 999, Handle: e.hR},
		Segments: []vipl.DataSegment{e.seg(local, 2000)}})
	send := e.desc(t, 7, &vipl.Descriptor{QueueFence: true, Segments: []vipl.DataSegment{e.seg(local, 2000)}})
	require.NoError(t, e.ra.PostSend(ctx, rd))
	require.NoError(t, e.ra.PostSend(ctx, send))
	got, err := e.ra.SendWait(ctx, 1)
	require.NoError(t, err)
	require.Same(t, rd, got, "the read completes first")
	got, err = e.ra.SendWait(ctx, 1)
	require.NoError(t, err)
	require.Same(t, send, got)
	assertStatus(t, rdmaReadOK, rd, "read")
	assertStatus(t, sendOK, send, "fenced send")
	r, err := e.rb.RecvWait(ctx, 1)
	require.NoError(t, err)
	require.Same(t, recv, r)
	assert.Equal(t, uint32(2000), recv.Length())
	assert.True(t, bytes.Equal(e.buf.Bytes[readSrc+999:readSrc+2999], e.buf.Bytes[dst:dst+2000]), "the send carried the bytes the read brought")
	e.checkGuards(t, "fence", span{local, 2000}, span{dst, 2000})
}

// Two nodes across the fabric: each reads the other's memory, from 1 byte
// to 64 KiB (a response of 16 wire frames), scattered into up to three
// local segments at odd offsets, one crossing a page; the bytes and the
// guard bytes around them are checked. Then node 0's read of a region
// without RDMA read completes with RDMA_PROTECTION_ERROR, writes nothing,
// and breaks the connection: node 0's VI goes to ERROR, node 1's too (the
// DISCONNECT node 0's firmware sends), and both owners hear CONN_LOST.
func TestCosimRemoteRdmaRead(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.ReliableDelivery, MaxTransferSize: 65536,
		EnableRdmaRead: true})
	ctx := ctxT(t)
	const src, srcLen = 24 * 4096, 20 * 4096 // each node's RDMA read source region
	const dst = 1 * 4096                     // the local segments, pages 1..22
	handles, noRead := make([]vipl.MemHandle, 2), make([]vipl.MemHandle, 2)
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		info, err := r.vi[1-i].Query(ctx)
		require.NoError(t, err)
		handles[i], err = r.n.RegisterMem(ctx, r.buf.VA+src, srcLen, vipl.MemAttributes{Ptag: info.Attributes.Ptag, EnableRdmaRead: true})
		require.NoError(t, err)
		noRead[i], err = r.n.RegisterMem(ctx, r.buf.VA+src, 4096, vipl.MemAttributes{Ptag: info.Attributes.Ptag})
		require.NoError(t, err)
		for k := range srcLen {
			r.buf.Bytes[src+k] = byte(k*31 + i*7 + 3)
		}
	})
	errs := []chan vipl.ErrorDescriptor{make(chan vipl.ErrorDescriptor, 16), make(chan vipl.ErrorDescriptor, 16)}
	for i := range rn {
		require.NoError(t, rn[i].n.ErrorCallback(func(d vipl.ErrorDescriptor) { errs[i] <- d }))
	}
	for round, size := range []int{8, 1, 4096 + 5, 20000, 65536, -1} {
		together(t, nicsOf(rn), func(i int) {
			if size < 0 && i == 1 {
				return // node 0 alone reads what it may not
			}
			r, peer := rn[i], 1-i
			for k := dst; k < src; k++ {
				r.buf.Bytes[k] = 0xEE
			}
			off, h, n := 4096-3+round*7, handles[peer], size
			if size < 0 { // refused: the peer's region without RDMA read
				off, h, n = 64, noRead[peer], 100
			}
			parts := []int{n / 3, n / 3, n - 2*(n/3)}
			offs := []int{dst + 1, dst + 1 + parts[0] + 101, dst + 1 + parts[0] + parts[1] + 202}
			var segs []vipl.DataSegment
			for k, p := range parts {
				if p > 0 {
					segs = append(segs, r.seg(offs[k], p))
				}
			}
			d := r.desc(t, 2, &vipl.Descriptor{Op: vipl.OpRdmaRead, Segments: segs,
				Remote: vipl.AddressSegment{Addr: rn[peer].buf.VA + src + uint64(off), Handle: h}})
			require.NoError(t, r.vi[peer].PostSend(ctx, d))
			got, err := r.vi[peer].SendWait(ctx, 10)
			require.NoError(t, err, "node %d: the RDMA read of %d bytes completes", i, n)
			require.Same(t, d, got)
			wantBytes := make([]byte, 0, n)
			for k := range n {
				wantBytes = append(wantBytes, byte((off+k)*31+peer*7+3))
			}
			var gotBytes []byte
			for k, p := range parts {
				if p > 0 {
					gotBytes = append(gotBytes, r.buf.Bytes[offs[k]:offs[k]+p]...)
				}
			}
			if size < 0 {
				assert.Equal(t, "DONE|RDMA_PROTECTION_ERROR|op=RDMA_READ", d.Status().String(), "node %d: refused", i)
				gotBytes, wantBytes = nil, nil
			} else {
				assert.Equal(t, "DONE|op=RDMA_READ", d.Status().String(), "node %d", i)
				assert.True(t, bytes.Equal(wantBytes, gotBytes), "node %d: the %d bytes read from node %d", i, n, peer)
			}
			for k := dst; k < src; k++ {
				in := false
				for j, p := range parts {
					if size >= 0 && k >= offs[j] && k < offs[j]+p {
						in = true
					}
				}
				if !in && r.buf.Bytes[k] != 0xEE {
					t.Errorf("node %d: local byte %d written outside the read's segments", i, k)
					break
				}
			}
		})
	}
	together(t, nicsOf(rn), func(i int) {
		v := rn[i].vi[1-i]
		connLost(t, v, errs[i], v.ID())
		info, err := v.Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViError, info.State, "node %d: the connection is broken", i)
	})
	closeAll(rn)
	require.NoError(t, s.Stop())
}

// A read whose target never answers does not hang the initiator: node 0's
// VI x is connected (ConnectRemote, no handshake) to a VI node 1 does not
// have, so node 1's receive engine drops the request. SendWait times out;
// a Disconnect completes the read FLUSHED (op RDMA_READ), then the send
// that waited behind it completes; the NIC's other VIs keep working (a read of node
// 1's memory on the connected pair, answered by node 1's hardware while
// its process waits).
func TestCosimRdmaReadPeerGone(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.ReliableDelivery, MaxTransferSize: 65536, EnableRdmaRead: true}
	rn := newRemoteNodes(t, s, 2, attrs)
	ctx := ctxT(t)
	var h vipl.MemHandle
	together(t, nicsOf(rn), func(i int) {
		if i == 1 {
			info, err := rn[1].vi[0].Query(ctx)
			require.NoError(t, err)
			h, err = rn[1].n.RegisterMem(ctx, rn[1].buf.VA, 4096, vipl.MemAttributes{Ptag: info.Attributes.Ptag, EnableRdmaRead: true})
			require.NoError(t, err)
			for k := range 4096 {
				rn[1].buf.Bytes[k] = byte(k*5 + 1)
			}
		}
	})
	together(t, nicsOf(rn), func(i int) {
		if i != 0 {
			return // node 1's process waits; its NIC answers reads
		}
		r := rn[0]
		info, err := r.vi[1].Query(ctx)
		require.NoError(t, err)
		attrs.Ptag = info.Attributes.Ptag
		x, err := r.n.CreateVi(ctx, attrs)
		require.NoError(t, err)
		require.NoError(t, x.ConnectRemote(ctx, vipl.NodeAddress(1), 63))
		rd := r.desc(t, 2, &vipl.Descriptor{Op: vipl.OpRdmaRead, Segments: []vipl.DataSegment{r.seg(4096, 64)},
			Remote: vipl.AddressSegment{Addr: rn[1].buf.VA, Handle: h}})
		send := r.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(8192, 8)}})
		require.NoError(t, x.PostSend(ctx, rd))
		require.NoError(t, x.PostSend(ctx, send))
		_, err = x.SendWait(ctx, 2)
		require.ErrorIs(t, err, vipl.ErrTimeout, "no response: the read waits")
		assert.Zero(t, rd.Status(), "the read has not completed")
		require.NoError(t, x.Disconnect(ctx))
		got, err := x.SendWait(ctx, 1)
		require.NoError(t, err, "the read completes once its VI is disconnected")
		require.Same(t, rd, got)
		assert.Equal(t, "DONE|FLUSHED|op=RDMA_READ", rd.Status().String())
		got, err = x.SendWait(ctx, 1)
		require.NoError(t, err)
		require.Same(t, send, got)
		// (the send was the engine's before the Disconnect began: the
		// context commit waits for it, and it leaves under the old
		// context, as any send in flight when a Disconnect begins)
		assert.Equal(t, "DONE|op=SEND", send.Status().String(), "the send behind the read")
		// the connected pair still reads node 1's memory
		d := r.desc(t, 4, &vipl.Descriptor{Op: vipl.OpRdmaRead, Segments: []vipl.DataSegment{r.seg(3*4096+7, 1000)},
			Remote: vipl.AddressSegment{Addr: rn[1].buf.VA + 11, Handle: h}})
		require.NoError(t, r.vi[1].PostSend(ctx, d))
		_, err = r.vi[1].SendWait(ctx, 1)
		require.NoError(t, err)
		assert.Equal(t, "DONE|op=RDMA_READ", d.Status().String())
		for k := range 1000 {
			if r.buf.Bytes[3*4096+7+k] != byte((11+k)*5+1) {
				t.Errorf("byte %d of the read after the lost one", k)
				break
			}
		}
	})
	closeAll(rn)
	require.NoError(t, s.Stop())
}
