package vipl

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// ViState is a VI's state (VIP_VI_STATE).
type ViState uint32

// The VI states, in the specification's values.
const (
	ViIdle           ViState = hw.VipViStateIdle
	ViConnected      ViState = hw.VipViStateConnected
	ViConnectPending ViState = hw.VipViStateConnectPending
	ViError          ViState = hw.VipViStateError
)

// String names the state as the specification does ("IDLE",
// "CONNECT_PENDING").
func (s ViState) String() string { return hw.VipViState(s).String() }

// ViAttributes are a VI's attributes (VIP_VI_ATTRIBUTES).
type ViAttributes struct {
	// ReliabilityLevel is one level of NicAttributes.ReliabilityLevelSupport.
	ReliabilityLevel ReliabilityLevel
	// MaxTransferSize is the largest message, 1 .. NicAttributes.MaxTransferSize.
	MaxTransferSize uint32
	// QoS is left undefined by the specification and must be 0.
	QoS uint32
	// Ptag is the VI's protection tag: descriptors and data must lie in
	// regions of the same ptag.
	Ptag            Ptag
	EnableRdmaWrite bool
	// EnableRdmaRead needs a level of NicAttributes.RDMAReadSupport.
	EnableRdmaRead bool
}

// ViInfo is what Vi.Query answers (VipQueryVi).
type ViInfo struct {
	State          ViState
	Attributes     ViAttributes
	SendQueueEmpty bool
	RecvQueueEmpty bool
}

// ViID names a VI to the kernel agent: the index of its doorbell page.
type ViID uint32

// Vi is a virtual interface of an open NIC (VIP_VI_HANDLE). Safe for
// concurrent use.
type Vi struct {
	nic *Nic
	id  ViID

	mu          sync.Mutex
	state       ViState // as vipl last knew it (CreateVi, ConnectLoopback, Disconnect, Query)
	peerPending uint32  // a ConnectPeerRequest waits for its answer (node+1; 0: none)
	peer        *Vi     // the loopback peer while CONNECTED
	db          Doorbell
	destroyed   atomic.Bool

	sq, rq queue // the data path's bookkeeping (datapath.go)
}

// ID is the VI's number on its NIC (the index of its doorbell page).
func (v *Vi) ID() ViID { return v.id }

// CreateVi creates a VI (VipCreateVi); it starts IDLE. Completion queues
// come with the CQ engine; until then a VI's queues report to no CQ. The
// checks and their order are docs/vi.md's: the ptag must be one of this
// process's (VIP_INVALID_PTAG), QoS 0 (VIP_INVALID_PARAMETER), a supported
// reliability level (VIP_INVALID_RELIABILITY_LEVEL), MaxTransferSize within
// the NIC's (VIP_INVALID_MTU), RDMA read only on a level that has it
// (VIP_INVALID_RDMAREAD), a free VI (VIP_ERROR_RESOURCE).
func (n *Nic) CreateVi(ctx context.Context, attrs ViAttributes) (*Vi, error) {
	const op = "CreateVi"
	if err := n.checkLocked(op); err != nil {
		return nil, err
	}
	id, err := n.agent.CreateVi(ctx, attrs)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	v := &Vi{nic: n, id: id, state: ViIdle}
	n.mu.Lock()
	n.vis[id] = v
	n.mu.Unlock()
	return v, nil
}

// Destroy destroys the VI (VipDestroyVi). Only an IDLE VI can be destroyed
// (VIP_INVALID_STATE otherwise); a destroyed VI answers
// VIP_INVALID_PARAMETER.
func (v *Vi) Destroy(ctx context.Context) error {
	const op = "DestroyVi"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	if err := v.nic.agent.DestroyVi(ctx, v.id); err != nil {
		return wrapErr(op, err)
	}
	v.destroyed.Store(true)
	v.nic.mu.Lock()
	if v.nic.vis[v.id] == v {
		delete(v.nic.vis, v.id)
	}
	v.nic.mu.Unlock()
	return nil
}

// Query answers the VI's state, attributes and whether its queues are
// empty (VipQueryVi).
func (v *Vi) Query(ctx context.Context) (ViInfo, error) {
	const op = "QueryVi"
	if err := v.nic.checkLocked(op); err != nil {
		return ViInfo{}, err
	}
	info, err := v.nic.agent.QueryVi(ctx, v.id)
	if err != nil {
		return info, wrapErr(op, err)
	}
	v.mu.Lock()
	v.state = info.State
	v.mu.Unlock()
	return info, nil
}

// SetAttributes changes the VI's attributes (VipSetViAttributes), with the
// checks of CreateVi; only an IDLE VI's attributes change
// (VIP_INVALID_STATE otherwise).
func (v *Vi) SetAttributes(ctx context.Context, attrs ViAttributes) error {
	const op = "SetViAttributes"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	return wrapErr(op, v.nic.agent.SetViAttributes(ctx, v.id, attrs))
}

func driverViAttrs(a ViAttributes) driver.VIAttrs {
	return driver.VIAttrs{ReliabilityLevel: driver.ReliabilityLevel(a.ReliabilityLevel), MaxTransferSize: a.MaxTransferSize,
		QoS: a.QoS, Ptag: driver.Ptag(a.Ptag), EnableRdmaWrite: a.EnableRdmaWrite, EnableRdmaRead: a.EnableRdmaRead}
}

// CreateVi implements KernelAgent.
func (a *LocalAgent) CreateVi(ctx context.Context, attrs ViAttributes) (ViID, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("CreateVi", err)
	}
	id, err := a.s.CreateVI(ctx, driverViAttrs(attrs))
	return ViID(id), agentErr("CreateVi", err)
}

// DestroyVi implements KernelAgent.
func (a *LocalAgent) DestroyVi(ctx context.Context, id ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("DestroyVi", err)
	}
	return agentErr("DestroyVi", a.s.DestroyVI(ctx, driver.VI(id)))
}

// QueryVi implements KernelAgent.
func (a *LocalAgent) QueryVi(ctx context.Context, id ViID) (ViInfo, error) {
	if err := a.fence(ctx); err != nil {
		return ViInfo{}, agentErr("QueryVi", err)
	}
	d, err := a.s.QueryVI(ctx, driver.VI(id))
	if err != nil {
		return ViInfo{}, agentErr("QueryVi", err)
	}
	return ViInfo{
		State: ViState(d.State),
		Attributes: ViAttributes{ReliabilityLevel: ReliabilityLevel(d.Attrs.ReliabilityLevel), MaxTransferSize: d.Attrs.MaxTransferSize,
			QoS: d.Attrs.QoS, Ptag: Ptag(d.Attrs.Ptag), EnableRdmaWrite: d.Attrs.EnableRdmaWrite, EnableRdmaRead: d.Attrs.EnableRdmaRead},
		SendQueueEmpty: d.SendQueueEmpty,
		RecvQueueEmpty: d.RecvQueueEmpty,
	}, nil
}

// SetViAttributes implements KernelAgent.
func (a *LocalAgent) SetViAttributes(ctx context.Context, id ViID, attrs ViAttributes) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("SetViAttributes", err)
	}
	return agentErr("SetViAttributes", a.s.SetVIAttributes(ctx, driver.VI(id), driverViAttrs(attrs)))
}
