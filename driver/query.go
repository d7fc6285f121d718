package driver

import (
	"bytes"
	"context"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// NICAttributes are the NIC's attributes as VipQueryNic returns them,
// answered by the firmware's QUERY_NIC (hw.AdminNicAttrs).
type NICAttributes struct {
	Name                    string
	HardwareVersion         uint32 // HW_VERSION register
	ProviderVersion         uint32 // firmware version, major << 8 | minor
	LocalNICAddress         []byte // NicAddressLen bytes
	ThreadSafe              bool
	MaxDiscriminatorLen     uint32
	MaxRegisterBytes        uint32
	MaxRegisterRegions      uint32
	MaxRegisterBlockBytes   uint32
	MaxVI                   uint32
	MaxDescriptorsPerQueue  uint32
	MaxSegmentsPerDesc      uint32
	MaxCQ                   uint32
	MaxCQEntries            uint32
	MaxTransferSize         uint32
	NativeMTU               uint32
	MaxPtags                uint32
	ReliabilityLevelSupport uint32 // mask of Unreliable, ReliableDelivery, ReliableReception
	RDMAReadSupport         uint32 // same mask
}

// QueryNIC asks the firmware for the NIC's attributes (OP_QUERY_NIC).
func (n *NIC) QueryNIC(ctx context.Context) (NICAttributes, error) {
	_, resp, err := n.Admin(ctx, hw.AdminOpQueryNic, nil)
	if err != nil {
		return NICAttributes{}, err
	}
	if len(resp) < hw.AdminNicAttrsBytes {
		return NICAttributes{}, fmt.Errorf("driver: QUERY_NIC answered %d bytes, expected %d", len(resp), hw.AdminNicAttrsBytes)
	}
	var a hw.AdminNicAttrs
	a.Unmarshal(resp)
	return attributesFrom(&a)
}

func attributesFrom(a *hw.AdminNicAttrs) (NICAttributes, error) {
	name := a.Name[:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if a.NicAddressLen > uint32(len(a.LocalNicAddress)) {
		return NICAttributes{}, fmt.Errorf("driver: QUERY_NIC: NIC address length %d exceeds %d", a.NicAddressLen, len(a.LocalNicAddress))
	}
	return NICAttributes{
		Name:                    string(name),
		HardwareVersion:         a.HardwareVersion,
		ProviderVersion:         a.ProviderVersion,
		LocalNICAddress:         bytes.Clone(a.LocalNicAddress[:a.NicAddressLen]),
		ThreadSafe:              a.ThreadSafe != 0,
		MaxDiscriminatorLen:     a.MaxDiscriminatorLen,
		MaxRegisterBytes:        a.MaxRegisterBytes,
		MaxRegisterRegions:      a.MaxRegisterRegions,
		MaxRegisterBlockBytes:   a.MaxRegisterBlockBytes,
		MaxVI:                   a.MaxVi,
		MaxDescriptorsPerQueue:  a.MaxDescriptorsPerQueue,
		MaxSegmentsPerDesc:      a.MaxSegmentsPerDesc,
		MaxCQ:                   a.MaxCq,
		MaxCQEntries:            a.MaxCqEntries,
		MaxTransferSize:         a.MaxTransferSize,
		NativeMTU:               a.NativeMtu,
		MaxPtags:                a.MaxPtags,
		ReliabilityLevelSupport: a.ReliabilityLevelSupport,
		RDMAReadSupport:         a.RdmaReadSupport,
	}, nil
}
