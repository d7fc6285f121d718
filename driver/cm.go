package driver

import (
	"context"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// Connection management (docs/fabric.md, "Connection management"): the
// firmware's connection manager through the admin commands CM_LISTEN ..
// CM_POLL. Its news (a request that came in on a listen, a request of ours
// accepted or rejected) comes as CM events: the firmware raises
// IRQ_STATUS.FW_EVENT, and whoever waits polls every event (CM_POLL) and
// keeps the ones that are not its own for their waiters (per NIC).

// CMEvent is one connection-management event (CM_EVENT).
type CMEvent = hw.AdminCmEvent

// Listen starts listening for connection requests on the discriminator
// disc (at most hw.AdminCmDiscMax bytes) and returns the listen id.
// VIP_INVALID_PARAMETER: disc too long; VIP_ERROR_RESOURCE: no room, or
// already listened on (ST_IN_USE).
func (s *Session) Listen(ctx context.Context, disc []byte) (uint32, error) {
	const op = "ConnectWait"
	if len(disc) > hw.AdminCmDiscMax {
		return 0, &VipError{Op: op, Code: hw.VipReturnInvalidParameter, Err: fmt.Errorf("driver: a discriminator of %d bytes (at most %d)", len(disc), hw.AdminCmDiscMax)}
	}
	c := hw.AdminCmListen{DiscLen: uint32(len(disc)), Discriminator: discWord(disc)}
	b := make([]byte, hw.AdminCmListenBytes)
	c.Marshal(b)
	_, rsp, err := s.n.Admin(ctx, hw.AdminOpCmListen, b)
	if err != nil {
		return 0, adminVip(op, err)
	}
	var id hw.AdminCmId
	id.Unmarshal(rsp)
	return id.Id, nil
}

// Unlisten stops listening (a request that waits for an answer is
// rejected).
func (s *Session) Unlisten(ctx context.Context, id uint32) error {
	return s.cmID(ctx, "ConnectWait", hw.AdminOpCmUnlisten, id)
}

// ConnectRequest asks node's connection manager to connect the session's
// VI (IDLE) to the VI that waits on disc; the VI is CONNECT_PENDING until
// WaitCM says CONNECTED or REJECTED for it. Returns the connection id.
func (s *Session) ConnectRequest(ctx context.Context, vi VI, node uint32, disc []byte) (uint32, error) {
	return s.request(ctx, "ConnectRequest", hw.AdminOpCmRequest, vi, node, disc)
}

// ConnectPeerRequest asks for a peer-to-peer connection of the session's VI
// (IDLE) with the VI of node that asks for the same discriminator
// (CM_PEER_REQUEST); the VI is CONNECT_PENDING until WaitCM says CONNECTED
// or REJECTED for it. Returns the connection id.
func (s *Session) ConnectPeerRequest(ctx context.Context, vi VI, node uint32, disc []byte) (uint32, error) {
	return s.request(ctx, "ConnectPeerRequest", hw.AdminOpCmPeerRequest, vi, node, disc)
}

func (s *Session) request(ctx context.Context, op string, opcode uint16, vi VI, node uint32, disc []byte) (uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return 0, err
	}
	if len(disc) > hw.AdminCmDiscMax {
		return 0, &VipError{Op: op, Code: hw.VipReturnInvalidParameter, Err: fmt.Errorf("driver: a discriminator of %d bytes (at most %d)", len(disc), hw.AdminCmDiscMax)}
	}
	c := hw.AdminCmRequest{Vi: uint32(vi), Node: node, DiscLen: uint32(len(disc)), Discriminator: discWord(disc)}
	b := make([]byte, hw.AdminCmRequestBytes)
	c.Marshal(b)
	_, rsp, err := s.n.Admin(ctx, opcode, b)
	if err != nil {
		return 0, adminVip(op, err)
	}
	var id hw.AdminCmId
	id.Unmarshal(rsp)
	return id.Id, nil
}

// ConnectAccept accepts the request connID (a REQUEST event) with the
// session's VI (IDLE): VIP_INVALID_RELIABILITY_LEVEL or VIP_INVALID_MTU
// when the VI's attributes differ from the requester's (the requester is
// told); VIP_INVALID_PARAMETER for a request that is no longer waiting.
func (s *Session) ConnectAccept(ctx context.Context, connID uint32, vi VI) error {
	const op = "ConnectAccept"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	c := hw.AdminCmAccept{ConnId: connID, Vi: uint32(vi)}
	b := make([]byte, hw.AdminCmAcceptBytes)
	c.Marshal(b)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpCmAccept, b); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// ConnectReject rejects the request connID.
func (s *Session) ConnectReject(ctx context.Context, connID uint32) error {
	return s.cmID(ctx, "ConnectReject", hw.AdminOpCmReject, connID)
}

// ConnectCancel gives up the pending request of the session's VI (a
// timeout): the VI goes back to IDLE.
func (s *Session) ConnectCancel(ctx context.Context, vi VI) error {
	const op = "ConnectRequest"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	if _, _, err := s.n.Admin(ctx, hw.AdminOpCmCancel, viArgs(vi)); err != nil {
		return adminVip(op, err)
	}
	return nil
}

func (s *Session) cmID(ctx context.Context, op string, opcode uint16, id uint32) error {
	c := hw.AdminCmId{Id: id}
	b := make([]byte, hw.AdminCmIdBytes)
	c.Marshal(b)
	if _, _, err := s.n.Admin(ctx, opcode, b); err != nil {
		return adminVip(op, err)
	}
	return nil
}

// WaitCM waits until a CM event that match accepts comes (and takes it),
// or timeoutCycles simulated cycles have passed (an error matching
// ErrBusTimeout; 0: no timeout), or ctx ends. Events that do not match
// are kept for other waiters of the NIC.
func (s *Session) WaitCM(ctx context.Context, match func(CMEvent) bool, timeoutCycles uint64) (CMEvent, error) {
	n := s.n
	w := n.FWEvents()
	var deadline uint64
	if timeoutCycles > 0 {
		deadline = n.b.Cycle() + timeoutCycles
	}
	for {
		g := w.Gen()
		if ev, ok, err := n.takeCM(ctx, match); err != nil || ok {
			return ev, err
		}
		var left uint64
		if deadline != 0 {
			now := n.b.Cycle()
			if now >= deadline {
				return CMEvent{}, fmt.Errorf("%w: no connection-management event within %d cycles", ErrBusTimeout, timeoutCycles)
			}
			left = deadline - now
		}
		if _, err := w.Wait(ctx, g, left); err != nil {
			return CMEvent{}, err
		}
	}
}

// takeCM polls every event the firmware holds into the NIC's pending list
// and takes the first one match accepts.
func (n *NIC) takeCM(ctx context.Context, match func(CMEvent) bool) (CMEvent, bool, error) {
	n.cmMu.Lock()
	defer n.cmMu.Unlock()
	for {
		_, rsp, err := n.Admin(ctx, hw.AdminOpCmPoll, nil)
		if err != nil {
			return CMEvent{}, false, err
		}
		var ev CMEvent
		ev.Unmarshal(rsp)
		if ev.Lost != 0 {
			n.log.Warn("connection-management events lost (the firmware's queue was full)", "lost", ev.Lost)
		}
		if ev.Type == hw.AdminCmEvNone {
			break
		}
		if len(n.cmPending) >= maxCMPending {
			// nobody takes them (a DISCONNECTED event nobody waits
			// for): the oldest goes
			n.log.Warn("connection-management event dropped: nobody took it", "type", n.cmPending[0].Type, "id", n.cmPending[0].Id)
			n.cmPending = n.cmPending[1:]
		}
		n.cmPending = append(n.cmPending, ev)
	}
	for i, ev := range n.cmPending {
		if match(ev) {
			n.cmPending = append(n.cmPending[:i], n.cmPending[i+1:]...)
			return ev, true, nil
		}
	}
	return CMEvent{}, false, nil
}

// maxCMPending is how many polled events a NIC keeps for their waiters.
const maxCMPending = 256

// CMReasonCode is the VIP code of a REJECTED event's reason.
func CMReasonCode(reason uint8) hw.VipReturn {
	switch reason {
	case hw.WireCmReasonRejected:
		return hw.VipReturnReject
	case hw.WireCmReasonReliability:
		return hw.VipReturnInvalidReliabilityLevel
	case hw.WireCmReasonMtu:
		return hw.VipReturnInvalidMtu
	case hw.WireCmReasonNoMatch:
		return hw.VipReturnNoMatch
	}
	return hw.VipReturnErrorResource
}

func discWord(d []byte) uint64 {
	var v uint64
	for i := len(d) - 1; i >= 0; i-- {
		v = v<<8 | uint64(d[i])
	}
	return v
}
