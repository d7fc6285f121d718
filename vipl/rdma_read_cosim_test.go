package vipl_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
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
	x, err := e.n.CreateVi(ctx, e.rattrs)
	require.NoError(t, err)
	y, err := e.n.CreateVi(ctx, noRead)
	require.NoError(t, err)
	require.NoError(t, x.ConnectLoopback(ctx, y))
	stale, err := e.n.RegisterMem(ctx, e.buf.VA+readSrc, 4096, vipl.MemAttributes{Ptag: e.p, EnableRdmaRead: true})
	require.NoError(t, err)
	require.NoError(t, e.n.DeregisterMem(ctx, e.buf.VA+readSrc, stale))

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
		segs, spans := e.dst(badGuardFirst*4096, c.n)
		d := e.read(t, c.vi, segs, c.h, c.off, c.name)
		assertStatus(t, rdmaRProt, d, c.name)
		e.checkGuards(t, c.name) // nothing written, not even into the segments
		_ = spans
		// the same VI reads again (the refusal left nothing behind)
		segs, spans = e.dst(badGuardFirst*4096, 300)
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
	_, err = e.n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: e.p, EnableRdmaRead: true})
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
