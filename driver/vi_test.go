package driver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

// TestAdminVipCodes: every admin status maps to one VIP code (docs/vi.md,
// docs/memory.md), and failures that are not a status to ERROR_RESOURCE.
func TestAdminVipCodes(t *testing.T) {
	want := map[uint16]hw.VipReturn{
		hw.AdminStUnknownCmd:              hw.VipReturnErrorResource,
		hw.AdminStBadParam:                hw.VipReturnInvalidParameter,
		hw.AdminStBusy:                    hw.VipReturnErrorResource,
		hw.AdminStInvalidPtag:             hw.VipReturnInvalidPtag,
		hw.AdminStInvalidHandle:           hw.VipReturnInvalidParameter,
		hw.AdminStNoResource:              hw.VipReturnErrorResource,
		hw.AdminStInUse:                   hw.VipReturnErrorResource,
		hw.AdminStInvalidVi:               hw.VipReturnInvalidParameter,
		hw.AdminStInvalidState:            hw.VipReturnInvalidState,
		hw.AdminStInvalidReliabilityLevel: hw.VipReturnInvalidReliabilityLevel,
		hw.AdminStInvalidMtu:              hw.VipReturnInvalidMtu,
		hw.AdminStInvalidRdmaread:         hw.VipReturnInvalidRdmaread,
		hw.AdminStInternal:                hw.VipReturnErrorResource,
		hw.AdminStNoMatch:                 hw.VipReturnInvalidParameter,
	}
	for st := range hw.AdminStNames {
		if st == hw.AdminStOk {
			continue
		}
		w, ok := want[uint16(st)]
		if !assert.True(t, ok, "status %s has no expected VIP code in this test", st) {
			continue
		}
		se := &StatusError{Opcode: hw.AdminOpCreateVi, Status: uint16(st)}
		err := adminVip("CreateVI", fmt.Errorf("wrapped: %w", se))
		assert.Equal(t, w.String(), VipCode(err).String(), "status %s", st)
		assert.True(t, errors.Is(err, se), "the status error stays in the chain")
	}
	assert.Equal(t, hw.VipReturn(hw.VipReturnErrorResource).String(), VipCode(adminVip("QueryVI", ErrFirmwareHung)).String())
}

func TestVIStrings(t *testing.T) {
	assert.Equal(t, "IDLE", VIStateIdle.String())
	assert.Equal(t, "CONNECTED", VIStateConnected.String())
	assert.Equal(t, "CONNECT_PENDING", VIStateConnectPending.String())
	assert.Equal(t, "ERROR", VIStateError.String())
	assert.Equal(t, "VI_STATE(9)", VIState(9).String())
	assert.Equal(t, "UNRELIABLE", Unreliable.String())
	assert.Equal(t, "RELIABLE_DELIVERY", ReliableDelivery.String())
	assert.Equal(t, "RELIABLE_RECEPTION", ReliableReception.String())
	assert.Equal(t, "RELIABILITY(3)", ReliabilityLevel(3).String())
	assert.Equal(t, uint32(hw.AdminViRdmaWrite|hw.AdminViRdmaRead), VIAttrs{EnableRdmaWrite: true, EnableRdmaRead: true}.flags())
	assert.Equal(t, uint32(0), VIAttrs{}.flags())
}

// fakeSession is a session on the fake NIC that owns the VIs vis (the fake
// has no VI table: it answers CONNECT_LOOPBACK and DISCONNECT_VI with
// f.viStatus and records them).
func fakeSession(t *testing.T, vis ...VI) (*fakeNIC, *Session) {
	t.Helper()
	f := newFake(0)
	n, _, err := openFake(t, f, Options{})
	require.NoError(t, err)
	s := &Session{n: n, name: "fake", epoch: n.resets.Load(), ptags: map[Ptag]struct{}{}, regions: map[MemHandle]*region{}, vis: map[VI]struct{}{}}
	for _, v := range vis {
		s.vis[v] = struct{}{}
	}
	return f, s
}

func (f *fakeNIC) takeViCmds() []hw.AdminCmd {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.viCmds
	f.viCmds = nil
	return c
}

func requireVipCode(t *testing.T, want hw.VipReturn, err error, msg string) {
	t.Helper()
	var ve *VipError
	require.ErrorAs(t, err, &ve, msg)
	require.Equal(t, hw.VipReturn(want).String(), ve.Code.String(), msg)
}

// TestConnectLoopbackDisconnect: the payloads, the driver's own checks
// (nothing sent), and every firmware status mapped to its VIP code.
func TestConnectLoopbackDisconnect(t *testing.T) {
	f, s := fakeSession(t, 3, 7)
	ctx := context.Background()

	require.NoError(t, s.ConnectLoopback(ctx, 7, 3))
	require.NoError(t, s.Disconnect(ctx, 3))
	cmds := f.takeViCmds()
	require.Len(t, cmds, 2)
	assert.Equal(t, uint16(hw.AdminOpConnectLoopback), cmds[0].Opcode)
	assert.Equal(t, uint32(hw.AdminConnectLoopbackBytes), cmds[0].Len)
	var c hw.AdminConnectLoopback
	c.Unmarshal(cmds[0].Payload[:])
	assert.Equal(t, hw.AdminConnectLoopback{ViA: 7, ViB: 3}, c)
	assert.Equal(t, uint16(hw.AdminOpDisconnectVi), cmds[1].Opcode)
	assert.Equal(t, uint32(hw.AdminViArgsBytes), cmds[1].Len)
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(cmds[1].Payload[:]))

	// Not the session's VIs: VIP_INVALID_PARAMETER, nothing sent.
	requireVipCode(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, 3, 4), "b not the session's")
	requireVipCode(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, 4, 3), "a not the session's")
	requireVipCode(t, hw.VipReturnInvalidParameter, s.Disconnect(ctx, 0), "not the session's")
	assert.Empty(t, f.takeViCmds())

	// The firmware's statuses.
	for st, code := range map[uint16]hw.VipReturn{
		hw.AdminStInvalidVi:               hw.VipReturnInvalidParameter,
		hw.AdminStBadParam:                hw.VipReturnInvalidParameter,
		hw.AdminStInvalidState:            hw.VipReturnInvalidState,
		hw.AdminStInvalidReliabilityLevel: hw.VipReturnInvalidReliabilityLevel,
		hw.AdminStInvalidMtu:              hw.VipReturnInvalidMtu,
		hw.AdminStInternal:                hw.VipReturnErrorResource,
		hw.AdminStNoMatch:                 hw.VipReturnInvalidParameter,
	} {
		f.mu.Lock()
		f.viStatus = st
		f.mu.Unlock()
		err := s.ConnectLoopback(ctx, 3, 7)
		requireVipCode(t, code, err, "connect")
		var se *StatusError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, st, se.Status)
		requireVipCode(t, code, s.Disconnect(ctx, 7), "disconnect")
	}
	assert.Len(t, f.takeViCmds(), 14) // two per status
	// The session keeps its VIs whatever the answer.
	assert.Equal(t, []VI{3, 7}, s.VIs())

	// A closed session: VIP_INVALID_PARAMETER, nothing sent.
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	requireVipCode(t, hw.VipReturnInvalidParameter, s.ConnectLoopback(ctx, 3, 7), "closed")
	requireVipCode(t, hw.VipReturnInvalidParameter, s.Disconnect(ctx, 3), "closed")
	assert.Empty(t, f.takeViCmds())
}
