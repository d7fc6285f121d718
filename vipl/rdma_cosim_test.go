package vipl_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
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
	x, y := e.loopPair(t, e.attrs, plain)
	// a stale handle: registered, then deregistered
	stale := e.staleHandle(t, rdmaT, vipl.MemAttributes{Ptag: e.p, EnableRdmaWrite: true})

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

// Two nodes across the fabric: each writes into the other's memory, from
// 1 byte to 64 KiB (16 wire frames), gathered from up to three segments;
// every other write carries immediate data (the target's receive says it
// is placed), the others are followed by an 8-byte send (the fence). The
// target's bytes and the guard bytes around them are checked, and the
// capture holds exactly these frames (KIND RDMA_WRITE, each segment with
// its own REMOTE_VA), decoded by tshark with the project's dissector.
func TestCosimRemoteRdmaWrite(t *testing.T) {
	pcapPath := filepath.Join(t.TempDir(), "rdma.pcap")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2, Pcap: pcapPath})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536, EnableRdmaWrite: true})
	ctx := ctxT(t)
	const tgt, tgtLen = 24 * 4096, 24 * 4096 // each node's RDMA target region
	handles := make([]vipl.MemHandle, 2)
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		info, err := r.vi[1-i].Query(ctx)
		require.NoError(t, err)
		handles[i], err = r.n.RegisterMem(ctx, r.buf.VA+tgt, tgtLen, vipl.MemAttributes{Ptag: info.Attributes.Ptag, EnableRdmaWrite: true})
		require.NoError(t, err)
	})
	var msgs []message
	fenceData := []byte("fence!!!")
	for round, size := range []int{8, 1, 4096 + 5, 20000, 65536} {
		imm := round%2 == 1
		off := 4096 - 3 + round*7 // odd, the first page crossed at once
		recvs := make([]*vipl.Desc, 2)
		together(t, nicsOf(rn), func(i int) {
			r := rn[i]
			for k := tgt; k < tgt+tgtLen; k++ {
				r.buf.Bytes[k] = 0xEE
			}
			d := &vipl.Descriptor{} // the immediate data's receive
			if !imm {
				d.Segments = []vipl.DataSegment{r.seg(20*4096, 64)} // the fence's
			}
			recvs[i] = r.desc(t, 1, d)
			require.NoError(t, r.vi[1-i].PostRecv(ctx, recvs[i]))
		})
		for i := range 2 {
			peer := 1 - i
			m := message{src: i, dst: peer, srcVi: rn[i].vi[peer].ID(), dstVi: rn[peer].vi[i].ID(), data: pattern(round*10+i, size),
				imm: imm, immData: 0xD0D00000 + uint32(round), rdma: true, remoteVA: rn[peer].buf.VA + tgt + uint64(off), remoteHandle: uint32(handles[peer])}
			msgs = append(msgs, m)
			if !imm {
				msgs = append(msgs, message{src: i, dst: peer, srcVi: m.srcVi, dstVi: m.dstVi, data: fenceData})
			}
		}
		together(t, nicsOf(rn), func(i int) {
			r, peer := rn[i], 1-i
			data := pattern(round*10+i, size)
			// gather: thirds from page 1 on, at odd offsets, 101 bytes apart
			parts := []int{size / 3, size / 3, size - 2*(size/3)}
			offs := []int{4096 + 1, 4096 + 1 + parts[0] + 101, 4096 + 1 + parts[0] + parts[1] + 202}
			var segs []vipl.DataSegment
			at := 0
			for k, p := range parts {
				if p > 0 {
					copy(r.buf.Bytes[offs[k]:], data[at:at+p])
					segs = append(segs, r.seg(offs[k], p))
					at += p
				}
			}
			w := r.desc(t, 2, &vipl.Descriptor{Op: vipl.OpRdmaWrite, Segments: segs, Immediate: imm, ImmediateData: 0xD0D00000 + uint32(round),
				Remote: vipl.AddressSegment{Addr: rn[peer].buf.VA + tgt + uint64(off), Handle: handles[peer]}})
			require.NoError(t, r.vi[peer].PostSend(ctx, w))
			if !imm {
				copy(r.buf.Bytes[21*4096:], fenceData)
				require.NoError(t, r.vi[peer].PostSend(ctx, r.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(21*4096, len(fenceData))}})))
			}
			sd, err := r.vi[peer].SendWait(ctx, 10)
			require.NoError(t, err, "node %d: the RDMA write of %d bytes completes", i, size)
			require.Same(t, w, sd)
			assert.Equal(t, "DONE|op=RDMA_WRITE", sd.Status().String())
			if !imm {
				_, err := r.vi[peer].SendWait(ctx, 10)
				require.NoError(t, err, "node %d: the fence send completes", i)
			}
			rd, err := r.vi[peer].RecvWait(ctx, 10)
			require.NoError(t, err, "node %d: round %d's receive completes", i, round)
			require.Same(t, recvs[i], rd)
			if imm {
				assert.Equal(t, "DONE|op=REMOTE_RDMA_WRITE|IMMEDIATE", rd.Status().String())
				assert.Equal(t, 0xD0D00000+uint32(round), rd.ImmediateData())
				assert.Equal(t, uint32(size), rd.Length())
			} else {
				assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String(), "the fence took the receive")
			}
			want := pattern(round*10+peer, size)
			assert.True(t, bytes.Equal(want, r.buf.Bytes[tgt+off:tgt+off+size]), "node %d: the %d bytes node %d wrote", i, size, peer)
			for k := tgt; k < tgt+tgtLen; k++ {
				if k == tgt+off {
					k += size - 1
					continue
				}
				if r.buf.Bytes[k] != 0xEE {
					t.Errorf("node %d: byte %d of the target region written outside the write", i, k-tgt)
					break
				}
			}
		})
	}
	closeAll(rn)
	require.NoError(t, s.Stop())
	checkCapture(t, pcapPath, msgs)
}

// The target's asynchronous error (VipErrorCallback): a refused plain RDMA
// write reaches the target process's handler as RDMAW_PROT on its VI,
// learned of while the process waits (RecvWait) or polls (RecvDone's poll
// interval); one with immediate data reports it in the receive instead.
func TestCosimRdmaWriteAsyncError(t *testing.T) {
	e := newRdmaEnv(t)
	ctx := ctxT(t)
	got := make(chan vipl.ErrorDescriptor, 16)
	require.NoError(t, e.n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))
	next := func(what string) vipl.ErrorDescriptor {
		t.Helper()
		select {
		case d := <-got:
			return d
		case <-time.After(10 * time.Second):
			require.FailNow(t, what+": no asynchronous error")
		}
		return vipl.ErrorDescriptor{}
	}

	// learned of in a wait: the fence's RecvWait
	segs, _ := e.src(1, 64)
	e.write(t, e.a, e.b, segs, e.h, rdmaN, false, 0) // the region has no RDMA write
	e.fence(t, e.a, e.b)
	d := next("in a wait")
	assert.Equal(t, vipl.ErrorRdmawProt, d.ErrorCode)
	assert.Equal(t, vipl.ResourceVi, d.ResourceCode)
	assert.Equal(t, e.b.ID(), d.ViID, "the target VI")
	assert.Same(t, e.b, d.Vi)
	assert.Same(t, e.n, d.Nic)
	assert.Nil(t, d.Desc)
	assert.Equal(t, "RDMAW_PROT on VI "+fmt.Sprint(e.b.ID()), d.String()[:len("RDMAW_PROT on VI ")+len(fmt.Sprint(e.b.ID()))])

	// learned of while polling: RecvDone on b with a poll interval
	// (a fixed number of polls, 2,000 cycles: the run's cycles do not
	// depend on when the handler's goroutine runs)
	e.n.SetPollInterval(50)
	e.write(t, e.a, e.b, segs, e.hQ, rdmaQ, false, 0) // ptag mismatch
	for range 40 {
		requireCode(t, vipl.NotDone, second(e.b.RecvDone(ctx)))
	}
	d = next("while polling")
	assert.Equal(t, vipl.ErrorRdmawProt, d.ErrorCode)
	assert.Equal(t, e.b.ID(), d.ViID)

	// with immediate data: the receive says it, no asynchronous error
	recv := e.desc(t, 1, &vipl.Descriptor{})
	require.NoError(t, e.b.PostRecv(ctx, recv))
	e.write(t, e.a, e.b, segs, e.h, rdmaN, true, 5)
	_, err := e.b.RecvWait(ctx, 1)
	require.NoError(t, err)
	assertStatus(t, want(vipl.StatusRdmaProtectionError, vipl.CompletedRemoteRdmaWrite), recv, "with immediate data")
	e.fence(t, e.a, e.b)
	assert.Empty(t, got, "no asynchronous error for a write with immediate data")
	assert.Zero(t, e.counter(t, hw.RegViAerr), "the NIC's queue is empty")
	e.pairWorks(t)
}
