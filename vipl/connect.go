package vipl

import (
	"context"
	"errors"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// Connection management between nodes (docs/fabric.md, "Connection
// management"): the client/server calls of the VIPL. A server waits on a
// discriminator of its NIC's address (ConnectWait) and accepts or rejects
// each request; a client asks with ConnectRequest and a VI. The
// connection managers of the two NICs carry it out in CONNECT frames.

// CMEventType says what a CMEvent is.
type CMEventType uint32

// Connection-management event types.
const (
	CMNone      CMEventType = CMEventType(hw.AdminCmEvNone)
	CMRequest   CMEventType = CMEventType(hw.AdminCmEvRequest)
	CMConnected CMEventType = CMEventType(hw.AdminCmEvConnected)
	CMRejected  CMEventType = CMEventType(hw.AdminCmEvRejected)
)

// CMEvent is a connection-management event, as the kernel agent reports
// it.
type CMEvent struct {
	Type     CMEventType
	ID       uint32 // CMRequest: the listen id; CMConnected, CMRejected: the VI
	ConnID   uint32
	Node     uint32 // the other end's node
	RemoteVI ViID
	Attrs    ViAttributes // the other end's (level, MaxTransferSize, RDMA enables)
	Reason   Return       // CMRejected: why
	Disc     []byte       // CMRequest: the discriminator
}

func cmEventOf(e driver.CMEvent) CMEvent {
	c := CMEvent{Type: CMEventType(e.Type), ID: e.Id, ConnID: e.ConnId, Node: e.Node, RemoteVI: ViID(e.RemoteVi),
		Attrs: ViAttributes{ReliabilityLevel: ReliabilityLevel(e.Reliability), MaxTransferSize: e.MaxTransfer,
			EnableRdmaWrite: e.Flags&hw.AdminViRdmaWrite != 0, EnableRdmaRead: e.Flags&hw.AdminViRdmaRead != 0}}
	if c.Type == CMRejected {
		c.Reason = Return(driver.CMReasonCode(e.Reason))
	}
	if n := int(e.DiscLen); n > 0 && n <= 8 {
		for i := range n {
			c.Disc = append(c.Disc, byte(e.Discriminator>>(8*i)))
		}
	}
	return c
}

// ConnRequest is a connection request that came in (VipConnectWait's
// connection handle): accept it with a VI (Vi.ConnectAccept) or reject it
// (Reject).
type ConnRequest struct {
	nic    *Nic
	connID uint32
	// Remote is the requester's address: its node, and the discriminator
	// it asked for.
	Remote NetAddress
	// RemoteAttrs are the requesting VI's attributes.
	RemoteAttrs ViAttributes
	remoteVI    ViID
}

// ConnectWait waits up to timeoutMs milliseconds of simulated time
// (Infinite: no limit) for a connection request on local's discriminator
// (VipConnectWait; local.Host is this NIC's address or empty) and returns
// it. The NIC listens only while a ConnectWait runs: a request that comes
// when none does is refused (the requester gets VIP_NO_MATCH). Errors: a
// discriminator longer than 8 bytes (VIP_INVALID_PARAMETER), another
// ConnectWait on the same discriminator (VIP_ERROR_RESOURCE), nothing
// within the timeout (VIP_TIMEOUT).
func (n *Nic) ConnectWait(ctx context.Context, local NetAddress, timeoutMs uint32) (*ConnRequest, error) {
	const op = "ConnectWait"
	if err := n.checkLocked(op); err != nil {
		return nil, err
	}
	listen, err := n.agent.Listen(ctx, local.Discriminator)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	defer n.agent.Unlisten(context.WithoutCancel(ctx), listen) //nolint:errcheck // nothing to do about it
	ev, err := n.agent.WaitCM(ctx, func(e CMEvent) bool { return e.Type == CMRequest && e.ID == listen },
		n.timeoutCycles(timeoutMs))
	if err != nil {
		return nil, wrapErr(op, err)
	}
	disc := append([]byte(nil), local.Discriminator...)
	return &ConnRequest{nic: n, connID: ev.ConnID, Remote: NetAddress{Host: []byte{byte(ev.Node)}, Discriminator: disc},
		RemoteAttrs: ev.Attrs, remoteVI: ev.RemoteVI}, nil
}

// Reject refuses the request (VipConnectReject): the requester gets
// VIP_REJECT.
func (r *ConnRequest) Reject(ctx context.Context) error {
	const op = "ConnectReject"
	if err := r.nic.checkLocked(op); err != nil {
		return err
	}
	return wrapErr(op, r.nic.agent.ConnectReject(ctx, r.connID))
}

// ConnectAccept accepts r with the VI (VipConnectAccept): the VI must be
// IDLE and have the requester's reliability level
// (VIP_INVALID_RELIABILITY_LEVEL) and MaxTransferSize (VIP_INVALID_MTU;
// the requester is refused with the same code); then both VIs are
// CONNECTED. A request already answered: VIP_INVALID_PARAMETER.
func (v *Vi) ConnectAccept(ctx context.Context, r *ConnRequest) error {
	const op = "ConnectAccept"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	if r == nil || r.nic != v.nic {
		return newErr(op, InvalidParameter, nil, "the request is not one of this NIC's")
	}
	if err := v.nic.agent.ConnectAccept(ctx, r.connID, v.id); err != nil {
		return wrapErr(op, err)
	}
	v.mu.Lock()
	v.state, v.peer = ViConnected, nil
	v.mu.Unlock()
	return nil
}

// ConnectRequest connects the VI (IDLE) to the VI that waits on remote's
// discriminator on remote's node (VipConnectRequest; local is this NIC's
// address or empty) and returns the remote VI's attributes. It waits up to
// timeoutMs milliseconds of simulated time (Infinite: no limit); on
// expiry the request is withdrawn and the VI is IDLE again (VIP_TIMEOUT).
// Refusals: VIP_REJECT (the server rejected it), VIP_NO_MATCH (nobody
// waits on the discriminator), VIP_INVALID_RELIABILITY_LEVEL and
// VIP_INVALID_MTU (the attributes differ). A VI not IDLE:
// VIP_INVALID_STATE; an address that is not a vianic node's:
// VIP_INVALID_PARAMETER.
func (v *Vi) ConnectRequest(ctx context.Context, local, remote NetAddress, timeoutMs uint32) (ViAttributes, error) {
	const op = "ConnectRequest"
	if err := v.nic.checkLocked(op); err != nil {
		return ViAttributes{}, err
	}
	node, ok := remote.Node()
	if !ok {
		return ViAttributes{}, newErr(op, InvalidParameter, nil, "%v is not a vianic host address (one byte: the node)", remote.Host)
	}
	if _, err := v.nic.agent.ConnectRequest(ctx, v.id, uint32(node), remote.Discriminator); err != nil {
		return ViAttributes{}, wrapErr(op, err)
	}
	v.mu.Lock()
	v.state = ViConnectPending
	v.mu.Unlock()
	ev, err := v.nic.agent.WaitCM(ctx, func(e CMEvent) bool {
		return (e.Type == CMConnected || e.Type == CMRejected) && e.ID == uint32(v.id)
	}, v.nic.timeoutCycles(timeoutMs))
	if err != nil {
		// withdrawn: back to IDLE (an answer that comes later is ignored)
		if cerr := v.nic.agent.ConnectCancel(context.WithoutCancel(ctx), v.id); cerr == nil {
			v.mu.Lock()
			v.state = ViIdle
			v.mu.Unlock()
		}
		return ViAttributes{}, wrapErr(op, err)
	}
	return v.outcome(op, ev)
}

// outcome takes the answer to the VI's connection request (CONNECTED or
// REJECTED) into the VI's state and returns the remote attributes or the
// refusal's code.
func (v *Vi) outcome(op string, ev CMEvent) (ViAttributes, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.peerPending = 0
	if ev.Type == CMRejected {
		v.state = ViIdle
		return ViAttributes{}, newErr(op, ev.Reason, errors.New("refused by the remote connection manager"), "node %d refused the connection", ev.Node)
	}
	v.state, v.peer = ViConnected, nil
	return ev.Attrs, nil
}

// ConnectPeerRequest starts a peer-to-peer connection of the VI (IDLE)
// with the VI of remote's node that asks for the same discriminator
// (VipConnectPeerRequest; local is this NIC's address or empty) and
// returns at once: ConnectPeerDone looks whether it is done,
// ConnectPeerWait waits for it. Whichever side asks first waits for the
// other. Errors: a VI not IDLE (VIP_INVALID_STATE), an address that is not
// a vianic node's (VIP_INVALID_PARAMETER).
func (v *Vi) ConnectPeerRequest(ctx context.Context, local, remote NetAddress) error {
	const op = "ConnectPeerRequest"
	if err := v.nic.checkLocked(op); err != nil {
		return err
	}
	node, ok := remote.Node()
	if !ok {
		return newErr(op, InvalidParameter, nil, "%v is not a vianic host address (one byte: the node)", remote.Host)
	}
	if _, err := v.nic.agent.ConnectPeerRequest(ctx, v.id, uint32(node), remote.Discriminator); err != nil {
		return wrapErr(op, err)
	}
	v.mu.Lock()
	v.state, v.peerPending = ViConnectPending, uint32(node)+1
	v.mu.Unlock()
	return nil
}

// ConnectPeerDone looks whether the VI's peer-to-peer connection is made
// (VipConnectPeerDone): the remote VI's attributes when it is, VIP_NOT_DONE
// while it is not (in lockstep the look lets one cycle pass), the refusal
// (VIP_INVALID_RELIABILITY_LEVEL, VIP_INVALID_MTU) when the attributes
// differed. No request pending: VIP_INVALID_STATE.
func (v *Vi) ConnectPeerDone(ctx context.Context) (ViAttributes, error) {
	return v.peerWait(ctx, "ConnectPeerDone", 1)
}

// ConnectPeerWait waits up to timeoutMs milliseconds of simulated time
// (Infinite: no limit) for the VI's peer-to-peer connection
// (VipConnectPeerWait); see ConnectPeerDone. On VIP_TIMEOUT the request
// stays pending.
func (v *Vi) ConnectPeerWait(ctx context.Context, timeoutMs uint32) (ViAttributes, error) {
	return v.peerWait(ctx, "ConnectPeerWait", v.nic.timeoutCycles(timeoutMs))
}

func (v *Vi) peerWait(ctx context.Context, op string, cycles uint64) (ViAttributes, error) {
	if err := v.nic.checkLocked(op); err != nil {
		return ViAttributes{}, err
	}
	v.mu.Lock()
	pending := v.peerPending
	v.mu.Unlock()
	if pending == 0 {
		return ViAttributes{}, newErr(op, InvalidState, nil, "VI %d has no peer-to-peer request pending", v.id)
	}
	ev, err := v.nic.agent.WaitCM(ctx, func(e CMEvent) bool {
		return (e.Type == CMConnected || e.Type == CMRejected) && e.ID == uint32(v.id)
	}, cycles)
	if err != nil {
		if Code(err) == Timeout && op == "ConnectPeerDone" {
			return ViAttributes{}, newErr(op, NotDone, nil, "not connected yet")
		}
		return ViAttributes{}, wrapErr(op, err)
	}
	return v.outcome(op, ev)
}

// timeoutCycles converts a VIPL timeout in ms into simulated cycles (0:
// none).
func (n *Nic) timeoutCycles(ms uint32) uint64 {
	if ms == Infinite {
		return 0
	}
	return max(1, msToCycles(ms, n.agent.Events().ClockPS())) // 0 ms: look once
}
