package vipl_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/vipl"
)

// Data between nodes: VIs of different NICs connected with ConnectRemote,
// messages through the link ports, the switch and the wire format.

// together runs fn(i) for every Nic at once and returns when all are done;
// a Nic whose fn is done parks until the last one is (in lockstep, a Nic
// that is open and not blocked on the simulator stops time for all).
func together(t *testing.T, nics []*vipl.Nic, fn func(i int)) {
	t.Helper()
	ctx, stop := context.WithCancel(ctxT(t))
	defer stop()
	var wg sync.WaitGroup
	var left atomic.Int32
	left.Store(int32(len(nics)))
	for i := range nics {
		wg.Go(func() {
			defer func() {
				if left.Add(-1) == 0 {
					stop()
					return
				}
				assert.NoError(t, nics[i].Park(ctx), "parking node %d", i)
			}()
			fn(i)
		})
	}
	wg.Wait()
}

// remoteNode is one node's end of a test between nodes.
type remoteNode struct {
	n   *vipl.Nic
	buf *vipl.Buffer
	h   vipl.MemHandle
	vi  []*vipl.Vi // vi[j]: connected to node j's VI for this node (nil for itself)
}

// whileParked runs fn while the Nics park.
func whileParked(t *testing.T, nics []*vipl.Nic, fn func()) {
	t.Helper()
	ctx, stop := context.WithCancel(ctxT(t))
	var wg sync.WaitGroup
	for _, n := range nics {
		wg.Go(func() { assert.NoError(t, n.Park(ctx)) })
	}
	fn()
	stop()
	wg.Wait()
}

// newRemoteNodes opens one Nic on each of nodes nodes, each with a 48-page
// buffer registered and, for every other node j, one VI connected to node
// j's VI for it (all-to-all).
func newRemoteNodes(t *testing.T, s *simulator.Sim, nodes int, attrs vipl.ViAttributes) []*remoteNode {
	t.Helper()
	ctx := ctxT(t)
	rn := make([]*remoteNode, nodes)
	nics := make([]*vipl.Nic, 0, nodes)
	for i := range nodes {
		// the Nics already open park while the next one opens
		whileParked(t, nics, func() {
			n, err := vipl.OpenNic(ctx, simAddress(s), i, vipl.Options{Name: fmt.Sprintf("%s-%d", t.Name(), i), MemoryBytes: testMemBytes, Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			rn[i] = &remoteNode{n: n, vi: make([]*vipl.Vi, nodes)}
			nics = append(nics, n)
		})
	}
	// closed all at once: a Nic that closes alone waits for time that the
	// open ones stop
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, n := range nics {
			wg.Go(func() { n.Close(context.Background()) })
		}
		wg.Wait()
	})
	together(t, nics, func(i int) {
		r := rn[i]
		p := mustPtag(t, r.n)
		var err error
		r.buf, err = r.n.Alloc(ctx, 48*4096)
		require.NoError(t, err)
		r.h, err = r.n.RegisterMem(ctx, r.buf.VA, len(r.buf.Bytes), vipl.MemAttributes{Ptag: p})
		require.NoError(t, err)
		a := attrs
		a.Ptag = p
		for j := range nodes {
			if j != i {
				r.vi[j], err = r.n.CreateVi(ctx, a)
				require.NoError(t, err)
			}
		}
	})
	together(t, nics, func(i int) {
		for j := range nodes {
			if j != i {
				require.NoError(t, rn[i].vi[j].ConnectRemote(ctx, vipl.NodeAddress(j), rn[j].vi[i].ID()))
			}
		}
	})
	return rn
}

func nicsOf(rn []*remoteNode) []*vipl.Nic {
	n := make([]*vipl.Nic, len(rn))
	for i, r := range rn {
		n[i] = r.n
	}
	return n
}

// seg is a data segment of n bytes at offset off of the node's buffer.
func (r *remoteNode) seg(off, n int) vipl.DataSegment {
	return vipl.DataSegment{Addr: r.buf.VA + uint64(off), Handle: r.h, Length: uint32(n)}
}

// desc writes d into descriptor slot i (512-byte slots in page 0).
func (r *remoteNode) desc(t *testing.T, i int, d *vipl.Descriptor) *vipl.Desc {
	t.Helper()
	x, err := r.n.NewDesc(r.buf.VA+uint64(i)*512, r.h, d)
	require.NoError(t, err)
	return x
}

func pattern(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// Two nodes: 8 bytes each way, then messages up to 64 KiB (16 wire frames)
// with gather on the sender and scatter on the receiver, every byte
// checked and nothing written past the receive buffers.
func TestCosimRemoteSendRecv(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
	ctx := ctxT(t)
	for _, size := range []int{8, 1, 4096, 4097, 20000, 65536} {
		together(t, nicsOf(rn), func(i int) {
			r, peer := rn[i], 1-i
			src := pattern(size*10+i, size)
			copy(r.buf.Bytes[4096:], src)
			// the receive area: guard bytes around it
			for k := 4096 + 65536 + 4096; k < len(r.buf.Bytes); k++ {
				r.buf.Bytes[k] = 0xEE
			}
			// gather: the message in up to 3 segments; scatter: 2
			var gs []vipl.DataSegment
			switch {
			case size >= 3:
				a, b := size/3, size/3
				gs = []vipl.DataSegment{r.seg(4096, a), r.seg(4096+a, b), r.seg(4096+a+b, size-a-b)}
			default:
				gs = []vipl.DataSegment{r.seg(4096, size)}
			}
			rbase := 4096 + 65536 + 8192
			half := (size + 1) / 2
			rs := []vipl.DataSegment{r.seg(rbase, half), r.seg(rbase+half+100, size-half)}
			if size-half == 0 {
				rs = rs[:1]
			}
			recv := r.desc(t, 1, &vipl.Descriptor{Segments: rs})
			require.NoError(t, r.vi[peer].PostRecv(ctx, recv))
			send := r.desc(t, 0, &vipl.Descriptor{Segments: gs})
			require.NoError(t, r.vi[peer].PostSend(ctx, send))
			sd, err := r.vi[peer].SendWait(ctx, 10)
			require.NoError(t, err, "node %d: the send of %d bytes completes", i, size)
			assert.Equal(t, "DONE|op=SEND", sd.Status().String())
			rd, err := r.vi[peer].RecvWait(ctx, 10)
			require.NoError(t, err, "node %d: the receive of %d bytes completes", i, size)
			assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
			assert.Equal(t, uint32(size), rd.Length())
			want := pattern(size*10+peer, size)
			got := append(append([]byte{}, r.buf.Bytes[rbase:rbase+half]...), r.buf.Bytes[rbase+half+100:rbase+100+size]...)
			assert.True(t, bytes.Equal(want, got), "node %d: %d bytes from node %d", i, size, peer)
			for k := rbase + half; k < rbase+half+100; k++ {
				require.Equal(t, byte(0xEE), r.buf.Bytes[k], "node %d: byte %d between the scatter segments", i, k-rbase)
			}
			assert.Equal(t, byte(0xEE), r.buf.Bytes[rbase+100+size], "nothing past the message")
		})
	}
}
