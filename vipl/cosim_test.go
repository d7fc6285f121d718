package vipl_test

import (
	"context"
	"log/slog"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/vipl"
)

// The library end to end: the real simulator, driver, firmware and TPT
// behind OpenNic.

const testMemBytes = 16 << 20

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// simAddress is s's address as OpenNic takes it.
func simAddress(s *simulator.Sim) string {
	if s.Network() == "tcp" {
		return "tcp:" + s.Addr()
	}
	return s.Addr()
}

func openNic(t *testing.T, s *simulator.Sim) *vipl.Nic {
	t.Helper()
	n, err := vipl.OpenNic(ctxT(t), simAddress(s), 0, vipl.Options{Name: t.Name(), MemoryBytes: testMemBytes, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close(context.Background()) })
	return n
}

func requireCode(t *testing.T, want vipl.Return, err error, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equal(t, want, vipl.Code(err), "%v", err)
	require.ErrorIs(t, err, want.Err())
}

func second[T any](_ T, err error) error { return err }

func TestCosimOpenQueryClose(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	ctx := ctxT(t)
	n := openNic(t, s)
	a, err := n.Query(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, a.Name)
	assert.Equal(t, uint32(hw.AdminMaxPtags), a.MaxPtags)
	assert.Equal(t, uint32(16), a.MaxSegmentsPerDesc)
	assert.Equal(t, uint32(64<<10), a.MaxTransferSize)
	assert.NotZero(t, a.MaxRegisterRegions)
	assert.NotZero(t, a.MaxVI)
	assert.NotZero(t, a.ReliabilityLevelSupport&vipl.Unreliable)

	// Close releases what the process still holds, as an exit would
	p, err := n.CreatePtag(ctx)
	require.NoError(t, err)
	b, err := n.Alloc(ctx, 8192)
	require.NoError(t, err)
	_, err = n.RegisterMem(ctx, b.VA, 8192, vipl.MemAttributes{Ptag: p})
	require.NoError(t, err)
	require.NoError(t, n.Close(ctx))
	require.NoError(t, n.Close(ctx), "closing twice")
	assert.Nil(t, b.Bytes, "the buffers are gone")
	requireCode(t, vipl.InvalidParameter, second(n.Query(ctx)), "after Close")
	requireCode(t, vipl.InvalidParameter, second(n.CreatePtag(ctx)), "after Close")
	requireCode(t, vipl.InvalidParameter, second(n.Alloc(ctx, 1)), "after Close")

	// the node opens again, with every ptag free
	n2 := openNic(t, s)
	for range a.MaxPtags {
		_, err := n2.CreatePtag(ctx)
		require.NoError(t, err)
	}
	requireCode(t, vipl.ErrorResource, second(n2.CreatePtag(ctx)), "MaxPtags + 1")
	require.NoError(t, n2.Close(ctx))

	// no simulator there, or no such node
	bad, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	requireCode(t, vipl.ErrorResource, second(vipl.OpenNic(bad, t.TempDir()+"/none.sock", 0, vipl.Options{})))
	requireCode(t, vipl.ErrorResource, second(vipl.OpenNic(bad, simAddress(s), 7, vipl.Options{Logger: slog.New(slog.DiscardHandler)})))
}

func TestCosimPtagsAndMemory(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	ctx := ctxT(t)
	n := openNic(t, s)

	p, err := n.CreatePtag(ctx)
	require.NoError(t, err)
	assert.NotZero(t, p)
	gone, err := n.CreatePtag(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, p, gone)
	require.NoError(t, n.DestroyPtag(ctx, gone))
	requireCode(t, vipl.InvalidPtag, n.DestroyPtag(ctx, gone), "destroyed twice")
	requireCode(t, vipl.InvalidPtag, n.DestroyPtag(ctx, 0), "ptag 0")
	requireCode(t, vipl.InvalidPtag, n.DestroyPtag(ctx, p+0x4000), "never created")

	requireCode(t, vipl.InvalidParameter, second(n.Alloc(ctx, 0)), "Alloc(0)")
	const size = 3*4096 + 100
	buf, err := n.Alloc(ctx, size)
	require.NoError(t, err)
	require.Len(t, buf.Bytes, size)
	assert.Zero(t, buf.VA%4096)
	for i := range buf.Bytes {
		buf.Bytes[i] = byte(i * 13)
	}

	// registration's bad paths
	requireCode(t, vipl.InvalidPtag, second(n.RegisterMem(ctx, buf.VA, size, vipl.MemAttributes{Ptag: gone})), "destroyed ptag")
	requireCode(t, vipl.InvalidPtag, second(n.RegisterMem(ctx, buf.VA, size, vipl.MemAttributes{})), "ptag 0")
	requireCode(t, vipl.InvalidPtag, second(n.RegisterMem(ctx, buf.VA, size, vipl.MemAttributes{Ptag: p + 0x4000})), "wrong ptag")
	goMem := make([]byte, 8192)
	requireCode(t, vipl.InvalidParameter, second(n.RegisterMem(ctx, uint64(uintptr(unsafe.Pointer(&goMem[0]))), len(goMem), vipl.MemAttributes{Ptag: p})), "memory not from Alloc")
	requireCode(t, vipl.InvalidParameter, second(n.RegisterMem(ctx, buf.VA, size+2*4096, vipl.MemAttributes{Ptag: p})), "past the buffer")
	requireCode(t, vipl.InvalidParameter, second(n.RegisterMem(ctx, buf.VA, 0, vipl.MemAttributes{Ptag: p})), "zero length")

	va := buf.VA + 64
	h, err := n.RegisterMem(ctx, va, size-64, vipl.MemAttributes{Ptag: p})
	require.NoError(t, err)
	assert.NotZero(t, h)
	h2, err := n.RegisterMem(ctx, va, size-64, vipl.MemAttributes{Ptag: p, EnableRdmaRead: true})
	require.NoError(t, err, "the same memory twice")
	assert.NotEqual(t, h, h2)

	attrs, err := n.QueryMem(ctx, va, h)
	require.NoError(t, err)
	assert.Equal(t, vipl.MemAttributes{Ptag: p}, attrs)
	attrs, err = n.QueryMem(ctx, va, h2)
	require.NoError(t, err)
	assert.Equal(t, vipl.MemAttributes{Ptag: p, EnableRdmaRead: true}, attrs)
	require.NoError(t, n.SetMemAttributes(ctx, va, h, vipl.MemAttributes{Ptag: p, EnableRdmaWrite: true}))
	attrs, err = n.QueryMem(ctx, va, h)
	require.NoError(t, err)
	assert.Equal(t, vipl.MemAttributes{Ptag: p, EnableRdmaWrite: true}, attrs)
	requireCode(t, vipl.InvalidPtag, n.SetMemAttributes(ctx, va, h, vipl.MemAttributes{Ptag: gone}), "SetMemAttributes to a destroyed ptag")
	requireCode(t, vipl.InvalidParameter, second(n.QueryMem(ctx, buf.VA, h)), "QueryMem at another address")
	requireCode(t, vipl.InvalidParameter, second(n.QueryMem(ctx, va, h+0x200)), "QueryMem of a handle never issued")

	// what is in use cannot go
	requireCode(t, vipl.ErrorResource, n.DestroyPtag(ctx, p), "ptag used by regions")
	requireCode(t, vipl.ErrorResource, n.Free(ctx, buf), "registered memory")

	// a descriptor in the registered memory
	desc, err := n.NewDesc(buf.VA+128, h, &vipl.Descriptor{Immediate: true, ImmediateData: 42,
		Segments: []vipl.DataSegment{{Addr: buf.VA + 4096, Handle: h, Length: 4096}, {Addr: buf.VA + 8192, Handle: h2, Length: 100}}})
	require.NoError(t, err)
	assert.Equal(t, uint32(4196), desc.Length())
	assert.Equal(t, "0", desc.Status().String())
	got, st, err := vipl.Decode(buf.Bytes[128:])
	require.NoError(t, err)
	assert.Equal(t, vipl.Status(0), st)
	assert.Len(t, got.Segments, 2)
	requireCode(t, vipl.InvalidParameter, second(n.NewDesc(buf.VA, h, &vipl.Descriptor{})), "below the region")

	// deregistration, once
	require.NoError(t, n.DeregisterMem(ctx, va, h))
	requireCode(t, vipl.InvalidParameter, n.DeregisterMem(ctx, va, h), "deregistered twice")
	requireCode(t, vipl.InvalidParameter, second(n.QueryMem(ctx, va, h)), "QueryMem after deregistration")
	requireCode(t, vipl.InvalidParameter, n.SetMemAttributes(ctx, va, h, vipl.MemAttributes{Ptag: p}), "SetMemAttributes after deregistration")
	requireCode(t, vipl.InvalidParameter, second(n.NewDesc(buf.VA+128, h, &vipl.Descriptor{})), "NewDesc in a deregistered region")
	requireCode(t, vipl.InvalidParameter, n.DeregisterMem(ctx, buf.VA, h2), "wrong address")
	require.NoError(t, n.DeregisterMem(ctx, va, h2))

	require.NoError(t, n.Free(ctx, buf))
	requireCode(t, vipl.InvalidParameter, n.Free(ctx, buf), "freed twice")
	requireCode(t, vipl.InvalidParameter, second(n.RegisterMem(ctx, va, 4096, vipl.MemAttributes{Ptag: p})), "freed memory")
	require.NoError(t, n.DestroyPtag(ctx, p), "free once its regions are gone")
	requireCode(t, vipl.InvalidPtag, second(n.RegisterMem(ctx, va, 4096, vipl.MemAttributes{Ptag: p})), "destroyed ptag")
}

// TestCosimVis creates, queries, changes and destroys VIs through vipl, with
// every attribute error and the NIC's limit.
func TestCosimVis(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	ctx := ctxT(t)
	n := openNic(t, s)
	na, err := n.Query(ctx)
	require.NoError(t, err)
	p, err := n.CreatePtag(ctx)
	require.NoError(t, err)
	other, err := n.CreatePtag(ctx)
	require.NoError(t, err)

	good := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: p, EnableRdmaWrite: true}
	vi, err := n.CreateVi(ctx, good)
	require.NoError(t, err)
	info, err := vi.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, vipl.ViInfo{State: vipl.ViIdle, Attributes: good, SendQueueEmpty: true, RecvQueueEmpty: true}, info)
	assert.Equal(t, "IDLE", info.State.String())

	// every attribute error, on create and on change
	bad := func(mod func(*vipl.ViAttributes)) vipl.ViAttributes { a := good; mod(&a); return a }
	cases := []struct {
		name  string
		attrs vipl.ViAttributes
		want  vipl.Return
	}{
		{"QoS", bad(func(a *vipl.ViAttributes) { a.QoS = 1 }), vipl.InvalidParameter},
		{"reliable reception (not supported)", bad(func(a *vipl.ViAttributes) { a.ReliabilityLevel = vipl.ReliableReception }), vipl.InvalidReliabilityLevel},
		{"two levels", bad(func(a *vipl.ViAttributes) { a.ReliabilityLevel = vipl.Unreliable | vipl.ReliableDelivery }), vipl.InvalidReliabilityLevel},
		{"MaxTransferSize 0", bad(func(a *vipl.ViAttributes) { a.MaxTransferSize = 0 }), vipl.InvalidMTU},
		{"MaxTransferSize above the NIC's", bad(func(a *vipl.ViAttributes) { a.MaxTransferSize = na.MaxTransferSize + 1 }), vipl.InvalidMTU},
		{"ptag 0", bad(func(a *vipl.ViAttributes) { a.Ptag = 0 }), vipl.InvalidPtag},
		{"RDMA read on unreliable", bad(func(a *vipl.ViAttributes) { a.EnableRdmaRead = true }), vipl.InvalidRdmaRead},
	}
	for _, c := range cases {
		requireCode(t, c.want, second(n.CreateVi(ctx, c.attrs)), "CreateVi: %s", c.name)
		requireCode(t, c.want, vi.SetAttributes(ctx, c.attrs), "SetAttributes: %s", c.name)
	}
	info, err = vi.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, good, info.Attributes, "a refused change changes nothing")

	// a change, and the ptag it holds
	changed := good
	changed.Ptag, changed.MaxTransferSize, changed.EnableRdmaWrite = other, na.MaxTransferSize, false
	require.NoError(t, vi.SetAttributes(ctx, changed))
	info, err = vi.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, changed, info.Attributes)
	requireCode(t, vipl.ErrorResource, n.DestroyPtag(ctx, other), "ptag used by a VI")
	require.NoError(t, n.DestroyPtag(ctx, p), "the VI let go of it")

	// the NIC's limit: MaxVI VIs at once
	vis := []*vipl.Vi{vi}
	for len(vis) < int(na.MaxVI) {
		v, err := n.CreateVi(ctx, changed)
		require.NoError(t, err, "VI %d of %d", len(vis)+1, na.MaxVI)
		vis = append(vis, v)
	}
	requireCode(t, vipl.ErrorResource, second(n.CreateVi(ctx, changed)), "VI %d", na.MaxVI+1)
	require.NoError(t, vis[3].Destroy(ctx))
	requireCode(t, vipl.InvalidParameter, vis[3].Destroy(ctx), "destroyed twice")
	requireCode(t, vipl.InvalidParameter, second(vis[3].Query(ctx)), "query after destroy")
	again, err := n.CreateVi(ctx, changed)
	require.NoError(t, err, "a place freed up")
	assert.Equal(t, vis[3].ID(), again.ID(), "the lowest free VI")

	// Close releases the VIs (and so their ptag); a closed NIC answers nothing
	require.NoError(t, n.Close(ctx))
	requireCode(t, vipl.InvalidParameter, second(vi.Query(ctx)), "after Close")
	n2 := openNic(t, s)
	v, err := n2.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 1, Ptag: mustPtag(t, n2)})
	require.NoError(t, err, "the VIs of a closed NIC are free again")
	assert.Equal(t, vipl.ViID(0), v.ID())
}

func mustPtag(t *testing.T, n *vipl.Nic) vipl.Ptag {
	t.Helper()
	p, err := n.CreatePtag(ctxT(t))
	require.NoError(t, err)
	return p
}

// The data path end to end (issue 9): two VIs of one NIC joined by the
// loopback, descriptors posted through the doorbells, the engine moving
// the data, completions reaped by polling and by waiting.

// dataEnv is a NIC with a ptag, a registered buffer of 8 pages (page 0
// holds descriptors, the others data) and two connected VIs: a sends, b
// receives.
type dataEnv struct {
	n    *vipl.Nic
	buf  *vipl.Buffer
	h    vipl.MemHandle
	a, b *vipl.Vi
}

func newDataEnv(t *testing.T, s *simulator.Sim, opts vipl.Options) *dataEnv {
	return newDataEnvNode(t, s, 0, opts)
}

// newDataEnvNode is newDataEnv on a given node of the simulator.
func newDataEnvNode(t *testing.T, s *simulator.Sim, node int, opts vipl.Options) *dataEnv {
	t.Helper()
	ctx := ctxT(t)
	opts.Name, opts.MemoryBytes, opts.Logger = t.Name(), testMemBytes, slog.New(slog.DiscardHandler)
	n, err := vipl.OpenNic(ctx, simAddress(s), node, opts)
	require.NoError(t, err)
	t.Cleanup(func() { n.Close(context.Background()) })
	return newDataEnvOn(t, n)
}

// newDataEnvOn is newDataEnv on a Nic already open.
func newDataEnvOn(t *testing.T, n *vipl.Nic) *dataEnv {
	t.Helper()
	ctx := ctxT(t)
	e := &dataEnv{n: n}
	p := mustPtag(t, n)
	var err error
	e.buf, err = n.Alloc(ctx, 8*4096)
	require.NoError(t, err)
	e.h, err = n.RegisterMem(ctx, e.buf.VA, len(e.buf.Bytes), vipl.MemAttributes{Ptag: p})
	require.NoError(t, err)
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: p}
	e.a, err = n.CreateVi(ctx, attrs)
	require.NoError(t, err)
	e.b, err = n.CreateVi(ctx, attrs)
	require.NoError(t, err)
	require.NoError(t, e.a.ConnectLoopback(ctx, e.b))
	for _, v := range []*vipl.Vi{e.a, e.b} {
		info, err := v.Query(ctx)
		require.NoError(t, err)
		require.Equal(t, vipl.ViConnected, info.State)
	}
	return e
}

// seg is a data segment of n bytes at offset off of the buffer.
func (e *dataEnv) seg(off, n int) vipl.DataSegment {
	return vipl.DataSegment{Addr: e.buf.VA + uint64(off), Handle: e.h, Length: uint32(n)}
}

// desc writes d into descriptor slot i (64-byte slots; 512 bytes each,
// so 8 of them fit page 0).
func (e *dataEnv) desc(t *testing.T, i int, d *vipl.Descriptor) *vipl.Desc {
	t.Helper()
	x, err := e.n.NewDesc(e.buf.VA+uint64(i)*512, e.h, d)
	require.NoError(t, err)
	return x
}

// exchange posts recv on b and send on a, waits for both and returns them.
func (e *dataEnv) exchange(t *testing.T, send, recv *vipl.Desc) (*vipl.Desc, *vipl.Desc) {
	t.Helper()
	ctx := ctxT(t)
	require.NoError(t, e.b.PostRecv(ctx, recv))
	require.NoError(t, e.a.PostSend(ctx, send))
	s, err := e.a.SendWait(ctx, 10)
	require.NoError(t, err, "the send completes within 10 ms")
	assert.Same(t, send, s)
	r, err := e.b.RecvWait(ctx, 10)
	require.NoError(t, err, "the receive completes within 10 ms")
	assert.Same(t, recv, r)
	return s, r
}

func TestCosimDataSendRecv8(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	testSendRecv8(t, newDataEnv(t, s, vipl.Options{}))
}

// On node 2 the VIs' peer is on node 2: the context's peer node, the
// frame's and the node strap must agree, or the receive engine drops it.
func TestCosimDataSendRecv8Node2(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 3})
	testSendRecv8(t, newDataEnvNode(t, s, 2, vipl.Options{}))
}

func testSendRecv8(t *testing.T, e *dataEnv) {
	copy(e.buf.Bytes[4096:], "8 bytes!")
	for i := range 64 {
		e.buf.Bytes[8192+i] = 0xEE
	}
	send := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 8)}})
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	sd, rd := e.exchange(t, send, recv)
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Equal(t, uint32(8), rd.Length(), "the bytes received")
	assert.Equal(t, "8 bytes!", string(e.buf.Bytes[8192:8200]))
	assert.Equal(t, byte(0xEE), e.buf.Bytes[8200], "nothing written past the message")

	// the queues are empty again
	ctx := ctxT(t)
	requireCode(t, vipl.NotDone, second(e.a.SendDone(ctx)))
	requireCode(t, vipl.NotDone, second(e.b.RecvDone(ctx)))
	info, err := e.b.Query(ctx)
	require.NoError(t, err)
	assert.True(t, info.RecvQueueEmpty)
	assert.True(t, info.SendQueueEmpty)
}

func TestCosimDataGatherScatter(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	// 3 gather segments: 5 bytes at the end of page 1, 100 in page 2 at an
	// odd offset, 27 in page 3; 132 bytes
	var msg []byte
	for i := range 132 {
		msg = append(msg, byte(i*7+1))
	}
	copy(e.buf.Bytes[2*4096-5:], msg[:5])
	copy(e.buf.Bytes[2*4096+3:], msg[5:105])
	copy(e.buf.Bytes[3*4096+1000:], msg[105:])
	send := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(2*4096-5, 5), e.seg(2*4096+3, 100), e.seg(3*4096+1000, 27)}})
	// 2 scatter segments: 64 bytes across the page 4/5 boundary, 128 in page 6
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(5*4096-30, 64), e.seg(6*4096+7, 128)}})
	sd, rd := e.exchange(t, send, recv)
	assert.False(t, sd.Status().Failed(), "%s", sd.Status())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Equal(t, uint32(132), rd.Length())
	assert.Equal(t, msg[:64], e.buf.Bytes[5*4096-30:5*4096+34], "the first 64 bytes fill the first segment")
	assert.Equal(t, msg[64:], e.buf.Bytes[6*4096+7:6*4096+7+68], "the rest go to the second")
	assert.Zero(t, e.buf.Bytes[6*4096+7+68], "nothing past the message")
}

func TestCosimDataImmediate(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	copy(e.buf.Bytes[4096:], "imm!")
	send := e.desc(t, 0, &vipl.Descriptor{Immediate: true, ImmediateData: 0xC0FFEE42, Segments: []vipl.DataSegment{e.seg(4096, 4)}})
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 16)}})
	sd, rd := e.exchange(t, send, recv)
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE|IMMEDIATE", rd.Status().String())
	assert.True(t, rd.Status().Immediate())
	assert.Equal(t, uint32(0xC0FFEE42), rd.ImmediateData())
	assert.Equal(t, uint32(4), rd.Length())
	assert.Equal(t, "imm!", string(e.buf.Bytes[8192:8196]))
}

func TestCosimDataZeroLength(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	e.buf.Bytes[8192] = 0x5A
	// no segments at all, into a receive with a buffer
	sd, rd := e.exchange(t, e.desc(t, 0, &vipl.Descriptor{}), e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 16)}}))
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Zero(t, rd.Length())
	assert.Equal(t, byte(0x5A), e.buf.Bytes[8192], "nothing written")
	// a zero-length send with immediate data into a receive with no segments
	sd, rd = e.exchange(t, e.desc(t, 2, &vipl.Descriptor{Immediate: true, ImmediateData: 7}), e.desc(t, 3, &vipl.Descriptor{}))
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE|IMMEDIATE", rd.Status().String())
	assert.Equal(t, uint32(7), rd.ImmediateData())
	assert.Zero(t, rd.Length())
}

// A message longer than the receive's buffers completes the receive with
// the local length error (docs/vi.md, Loopback); the send itself went
// out whole.
func TestCosimDataRecvTooShort(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	send := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 100)}})
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	sd, rd := e.exchange(t, send, recv)
	assert.True(t, sd.Status().Done())
	assert.Equal(t, vipl.CompletedSend, sd.Status().Op())
	assert.True(t, rd.Status().Done())
	assert.NotZero(t, rd.Status()&vipl.StatusLocalLengthError, "%s", rd.Status())
	assert.Equal(t, vipl.CompletedReceive, rd.Status().Op())
	// the VI goes on: the next message fits
	copy(e.buf.Bytes[4096:], "fits")
	sd, rd = e.exchange(t, e.desc(t, 2, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 4)}}),
		e.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(3*4096, 64)}}))
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Equal(t, "fits", string(e.buf.Bytes[3*4096:3*4096+4]))
}

// SendWait with nothing posted times out after its timeout in simulated
// time (not wall-clock time); so does RecvWait, and a timeout of 0 looks
// once. Sends on a VI that is not connected are refused before any
// doorbell.
func TestCosimDataWaitTimeout(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	ctx := ctxT(t)
	n := openNic(t, s)
	vi, err := n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: mustPtag(t, n)})
	require.NoError(t, err)
	c0 := n.Cycle()
	requireCode(t, vipl.Timeout, second(vi.SendWait(ctx, 2)), "nothing posted")
	c1 := n.Cycle()
	assert.GreaterOrEqual(t, c1-c0, uint64(2*250_000), "2 ms at 4 ns per cycle")
	assert.Less(t, c1-c0, uint64(2*250_000+1000))
	requireCode(t, vipl.Timeout, second(vi.RecvWait(ctx, 1)))
	requireCode(t, vipl.Timeout, second(vi.RecvWait(ctx, 0)))
	assert.Less(t, n.Cycle()-c1, uint64(250_000+1000))

	buf, err := n.Alloc(ctx, 4096)
	require.NoError(t, err)
	info, err := vi.Query(ctx)
	require.NoError(t, err)
	h, err := n.RegisterMem(ctx, buf.VA, 4096, vipl.MemAttributes{Ptag: info.Attributes.Ptag})
	require.NoError(t, err)
	d, err := n.NewDesc(buf.VA, h, &vipl.Descriptor{})
	require.NoError(t, err)
	requireCode(t, vipl.InvalidState, vi.PostSend(ctx, d), "a send on an IDLE VI")

	// a receive may be posted on an IDLE VI; with nothing sent it stays
	// pending
	r, err := n.NewDesc(buf.VA+64, h, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: buf.VA + 1024, Handle: h, Length: 64}}})
	require.NoError(t, err)
	require.NoError(t, vi.PostRecv(ctx, r))
	requireCode(t, vipl.Timeout, second(vi.RecvWait(ctx, 1)))
	requireCode(t, vipl.NotDone, second(vi.RecvDone(ctx)))
	assert.Equal(t, vipl.Status(0), r.Status())
}

// pollExchange posts a receive and a send and polls both queues with
// SendDone and RecvDone; it returns the cycles from the first post to the
// last completion and the number of polls.
func pollExchange(t *testing.T) (uint64, int) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{Seed: 7})
	ctx := ctxT(t)
	copy(e.buf.Bytes[4096:], "polled message of 32 bytes......")
	send := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 32)}})
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	start := e.n.Cycle()
	require.NoError(t, e.b.PostRecv(ctx, recv))
	require.NoError(t, e.a.PostSend(ctx, send))
	polls := 0
	var sd, rd *vipl.Desc
	for sd == nil || rd == nil {
		polls++
		require.Less(t, polls, 100_000, "no completion")
		var err error
		if sd == nil {
			if sd, err = e.a.SendDone(ctx); err != nil {
				requireCode(t, vipl.NotDone, err)
			}
		}
		if rd == nil {
			if rd, err = e.b.RecvDone(ctx); err != nil {
				requireCode(t, vipl.NotDone, err)
			}
		}
	}
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Equal(t, "polled message of 32 bytes......", string(e.buf.Bytes[8192:8224]))
	return e.n.Cycle() - start, polls
}

// A polling loop in lockstep takes the same simulated cycles every run.
func TestCosimDataPollDeterministic(t *testing.T) {
	c1, p1 := pollExchange(t)
	c2, p2 := pollExchange(t)
	t.Logf("send/receive of 32 bytes by polling: %d cycles, %d polls", c1, p1)
	assert.Equal(t, c1, c2, "cycles")
	assert.Equal(t, p1, p2, "polls")
	assert.Greater(t, p1, 1, "the polls let time pass")
}

// The name service's default names are the simulation's nodes, and a
// node's name resolves to the address its NIC reports (the fabric port).
func TestCosimNameService(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 3})
	ctx := ctxT(t)
	n, err := vipl.OpenNic(ctx, simAddress(s), 1, vipl.Options{Name: t.Name(), MemoryBytes: testMemBytes, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close(context.Background()) })
	t.Setenv("VIANIC_HOSTS", "")
	a, err := n.Query(ctx)
	require.NoError(t, err)
	assert.Equal(t, []byte{1}, a.LocalNicAddress, "node 1's NIC address")

	require.NoError(t, n.NSInit(vipl.NSInfo{}))
	addr, err := n.NSGetHostByName("node1", 0)
	require.NoError(t, err)
	assert.Equal(t, a.LocalNicAddress, addr.Host)
	name, err := n.NSGetHostByAddr(vipl.NetAddress{Host: a.LocalNicAddress})
	require.NoError(t, err)
	assert.Equal(t, "node1", name)
	_, err = n.NSGetHostByName("node2", 0)
	require.NoError(t, err, "3 nodes: node0..node2")
	requireCode(t, vipl.ErrorNameService, second(n.NSGetHostByName("node3", 0)), "3 nodes: no node3")
	require.NoError(t, n.NSShutdown())
}
