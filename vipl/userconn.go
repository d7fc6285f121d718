package vipl

import (
	"context"
	"errors"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
)

// The process's own bridge connection (docs/vipl.md, "Doorbells"): OpenNic
// opens, beside the driver's connection, a user-role connection that
// presents the session's doorbell token (driver.Session.Token). The driver
// grants each VI's doorbell page to that token when it creates the VI and
// takes it back when it destroys it, so the bridge itself refuses a write
// to any other page. Doorbells ring on this connection: posted writes, no
// round trip.
//
// Lockstep: simbus.User keeps the connection blocked (an endless wait) so
// that it never holds simulated time; and before the process blocks
// through the agent (a wait, a poll interval, an admin command) the agent
// fences it (simbus.User.Fence), so that writes sent while time was frozen
// are applied at the instant time next advances, in every run.

// DialUser opens the agent's user connection to node of the simulator at
// address; from then on MapDoorbell maps doorbell pages on it instead of on
// the driver's connection. OpenNic calls it; Close closes the connection
// (before what OpenNic opened underneath). Call it once, before any
// MapDoorbell.
func (a *LocalAgent) DialUser(ctx context.Context, address string, node int, name string) error {
	u, err := simbus.DialUser(ctx, address, node, a.s.Token(), name)
	if err != nil {
		return agentErr("OpenNic", err)
	}
	a.user = u
	return nil
}

// fence orders the user connection's writes before what the caller does
// next on the driver's connection (see simbus.User).
func (a *LocalAgent) fence(ctx context.Context) error {
	if a.user == nil {
		return nil
	}
	return a.user.Fence(ctx)
}

// closeUser closes the user connection, if any.
func (a *LocalAgent) closeUser() error {
	if a.user == nil {
		return nil
	}
	return a.user.Close()
}

// userDoorbell is a doorbell page mapped on the user connection.
type userDoorbell struct {
	u    *simbus.User
	base uint32 // the page's BAR0 offset
}

func userErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, simbus.ErrRefused) {
		return &Error{Op: op, Code: InvalidParameter, Detail: "the bridge refused a doorbell write: the page is not granted to the process", Cause: err}
	}
	return agentErr(op, err)
}

func (d userDoorbell) SetHandle(ctx context.Context, q Queue, h MemHandle) error {
	return userErr("SetHandle", d.u.Write32(ctx, d.base+uint32(q)*driver.QueueStride+driver.HandleOffset, uint32(h)))
}

func (d userDoorbell) Ring(ctx context.Context, q Queue, va uint64) error {
	return userErr("Ring", d.u.Write64(ctx, d.base+uint32(q)*driver.QueueStride+driver.DoorbellOffset, va))
}
