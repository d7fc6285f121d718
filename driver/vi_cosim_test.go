package driver_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// VIs end to end: the real driver, firmware (firmware/src/vi.c) and NIC.
// The state rules outside IDLE (DESTROY_VI and MODIFY_VI answer
// INVALID_STATE) need a VI that leaves IDLE, which only the connection
// commands will do: firmware/tests/test_vi.c covers them natively.

func goodVI(p driver.Ptag) driver.VIAttrs {
	return driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: 4096, Ptag: p}
}

// rawAdmin runs one admin command with a payload of 32-bit words and
// returns its status (0 for ST_OK) and response.
func rawAdmin(t *testing.T, n *driver.NIC, op uint16, words ...uint32) (uint16, []byte) {
	t.Helper()
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	st, resp, err := n.Admin(ctxT(t), op, b)
	if err != nil {
		var se *driver.StatusError
		require.ErrorAs(t, err, &se)
		return se.Status, nil
	}
	return st, resp
}

func requireSt(t *testing.T, want uint16, got uint16, msg string) {
	t.Helper()
	require.Equal(t, driver.StatusName(want), driver.StatusName(got), msg)
}

func TestCosimVICreateQueryModifyDestroy(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	a, err := n.QueryNIC(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint32(min(n.Caps().NumVI, hw.AdminMaxVi)), a.MaxVI)
	assert.Equal(t, uint32(hw.AdminMaxTransferSize), a.MaxTransferSize)
	assert.Equal(t, uint32(driver.Unreliable|driver.ReliableDelivery), a.ReliabilityLevelSupport)
	assert.Equal(t, uint32(driver.ReliableDelivery), a.RDMAReadSupport, "RDMA read on RELIABLE_DELIVERY only")

	s := session(t, n, "vi")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	p2, err := s.CreatePtag(ctx)
	require.NoError(t, err)

	v0, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	assert.Equal(t, driver.VI(0), v0, "the first doorbell page")
	big := driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: a.MaxTransferSize, Ptag: p2, EnableRdmaWrite: true}
	v1, err := s.CreateVI(ctx, big)
	require.NoError(t, err)
	assert.Equal(t, driver.VI(1), v1)
	assert.Equal(t, []driver.VI{0, 1}, s.VIs())

	info, err := s.QueryVI(ctx, v0)
	require.NoError(t, err)
	assert.Equal(t, driver.VIInfo{State: driver.VIStateIdle, Attrs: goodVI(p), SendQueueEmpty: true, RecvQueueEmpty: true}, info)
	assert.Equal(t, "IDLE", info.State.String())
	assert.Equal(t, "UNRELIABLE", info.Attrs.ReliabilityLevel.String())
	info, err = s.QueryVI(ctx, v1)
	require.NoError(t, err)
	assert.Equal(t, big, info.Attrs)

	// The ptags are in use while a VI holds them.
	requireVip(t, hw.VipReturnErrorResource, s.DestroyPtag(ctx, p2), "v1 uses p2")

	// SetVIAttributes: every attribute at once; the ptag use moves.
	moved := driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: 1, Ptag: p, EnableRdmaWrite: false}
	require.NoError(t, s.SetVIAttributes(ctx, v1, moved))
	info, err = s.QueryVI(ctx, v1)
	require.NoError(t, err)
	assert.Equal(t, moved, info.Attrs)
	require.NoError(t, s.DestroyPtag(ctx, p2), "no VI uses p2 any more")
	requireVip(t, hw.VipReturnErrorResource, s.DestroyPtag(ctx, p), "v0 and v1 use p")

	// Destroy: once; the id is then no VI of the session; it is reused.
	require.NoError(t, s.DestroyVI(ctx, v0))
	requireVip(t, hw.VipReturnInvalidParameter, s.DestroyVI(ctx, v0), "destroyed twice")
	_, err = s.QueryVI(ctx, v0)
	requireVip(t, hw.VipReturnInvalidParameter, err, "query of a destroyed VI")
	requireVip(t, hw.VipReturnInvalidParameter, s.SetVIAttributes(ctx, v0, goodVI(p)), "modify of a destroyed VI")
	st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, uint32(v0))
	requireSt(t, hw.AdminStInvalidVi, st, "the firmware agrees")
	v, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	assert.Equal(t, v0, v, "the lowest free doorbell page")
	require.NoError(t, s.DestroyVI(ctx, v))
	require.NoError(t, s.DestroyVI(ctx, v1))
	require.NoError(t, s.DestroyPtag(ctx, p), "no VI left")
	assert.Empty(t, s.VIs())
}

// TestCosimVIBadAttributes: every attribute the firmware refuses, with the
// exact VIP code, on CreateVI and on SetVIAttributes, and nothing changed.
func TestCosimVIBadAttributes(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "bad")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	vi, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)

	cases := []struct {
		name   string
		mutate func(*driver.VIAttrs)
		want   hw.VipReturn
	}{
		{"QoS", func(a *driver.VIAttrs) { a.QoS = 1 }, hw.VipReturnInvalidParameter},
		{"level 0", func(a *driver.VIAttrs) { a.ReliabilityLevel = 0 }, hw.VipReturnInvalidReliabilityLevel},
		{"two levels", func(a *driver.VIAttrs) { a.ReliabilityLevel = driver.Unreliable | driver.ReliableDelivery }, hw.VipReturnInvalidReliabilityLevel},
		{"reliable reception (not supported)", func(a *driver.VIAttrs) { a.ReliabilityLevel = driver.ReliableReception }, hw.VipReturnInvalidReliabilityLevel},
		{"level 8", func(a *driver.VIAttrs) { a.ReliabilityLevel = 8 }, hw.VipReturnInvalidReliabilityLevel},
		{"MaxTransferSize 0", func(a *driver.VIAttrs) { a.MaxTransferSize = 0 }, hw.VipReturnInvalidMtu},
		{"MaxTransferSize above the NIC's", func(a *driver.VIAttrs) { a.MaxTransferSize = hw.AdminMaxTransferSize + 1 }, hw.VipReturnInvalidMtu},
		{"MaxTransferSize 2**32-1", func(a *driver.VIAttrs) { a.MaxTransferSize = 0xFFFFFFFF }, hw.VipReturnInvalidMtu},
		{"a ptag never created", func(a *driver.VIAttrs) { a.Ptag = p + 1 }, hw.VipReturnInvalidPtag},
		{"ptag 0", func(a *driver.VIAttrs) { a.Ptag = 0 }, hw.VipReturnInvalidPtag},
		{"RDMA read on an unreliable VI", func(a *driver.VIAttrs) { a.EnableRdmaRead = true }, hw.VipReturnInvalidRdmaread},
		{"RDMA read and write", func(a *driver.VIAttrs) { a.EnableRdmaRead, a.EnableRdmaWrite = true, true }, hw.VipReturnInvalidRdmaread},
		// the order: QoS, level, MaxTransferSize, (ptag), RDMA read
		{"QoS before the level", func(a *driver.VIAttrs) { a.QoS, a.ReliabilityLevel = 1, 0 }, hw.VipReturnInvalidParameter},
		{"level before MaxTransferSize", func(a *driver.VIAttrs) { a.ReliabilityLevel, a.MaxTransferSize = driver.ReliableReception, 0 }, hw.VipReturnInvalidReliabilityLevel},
		{"MaxTransferSize before RDMA read", func(a *driver.VIAttrs) { a.MaxTransferSize, a.EnableRdmaRead = 0, true }, hw.VipReturnInvalidMtu},
	}
	for _, c := range cases {
		attrs := goodVI(p)
		c.mutate(&attrs)
		_, err := s.CreateVI(ctx, attrs)
		requireVip(t, c.want, err, "CreateVI: %s", c.name)
		requireVip(t, c.want, s.SetVIAttributes(ctx, vi, attrs), "SetVIAttributes: %s", c.name)
	}
	assert.Equal(t, []driver.VI{vi}, s.VIs(), "nothing created")
	info, err := s.QueryVI(ctx, vi)
	require.NoError(t, err)
	assert.Equal(t, goodVI(p), info.Attrs, "nothing changed")
	st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, 1)
	requireSt(t, hw.AdminStInvalidVi, st, "no VI 1 in the firmware")

	// What the driver never sends, straight to the firmware: the reserved
	// fields, a ptag that does not exist there, the command lengths.
	good := []uint32{uint32(driver.Unreliable), 4096, uint32(p), 0, 0, 0, 0}
	raw := func(mut func(w []uint32)) uint16 {
		w := append([]uint32(nil), good...)
		mut(w)
		st, _ := rawAdmin(t, n, hw.AdminOpCreateVi, w...)
		return st
	}
	requireSt(t, hw.AdminStBadParam, raw(func(w []uint32) { w[3] = 4 }), "FLAGS reserved bit")
	requireSt(t, hw.AdminStBadParam, raw(func(w []uint32) { w[5] = 1 }), "SEND_CQ")
	requireSt(t, hw.AdminStBadParam, raw(func(w []uint32) { w[6] = 1 }), "RECV_CQ")
	requireSt(t, hw.AdminStInvalidPtag, raw(func(w []uint32) { w[2] = uint32(p) + 0x100 }), "another generation of p")
	st, _ = rawAdmin(t, n, hw.AdminOpCreateVi, good[:6]...)
	requireSt(t, hw.AdminStBadParam, st, "LEN 24")
	st, _ = rawAdmin(t, n, hw.AdminOpModifyVi, uint32(vi), uint32(driver.Unreliable), 4096, uint32(p), 0)
	requireSt(t, hw.AdminStBadParam, st, "MODIFY_VI LEN 20")
	st, _ = rawAdmin(t, n, hw.AdminOpModifyVi, 99, uint32(driver.Unreliable), 4096, uint32(p), 0, 0)
	requireSt(t, hw.AdminStInvalidVi, st, "MODIFY_VI of no VI")
	st, _ = rawAdmin(t, n, hw.AdminOpDestroyVi, 0xFFFFFFFF)
	requireSt(t, hw.AdminStInvalidVi, st, "DESTROY_VI of no VI")
	st, _ = rawAdmin(t, n, hw.AdminOpDestroyVi)
	requireSt(t, hw.AdminStBadParam, st, "DESTROY_VI LEN 0")
	assert.Equal(t, []driver.VI{vi}, s.VIs())
	st, _ = rawAdmin(t, n, hw.AdminOpQueryVi, 1)
	requireSt(t, hw.AdminStInvalidVi, st, "still no VI 1")
	require.NoError(t, s.DestroyVI(ctx, vi))
	require.NoError(t, s.DestroyPtag(ctx, p))
}

// TestCosimVILimits: MaxVI VIs exist at once, the next is
// VIP_ERROR_RESOURCE, and a destroyed VI's page is reused.
func TestCosimVILimits(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	a, err := n.QueryNIC(ctx)
	require.NoError(t, err)
	s := session(t, n, "limits")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	for i := 0; i < int(a.MaxVI); i++ {
		vi, err := s.CreateVI(ctx, goodVI(p))
		require.NoError(t, err, "VI %d of %d", i, a.MaxVI)
		require.Equal(t, driver.VI(i), vi)
	}
	_, err = s.CreateVI(ctx, goodVI(p))
	requireVip(t, hw.VipReturnErrorResource, err, "VI %d", a.MaxVI+1)
	// A bad attribute is still judged first.
	_, err = s.CreateVI(ctx, driver.VIAttrs{ReliabilityLevel: driver.Unreliable, Ptag: p})
	requireVip(t, hw.VipReturnInvalidMtu, err, "the table is full, but MaxTransferSize is checked first")
	require.NoError(t, s.DestroyVI(ctx, 5))
	vi, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	assert.Equal(t, driver.VI(5), vi)
	require.NoError(t, s.Close(ctx), "Close destroys the VIs, then the ptag")
	st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, 5)
	requireSt(t, hw.AdminStInvalidVi, st, "gone after Close")
}

// TestCosimVISessions: a session touches only its own VIs and ptags, and
// Close destroys its VIs before the ptags they hold.
func TestCosimVISessions(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s1 := session(t, n, "one")
	s2 := session(t, n, "two")
	p1, err := s1.CreatePtag(ctx)
	require.NoError(t, err)
	p2, err := s2.CreatePtag(ctx)
	require.NoError(t, err)
	v1, err := s1.CreateVI(ctx, goodVI(p1))
	require.NoError(t, err)
	v2, err := s2.CreateVI(ctx, goodVI(p2))
	require.NoError(t, err)
	assert.NotEqual(t, v1, v2)

	_, err = s2.QueryVI(ctx, v1)
	requireVip(t, hw.VipReturnInvalidParameter, err, "another session's VI")
	requireVip(t, hw.VipReturnInvalidParameter, s2.DestroyVI(ctx, v1), "another session's VI")
	requireVip(t, hw.VipReturnInvalidParameter, s2.SetVIAttributes(ctx, v1, goodVI(p2)), "another session's VI")
	_, err = s2.CreateVI(ctx, goodVI(p1))
	requireVip(t, hw.VipReturnInvalidPtag, err, "another session's ptag")
	requireVip(t, hw.VipReturnInvalidPtag, s2.SetVIAttributes(ctx, v2, goodVI(p1)), "another session's ptag")
	requireVip(t, hw.VipReturnInvalidParameter, s1.SetVIAttributes(ctx, v2, goodVI(p1)), "the VI is checked first")
	info, err := s1.QueryVI(ctx, v1)
	require.NoError(t, err)
	assert.Equal(t, goodVI(p1), info.Attrs, "untouched")

	// Close: VIs first, so the ptag they held can be destroyed.
	require.NoError(t, s1.Close(ctx))
	st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, uint32(v1))
	requireSt(t, hw.AdminStInvalidVi, st, "s1's VI is gone")
	st, _ = rawAdmin(t, n, hw.AdminOpDestroyPtag, uint32(p1))
	requireSt(t, hw.AdminStInvalidPtag, st, "s1's ptag is gone")
	_, err = s1.QueryVI(ctx, v1)
	requireVip(t, hw.VipReturnInvalidParameter, err, "closed session")
	_, err = s1.CreateVI(ctx, goodVI(p1))
	requireVip(t, hw.VipReturnInvalidParameter, err, "closed session")
	info, err = s2.QueryVI(ctx, v2)
	require.NoError(t, err, "s2 goes on")
	assert.Equal(t, driver.VIStateIdle, info.State)
	v, err := s2.CreateVI(ctx, goodVI(p2))
	require.NoError(t, err)
	assert.Equal(t, v1, v, "s1's page is free again")
}

// TestCosimVIAfterRecover: a firmware reload empties the VI table; the
// sessions forget their VIs.
func TestCosimVIAfterRecover(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "recover")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	vi, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	require.NoError(t, n.Recover(ctx))
	assert.Empty(t, s.VIs())
	_, err = s.QueryVI(ctx, vi)
	requireVip(t, hw.VipReturnInvalidParameter, err, "the VI is gone")
	st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, uint32(vi))
	requireSt(t, hw.AdminStInvalidVi, st, "the firmware's table is empty")
	p, err = s.CreatePtag(ctx)
	require.NoError(t, err)
	vi2, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	assert.Equal(t, vi, vi2)
	require.NoError(t, s.Close(context.Background()))
}

// TestCosimVIConnectLoopback: CONNECT_LOOPBACK and DISCONNECT_VI through the
// real firmware and NIC (the context commits go through via_cpu_periph's
// VI_CTX window): every refusal with its exact VIP code, the CONNECTED
// state and its rules (no DestroyVI, SetVIAttributes or second connect),
// Disconnect from either end, and Close of a session with connected VIs.
func TestCosimVIConnectLoopback(t *testing.T) {
	n, _ := memNode(t)
	ctx := ctxT(t)
	s := session(t, n, "loop")
	other := session(t, n, "other")
	p, err := s.CreatePtag(ctx)
	require.NoError(t, err)
	po, err := other.CreatePtag(ctx)
	require.NoError(t, err)
	a, err := s.CreateVI(ctx, goodVI(p))
	require.NoError(t, err)
	b, err := s.CreateVI(ctx, driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: 4096, Ptag: p, EnableRdmaWrite: true})
	require.NoError(t, err)
	c, err := s.CreateVI(ctx, driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: 8192, Ptag: p})
	require.NoError(t, err)
	o, err := other.CreateVI(ctx, goodVI(po))
	require.NoError(t, err)

	state := func(vi driver.VI) driver.VIState {
		t.Helper()
		info, err := s.QueryVI(ctx, vi)
		require.NoError(t, err)
		return info.State
	}

	// Refusals; nothing changes.
	requireVip(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, a, o), "another session's VI")
	requireVip(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, 99, a), "not a VI")
	requireVip(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, a, a), "the same VI twice")
	requireVip(t, hw.VipReturnInvalidMtu, s.ConnectLoopback(ctx, a, c), "MaxTransferSize differs")
	requireVip(t, hw.VipReturnInvalidState, s.Disconnect(ctx, a), "not connected")
	requireVip(t, hw.VipReturnInvalidParameter, s.Disconnect(ctx, o), "another session's VI")
	st, _ := rawAdmin(t, n, hw.AdminOpConnectLoopback, uint32(a), 99)
	requireSt(t, hw.AdminStInvalidVi, st, "CONNECT_LOOPBACK to no VI")
	st, _ = rawAdmin(t, n, hw.AdminOpConnectLoopback, uint32(a), uint32(a))
	requireSt(t, hw.AdminStBadParam, st, "the same VI twice")
	st, _ = rawAdmin(t, n, hw.AdminOpConnectLoopback, uint32(a))
	requireSt(t, hw.AdminStBadParam, st, "CONNECT_LOOPBACK LEN 4")
	st, _ = rawAdmin(t, n, hw.AdminOpDisconnectVi, 99)
	requireSt(t, hw.AdminStInvalidVi, st, "DISCONNECT_VI of no VI")
	for _, vi := range []driver.VI{a, b, c} {
		assert.Equal(t, driver.VIStateIdle, state(vi))
	}

	// Connected: both ends; the attributes are kept.
	require.NoError(t, s.ConnectLoopback(ctx, a, b))
	info, err := s.QueryVI(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, driver.VIStateConnected, info.State)
	assert.True(t, info.Attrs.EnableRdmaWrite)
	assert.Equal(t, driver.VIStateConnected, state(a))
	assert.Equal(t, driver.VIStateIdle, state(c))
	requireVip(t, hw.VipReturnInvalidState, s.DestroyVI(ctx, a), "DestroyVI of a connected VI")
	requireVip(t, hw.VipReturnInvalidState, s.DestroyVI(ctx, b), "DestroyVI of a connected VI")
	requireVip(t, hw.VipReturnInvalidState, s.SetVIAttributes(ctx, a, goodVI(p)), "SetVIAttributes of a connected VI")
	requireVip(t, hw.VipReturnInvalidState, s.ConnectLoopback(ctx, b, a), "connected twice")
	requireVip(t, hw.VipReturnInvalidState, s.ConnectLoopback(ctx, c, a), "one end connected")

	// Disconnect from B: both IDLE; then again, from A.
	require.NoError(t, s.Disconnect(ctx, b))
	assert.Equal(t, driver.VIStateIdle, state(a))
	assert.Equal(t, driver.VIStateIdle, state(b))
	requireVip(t, hw.VipReturnInvalidState, s.Disconnect(ctx, a), "already disconnected")
	require.NoError(t, s.ConnectLoopback(ctx, b, a))
	require.NoError(t, s.Disconnect(ctx, a))
	assert.Equal(t, driver.VIStateIdle, state(b))

	// After SetVIAttributes the MaxTransferSizes match: C connects to A.
	require.NoError(t, s.SetVIAttributes(ctx, c, goodVI(p)))
	require.NoError(t, s.ConnectLoopback(ctx, c, a))
	assert.Equal(t, driver.VIStateConnected, state(c))
	assert.Equal(t, driver.VIStateIdle, state(b))

	// Close disconnects the connected VIs and destroys everything.
	require.NoError(t, s.Close(ctx))
	for _, vi := range []driver.VI{a, b, c} {
		st, _ := rawAdmin(t, n, hw.AdminOpQueryVi, uint32(vi))
		requireSt(t, hw.AdminStInvalidVi, st, "gone after Close")
	}
	info, err = other.QueryVI(ctx, o)
	require.NoError(t, err)
	assert.Equal(t, driver.VIStateIdle, info.State, "the other session is untouched")
}
