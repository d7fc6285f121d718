package driver

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

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
