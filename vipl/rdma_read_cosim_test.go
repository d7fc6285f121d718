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
