package vipl_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/vipl"
)

// Doorbell grants (issue 9 item 2): vipl rings on a user connection that
// presents its session's token, and the bridge refuses that token any page
// the driver did not grant it.

// dbCounters are the NIC's doorbell counters (VI_DOORBELLS, VI_DB_*) and
// the bridge's count of refused accesses, read by a monitor.
func dbCounters(t *testing.T, mon *cosim.Conn) map[string]uint64 {
	t.Helper()
	ctx := ctxT(t)
	out := map[string]uint64{}
	for name, off := range map[string]uint32{"VI_DOORBELLS": hw.RegViDoorbells, "VI_DB_DROPPED": hw.RegViDbDropped,
		"VI_DB_OVERFLOW": hw.RegViDbOverflow, "VI_DB_BAD": hw.RegViDbBad} {
		v, err := mon.Read32(ctx, off)
		require.NoError(t, err, name)
		out[name] = uint64(v)
	}
	st, err := mon.Stats(ctx)
	require.NoError(t, err)
	out["refused"], err = strconv.ParseUint(st["node0.refused"], 10, 64)
	require.NoError(t, err)
	return out
}

func dialUser(t *testing.T, s *simulator.Sim, token uint64, name string) *simbus.User {
	t.Helper()
	u, err := simbus.DialUser(ctxT(t), simAddress(s), 0, token, name)
	require.NoError(t, err)
	t.Cleanup(func() { u.Close() })
	return u
}

func dbPage(vi uint32) uint32 { return hw.DoorbellBase + vi*hw.DoorbellStride }

func TestCosimDoorbellGrants(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	e := newDataEnv(t, s, vipl.Options{})
	ctx := ctxT(t)
	sa := vipl.AgentSession(e.n)
	drv := vipl.AgentNIC(e.n)
	require.NotZero(t, sa.Token())
	a, b := driver.VI(e.a.ID()), driver.VI(e.b.ID())
	assert.Equal(t, []driver.VI{min(a, b), max(a, b)}, sa.GrantedVIs(), "CreateVI granted both pages to A's token")

	network, addr := simbus.SplitAddress(simAddress(s))
	mon, err := cosim.Dial(ctx, network, addr, cosim.Options{Role: cosim.RoleMonitor, Name: "grant test monitor"})
	require.NoError(t, err)
	t.Cleanup(func() { mon.Close() })

	// A's own connection (vipl's, with A's token) rings A's VIs: the
	// descriptors complete and nothing was refused.
	copy(e.buf.Bytes[4096:], "granted!")
	send := e.desc(t, 0, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 8)}})
	recv := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	sd, rd := e.exchange(t, send, recv)
	assert.Equal(t, "DONE|op=SEND", sd.Status().String())
	assert.Equal(t, "DONE|op=RECEIVE", rd.Status().String())
	assert.Equal(t, "granted!", string(e.buf.Bytes[8192:8200]))
	c0 := dbCounters(t, mon)
	assert.Zero(t, c0["refused"], "vipl's rings were all granted")
	assert.GreaterOrEqual(t, c0["VI_DOORBELLS"], uint64(2), "the rings reached the NIC")

	// Session B on the same NIC: its own token and VI.
	sb, err := drv.OpenSession("B", 0)
	require.NoError(t, err)
	pb, err := sb.CreatePtag(ctx)
	require.NoError(t, err)
	vb, err := sb.CreateVI(ctx, driver.VIAttrs{ReliabilityLevel: driver.Unreliable, MaxTransferSize: 4096, Ptag: pb})
	require.NoError(t, err)
	require.NotZero(t, sb.Token())
	require.NotEqual(t, sa.Token(), sb.Token())
	assert.Equal(t, []driver.VI{vb}, sb.GrantedVIs())

	// A user connection with A's token may not touch B's page: the write
	// is refused, the NIC sees nothing.
	ua := dialUser(t, s, sa.Token(), "A's token")
	// (writes are posted: the refusal of one comes back with the next call
	// or the Sync, whichever follows its answer)
	err = ua.Write32(ctx, dbPage(uint32(vb))+driver.HandleOffset, uint32(e.h))
	if err == nil {
		err = ua.Write64(ctx, dbPage(uint32(vb))+driver.DoorbellOffset, send.VA())
	}
	if err == nil {
		err = ua.Sync(ctx)
	}
	require.ErrorIs(t, err, simbus.ErrRefused, "B's page refused to A's token")
	_, err = drv.Idle(ctx, 2000)
	require.NoError(t, err)
	c1 := dbCounters(t, mon)
	assert.Greater(t, c1["refused"], c0["refused"], "the bridge counted the refusal")
	for _, k := range []string{"VI_DOORBELLS", "VI_DB_DROPPED", "VI_DB_OVERFLOW", "VI_DB_BAD"} {
		assert.Equal(t, c0[k], c1[k], "%s unchanged by the refused writes", k)
	}
	info, err := sb.QueryVI(ctx, vb)
	require.NoError(t, err)
	assert.True(t, info.SendQueueEmpty, "nothing posted on B's VI")

	// A page after DestroyVI: the grant is gone with the VI, the other VIs
	// of A keep theirs.
	vc, err := e.n.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: mustPtag(t, e.n)})
	require.NoError(t, err)
	c := uint32(vc.ID())
	assert.Contains(t, sa.GrantedVIs(), driver.VI(c))
	require.NoError(t, ua.Write32(ctx, dbPage(c)+driver.HandleOffset, uint32(e.h)), "granted while it exists")
	require.NoError(t, ua.Sync(ctx))
	require.NoError(t, vc.Destroy(ctx))
	assert.Equal(t, []driver.VI{min(a, b), max(a, b)}, sa.GrantedVIs(), "DestroyVi revoked its page only")
	c2 := dbCounters(t, mon)
	require.NoError(t, ua.Write64(ctx, dbPage(c)+driver.DoorbellOffset, send.VA()))
	require.ErrorIs(t, ua.Sync(ctx), simbus.ErrRefused, "a destroyed VI's page is refused")
	_, err = drv.Idle(ctx, 2000)
	require.NoError(t, err)
	c3 := dbCounters(t, mon)
	assert.Greater(t, c3["refused"], c2["refused"], "the bridge counted the refusal")
	for _, k := range []string{"VI_DOORBELLS", "VI_DB_DROPPED", "VI_DB_OVERFLOW", "VI_DB_BAD"} {
		assert.Equal(t, c2[k], c3[k], "%s unchanged by the refused write", k)
	}
	// and A's remaining VIs still ring: another exchange completes
	recv2 := e.desc(t, 2, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(8192, 64)}})
	send2 := e.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(4096, 8)}})
	e.exchange(t, send2, recv2)

	// Close revokes: B's token has no page left.
	ub := dialUser(t, s, sb.Token(), "B's token")
	require.NoError(t, ub.Write32(ctx, dbPage(uint32(vb))+driver.HandleOffset, 1))
	require.NoError(t, ub.Sync(ctx), "B's own page while B is open")
	require.NoError(t, sb.Close(ctx))
	assert.Empty(t, sb.GrantedVIs())
	require.NoError(t, ub.Write32(ctx, dbPage(uint32(vb))+driver.HandleOffset, 1))
	require.ErrorIs(t, ub.Sync(ctx), simbus.ErrRefused, "B's page after B's Close")
}
