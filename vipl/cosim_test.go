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
		{"reliable delivery (not supported)", bad(func(a *vipl.ViAttributes) { a.ReliabilityLevel = vipl.ReliableDelivery }), vipl.InvalidReliabilityLevel},
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
