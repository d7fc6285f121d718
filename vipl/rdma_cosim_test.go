package vipl_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/vipl"
)

// RDMA write (issue 11) on one NIC: a writes into b's memory through the
// loopback. The target's regions (in badEnv's guarded pages):
//   pages 10..13  RDMA write enabled, ptag p (the good target)
//   pages 14..15  only badEnv's whole-buffer region: no RDMA write
//   pages 16..17  RDMA write enabled, but ptag other
// Every case checks the initiator's Status, the target's receive (with
// immediate data), the counters VI_RX_RDMA / VI_RX_RDMA_PROT, and that no
// byte outside the target range was written (guard pattern).

// rdmaEnv is a badEnv with RDMA write on its VIs and the target regions.
type rdmaEnv struct {
	*badEnv
	hT, hQ vipl.MemHandle // pages 10..13 (RDMA write, p), 16..17 (RDMA write, other)
}

const (
	rdmaT     = 10 * 4096 // the good target region
	rdmaTLen  = 4 * 4096
	rdmaN     = 14 * 4096 // no RDMA write on the region
	rdmaQ     = 16 * 4096 // RDMA write, other ptag
	rdmaQLen  = 2 * 4096
	rdmaFence = 20 * 4096 // the fence messages' receive buffer
)

func newRdmaEnv(t *testing.T) *rdmaEnv {
	t.Helper()
	e := &rdmaEnv{badEnv: newBadEnv(t, true)}
	ctx := ctxT(t)
	var err error
	e.hT, err = e.n.RegisterMem(ctx, e.buf.VA+rdmaT, rdmaTLen, vipl.MemAttributes{Ptag: e.p, EnableRdmaWrite: true})
	require.NoError(t, err)
	e.hQ, err = e.n.RegisterMem(ctx, e.buf.VA+rdmaQ, rdmaQLen, vipl.MemAttributes{Ptag: e.other, EnableRdmaWrite: true})
	require.NoError(t, err)
	return e
}

// src fills n source bytes (pages 6..9) with a pattern of seed and
// returns gather segments over them: up to three, at odd offsets, the
// second crossing a page boundary.
func (e *rdmaEnv) src(seed, n int) ([]vipl.DataSegment, []byte) {
	data := pattern(seed, n)
	offs := []int{badSrcPage*4096 + 3, badSrcPage*4096 + 2*4096 - n/6, badSrcPage*4096 + 3*4096 + 11}
	parts := []int{n / 3, n / 3, n - 2*(n/3)}
	var segs []vipl.DataSegment
	at := 0
	for i, p := range parts {
		if p == 0 {
			continue
		}
		copy(e.buf.Bytes[offs[i]:], data[at:at+p])
		segs = append(segs, e.seg(offs[i], p))
		at += p
	}
	return segs, data
}

// write posts an RDMA write of segs to (h, off) on vi and waits for it;
// the fence that follows (a send of 8 bytes into a receive on the peer)
// arrives after the write is placed: the receive engine completes a
// receive only after every earlier data write of the NIC has its response.
func (e *rdmaEnv) write(t *testing.T, from, to *vipl.Vi, segs []vipl.DataSegment, h vipl.MemHandle, off int, imm bool, immData uint32) *vipl.Desc {
	t.Helper()
	d := e.desc(t, 0, &vipl.Descriptor{Op: vipl.OpRdmaWrite, Remote: vipl.AddressSegment{Addr: e.buf.VA + uint64(off), Handle: h},
		Segments: segs, Immediate: imm, ImmediateData: immData})
	require.NoError(t, from.PostSend(ctxT(t), d))
	got, err := from.SendWait(ctxT(t), 1)
	require.NoError(t, err, "the RDMA write completes within 1 ms")
	require.Same(t, d, got)
	return d
}

// fence sends 8 bytes from `from` to `to` and waits for their receive.
func (e *rdmaEnv) fence(t *testing.T, from, to *vipl.Vi) {
	t.Helper()
	ctx := ctxT(t)
	recv := e.desc(t, 2, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(rdmaFence, 64)}})
	require.NoError(t, to.PostRecv(ctx, recv))
	send := e.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(badSrcPage*4096, 8)}})
	require.NoError(t, from.PostSend(ctx, send))
	_, err := from.SendWait(ctx, 1)
	require.NoError(t, err)
	r, err := to.RecvWait(ctx, 1)
	require.NoError(t, err, "the fence message arrives")
	require.Same(t, recv, r, "the fence took the receive: no RDMA write consumed it")
	assertStatus(t, recvOK, recv, "fence")
	assert.Equal(t, uint32(8), recv.Length())
}

func TestCosimRdmaWrite(t *testing.T) {
	e := newRdmaEnv(t)
	ctx := ctxT(t)
	placed0, prot0 := e.counter(t, hw.RegViRxRdma), e.counter(t, hw.RegViRxRdmaProt)
	n := 0
	for _, c := range []struct {
		size, off int
	}{{8, 0}, {1, 4095}, {100, 4096 - 37}, {4096, 4096 + 5}, {3000, 3*4096 + 1000}, {0, 64}} {
		segs, data := e.src(c.size+c.off, c.size)
		d := e.write(t, e.a, e.b, segs, e.hT, rdmaT+c.off, false, 0)
		assertStatus(t, want(0, vipl.CompletedRdmaWrite), d, "RDMA write")
		e.fence(t, e.a, e.b)
		n++
		assert.True(t, bytes.Equal(data, e.buf.Bytes[rdmaT+c.off:rdmaT+c.off+c.size]), "%d bytes at +%d placed", c.size, c.off)
		e.checkGuards(t, "RDMA write", span{rdmaT + c.off, c.size}, span{rdmaFence, 8})
	}
	assert.Equal(t, placed0+uint32(n), e.counter(t, hw.RegViRxRdma), "VI_RX_RDMA")

	// with immediate data: the target's next receive (no segments) completes
	// as REMOTE_RDMA_WRITE with the immediate value and the length
	recv := e.desc(t, 1, &vipl.Descriptor{})
	require.NoError(t, e.b.PostRecv(ctx, recv))
	segs, data := e.src(77, 1234)
	d := e.write(t, e.a, e.b, segs, e.hT, rdmaT+4000, true, 0xABCD1234)
	assertStatus(t, want(0, vipl.CompletedRdmaWrite), d, "RDMA write with immediate data")
	r, err := e.b.RecvWait(ctx, 1)
	require.NoError(t, err)
	require.Same(t, recv, r)
	assert.Equal(t, "DONE|op=REMOTE_RDMA_WRITE|IMMEDIATE", recv.Status().String())
	assert.Equal(t, uint32(0xABCD1234), recv.ImmediateData())
	assert.Equal(t, uint32(1234), recv.Length(), "Length: the bytes the write placed")
	assert.True(t, bytes.Equal(data, e.buf.Bytes[rdmaT+4000:rdmaT+4000+1234]))
	e.checkGuards(t, "RDMA write with immediate data", span{rdmaT + 4000, 1234})
	assert.Equal(t, placed0+uint32(n+1), e.counter(t, hw.RegViRxRdma), "VI_RX_RDMA")
	assert.Equal(t, prot0, e.counter(t, hw.RegViRxRdmaProt), "VI_RX_RDMA_PROT")

	// a send after the writes still takes the receives in order
	e.fence(t, e.a, e.b)
	e.pairWorks(t)
}

// Every remote protection error class, without and with immediate data:
// the target writes nothing, counts VI_RX_RDMA_PROT, and (with immediate
// data) completes the receive with RDMA_PROTECTION_ERROR. On the unreliable
// level the initiator's descriptor completes without error: the frame left
// whole and no answer comes back (docs/vi.md, RDMA write).
func TestCosimRdmaWriteProtection(t *testing.T) {
	e := newRdmaEnv(t)
	ctx := ctxT(t)
	// a pair whose target VI does not enable RDMA write
	plain := e.attrs
	plain.EnableRdmaWrite = false
	x, err := e.n.CreateVi(ctx, e.attrs)
	require.NoError(t, err)
	y, err := e.n.CreateVi(ctx, plain)
	require.NoError(t, err)
	require.NoError(t, x.ConnectLoopback(ctx, y))
	// a stale handle: registered, then deregistered
	stale, err := e.n.RegisterMem(ctx, e.buf.VA+rdmaT, 4096, vipl.MemAttributes{Ptag: e.p, EnableRdmaWrite: true})
	require.NoError(t, err)
	require.NoError(t, e.n.DeregisterMem(ctx, e.buf.VA+rdmaT, stale))

	cases := []struct {
		name     string
		from, to *vipl.Vi
		h        vipl.MemHandle
		off, n   int
	}{
		{"bad handle", e.a, e.b, e.hT ^ 0x00ff0000, rdmaT, 64},
		{"stale handle (deregistered)", e.a, e.b, stale, rdmaT, 64},
		{"ptag mismatch", e.a, e.b, e.hQ, rdmaQ, 64},
		{"out of bounds (past the region's end)", e.a, e.b, e.hT, rdmaT + rdmaTLen - 100, 200},
		{"out of bounds (before the region)", e.a, e.b, e.hT, rdmaT - 64, 64},
		{"region without RDMA write", e.a, e.b, e.h, rdmaN, 64},
		{"VI without RDMA write", x, y, e.hT, rdmaT, 64},
	}
	for i, c := range cases {
		prot0 := e.counter(t, hw.RegViRxRdmaProt)
		segs, _ := e.src(i, c.n)
		d := e.write(t, c.from, c.to, segs, c.h, c.off, false, 0)
		assertStatus(t, want(0, vipl.CompletedRdmaWrite), d, c.name)
		e.fence(t, c.from, c.to)
		assert.Equal(t, prot0+1, e.counter(t, hw.RegViRxRdmaProt), "%s: VI_RX_RDMA_PROT", c.name)
		e.checkGuards(t, c.name, span{rdmaFence, 8})

		// with immediate data: the receive completes with the error
		recv := e.desc(t, 1, &vipl.Descriptor{})
		require.NoError(t, c.to.PostRecv(ctx, recv))
		d = e.write(t, c.from, c.to, segs, c.h, c.off, true, 0x1234)
		assertStatus(t, want(0, vipl.CompletedRdmaWrite), d, c.name+", immediate")
		r, err := c.to.RecvWait(ctx, 1)
		require.NoError(t, err, "%s: the receive completes", c.name)
		require.Same(t, recv, r)
		assertStatus(t, want(vipl.StatusRdmaProtectionError, vipl.CompletedRemoteRdmaWrite), recv, c.name+", target")
		assert.Zero(t, recv.Length(), "%s: no Length on error", c.name)
		assert.Equal(t, prot0+2, e.counter(t, hw.RegViRxRdmaProt), "%s: VI_RX_RDMA_PROT", c.name)
		e.checkGuards(t, c.name+", immediate")
	}
	// both pairs keep working
	segs, data := e.src(99, 500)
	e.write(t, e.a, e.b, segs, e.hT, rdmaT+10, false, 0)
	e.fence(t, e.a, e.b)
	assert.True(t, bytes.Equal(data, e.buf.Bytes[rdmaT+10:rdmaT+510]), "a good write after the refused ones")
	e.checkGuards(t, "good write after the refused ones", span{rdmaT + 10, 500}, span{rdmaFence, 8})
	e.pairWorks(t)
}
