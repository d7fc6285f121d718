package driver

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/vianic/vianic/internal/hw"
)

// Virtual interfaces, the kernel agent's side (docs/vi.md). The firmware
// keeps the VI table (CREATE_VI .. DISCONNECT_VI); a session can use only the
// VIs it created: another session's are answered as if they did not exist
// (VIP_INVALID_PARAMETER), as its ptags and memory handles are.

// VI is a VI id: the index of the VI's doorbell page in BAR0's DOORBELL
// array (0 .. MaxVI-1). Unlike ptags and memory handles, 0 is a valid VI.
type VI uint32

// ReliabilityLevel is a VI's reliability level (VIP_RELIABILITY_LEVEL);
// the NIC's support (NICAttributes.ReliabilityLevelSupport) is a mask of
// them.
type ReliabilityLevel uint32

// The reliability levels, also the bits of NICAttributes.ReliabilityLevelSupport
// and RDMAReadSupport.
const (
	Unreliable        ReliabilityLevel = hw.VipReliabilityUnreliable
	ReliableDelivery  ReliabilityLevel = hw.VipReliabilityReliableDelivery
	ReliableReception ReliabilityLevel = hw.VipReliabilityReliableReception
)

// String names the level as the layout does ("UNRELIABLE").
func (r ReliabilityLevel) String() string { return hw.VipReliability(r).String() }

// VIState is the state of a VI (VIP_VI_STATE).
type VIState uint32

// The VI states, in the specification's values.
const (
	VIStateIdle           VIState = hw.VipViStateIdle
	VIStateConnected      VIState = hw.VipViStateConnected
	VIStateConnectPending VIState = hw.VipViStateConnectPending
	VIStateError          VIState = hw.VipViStateError
)

// String names the state as the layout does ("IDLE", "CONNECT_PENDING").
func (s VIState) String() string { return hw.VipViState(s).String() }

// VIAttrs are a VI's attributes (VIP_VI_ATTRIBUTES).
type VIAttrs struct {
	ReliabilityLevel ReliabilityLevel // one level of NICAttributes.ReliabilityLevelSupport
	MaxTransferSize  uint32           // 1 .. NICAttributes.MaxTransferSize
	// QoS is VIA's quality of service, which the specification leaves
	// undefined: it must be 0 (VIP_INVALID_PARAMETER otherwise).
	QoS             uint32
	Ptag            Ptag // one of the session's ptags
	EnableRdmaWrite bool
	EnableRdmaRead  bool // only on a level of NICAttributes.RDMAReadSupport
}

func (a VIAttrs) flags() uint32 {
	var f uint32
	if a.EnableRdmaWrite {
		f |= hw.AdminViRdmaWrite
	}
	if a.EnableRdmaRead {
		f |= hw.AdminViRdmaRead
	}
	return f
}

// VIInfo is what QueryVI answers (VipQueryVi).
type VIInfo struct {
	State          VIState
	Attrs          VIAttrs
	SendQueueEmpty bool
	RecvQueueEmpty bool
}

// CreateVI creates a VI with attrs (VipCreateVi; its queues are bound to
// completion queues afterwards with BindCQ) and returns its id; the VI is
// IDLE. The driver checks that attrs.Ptag is one of the session's
// (VIP_INVALID_PTAG); the firmware then checks, in this order, QoS 0
// (VIP_INVALID_PARAMETER), the reliability level
// (VIP_INVALID_RELIABILITY_LEVEL), MaxTransferSize (VIP_INVALID_MTU), the
// ptag (VIP_INVALID_PTAG), RDMA read against the level
// (VIP_INVALID_RDMAREAD) and a free VI (VIP_ERROR_RESOURCE).
func (s *Session) CreateVI(ctx context.Context, attrs VIAttrs) (VI, error) {
	const op = "CreateVI"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return 0, vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	if _, ok := s.ptags[attrs.Ptag]; !ok {
		return 0, vipErr(op, hw.VipReturnInvalidPtag, nil, "ptag 0x%x is not a protection tag of session %q", uint32(attrs.Ptag), s.name)
	}
	c := hw.AdminCreateVi{ReliabilityLevel: uint32(attrs.ReliabilityLevel), MaxTransferSize: attrs.MaxTransferSize,
		Ptag: uint32(attrs.Ptag), Flags: attrs.flags(), Qos: attrs.QoS}
	b := make([]byte, hw.AdminCreateViBytes)
	c.Marshal(b)
	_, resp, err := s.n.Admin(ctx, hw.AdminOpCreateVi, b)
	if err == nil && len(resp) < hw.AdminViArgsBytes {
		err = fmt.Errorf("CREATE_VI answered %d bytes", len(resp))
	}
	if err != nil {
		return 0, adminVip(op, err)
	}
	var a hw.AdminViArgs
	a.Unmarshal(resp)
	vi := VI(a.Vi)
	s.vis[vi] = struct{}{}
	s.ownVI(vi)
	// The VI's doorbell page goes to the session's token (session_grant.go);
	// without it the process could not ring, so a failed grant undoes the VI.
	if err := s.grantVI(ctx, vi); err != nil {
		if derr := s.destroyVIOnce(ctx, vi); derr != nil {
			s.n.log.Warn("CreateVI: destroying the VI whose doorbell could not be granted", "vi", uint32(vi), "err", derr)
		}
		return 0, vipErr(op, hw.VipReturnErrorResource, err, "granting the doorbell page of VI %d", uint32(vi))
	}
	// Its completion interrupts go to the session's vector (evt.go).
	if err := s.route(ctx, uint32(vi), false); err != nil {
		if derr := s.destroyVIOnce(ctx, vi); derr != nil {
			s.n.log.Warn("CreateVI: destroying the VI whose interrupt could not be routed", "vi", uint32(vi), "err", derr)
		}
		return 0, vipErr(op, hw.VipReturnErrorResource, err, "routing the interrupts of VI %d", uint32(vi))
	}
	return vi, nil
}

// viLookup checks that vi is one of the session's VIs.
func (s *Session) viLookup(op string, vi VI) error {
	if _, ok := s.vis[vi]; !ok || s.closed {
		return vipErr(op, hw.VipReturnInvalidParameter, nil, "VI %d is not a VI of session %q", uint32(vi), s.name)
	}
	return nil
}

func viArgs(vi VI) []byte {
	a := hw.AdminViArgs{Vi: uint32(vi)}
	b := make([]byte, hw.AdminViArgsBytes)
	a.Marshal(b)
	return b
}

// DestroyVI destroys one of the session's VIs (VipDestroyVi):
// VIP_INVALID_PARAMETER if it is not one, VIP_INVALID_STATE unless it is
// IDLE. Its ptag is then free of it.
func (s *Session) DestroyVI(ctx context.Context, vi VI) error {
	const op = "DestroyVI"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	if err := s.destroyVIOnce(ctx, vi); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// destroyVI is Close's DESTROY_VI: a VI that is not IDLE
// (ST_INVALID_STATE) is disconnected first (DISCONNECT_VI, which takes a
// peer of this NIC back to IDLE too and tells one on another node), then
// destroyed; one still CONNECT_PENDING has its request withdrawn
// (CM_CANCEL). The answers of those are not needed: a peer may have
// disconnected it meanwhile (a DISCONNECT frame), which leaves it IDLE all
// the same.
func (s *Session) destroyVI(ctx context.Context, vi VI) error {
	err := s.destroyVIOnce(ctx, vi)
	for _, op := range []uint16{hw.AdminOpDisconnectVi, hw.AdminOpCmCancel} {
		var se *StatusError
		if !errors.As(err, &se) || se.Status != hw.AdminStInvalidState {
			break
		}
		s.n.Admin(ctx, op, viArgs(vi)) //nolint:errcheck // see above
		err = s.destroyVIOnce(ctx, vi)
	}
	return err
}

func (s *Session) destroyVIOnce(ctx context.Context, vi VI) error {
	if _, _, err := s.n.Admin(ctx, hw.AdminOpDestroyVi, viArgs(vi)); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Status == hw.AdminStInvalidVi {
			// The NIC no longer knows the VI (it was reset): forget it
			// here too, and report it.
			delete(s.vis, vi)
			s.disownVI(vi)
			s.revokeVI(ctx, vi)
			s.unbindVI(ctx, vi)
		}
		return err
	}
	delete(s.vis, vi)
	s.disownVI(vi)
	s.unbindVI(ctx, vi)
	s.revokeVI(ctx, vi)
	return nil
}

// revokeVI takes vi's doorbell page back from the session's token (the
// bridge revokes per token: the other VIs are granted again). The VI is
// gone from the NIC whatever happens here, so a failure (the bridge is
// going away) is only logged: a disabled VI's doorbells are dropped by the
// NIC anyway.
func (s *Session) revokeVI(ctx context.Context, vi VI) {
	if _, ok := s.grantState().granted[vi]; !ok && len(s.grantState().granted) == len(s.vis) {
		return
	}
	if err := s.regrant(ctx); err != nil {
		s.n.log.Warn("revoking a destroyed VI's doorbell page", "session", s.name, "vi", uint32(vi), "err", err)
	}
}

// QueryVI returns the state, attributes and queue flags of one of the
// session's VIs (VipQueryVi), as the NIC holds them; any state.
func (s *Session) QueryVI(ctx context.Context, vi VI) (VIInfo, error) {
	const op = "QueryVI"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return VIInfo{}, err
	}
	_, resp, err := s.n.Admin(ctx, hw.AdminOpQueryVi, viArgs(vi))
	if err == nil && len(resp) < hw.AdminViInfoBytes {
		err = fmt.Errorf("QUERY_VI answered %d bytes", len(resp))
	}
	if err != nil {
		return VIInfo{}, adminVip(op, err)
	}
	var m hw.AdminViInfo
	m.Unmarshal(resp)
	return VIInfo{
		State: VIState(m.State),
		Attrs: VIAttrs{
			ReliabilityLevel: ReliabilityLevel(m.ReliabilityLevel), MaxTransferSize: m.MaxTransferSize, QoS: m.Qos,
			Ptag: Ptag(m.Ptag), EnableRdmaWrite: m.Flags&hw.AdminViRdmaWrite != 0, EnableRdmaRead: m.Flags&hw.AdminViRdmaRead != 0,
		},
		SendQueueEmpty: m.Queues&hw.AdminViSendQueueEmpty != 0,
		RecvQueueEmpty: m.Queues&hw.AdminViRecvQueueEmpty != 0,
	}, nil
}

// SetVIAttributes replaces all the attributes of one of the session's VIs
// (VipSetViAttributes). The VI must be IDLE (VIP_INVALID_STATE); the
// driver checks the VI (VIP_INVALID_PARAMETER) and the ptag
// (VIP_INVALID_PTAG), the firmware the attributes as CreateVI's. On
// success the VI holds a use of the new ptag instead of the old.
func (s *Session) SetVIAttributes(ctx context.Context, vi VI, attrs VIAttrs) error {
	const op = "SetVIAttributes"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	if _, ok := s.ptags[attrs.Ptag]; !ok {
		return vipErr(op, hw.VipReturnInvalidPtag, nil, "ptag 0x%x is not a protection tag of session %q", uint32(attrs.Ptag), s.name)
	}
	m := hw.AdminModifyVi{Vi: uint32(vi), ReliabilityLevel: uint32(attrs.ReliabilityLevel), MaxTransferSize: attrs.MaxTransferSize,
		Ptag: uint32(attrs.Ptag), Flags: attrs.flags(), Qos: attrs.QoS}
	b := make([]byte, hw.AdminModifyViBytes)
	m.Marshal(b)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpModifyVi, b); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// ConnectLoopback connects two of the session's VIs to each other on this
// NIC (the loopback connection of docs/vi.md): both become CONNECTED, each
// the other's peer, and what one sends the other receives. The driver
// checks that a and b are the session's VIs (VIP_INVALID_PARAMETER); the
// firmware then checks, in this order, that both exist
// (VIP_INVALID_PARAMETER), that they differ (VIP_INVALID_PARAMETER), that
// both are IDLE (VIP_INVALID_STATE), that they have the same reliability
// level (VIP_INVALID_RELIABILITY_LEVEL) and the same MaxTransferSize
// (VIP_INVALID_MTU). VIP_ERROR_RESOURCE: the NIC did not take the new
// contexts (ST_INTERNAL) or the command failed.
func (s *Session) ConnectLoopback(ctx context.Context, a, b VI) error {
	const op = "ConnectLoopback"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, a); err != nil {
		return err
	}
	if err := s.viLookup(op, b); err != nil {
		return err
	}
	c := hw.AdminConnectLoopback{ViA: uint32(a), ViB: uint32(b)}
	buf := make([]byte, hw.AdminConnectLoopbackBytes)
	c.Marshal(buf)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpConnectLoopback, buf); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// ConnectRemote connects one of the session's VIs, IDLE, to VI peerVI of
// node peerNode without a handshake (admin CONNECT_REMOTE): it becomes
// CONNECTED, sends to that VI and takes messages only from it. The far VI
// must be connected back the same way on its node. This is the data path's
// bring-up and test connection between nodes (as a verbs QP moved to RTR
// by hand); the connection manager's handshake ends in the same state.
// Errors: the VI is not the session's or does not exist, peerNode is this
// node or above 255, peerVI above 65535 (VIP_INVALID_PARAMETER); not IDLE
// (VIP_INVALID_STATE); VIP_ERROR_RESOURCE as ConnectLoopback.
func (s *Session) ConnectRemote(ctx context.Context, vi VI, peerNode, peerVI uint32) error {
	const op = "ConnectRemote"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	c := hw.AdminConnectRemote{Vi: uint32(vi), PeerNode: peerNode, PeerVi: peerVI}
	buf := make([]byte, hw.AdminConnectRemoteBytes)
	c.Marshal(buf)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpConnectRemote, buf); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// Disconnect disconnects one of the session's VIs (VipDisconnect): the VI
// and its peer (when it is on this NIC) go back to IDLE. The driver checks the VI
// (VIP_INVALID_PARAMETER); the firmware answers VIP_INVALID_STATE unless
// it is CONNECTED. Descriptors still queued on either VI stay queued (the
// flush on disconnect is not built yet).
func (s *Session) Disconnect(ctx context.Context, vi VI) error {
	const op = "Disconnect"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	if _, _, err := s.n.Admin(ctx, hw.AdminOpDisconnectVi, viArgs(vi)); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// VIs returns the session's VIs, in increasing order.
func (s *Session) VIs() []VI {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	vs := make([]VI, 0, len(s.vis))
	for v := range s.vis {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}
