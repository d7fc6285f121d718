package driver_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/hostvm"
	"github.com/vianic/vianic/internal/hw"
)

// Memory registration end to end: the real driver, firmware and TPT.

const memTestBytes = 16 << 20

// memNode boots node 0 of a new one-node simulator with memTestBytes of
// host memory managed by the driver.
func memNode(t *testing.T) (*driver.NIC, *cosim.Memory) {
	n, mem, _ := memNodeConn(t)
	return n, mem
}

func memNodeConn(t *testing.T) (*driver.NIC, *cosim.Memory, *cosim.Conn) {
	t.Helper()
	s := startSim(t, 1)
	n, _, conn, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	mem, err := cosim.NewMemory(memTestBytes)
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	ctx := ctxT(t)
	require.NoError(t, n.AttachMemory(ctx, mem))
	require.NoError(t, n.ManageMemory(mem, driver.MemoryOptions{}))
	return n, mem, conn
}

func session(t *testing.T, n *driver.NIC, name string) *driver.Session {
	t.Helper()
	s, err := n.OpenSession(name, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func requireVip(t *testing.T, want hw.VipReturn, err error, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equal(t, want.String(), driver.VipCode(err).String(), "%v", err)
}

func fillRand(b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 3))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

// physOf reads n bytes at va of s through the physical pages (the memfd),
// not through the mapping: what the NIC sees.
func physOf(t *testing.T, n *driver.NIC, s *driver.Session, va uint64, length int) []byte {
	t.Helper()
	pages, err := s.Space().Translate(va&^(hostvm.PageSize-1), int(va&(hostvm.PageSize-1))+length)
	require.NoError(t, err)
	out := make([]byte, 0, length)
	off := int(va & (hostvm.PageSize - 1))
	for _, pa := range pages {
		pb, err := n.Phys().Bytes(pa, hostvm.PageSize)
		require.NoError(t, err)
		take := min(hostvm.PageSize-off, length-len(out))
		out = append(out, pb[off:off+take]...)
		off = 0
	}
	return out
}

func TestCosimMemRegistrationCodes(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	a, err := n.QueryNIC(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.AdminMaxRegisterBytes), a.MaxRegisterBytes)
	assert.Equal(t, uint32(hw.AdminMaxRegisterBlockBytes), a.MaxRegisterBlockBytes)
	assert.Equal(t, uint32(n.Caps().TPTRegions), a.MaxRegisterRegions)
	assert.Equal(t, uint32(hw.AdminMaxPtags), a.MaxPtags)

	s := session(t, n, "p1")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	assert.NotZero(t, p)
	buf, err := s.Alloc(3*4096 + 100)
	require.NoError(t, err)

	// bad parameters
	_, err = s.RegisterMem(ctx, buf.VA, 0, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnInvalidParameter, err, "zero length")
	_, err = s.RegisterMem(ctx, buf.VA+4096, 4*4096, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnInvalidParameter, err, "past the buffer")
	_, err = s.RegisterMem(ctx, buf.VA-4096, 100, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnInvalidParameter, err, "before the buffer (guard page)")
	_, err = s.RegisterMem(ctx, 0x1000, 100, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnInvalidParameter, err, "not memory of the session")
	_, err = s.RegisterMem(ctx, buf.VA, 100, driver.MemAttrs{Ptag: p + 1})
	requireVip(t, hw.VipReturnInvalidPtag, err, "a ptag never created")

	h, err := s.RegisterMem(ctx, buf.VA+10, 3*4096, driver.MemAttrs{Ptag: p, EnableRdmaRead: true})
	require.NoError(t, err)
	h2, err := s.RegisterMem(ctx, buf.VA, 100, driver.MemAttrs{Ptag: p})
	require.NoError(t, err, "overlapping registrations are allowed")
	assert.NotEqual(t, h, h2)

	r, err := s.QueryMem(ctx, buf.VA+10, h)
	require.NoError(t, err)
	assert.Equal(t, driver.MemRegion{VA: buf.VA + 10, Len: 3 * 4096, Attrs: driver.MemAttrs{Ptag: p, EnableRdmaRead: true}, Pages: 4, PageList: r.PageList}, r)
	_, err = s.QueryMem(ctx, buf.VA, h)
	requireVip(t, hw.VipReturnInvalidParameter, err, "va other than the region's")

	// in use: the ptag, the memory
	requireVip(t, hw.VipReturnErrorResource, s.DestroyPtag(ctx, p), "ptag in use")
	requireVip(t, hw.VipReturnErrorResource, s.Free(buf), "registered memory")

	// set attributes: to a new ptag, then back
	p2, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	require.NoError(t, s.SetMemAttributes(ctx, buf.VA+10, h, driver.MemAttrs{Ptag: p2, EnableRdmaWrite: true}))
	r, err = s.QueryMem(ctx, buf.VA+10, h)
	require.NoError(t, err)
	assert.Equal(t, driver.MemAttrs{Ptag: p2, EnableRdmaWrite: true}, r.Attrs)
	requireVip(t, hw.VipReturnInvalidPtag, s.SetMemAttributes(ctx, buf.VA+10, h, driver.MemAttrs{Ptag: 0x7777}))
	requireVip(t, hw.VipReturnErrorResource, s.DestroyPtag(ctx, p2), "h now uses p2")

	// deregister, twice
	require.NoError(t, s.DeregisterMem(ctx, buf.VA+10, h))
	requireVip(t, hw.VipReturnInvalidParameter, s.DeregisterMem(ctx, buf.VA+10, h), "deregistering twice")
	require.NoError(t, s.DestroyPtag(ctx, p2))
	require.NoError(t, s.DeregisterMem(ctx, buf.VA, h2))
	require.NoError(t, s.DestroyPtag(ctx, p))
	requireVip(t, hw.VipReturnInvalidPtag, s.DestroyPtag(ctx, p), "destroyed ptag")
	_, err = s.RegisterMem(ctx, buf.VA, 100, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnInvalidPtag, err, "destroyed ptag")
	require.NoError(t, s.Free(buf))
}

func TestCosimMemLimits(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "limits")

	// MaxPtags
	var ptags []driver.Ptag
	for {
		p, err := s.CreatePtag(ctx)
		if err != nil {
			requireVip(t, hw.VipReturnErrorResource, err, "after %d ptags", len(ptags))
			break
		}
		ptags = append(ptags, p)
		require.LessOrEqual(t, len(ptags), hw.AdminMaxPtags)
	}
	assert.Len(t, ptags, hw.AdminMaxPtags)
	for _, p := range ptags[1:] {
		require.NoError(t, s.DestroyPtag(ctx, p))
	}
	p := ptags[0]

	// MaxRegisterRegions: the same page registered again and again
	buf, err := s.Alloc(4096)
	require.NoError(t, err)
	regions := n.Caps().TPTRegions
	var hs []driver.MemHandle
	for i := 0; i < regions; i++ {
		h, err := s.RegisterMem(ctx, buf.VA, 4096, driver.MemAttrs{Ptag: p})
		require.NoError(t, err, "region %d of %d", i, regions)
		hs = append(hs, h)
	}
	_, err = s.RegisterMem(ctx, buf.VA, 4096, driver.MemAttrs{Ptag: p})
	requireVip(t, hw.VipReturnErrorResource, err, "region %d", regions+1)
	require.NoError(t, s.DeregisterMem(ctx, buf.VA, hs[7]))
	h, err := s.RegisterMem(ctx, buf.VA, 4096, driver.MemAttrs{Ptag: p})
	require.NoError(t, err, "a freed region is reused")
	assert.Equal(t, uint32(hs[7])&0xffff, uint32(h)&0xffff, "same index")
	assert.NotEqual(t, hs[7], h, "new generation")
	for _, x := range append(hs[:7], hs[8:]...) {
		require.NoError(t, s.DeregisterMem(ctx, buf.VA, x))
	}
	require.NoError(t, s.DeregisterMem(ctx, buf.VA, h))
}

// TestCosimMemXlatErrors: every TPT answer through the diagnostic engine's
// translated mode, and nothing written when a check fails.
func TestCosimMemXlatErrors(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "xlat")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	other, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	src, err := s.Alloc(5 * 4096)
	require.NoError(t, err)
	dst, err := s.Alloc(5 * 4096)
	require.NoError(t, err)
	fillRand(src.Bytes, 1)
	hs, err := s.RegisterMem(ctx, src.VA, len(src.Bytes), driver.MemAttrs{Ptag: p})
	require.NoError(t, err)
	hd, err := s.RegisterMem(ctx, dst.VA, len(dst.Bytes), driver.MemAttrs{Ptag: p})
	require.NoError(t, err)

	copyX := func(srcVA, dstVA uint64, length int, x driver.DiagXlat) (driver.DiagResult, error) {
		clear(dst.Bytes)
		return n.DiagCopy(ctx, driver.DiagRequest{Src: srcVA, Dst: dstVA, Len: length, Xlat: &x})
	}
	ok := driver.DiagXlat{SrcHandle: hs, DstHandle: hd, Ptag: p, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}

	// a good copy crossing pages: 3 pages + from mid-page to mid-page
	r, err := copyX(src.VA+1000, dst.VA+2000, 3*4096+512, ok)
	require.NoError(t, err)
	assert.Equal(t, uint32(3*4096+512), r.Bytes)
	require.True(t, bytes.Equal(src.Bytes[1000:1000+3*4096+512], dst.Bytes[2000:2000+3*4096+512]))
	require.True(t, bytes.Equal(src.Bytes[1000:1000+3*4096+512], physOf(t, n, s, dst.VA+2000, 3*4096+512)),
		"the physical pages hold the copy")

	deregistered, err := s.Alloc(4096)
	require.NoError(t, err)
	hx, err := s.RegisterMem(ctx, deregistered.VA, 4096, driver.MemAttrs{Ptag: p})
	require.NoError(t, err)
	require.NoError(t, s.DeregisterMem(ctx, deregistered.VA, hx))

	cases := []struct {
		name    string
		srcVA   uint64
		dstVA   uint64
		length  int
		x       driver.DiagXlat
		want    hw.TptErr
		wantDst bool
	}{
		{"handle: index out of range", src.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.SrcHandle = 1<<16 | 0xffff }), hw.TptErrHandle, false},
		{"handle: generation 0", src.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.DstHandle = hd & 0xffff }), hw.TptErrHandle, true},
		{"stale: deregistered", deregistered.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.SrcHandle = hx }), hw.TptErrStale, false},
		{"ptag mismatch", src.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.Ptag = other }), hw.TptErrPtag, false},
		{"remote write not enabled", src.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.DstKind = hw.TptKindRemoteWrite }), hw.TptErrAccess, true},
		{"remote read not enabled", src.VA, dst.VA, 64, with(ok, func(x *driver.DiagXlat) { x.SrcKind = hw.TptKindRemoteRead }), hw.TptErrAccess, false},
		{"bounds: past the end", src.VA + 4*4096, dst.VA, 2 * 4096, ok, hw.TptErrBounds, false},
		{"bounds: before the start", src.VA, dst.VA - 8, 64, ok, hw.TptErrBounds, true},
		{"bounds: VA+len overflows", math.MaxUint64 - 63, dst.VA, 128, ok, hw.TptErrBounds, false},
	}
	for _, c := range cases {
		r, err := copyX(c.srcVA, c.dstVA, c.length, c.x)
		require.ErrorIs(t, err, driver.ErrDiagFailed, c.name)
		code, isDst := r.XlatErr()
		assert.Equal(t, c.want.String(), code.String(), "%s: %v", c.name, err)
		assert.Equal(t, c.wantDst, isDst, "%s: which side", c.name)
		assert.Zero(t, r.Bytes, "%s: bytes written", c.name)
		assert.True(t, bytes.Equal(dst.Bytes, make([]byte, len(dst.Bytes))), "%s: nothing written", c.name)
	}

	// Remote access once enabled.
	require.NoError(t, s.SetMemAttributes(ctx, dst.VA, hd, driver.MemAttrs{Ptag: p, EnableRdmaWrite: true}))
	_, err = copyX(src.VA, dst.VA, 4096, with(ok, func(x *driver.DiagXlat) { x.DstKind = hw.TptKindRemoteWrite }))
	require.NoError(t, err)
	require.True(t, bytes.Equal(src.Bytes[:4096], dst.Bytes[:4096]))

	// Use after deregistration: stale, nothing written.
	require.NoError(t, s.DeregisterMem(ctx, dst.VA, hd))
	r, err = copyX(src.VA, dst.VA, 4096, ok)
	require.ErrorIs(t, err, driver.ErrDiagFailed)
	code, isDst := r.XlatErr()
	assert.Equal(t, hw.TptErr(hw.TptErrStale).String(), code.String())
	assert.True(t, isDst)
	assert.True(t, bytes.Equal(dst.Bytes, make([]byte, len(dst.Bytes))), "use after deregistration wrote nothing")
}

func with(x driver.DiagXlat, f func(*driver.DiagXlat)) driver.DiagXlat {
	f(&x)
	return x
}

// TestCosimMemProbe: the probe answers what the engine sees, and the cache
// hits on the second lookup of a page.
func TestCosimMemProbe(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "probe")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	buf, err := s.Alloc(10 * 4096)
	require.NoError(t, err)
	h, err := s.RegisterMem(ctx, buf.VA+100, 9*4096, driver.MemAttrs{Ptag: p, EnableRdmaRead: true})
	require.NoError(t, err)
	pages, err := s.Space().Translate(buf.VA, 10*4096)
	require.NoError(t, err)

	probe := func(va uint64, length uint32, kind hw.TptKind) driver.TPTAnswer {
		a, err := n.ProbeTPT(ctx, driver.TPTProbe{Handle: h, VA: va, Len: length, Ptag: p, Kind: kind})
		require.NoError(t, err)
		return a
	}
	a := probe(buf.VA+4096+5, 8, hw.TptKindLocalRead)
	assert.Equal(t, hw.TptErr(hw.TptErrOk).String(), a.Err.String())
	assert.Equal(t, pages[1]+5, a.PA)
	assert.Equal(t, uint32(8), a.Bytes)
	a2 := probe(buf.VA+4096+5, 8, hw.TptKindLocalRead)
	assert.True(t, a2.Hit, "the second lookup of the page hits")
	a = probe(buf.VA+3*4096+4000, 500, hw.TptKindRemoteRead)
	assert.Equal(t, pages[3]+4000, a.PA)
	assert.Equal(t, uint32(96), a.Bytes, "to the end of the page")
	assert.Equal(t, hw.TptErr(hw.TptErrAccess).String(), probe(buf.VA+200, 8, hw.TptKindRemoteWrite).Err.String())
	assert.Equal(t, hw.TptErr(hw.TptErrBounds).String(), probe(buf.VA+99, 8, hw.TptKindLocalRead).Err.String())
	z := probe(buf.VA+100+9*4096, 0, hw.TptKindLocalRead)
	assert.Equal(t, hw.TptErr(hw.TptErrOk).String(), z.Err.String(), "zero length at the end")
	assert.Zero(t, z.PA)
	assert.Equal(t, hw.TptErr(hw.TptErrBounds).String(), probe(buf.VA+101+9*4096, 0, hw.TptKindLocalRead).Err.String())

	st, err := n.TPTStats(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Lookups, uint32(7))
	assert.GreaterOrEqual(t, st.Hits, uint32(1))
	assert.GreaterOrEqual(t, st.Errors, uint32(2))
	t.Logf("TPT stats %+v, hit rate %.2f", st, st.HitRate())
}

// TestCosimMemTwoSpaces: two sessions on one node cannot reach each
// other's memory, ptags or regions.
func TestCosimMemTwoSpaces(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	a := session(t, n, "process A")
	b := session(t, n, "process B")
	pa, err := a.CreatePtag(ctx)
	require.NoError(t, err)
	pb, err := b.CreatePtag(ctx)
	require.NoError(t, err)
	bufA, err := a.Alloc(8192)
	require.NoError(t, err)
	bufB, err := b.Alloc(8192)
	require.NoError(t, err)
	fillRand(bufA.Bytes, 7)
	ha, err := a.RegisterMem(ctx, bufA.VA, 8192, driver.MemAttrs{Ptag: pa})
	require.NoError(t, err)
	hb, err := b.RegisterMem(ctx, bufB.VA, 8192, driver.MemAttrs{Ptag: pb})
	require.NoError(t, err)

	_, err = b.RegisterMem(ctx, bufA.VA, 8192, driver.MemAttrs{Ptag: pb})
	requireVip(t, hw.VipReturnInvalidParameter, err, "B registers A's memory")
	_, err = b.RegisterMem(ctx, bufB.VA, 8192, driver.MemAttrs{Ptag: pa})
	requireVip(t, hw.VipReturnInvalidPtag, err, "B uses A's ptag")
	requireVip(t, hw.VipReturnInvalidParameter, b.DeregisterMem(ctx, bufA.VA, ha), "B deregisters A's region")
	requireVip(t, hw.VipReturnInvalidPtag, b.DestroyPtag(ctx, pa), "B destroys A's ptag")
	_, err = b.QueryMem(ctx, bufA.VA, ha)
	requireVip(t, hw.VipReturnInvalidParameter, err, "B queries A's region")

	// B's DMA with its own ptag and A's handle: PTAG, nothing read into B.
	x := driver.DiagXlat{SrcHandle: ha, DstHandle: hb, Ptag: pb, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}
	r, err := n.DiagCopy(ctx, driver.DiagRequest{Src: bufA.VA, Dst: bufB.VA, Len: 4096, Xlat: &x})
	require.ErrorIs(t, err, driver.ErrDiagFailed)
	code, _ := r.XlatErr()
	assert.Equal(t, hw.TptErr(hw.TptErrPtag).String(), code.String())
	assert.True(t, bytes.Equal(bufB.Bytes, make([]byte, 8192)))
	// B's VA inside A's handle: bounds (A's region does not cover it).
	x = driver.DiagXlat{SrcHandle: ha, DstHandle: hb, Ptag: pa, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}
	_, err = n.DiagCopy(ctx, driver.DiagRequest{Src: bufB.VA, Dst: bufB.VA, Len: 64, Xlat: &x})
	require.ErrorIs(t, err, driver.ErrDiagFailed)
}

// TestCosimMemRounds: 500 random register/deregister rounds leave no
// page pinned or allocated and no region used.
func TestCosimMemRounds(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "rounds")
	before := n.Phys().Stats()
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(8, 8))
	type reg struct {
		buf *hostvm.Buffer
		va  uint64
		h   driver.MemHandle
	}
	var live []reg
	bufs := map[*hostvm.Buffer]int{}
	rounds := 500
	if testing.Short() {
		rounds = 200
	}
	for i := 0; i < rounds; i++ {
		if len(live) > 0 && (r.IntN(2) == 0 || len(live) > 40) {
			k := r.IntN(len(live))
			g := live[k]
			require.NoError(t, s.DeregisterMem(ctx, g.va, g.h), "round %d", i)
			live = append(live[:k], live[k+1:]...)
			bufs[g.buf]--
			if bufs[g.buf] == 0 {
				require.NoError(t, s.Free(g.buf))
				delete(bufs, g.buf)
			}
			continue
		}
		size := 1 + r.IntN(64<<10)
		b, err := s.Alloc(size)
		require.NoError(t, err)
		off := r.IntN(size)
		length := 1 + r.IntN(size-off)
		h, err := s.RegisterMem(ctx, b.VA+uint64(off), length, driver.MemAttrs{Ptag: p, EnableRdmaWrite: r.IntN(2) == 0})
		require.NoError(t, err, "round %d", i)
		live = append(live, reg{b, b.VA + uint64(off), h})
		bufs[b]++
	}
	for _, g := range live {
		require.NoError(t, s.DeregisterMem(ctx, g.va, g.h))
		bufs[g.buf]--
		if bufs[g.buf] == 0 {
			require.NoError(t, s.Free(g.buf))
		}
	}
	require.NoError(t, s.DestroyPtag(ctx, p))
	assert.Equal(t, before, n.Phys().Stats(), "every page back")
	assert.Empty(t, s.Regions())
	// every region of the TPT is free again: all of them can be registered
	p, err = s.CreatePtag(ctx)
	require.NoError(t, err)
	b, err := s.Alloc(4096)
	require.NoError(t, err)
	var hs []driver.MemHandle
	for i := 0; i < n.Caps().TPTRegions; i++ {
		h, err := s.RegisterMem(ctx, b.VA, 4096, driver.MemAttrs{Ptag: p})
		require.NoError(t, err, "region %d: a table entry leaked", i)
		hs = append(hs, h)
	}
	for _, h := range hs {
		require.NoError(t, s.DeregisterMem(ctx, b.VA, h))
	}
	t.Logf("%d rounds, then all %d regions registered again", rounds, len(hs))
}

// TestCosimMemDeregisterDuringCopy: the fence. A long translated copy runs
// while its destination is deregistered: DeregisterMem returns only when
// no DMA under the old translation is in flight, the copy stops with
// STALE on the destination, what was written is a prefix of the copy, and
// nothing changes in the destination after DeregisterMem has returned.
func TestCosimMemDeregisterDuringCopy(t *testing.T) {
	n, _, conn := memNodeConn(t)
	ctx := ctxT(t)
	s := session(t, n, "fence")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	const size = 512 << 10
	src, err := s.Alloc(size)
	require.NoError(t, err)
	dst, err := s.Alloc(size)
	require.NoError(t, err)
	fillRand(src.Bytes, 11)
	hs, err := s.RegisterMem(ctx, src.VA, size, driver.MemAttrs{Ptag: p})
	require.NoError(t, err)
	hd, err := s.RegisterMem(ctx, dst.VA, size, driver.MemAttrs{Ptag: p})
	require.NoError(t, err)

	x := &driver.DiagXlat{SrcHandle: hs, DstHandle: hd, Ptag: p, SrcKind: hw.TptKindLocalRead, DstKind: hw.TptKindLocalWrite}
	require.NoError(t, n.DiagStart(ctx, driver.DiagRequest{Src: src.VA, Dst: dst.VA, Len: size, Xlat: x}))
	start := conn.LastCycle()
	require.NoError(t, s.DeregisterMem(ctx, dst.VA, hd))
	deregAt := conn.LastCycle()
	after := physOf(t, n, s, dst.VA, size)

	// the copy ends (its interrupt is not enabled: poll DIAG_STATUS)
	var st uint32
	for i := 0; ; i++ {
		st, err = conn.Read32(ctx, hw.RegDiagStatus)
		require.NoError(t, err)
		if hw.DiagStatusDone.Get(st) != 0 {
			break
		}
		require.Less(t, i, 1000, "the copy does not end")
		_, err = conn.Run(ctx, 1000)
		require.NoError(t, err)
	}
	written, err := conn.Read32(ctx, hw.RegDiagBytes)
	require.NoError(t, err)
	t.Logf("copy started at cycle %d, DeregisterMem returned at %d; the copy wrote %d of %d bytes (DIAG_STATUS 0x%x)",
		start, deregAt, written, size, st)
	require.Equal(t, uint32(1), hw.DiagStatusXlatErr.Get(st), "the copy stopped on a translation error")
	require.Equal(t, uint32(hw.TptErrStale), hw.DiagStatusXlatCode.Get(st))
	require.Equal(t, uint32(1), hw.DiagStatusXlatDst.Get(st))
	require.Less(t, written, uint32(size), "deregistered before the copy ended")

	final := physOf(t, n, s, dst.VA, size)
	require.True(t, bytes.Equal(after, final), "nothing written after DeregisterMem returned")
	require.True(t, bytes.Equal(final[:written], src.Bytes[:written]), "a prefix of the copy")
	require.True(t, bytes.Equal(final[written:], make([]byte, size-int(written))), "nothing beyond it")
	require.NoError(t, s.DeregisterMem(ctx, src.VA, hs))
}

// TestCosimMemAfterRecover: a firmware reload resets the NIC, which erases
// the TPT and the firmware's tables; the sessions then release what they
// held (pins, page lists) and start again.
func TestCosimMemAfterRecover(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "recover")
	before := n.Phys().Stats()
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	buf, err := s.Alloc(3 * 4096)
	require.NoError(t, err)
	h, err := s.RegisterMem(ctx, buf.VA, 3*4096, driver.MemAttrs{Ptag: p})
	require.NoError(t, err)
	requireVip(t, hw.VipReturnErrorResource, s.Free(buf), "pinned")

	require.NoError(t, n.Recover(ctx))
	a, err := n.ProbeTPT(ctx, driver.TPTProbe{Handle: h, VA: buf.VA, Len: 8, Ptag: p})
	require.NoError(t, err)
	assert.Equal(t, hw.TptErr(hw.TptErrHandle).String(), a.Err.String(), "the TPT was cleared")
	_, err = s.QueryMem(ctx, buf.VA, h)
	requireVip(t, hw.VipReturnInvalidParameter, err, "the region is gone")
	requireVip(t, hw.VipReturnInvalidPtag, s.DestroyPtag(ctx, p), "the ptag is gone")
	require.NoError(t, s.Free(buf), "no longer pinned")
	assert.Equal(t, before, n.Phys().Stats(), "every page back")

	p, err = s.CreatePtag(ctx)
	require.NoError(t, err)
	buf, err = s.Alloc(4096)
	require.NoError(t, err)
	h, err = s.RegisterMem(ctx, buf.VA, 4096, driver.MemAttrs{Ptag: p})
	require.NoError(t, err, "registration works again")
	require.NoError(t, s.DeregisterMem(ctx, buf.VA, h))
}
