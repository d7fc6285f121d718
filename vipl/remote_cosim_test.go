package vipl_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/fabric"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/pcap"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/internal/wire"
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
	var failed atomic.Bool
	for i := range nics {
		wg.Go(func() {
			defer func() {
				if left.Add(-1) == 0 {
					stop()
					return
				}
				assert.NoError(t, nics[i].Park(ctx), "parking node %d", i)
			}()
			done := false
			defer func() {
				if !done {
					failed.Store(true) // a require ended it (runtime.Goexit), or a panic
				}
			}()
			fn(i)
			done = true
		})
	}
	wg.Wait()
	// (a require in fn ends only its goroutine: stop here, before the
	// next step reads what it did not make)
	require.False(t, failed.Load(), "a node stopped on a failed require")
}

// remoteNode is one node's end of a test between nodes.
type remoteNode struct {
	n   *vipl.Nic
	buf *vipl.Buffer
	h   vipl.MemHandle
	vi  []*vipl.Vi // vi[j]: connected to node j's VI for this node (nil for itself)
}

// newRemoteNodes opens one Nic on each of nodes nodes (the simulator must
// wait for that many drivers), each with a 48-page
// buffer registered and, for every other node j, one VI connected to node
// j's VI for it (all-to-all).
func newRemoteNodes(t *testing.T, s *simulator.Sim, nodes int, attrs vipl.ViAttributes) []*remoteNode {
	t.Helper()
	ctx := ctxT(t)
	rn := make([]*remoteNode, nodes)
	nics := make([]*vipl.Nic, nodes)
	// all opened at once (the simulator holds time until every driver is
	// attached: StartSim with WaitDrivers), each parking once it is open
	// until the last one is
	pctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var left atomic.Int32
	left.Store(int32(nodes))
	for i := range nodes {
		wg.Go(func() {
			n, err := vipl.OpenNic(ctx, simAddress(s), i, vipl.Options{Name: fmt.Sprintf("%s-%d", t.Name(), i), MemoryBytes: testMemBytes, Logger: slog.New(slog.DiscardHandler)})
			if left.Add(-1) == 0 {
				stop()
			}
			if !assert.NoError(t, err, "OpenNic node %d", i) {
				return
			}
			rn[i] = &remoteNode{n: n, vi: make([]*vipl.Vi, nodes)}
			nics[i] = n
			assert.NoError(t, n.Park(pctx))
		})
	}
	wg.Wait()
	stop()
	// closed all at once: a Nic that closes alone waits for time that the
	// open ones stop
	t.Cleanup(func() { closeAll(rn) })
	require.False(t, t.Failed(), "every node opened")
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
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
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

// message is one message of allToAll.
type message struct {
	src, dst     int
	srcVi, dstVi vipl.ViID
	data         []byte
	imm          bool
	immData      uint32
	// an RDMA write: the target address of its first byte and the handle
	rdma         bool
	remoteVA     uint64
	remoteHandle uint32
}

// allToAll has every node send one message to every other node (sizes from
// 64 bytes to several wire frames, immediate data on every other one) and
// checks every byte received; it returns the messages and the last cycle
// any node saw.
func allToAll(t *testing.T, rn []*remoteNode) ([]message, uint64) {
	t.Helper()
	ctx := ctxT(t)
	nodes := len(rn)
	const srcOff, rxOff, rxSlot = 4096, 4096 + 32768, 32768
	var msgs []message
	for i := range nodes {
		for j := range nodes {
			if i == j {
				continue
			}
			k := len(msgs)
			msgs = append(msgs, message{src: i, dst: j, srcVi: rn[i].vi[j].ID(), dstVi: rn[j].vi[i].ID(),
				data: pattern(i, 64+1700*(i*nodes+j)), imm: k%2 == 1, immData: 0xC0DE0000 + uint32(k)})
		}
	}
	// first every receive, so that no message finds its VI without one
	recvs := make([][]*vipl.Desc, nodes)
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		recvs[i] = make([]*vipl.Desc, nodes)
		for j := range nodes {
			if j == i {
				continue
			}
			for k := rxOff + j*rxSlot; k < rxOff+(j+1)*rxSlot; k++ {
				r.buf.Bytes[k] = 0xEE
			}
			recvs[i][j] = r.desc(t, 4+j, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(rxOff+j*rxSlot, rxSlot-64)}})
			require.NoError(t, r.vi[j].PostRecv(ctx, recvs[i][j]))
		}
	})
	var last atomic.Uint64
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		var mine []message
		for _, m := range msgs {
			if m.src == i {
				mine = append(mine, m)
			}
		}
		copy(r.buf.Bytes[srcOff:], pattern(i, 32768))
		for _, m := range mine {
			d := &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(srcOff, len(m.data))}, Immediate: m.imm, ImmediateData: m.immData}
			require.NoError(t, r.vi[m.dst].PostSend(ctx, r.desc(t, m.dst, d)))
		}
		for _, m := range mine {
			sd, err := r.vi[m.dst].SendWait(ctx, 10)
			require.NoError(t, err, "node %d: send to node %d", i, m.dst)
			assert.Equal(t, "DONE|op=SEND", sd.Status().String())
		}
		for j := range nodes {
			if j == i {
				continue
			}
			var m message
			for _, x := range msgs {
				if x.src == j && x.dst == i {
					m = x
				}
			}
			rd, err := r.vi[j].RecvWait(ctx, 10)
			require.NoError(t, err, "node %d: receive from node %d", i, j)
			want := "DONE|op=RECEIVE"
			if m.imm {
				want = "DONE|op=RECEIVE|IMMEDIATE"
			}
			assert.Equal(t, want, rd.Status().String(), "node %d from %d", i, j)
			assert.Equal(t, uint32(len(m.data)), rd.Length())
			if m.imm {
				assert.Equal(t, m.immData, rd.ImmediateData())
			}
			got := r.buf.Bytes[rxOff+j*rxSlot:]
			assert.True(t, bytes.Equal(m.data, got[:len(m.data)]), "node %d: the bytes from node %d", i, j)
			assert.Equal(t, byte(0xEE), got[len(m.data)], "node %d: nothing past the message from node %d", i, j)
		}
		for c := r.n.Cycle(); ; {
			old := last.Load()
			if c <= old || last.CompareAndSwap(old, c) {
				break
			}
		}
	})
	return msgs, last.Load()
}

// Four nodes, all to all: 12 messages of 64 bytes to 7 wire frames.
func TestCosimRemoteAllToAll4(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 4, WaitDrivers: 4})
	rn := newRemoteNodes(t, s, 4, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
	msgs, cycle := allToAll(t, rn)
	t.Logf("%d messages between 4 nodes by cycle %d", len(msgs), cycle)
}

// checkCapture reads the capture of an allToAll run: every frame is a good
// wire frame, each message arrives as its segments in order (FIRST, LAST,
// OFFSET, SEG_LEN, MSG_LEN, the VIs, the immediate data) with its bytes,
// and tshark with the project's dissector decodes every frame to the same
// fields. Returns the frames.
func checkCapture(t *testing.T, path string, msgs []message) []*wire.Frame {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	pkts, err := pcap.Read(fh)
	fh.Close()
	require.NoError(t, err)
	var frames []*wire.Frame
	cms := 0
	byPair := map[[2]int][]*wire.Frame{}
	lastNs := map[uint8]uint64{}
	for i, p := range pkts {
		b, err := wire.FromEthernet(p.Data)
		require.NoError(t, err, "packet %d", i)
		f, err := wire.Parse(b)
		require.NoError(t, err, "packet %d: a good frame", i)
		assert.Equal(t, wire.MAC(f.Hdr.DstNode), [6]byte(p.Data[0:6]), "packet %d: destination MAC", i)
		assert.GreaterOrEqual(t, p.Nanos, lastNs[f.Hdr.DstNode], "packet %d: time goes forward on a link", i)
		lastNs[f.Hdr.DstNode] = p.Nanos
		frames = append(frames, f)
		if f.Hdr.Kind == hw.WireKindConnect {
			// the connection managers' messages: here the DISCONNECTs of
			// the Close at the end and their answers
			cms++
			continue
		}
		k := [2]int{int(f.Hdr.SrcNode), int(f.Hdr.DstNode)}
		byPair[k] = append(byPair[k], f)
	}
	// the messages of a pair in order, each taking its frames
	total := 0
	used := map[[2]int]int{}
	for _, m := range msgs {
		k := [2]int{m.src, m.dst}
		nf := max(1, (len(m.data)+hw.WireMtu-1)/hw.WireMtu)
		fs := byPair[k][min(used[k], len(byPair[k])):min(used[k]+nf, len(byPair[k]))]
		used[k] += nf
		total += nf
		require.Len(t, fs, nf, "frames of the message from node %d to %d (%d bytes)", m.src, m.dst, len(m.data))
		var got []byte
		for k, f := range fs {
			h := f.Hdr
			ctx := fmt.Sprintf("message %d->%d frame %d", m.src, m.dst, k)
			if m.rdma {
				assert.Equal(t, uint8(hw.WireKindRdmaWrite), h.Kind, ctx)
				if assert.NotNil(t, f.Rdma, ctx+": the RDMA extension") {
					assert.Equal(t, m.remoteVA+uint64(k*hw.WireMtu), f.Rdma.RemoteVa, ctx+": REMOTE_VA (the segment's own)")
					assert.Equal(t, m.remoteHandle, f.Rdma.RemoteHandle, ctx+": REMOTE_HANDLE")
				}
			} else {
				assert.Equal(t, uint8(hw.WireKindSend), h.Kind, ctx)
				assert.Nil(t, f.Rdma, ctx)
			}
			assert.Equal(t, uint16(m.srcVi), h.SrcVi, ctx)
			assert.Equal(t, uint16(m.dstVi), h.DstVi, ctx)
			assert.Equal(t, uint32(len(m.data)), h.MsgLen, ctx)
			assert.Equal(t, uint32(k*hw.WireMtu), h.Offset, ctx)
			assert.Equal(t, uint16(min(hw.WireMtu, len(m.data)-k*hw.WireMtu)), h.SegLen, ctx)
			assert.Equal(t, k == 0, h.Flags&hw.WireHdrFlagsFirstMask != 0, ctx+": FIRST")
			assert.Equal(t, k == nf-1, h.Flags&hw.WireHdrFlagsLastMask != 0, ctx+": LAST")
			if k == nf-1 {
				assert.Equal(t, m.imm, h.Flags&hw.WireHdrFlagsImmediateMask != 0, ctx+": IMMEDIATE")
				if m.imm {
					assert.Equal(t, m.immData, h.Immediate, ctx)
				}
			}
			assert.Equal(t, uint32(0), f.Status, ctx)
			got = append(got, f.Payload...)
		}
		assert.True(t, bytes.Equal(m.data, got), "the bytes of the message from node %d to %d", m.src, m.dst)
	}
	require.Len(t, frames, total+cms, "no other frame on the wire")

	// the dissector
	if os.Getenv("VIANIC_NO_HDL") == "1" {
		return frames
	}
	tshark, err := exec.LookPath("tshark")
	require.NoError(t, err, "tshark is not installed: run `make deps`")
	lua := filepath.Join(simtest.Root(t), "sim-scripts", "wireshark", "vianic.lua")
	fields := []string{"vianic.hdr.dst_node", "vianic.hdr.src_node", "vianic.hdr.dst_vi", "vianic.hdr.src_vi", "vianic.hdr.kind",
		"vianic.hdr.flags", "vianic.hdr.msg_len", "vianic.hdr.offset", "vianic.hdr.seg_len", "vianic.hdr.immediate",
		"vianic.rdma.remote_va", "vianic.rdma.remote_handle", "vianic.trl.crc_good"}
	args := []string{"-r", path, "-X", "lua_script:" + lua, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(tshark, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "tshark: %s", stderr.String())
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Len(t, lines, len(frames), "tshark: one line per frame")
	for i, line := range lines {
		h := frames[i].Hdr
		want := []uint64{uint64(h.DstNode), uint64(h.SrcNode), uint64(h.DstVi), uint64(h.SrcVi), uint64(h.Kind), uint64(h.Flags),
			uint64(h.MsgLen), uint64(h.Offset), uint64(h.SegLen), uint64(h.Immediate)}
		col := strings.Split(line, "|")
		require.Len(t, col, len(fields), "frame %d: %q", i, line)
		if r := frames[i].Rdma; r != nil {
			want = append(want, r.RemoteVa, uint64(r.RemoteHandle))
		} else {
			assert.Equal(t, []string{"", ""}, col[len(want):len(want)+2], "frame %d: no RDMA extension", i)
		}
		for k, w := range want {
			v, err := strconv.ParseUint(col[k], 0, 64)
			require.NoError(t, err, "frame %d %s = %q", i, fields[k], col[k])
			assert.Equal(t, w, v, "frame %d: %s", i, fields[k])
		}
		assert.Contains(t, []string{"1", "True"}, col[len(col)-1], "frame %d: the dissector finds the CRC good", i)
	}
	return frames
}

// The same 4-node run twice, traced and captured: identical waveforms (up
// to the last cycle a client saw) and identical captures, and the capture
// holds exactly the frames of the messages.
func TestCosimRemoteCaptureDeterministic(t *testing.T) {
	simtest.RequireHDL(t)
	// the waveform from the end of the set-up on (the firmware's boot and
	// the memory registrations take the first ~70,000 cycles; tracing
	// them would triple the file and the test's time)
	const traceFrom = 70000
	dir := t.TempDir()
	var pc, wv [2][]byte
	var cyc [2]uint64
	for run := range 2 {
		pcapPath := filepath.Join(dir, fmt.Sprintf("run%d.pcap", run))
		wave := simtest.WavePath(t, fmt.Sprintf("run%d.vcd", run))
		simtest.KeepWaveOnFailure(t, wave)
		s := simtest.StartSim(t, simulator.SimOptions{Nodes: 4, WaitDrivers: 4, Pcap: pcapPath, Trace: wave, TraceStart: traceFrom})
		rn := newRemoteNodes(t, s, 4, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
		msgs, last := allToAll(t, rn)
		closeAll(rn)
		require.NoError(t, s.Stop())
		frames := checkCapture(t, pcapPath, msgs)
		if first := pcapUpTo(t, mustRead(t, pcapPath), ^uint64(0)); len(first) > 0 {
			assert.Greater(t, first[0].Nanos/4, uint64(traceFrom), "every frame is inside the traced window")
		}
		t.Logf("run %d: %d messages, %d frames captured, last cycle %d, buffers at %#x %#x %#x %#x", run, len(msgs), len(frames), last, rn[0].buf.VA, rn[1].buf.VA, rn[2].buf.VA, rn[3].buf.VA)
		var err error
		pc[run], err = os.ReadFile(pcapPath)
		require.NoError(t, err)
		wv[run], err = os.ReadFile(wave)
		require.NoError(t, err)
		cyc[run] = last
	}
	assert.Equal(t, cyc[0], cyc[1], "the same last cycle")
	// up to the last cycle a client saw: the Close afterwards (all NICs at
	// once, each connection going away when its process is done) tells
	// the peers with DISCONNECT frames at wall-clock dependent cycles
	c0, c1 := pcapUpTo(t, pc[0], cyc[0]*4), pcapUpTo(t, pc[1], cyc[0]*4)
	assert.Greater(t, len(c0), 40, "the messages' frames are compared")
	assert.Equal(t, c0, c1, "identical captures up to cycle %d", cyc[0])
	end := cyc[0] * 4000
	v0, v1 := simtest.VCDUpTo(simtest.StripVCDDate(wv[0]), end), simtest.VCDUpTo(simtest.StripVCDDate(wv[1]), end)
	require.Greater(t, len(v0), len(wv[0])/2, "most of the waveform is compared")
	require.Contains(t, string(v0), fmt.Sprintf("#%d", uint64(traceFrom+1)*4000), "the trace starts at traceFrom")
	assert.True(t, bytes.Equal(v0, v1), "identical waveforms up to cycle %d (%d and %d bytes)", cyc[0], len(v0), len(v1))
	assert.Contains(t, string(v0), "$scope module fabric $end", "the switch is in the waveform")
}

// The 4-node all-to-all run with --quantum 25 (the link latency: the
// nodes meet every 25 cycles), with two evaluation threads (the nodes run
// their quanta at the same time) and with one and a waveform (which makes
// the simulator run each quantum edge by edge across the nodes): the same
// cycles and the same capture, and every message intact.
func TestCosimRemoteQuantum(t *testing.T) {
	simtest.RequireHDL(t)
	const traceFrom = 70000
	dir := t.TempDir()
	runs := []struct {
		threads int
		trace   bool
	}{{2, false}, {1, true}}
	pc := make([][]byte, len(runs))
	cyc := make([]uint64, len(runs))
	for i, r := range runs {
		pcapPath := filepath.Join(dir, fmt.Sprintf("run%d.pcap", i))
		o := simulator.SimOptions{Nodes: 4, WaitDrivers: 4, Pcap: pcapPath, Quantum: 25,
			Args: []string{"--threads", strconv.Itoa(r.threads)}}
		if r.trace {
			o.Trace, o.TraceStart = simtest.WavePath(t, "quantum.vcd"), traceFrom
		}
		s := simtest.StartSim(t, o)
		rn := newRemoteNodes(t, s, 4, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
		msgs, last := allToAll(t, rn)
		closeAll(rn)
		require.NoError(t, s.Stop())
		frames := checkCapture(t, pcapPath, msgs)
		t.Logf("threads %d, trace %v: %d messages, %d frames, last cycle %d", r.threads, r.trace, len(msgs), len(frames), last)
		pc[i], cyc[i] = mustRead(t, pcapPath), last
	}
	first := pcapUpTo(t, pc[0], cyc[0]*4)
	assert.Greater(t, len(first), 40, "the messages' frames are compared")
	for i := 1; i < len(runs); i++ {
		assert.Equal(t, cyc[0], cyc[i], "run %d: the same last cycle", i)
		assert.Equal(t, first, pcapUpTo(t, pc[i], cyc[0]*4), "run %d: the same capture up to cycle %d", i, cyc[0])
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// pcapUpTo returns the packets of capture b up to ns nanoseconds.
func pcapUpTo(t *testing.T, b []byte, ns uint64) []pcap.Packet {
	t.Helper()
	pkts, err := pcap.Read(bytes.NewReader(b))
	require.NoError(t, err)
	n := 0
	for n < len(pkts) && pkts[n].Nanos <= ns {
		n++
	}
	return pkts[:n]
}

// closeAll closes every node's Nic at once (one at a time, a closing Nic
// would wait for time the open ones stop).
func closeAll(rn []*remoteNode) {
	var wg sync.WaitGroup
	for _, r := range rn {
		if r != nil {
			wg.Go(func() {
				if err := r.n.Close(context.Background()); err != nil {
					fmt.Fprintf(os.Stderr, "closeAll: %v\n", err)
				}
			})
		}
	}
	wg.Wait()
}

// monitor dials a monitor connection to node (its reads and the switch's
// register port do not wait for the other clients).
func monitor(t *testing.T, s *simulator.Sim, node int) *cosim.Conn {
	t.Helper()
	return simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Node: node, Name: fmt.Sprintf("monitor %d", node)})
}

func reg(t *testing.T, m *cosim.Conn, off uint32) uint32 {
	t.Helper()
	v, err := m.Read32(ctxT(t), off)
	require.NoError(t, err)
	return v
}

// send8 sends 8 bytes from node 0's VI to node 1, which posts post
// receives first and then waits for up to wait completions, 1 ms of
// simulated time each; it returns those that completed (a lost message
// leaves its receive posted, for the next one).
func send8(t *testing.T, rn []*remoteNode, text string, post, wait int) []*vipl.Desc {
	t.Helper()
	ctx := ctxT(t)
	var got []*vipl.Desc
	together(t, nicsOf(rn), func(i int) {
		if i != 1 {
			return
		}
		for k := range post {
			require.NoError(t, rn[1].vi[0].PostRecv(ctx, rn[1].desc(t, 4+k, &vipl.Descriptor{Segments: []vipl.DataSegment{rn[1].seg(8192+k*64, 64)}})))
		}
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		switch i {
		case 0:
			copy(r.buf.Bytes[4096:], text)
			require.NoError(t, r.vi[1].PostSend(ctx, r.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(4096, len(text))}})))
			sd, err := r.vi[1].SendWait(ctx, 10)
			require.NoError(t, err)
			assert.Equal(t, "DONE|op=SEND", sd.Status().String(), "the sender does not know what the wire did")
		case 1:
			for range wait {
				d, err := r.vi[0].RecvWait(ctx, 1)
				if vipl.Code(err) == vipl.Timeout {
					return
				}
				require.NoError(t, err)
				got = append(got, d)
			}
		}
	})
	return got
}

// Faults on the wire, set at run time through the switch's register port:
// a corrupted frame is dropped by the receiving NIC and counted, a dropped
// one is lost, a duplicated one is delivered twice (the unreliable level
// has no sequence numbers: VIA promises it neither exactly-once delivery
// nor order), and the connection goes on after each.
func TestCosimRemoteFaults(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
	ctx := ctxT(t)
	mon := monitor(t, s, 1)
	ports, rules, err := fabric.Info(ctx, mon)
	require.NoError(t, err)
	assert.Equal(t, 16, ports, "the simulator's switch is built with 16 ports")
	assert.GreaterOrEqual(t, rules, 1)
	toNode1 := fabric.Rule{MatchOut: true, OutPort: 1, MatchKind: true, Kind: hw.WireKindSend, EveryN: 1}

	// a clean message first
	got := send8(t, rn, "clean!!!", 1, 1)
	require.Len(t, got, 1)
	assert.Equal(t, "clean!!!", string(rn[1].buf.Bytes[8192:8200]))

	// CORRUPT: one payload bit flipped; the receiving NIC's CRC check drops it
	crc0 := reg(t, mon, hw.RegNetRxCrc)
	r := toNode1
	r.Action, r.Mask, r.Beat = fabric.Corrupt, 1<<9, 4
	require.NoError(t, fabric.SetRule(ctx, mon, 0, r))
	got = send8(t, rn, "corrupt!", 1, 1)
	assert.Empty(t, got, "a corrupted frame is never delivered")
	assert.Equal(t, crc0+1, reg(t, mon, hw.RegNetRxCrc), "counted as a CRC failure")
	matched, acted, err := fabric.RuleCounters(ctx, mon, 0)
	require.NoError(t, err)
	assert.Equal(t, [2]uint32{1, 1}, [2]uint32{matched, acted})
	require.NoError(t, fabric.DisableRule(ctx, mon, 0))
	// the receive still posted takes the next message
	got = send8(t, rn, "after C!", 0, 1)
	require.Len(t, got, 1)
	assert.Equal(t, "after C!", string(rn[1].buf.Bytes[8192:8200]))

	// DROP: lost on the wire, nothing counted at the receiver
	good := reg(t, mon, hw.RegNetRxGood)
	r = toNode1
	r.Action = fabric.Drop
	require.NoError(t, fabric.SetRule(ctx, mon, 1, r))
	got = send8(t, rn, "dropped!", 1, 1)
	assert.Empty(t, got)
	assert.Equal(t, good, reg(t, mon, hw.RegNetRxGood), "no frame reached node 1")
	require.NoError(t, fabric.DisableRule(ctx, mon, 1))
	got = send8(t, rn, "after D!", 0, 1)
	require.Len(t, got, 1)

	// DUPLICATE: the frame twice, so the message twice: two receives
	r = toNode1
	r.Action = fabric.Duplicate
	require.NoError(t, fabric.SetRule(ctx, mon, 2, r))
	got = send8(t, rn, "twice!!!", 2, 2)
	require.Len(t, got, 2, "an unreliable VI takes the duplicate as a second message")
	assert.Equal(t, "twice!!!", string(rn[1].buf.Bytes[8192:8200]))
	assert.Equal(t, "twice!!!", string(rn[1].buf.Bytes[8192+64:8200+64]))
	// with no second receive posted the duplicate is dropped and counted
	noRecv := reg(t, mon, hw.RegViRxNoRecv)
	got = send8(t, rn, "once....", 1, 1)
	require.Len(t, got, 1)
	assert.Equal(t, noRecv+1, reg(t, mon, hw.RegViRxNoRecv))
	require.NoError(t, fabric.DisableRule(ctx, mon, 2))
	p1, err := fabric.Port(ctx, mon, 1)
	require.NoError(t, err)
	t.Logf("port 1: %+v", p1)
	assert.Equal(t, p1.In, uint32(0), "node 1 sent nothing")
}

// TestCosimRemoteDisconnectFlush: node 0 disconnects in the middle of a
// stream. Its sends complete in order, the first ones done, every later one
// FLUSHED; node 1 receives exactly the messages node 0 sent (data intact)
// and, once the DISCONNECT arrives, its VI is in ERROR and every receive
// still queued completes FLUSHED as a receive; vipl posts nothing in ERROR;
// node 1's Disconnect takes its VI back to IDLE (both queues empty).
// oneSegDesc writes a descriptor of one data segment at va (64-byte
// aligned, memory handle h).
func oneSegDesc(t *testing.T, n *vipl.Nic, va uint64, h vipl.MemHandle, seg vipl.DataSegment) *vipl.Desc {
	t.Helper()
	x, err := n.NewDesc(va, h, &vipl.Descriptor{Segments: []vipl.DataSegment{seg}})
	require.NoError(t, err)
	return x
}

// doneThenFlushed checks that the statuses of a queue's completions are a
// run of done ones then only flushed ones, and returns the done count.
func doneThenFlushed(t *testing.T, what string, sts []string, done, flushed string) int {
	t.Helper()
	n := 0
	for n < len(sts) && sts[n] == done {
		n++
	}
	for k := n; k < len(sts); k++ {
		assert.Equal(t, flushed, sts[k], "%s %d after the disconnect", what, k)
	}
	return n
}

func TestCosimRemoteDisconnectFlush(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536})
	ctx := ctxT(t)
	// more sends than the send engine keeps in flight (16): a context
	// commit waits for those, the rest is still queued
	const nSend, nRecv, size = 28, 28, 2048
	const descOff, srcOff, rxOff = 45 * 4096, 4096, 4096 + size
	desc := func(r *remoteNode, k int, seg vipl.DataSegment) *vipl.Desc {
		return oneSegDesc(t, r.n, r.buf.VA+descOff+uint64(k)*64, r.h, seg)
	}
	src := pattern(77, size)
	copy(rn[0].buf.Bytes[srcOff:], src)
	lost := make(chan vipl.ErrorDescriptor, 4)
	require.NoError(t, rn[1].n.ErrorCallback(func(e vipl.ErrorDescriptor) { lost <- e }))
	// node 1's receives first, each into its own slot
	together(t, nicsOf(rn), func(i int) {
		if i == 1 {
			for k := range nRecv {
				require.NoError(t, rn[1].vi[0].PostRecv(ctx, desc(rn[1], k, rn[1].seg(rxOff+k*size, size))))
			}
		}
	})
	var sendSt, recvSt []string
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		if i == 0 {
			for k := range nSend {
				require.NoError(t, r.vi[1].PostSend(ctx, desc(r, k, r.seg(srcOff, size))))
			}
			// in the middle of the stream
			require.NoError(t, r.vi[1].Disconnect(ctx))
			for range nSend {
				d, err := r.vi[1].SendWait(ctx, 100)
				require.NoError(t, err)
				sendSt = append(sendSt, d.Status().String())
			}
			return
		}
		for range nRecv {
			d, err := r.vi[0].RecvWait(ctx, 100)
			require.NoError(t, err)
			recvSt = append(recvSt, d.Status().String())
		}
		info, err := r.vi[0].Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViError, info.State, "node 1: the peer disconnected")
		assert.True(t, info.SendQueueEmpty && info.RecvQueueEmpty, "node 1: queues flushed")
		// no posting in ERROR (the NIC would flush it at once)
		err = r.vi[0].PostRecv(ctx, desc(r, nRecv, r.seg(rxOff, size)))
		assert.ErrorIs(t, err, vipl.ErrInvalidState, "node 1: a receive posted in ERROR")
		// the owner's asynchronous error CONN_LOST, learned of in a wait
		_, err = r.vi[0].RecvWait(ctx, 1)
		requireCode(t, vipl.Timeout, err, "node 1: nothing more to receive")
		select {
		case e := <-lost:
			assert.Equal(t, vipl.ErrorConnLost, e.ErrorCode, "node 1: %v", e)
			assert.Equal(t, vipl.ResourceVi, e.ResourceCode)
			assert.Same(t, r.vi[0], e.Vi)
		case <-time.After(10 * time.Second):
			t.Error("node 1: no CONN_LOST")
		}
		require.NoError(t, r.vi[0].Disconnect(ctx))
	})
	t.Logf("node 0 sends: %v", sendSt)
	t.Logf("node 1 receives: %v", recvSt)
	done := doneThenFlushed(t, "send", sendSt, "DONE|op=SEND", "DONE|FLUSHED|op=SEND")
	assert.Greater(t, done, 0, "some sends complete before the disconnect")
	assert.Less(t, done, nSend, "the disconnect comes in the middle of the stream")
	// every message sent arrived, in order; every other receive flushed
	require.Len(t, recvSt, nRecv)
	assert.Equal(t, done, doneThenFlushed(t, "receive", recvSt, "DONE|op=RECEIVE", "DONE|FLUSHED|op=RECEIVE"),
		"node 1 received the messages node 0 sent")
	for k := range done {
		assert.True(t, bytes.Equal(src, rn[1].buf.Bytes[rxOff+k*size:rxOff+(k+1)*size]), "receive %d: the data", k)
	}
	together(t, nicsOf(rn), func(i int) {
		info, err := rn[i].vi[1-i].Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViIdle, info.State, "node %d: IDLE after Disconnect", i)
	})
}

// Errors of the previous issue across the wire: a receive too short
// completes with the length error and the VI goes on; a message from a VI
// the receiving VI is not connected to is dropped and counted, and the
// receive it would have taken stays for the right sender's message.
func TestCosimRemoteErrors(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 65536}
	rn := newRemoteNodes(t, s, 2, attrs)
	ctx := ctxT(t)
	mon := monitor(t, s, 1)

	// too short: 100 bytes into 64
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		switch i {
		case 1:
			require.NoError(t, r.vi[0].PostRecv(ctx, r.desc(t, 4, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(8192, 64)}})))
		}
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		switch i {
		case 0:
			require.NoError(t, r.vi[1].PostSend(ctx, r.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(4096, 100)}})))
			sd, err := r.vi[1].SendWait(ctx, 10)
			require.NoError(t, err)
			assert.Equal(t, "DONE|op=SEND", sd.Status().String())
		case 1:
			rd, err := r.vi[0].RecvWait(ctx, 10)
			require.NoError(t, err)
			assert.NotZero(t, rd.Status()&vipl.StatusLocalLengthError, "%s", rd.Status())
		}
	})
	require.Equal(t, "clean!!!", string(send8Text(t, rn)), "the VI goes on")

	// a third VI on node 0 that says its peer is node 1's VI, which is
	// connected to another VI of node 0
	var stray *vipl.Vi
	together(t, nicsOf(rn), func(i int) {
		if i != 0 {
			return
		}
		a := attrs
		info, err := rn[0].vi[1].Query(ctx)
		require.NoError(t, err)
		a.Ptag = info.Attributes.Ptag
		stray, err = rn[0].n.CreateVi(ctx, a)
		require.NoError(t, err)
		require.NoError(t, stray.ConnectRemote(ctx, vipl.NodeAddress(1), rn[1].vi[0].ID()))
	})
	bad := reg(t, mon, hw.RegViRxBadVi)
	together(t, nicsOf(rn), func(i int) {
		if i != 1 {
			return
		}
		require.NoError(t, rn[1].vi[0].PostRecv(ctx, rn[1].desc(t, 5, &vipl.Descriptor{Segments: []vipl.DataSegment{rn[1].seg(8192+64, 64)}})))
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		switch i {
		case 0:
			copy(r.buf.Bytes[4096:], "stray!!!")
			require.NoError(t, stray.PostSend(ctx, r.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(4096, 8)}})))
			_, err := stray.SendWait(ctx, 10)
			require.NoError(t, err)
		case 1:
			requireCode(t, vipl.Timeout, second(r.vi[0].RecvWait(ctx, 1)), "the stray message is not delivered")
		}
	})
	assert.Equal(t, bad+1, reg(t, mon, hw.RegViRxBadVi), "dropped as not from the connected VI")
	// the receive is still there for the connected VI's message
	got := send8(t, rn, "right!!!", 0, 1)
	require.Len(t, got, 1)
	assert.Equal(t, "right!!!", string(rn[1].buf.Bytes[8192+64:8200+64]))
}

// send8Text sends "clean!!!" from node 0 to node 1 and returns what node 1
// received.
func send8Text(t *testing.T, rn []*remoteNode) []byte {
	t.Helper()
	got := send8(t, rn, "clean!!!", 1, 1)
	require.Len(t, got, 1)
	return rn[1].buf.Bytes[8192:8200]
}

// The simulator's node count sets the switch's ports: on a 1-node
// simulator a message for node 5 leaves the NIC (the send completes; the
// unreliable level does not know) and the switch drops it as a frame for a
// port with no node (DROPPED of port 0).
func TestCosimRemoteNoSuchNode(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	ctx := ctxT(t)
	p, err := e.n.CreatePtag(ctx)
	require.NoError(t, err)
	h, err := e.n.RegisterMem(ctx, e.buf.VA, len(e.buf.Bytes), vipl.MemAttributes{Ptag: p})
	require.NoError(t, err)
	v, err := e.n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: p})
	require.NoError(t, err)
	requireCode(t, vipl.InvalidParameter, v.ConnectRemote(ctx, vipl.NodeAddress(0), 3), "node 0 is this NIC: ConnectLoopback's")
	requireCode(t, vipl.InvalidParameter, v.ConnectRemote(ctx, vipl.NetAddress{Host: []byte{1, 2}}, 3), "not a node address")
	require.NoError(t, v.ConnectRemote(ctx, vipl.NodeAddress(5), 3))
	requireCode(t, vipl.InvalidState, v.ConnectRemote(ctx, vipl.NodeAddress(6), 3), "already connected")
	d, err := e.n.NewDesc(e.buf.VA+7*512, h, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: e.buf.VA + 4096, Handle: h, Length: 100}}})
	require.NoError(t, err)
	require.NoError(t, v.PostSend(ctx, d))
	sd, err := v.SendWait(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	mon := monitor(t, s, 0)
	require.Eventually(t, func() bool {
		pc, err := fabric.Port(ctx, mon, 0)
		return err == nil && pc.Dropped == 1 && pc.In == 1
	}, 10*time.Second, 10*time.Millisecond, "the switch drops the frame for node 5")
	assert.Equal(t, uint32(1), reg(t, mon, hw.RegNetTxFrames), "one wire frame left the NIC")
	require.NoError(t, v.Disconnect(ctx))
	info, err := v.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, vipl.ViIdle, info.State)
}

// cmNodes opens two nodes, each with a registered buffer and two IDLE VIs
// (vi[0]: MaxTransferSize 4096, vi[1]: 8192), for the connection tests.
func cmNodes(t *testing.T) []*remoteNode {
	t.Helper()
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, WaitDrivers: 2})
	rn := newRemoteNodes(t, s, 2, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096})
	ctx := ctxT(t)
	together(t, nicsOf(rn), func(i int) {
		// fresh, unconnected VIs (newRemoteNodes connected vi[1-i])
		info, err := rn[i].vi[1-i].Query(ctx)
		require.NoError(t, err)
		a := info.Attributes
		v0, err := rn[i].n.CreateVi(ctx, a)
		require.NoError(t, err)
		a.MaxTransferSize = 8192
		v1, err := rn[i].n.CreateVi(ctx, a)
		require.NoError(t, err)
		rn[i].vi = []*vipl.Vi{v0, v1}
	})
	return rn
}

// Client/server connection management across the fabric: ConnectWait and
// ConnectAccept on node 1, ConnectRequest on node 0, data both ways over
// the connection; then the refusals: nobody waiting (VIP_NO_MATCH), a
// reject (VIP_REJECT), different MaxTransferSizes (VIP_INVALID_MTU on
// both sides), a server that never answers (the client's VIP_TIMEOUT, its
// VI IDLE again), a wait that nobody ends (VIP_TIMEOUT).
func TestCosimConnect(t *testing.T) {
	rn := cmNodes(t)
	ctx := ctxT(t)
	server := vipl.NetAddress{Host: []byte{1}, Discriminator: []byte("srv")}
	var attrs vipl.ViAttributes
	together(t, nicsOf(rn), func(i int) {
		switch i {
		case 1:
			req, err := rn[1].n.ConnectWait(ctx, server, 10)
			require.NoError(t, err)
			assert.Equal(t, []byte{0}, req.Remote.Host, "the requester's node")
			assert.Equal(t, uint32(4096), req.RemoteAttrs.MaxTransferSize)
			require.NoError(t, rn[1].vi[0].ConnectAccept(ctx, req))
			requireCode(t, vipl.InvalidParameter, rn[1].vi[1].ConnectAccept(ctx, req), "answered already")
		case 0:
			var err error
			attrs, err = rn[0].vi[0].ConnectRequest(ctx, vipl.NodeAddress(0), server, 10)
			require.NoError(t, err)
		}
	})
	assert.Equal(t, uint32(4096), attrs.MaxTransferSize)
	together(t, nicsOf(rn), func(i int) {
		info, err := rn[i].vi[0].Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViConnected, info.State, "node %d", i)
	})
	// data both ways over the connection
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		require.NoError(t, r.vi[0].PostRecv(ctx, r.desc(t, 4, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(8192, 64)}})))
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		copy(r.buf.Bytes[4096:], fmt.Sprintf("hello %d", i))
		require.NoError(t, r.vi[0].PostSend(ctx, r.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(4096, 7)}})))
		_, err := r.vi[0].SendWait(ctx, 10)
		require.NoError(t, err)
		rd, err := r.vi[0].RecvWait(ctx, 10)
		require.NoError(t, err)
		assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
		assert.Equal(t, fmt.Sprintf("hello %d", 1-i), string(r.buf.Bytes[8192:8199]))
	})

	// node 0 disconnects: node 1's VI is told (DISCONNECT) and goes to
	// ERROR; its Disconnect takes it to IDLE
	together(t, nicsOf(rn), func(i int) {
		switch i {
		case 0:
			require.NoError(t, rn[0].vi[0].Disconnect(ctx))
		case 1:
			for k := 0; ; k++ {
				info, err := rn[1].vi[0].Query(ctx)
				require.NoError(t, err)
				if info.State == vipl.ViError {
					break
				}
				require.Equal(t, vipl.ViConnected, info.State)
				require.Less(t, k, 100, "node 1's VI never left CONNECTED")
			}
			require.NoError(t, rn[1].vi[0].Disconnect(ctx))
			info, err := rn[1].vi[0].Query(ctx)
			require.NoError(t, err)
			assert.Equal(t, vipl.ViIdle, info.State)
		}
	})

	// nobody waits on "none"
	together(t, nicsOf(rn), func(i int) {
		if i == 0 {
			_, err := rn[0].vi[1].ConnectRequest(ctx, anyLocal, vipl.NetAddress{Host: []byte{1}, Discriminator: []byte("none")}, 10)
			requireCode(t, vipl.NoMatch, err)
		}
	})
	// rejected
	together(t, nicsOf(rn), func(i int) {
		switch i {
		case 1:
			req, err := rn[1].n.ConnectWait(ctx, server, 10)
			require.NoError(t, err)
			require.NoError(t, req.Reject(ctx))
		case 0:
			_, err := rn[0].vi[1].ConnectRequest(ctx, anyLocal, server, 10)
			requireCode(t, vipl.Reject, err)
		}
	})
	// different MaxTransferSizes: the server's VI has 4096... node 1's
	// vi[1] has 8192 and node 0's vi[1] 8192: use node 1's vi[0]? It is
	// connected; create one with 4096
	var small *vipl.Vi
	together(t, nicsOf(rn), func(i int) {
		if i != 1 {
			return
		}
		info, err := rn[1].vi[0].Query(ctx)
		require.NoError(t, err)
		small, err = rn[1].n.CreateVi(ctx, info.Attributes)
		require.NoError(t, err)
	})
	together(t, nicsOf(rn), func(i int) {
		switch i {
		case 1:
			req, err := rn[1].n.ConnectWait(ctx, server, 10)
			require.NoError(t, err)
			assert.Equal(t, uint32(8192), req.RemoteAttrs.MaxTransferSize)
			requireCode(t, vipl.InvalidMTU, small.ConnectAccept(ctx, req))
		case 0:
			_, err := rn[0].vi[1].ConnectRequest(ctx, anyLocal, server, 10)
			requireCode(t, vipl.InvalidMTU, err)
		}
	})
	// the server takes the request and never answers: the client times out
	together(t, nicsOf(rn), func(i int) {
		switch i {
		case 1:
			_, err := rn[1].n.ConnectWait(ctx, server, 10)
			require.NoError(t, err)
		case 0:
			_, err := rn[0].vi[1].ConnectRequest(ctx, anyLocal, server, 2)
			requireCode(t, vipl.Timeout, err)
			info, err := rn[0].vi[1].Query(ctx)
			require.NoError(t, err)
			assert.Equal(t, vipl.ViIdle, info.State, "withdrawn: IDLE again")
		}
	})
	// a wait nobody ends
	together(t, nicsOf(rn), func(i int) {
		if i == 1 {
			_, err := rn[1].n.ConnectWait(ctx, server, 1)
			requireCode(t, vipl.Timeout, err)
		}
	})
}

// anyLocal is an empty local address (this NIC's).
var anyLocal vipl.NetAddress

// Peer to peer across the fabric: both sides ask for "peer" at once
// (ConnectPeerRequest, then ConnectPeerWait), connect and exchange data;
// then one side asks first and polls with ConnectPeerDone (VIP_NOT_DONE)
// until the other asks; then different MaxTransferSizes (VIP_INVALID_MTU
// on both sides); a Done with no request pending is VIP_INVALID_STATE.
func TestCosimConnectPeer(t *testing.T) {
	rn := cmNodes(t)
	ctx := ctxT(t)
	addr := func(node int, d string) vipl.NetAddress {
		return vipl.NetAddress{Host: []byte{byte(node)}, Discriminator: []byte(d)}
	}
	together(t, nicsOf(rn), func(i int) {
		require.NoError(t, rn[i].vi[0].ConnectPeerRequest(ctx, anyLocal, addr(1-i, "peer")))
		attrs, err := rn[i].vi[0].ConnectPeerWait(ctx, 10)
		require.NoError(t, err, "node %d", i)
		assert.Equal(t, uint32(4096), attrs.MaxTransferSize)
		info, err := rn[i].vi[0].Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViConnected, info.State)
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		require.NoError(t, r.vi[0].PostRecv(ctx, r.desc(t, 4, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(8192, 64)}})))
	})
	together(t, nicsOf(rn), func(i int) {
		r := rn[i]
		copy(r.buf.Bytes[4096:], fmt.Sprintf("peer %d!", i))
		require.NoError(t, r.vi[0].PostSend(ctx, r.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{r.seg(4096, 7)}})))
		_, err := r.vi[0].SendWait(ctx, 10)
		require.NoError(t, err)
		_, err = r.vi[0].RecvWait(ctx, 10)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("peer %d!", 1-i), string(r.buf.Bytes[8192:8199]))
	})

	// node 0 asks first and polls; node 1 asks after a while
	requireCode(t, vipl.InvalidState, second(rn[0].vi[1].ConnectPeerDone(ctx)), "nothing pending")
	var polls int
	together(t, nicsOf(rn), func(i int) {
		v := rn[i].vi[1]
		switch i {
		case 0:
			require.NoError(t, v.ConnectPeerRequest(ctx, anyLocal, addr(1, "late")))
			for {
				_, err := v.ConnectPeerDone(ctx)
				if vipl.Code(err) == vipl.NotDone {
					polls++
					require.Less(t, polls, 100000)
					continue
				}
				require.NoError(t, err)
				break
			}
		case 1:
			// 20,000 cycles later: a Done on an empty queue waits one poll interval
			rn[1].n.SetPollInterval(20000)
			requireCode(t, vipl.NotDone, second(rn[1].vi[0].SendDone(ctx)))
			rn[1].n.SetPollInterval(0)
			require.NoError(t, v.ConnectPeerRequest(ctx, anyLocal, addr(0, "late")))
			_, err := v.ConnectPeerWait(ctx, 10)
			require.NoError(t, err)
		}
	})
	assert.Greater(t, polls, 10, "node 0 polled while node 1 had not asked")

	// different MaxTransferSizes: node 1's vi[0] is connected; a new one
	var v4k *vipl.Vi
	together(t, nicsOf(rn), func(i int) {
		if i != 1 {
			return
		}
		info, err := rn[1].vi[0].Query(ctx)
		require.NoError(t, err)
		v4k, err = rn[1].n.CreateVi(ctx, info.Attributes)
		require.NoError(t, err)
	})
	var v8k *vipl.Vi
	together(t, nicsOf(rn), func(i int) {
		if i != 0 {
			return
		}
		info, err := rn[0].vi[1].Query(ctx)
		require.NoError(t, err)
		v8k, err = rn[0].n.CreateVi(ctx, info.Attributes)
		require.NoError(t, err)
	})
	together(t, nicsOf(rn), func(i int) {
		v := v8k
		if i == 1 {
			v = v4k
		}
		require.NoError(t, v.ConnectPeerRequest(ctx, anyLocal, addr(1-i, "mtu")))
		_, err := v.ConnectPeerWait(ctx, 10)
		requireCode(t, vipl.InvalidMTU, err, "node %d", i)
		info, err := v.Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViIdle, info.State)
	})
}

// TestCosimLoopbackDisconnectFlush: the same on a loopback pair (one NIC).
// Disconnect of one end takes both to ERROR, waits for both flushes, then
// both are IDLE: the sends complete DONE then FLUSHED in order, the
// receives DONE (the messages that reached the other end, intact: at most
// the sends that completed, since a send completes when its frame leaves)
// then FLUSHED.
func TestCosimLoopbackDisconnectFlush(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	ctx := ctxT(t)
	const n, size, srcOff, rxOff = 28, 512, 4096, 8192
	desc := func(slot int, seg vipl.DataSegment) *vipl.Desc {
		return oneSegDesc(t, e.n, e.buf.VA+uint64(slot)*64, e.h, seg)
	}
	src := pattern(5, size)
	copy(e.buf.Bytes[srcOff:], src)
	for k := range n {
		require.NoError(t, e.b.PostRecv(ctx, desc(32+k, e.seg(rxOff+k*size, size))))
	}
	for k := range n {
		require.NoError(t, e.a.PostSend(ctx, desc(k, e.seg(srcOff, size))))
	}
	require.NoError(t, e.a.Disconnect(ctx))
	var sendSt, recvSt []string
	for range n {
		d, err := e.a.SendWait(ctx, 100)
		require.NoError(t, err)
		sendSt = append(sendSt, d.Status().String())
	}
	for range n {
		d, err := e.b.RecvWait(ctx, 100)
		require.NoError(t, err)
		recvSt = append(recvSt, d.Status().String())
	}
	sent := doneThenFlushed(t, "send", sendSt, "DONE|op=SEND", "DONE|FLUSHED|op=SEND")
	recvd := doneThenFlushed(t, "receive", recvSt, "DONE|op=RECEIVE", "DONE|FLUSHED|op=RECEIVE")
	for k := range recvd {
		assert.True(t, bytes.Equal(src, e.buf.Bytes[rxOff+k*size:rxOff+(k+1)*size]), "receive %d: the data", k)
	}
	t.Logf("%d sends done, %d flushed; %d receives done, %d flushed", sent, n-sent, recvd, n-recvd)
	assert.Greater(t, sent, 0)
	assert.Less(t, sent, n, "the disconnect comes in the middle of the stream")
	assert.LessOrEqual(t, recvd, sent)
	assert.Greater(t, recvd, 0)
	for _, v := range []*vipl.Vi{e.a, e.b} {
		info, err := v.Query(ctx)
		require.NoError(t, err)
		assert.Equal(t, vipl.ViIdle, info.State)
		assert.True(t, info.SendQueueEmpty && info.RecvQueueEmpty)
	}
}
