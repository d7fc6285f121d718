package simbus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/vianic/vianic/cosim"
)

// User is a process's own bridge connection to its node (role USER): its
// mapping of the doorbell pages the driver granted to its session's token
// (driver.Session.Token). The bridge refuses a write to any other page:
// the write has no effect and comes back as an error (cosim.ErrRefused)
// from the next Write or Sync.
//
// Lockstep. Simulated time advances only while every client is blocked or
// gone, and the process already waits through its driver connection (an
// interrupt wait, Run). So that this second connection never holds time
// up, it is always blocked: it keeps one WAIT irq with mask 0 outstanding
// (a wait nothing can end, with no deadline, so it neither wakes the
// simulator nor hides a deadlock; when the simulator reports one, the wait
// is renewed). Writes are posted behind that wait and applied as soon as
// they reach the simulator: ringing costs no round trip.
//
// Ordering across the two connections is the caller's business: the
// simulator applies what a client sent while time was frozen at the
// instant time next advances, but it reads the two sockets independently.
// Before the process blocks on the driver connection after writes here,
// it calls Sync, which returns once the simulator has taken every write
// sent so far (a STATS round trip, answered without simulated time), so
// they are applied at that same instant in every run. Sync does nothing
// when nothing was written since the last one.
//
// Close it before the driver's connection. When the node's driver goes
// away first (its connection closed, the node detached), the simulator
// ends the wait, and the connection closes itself: attached and no
// longer waiting, it would stop time for every client, so that one
// node's failure would hang the others instead of failing them. The next
// Write or Sync says why (errors.Is cosim.ErrClosed and
// cosim.ErrDetached), later ones fail with cosim.ErrClosed. Safe for
// concurrent use.
type User struct {
	c     *cosim.Conn
	dirty atomic.Bool

	mu   sync.Mutex
	errs []error

	parked chan struct{} // closed when the parking goroutine ends
}

// DialUser connects to node of the simulator at address (see SplitAddress)
// as a user presenting token.
func DialUser(ctx context.Context, address string, node int, token uint64, name string) (*User, error) {
	if address == "" {
		return nil, errors.New("simbus: DialUser: no simulator address")
	}
	u := &User{parked: make(chan struct{})}
	network, addr := SplitAddress(address)
	c, err := cosim.Dial(ctx, network, addr, cosim.Options{Role: cosim.RoleUser, Node: node, Token: token, Name: name,
		OnAsyncError: u.asyncError})
	if err != nil {
		return nil, fmt.Errorf("simbus: DialUser node %d: %w", node, err)
	}
	u.c = c
	if c.Device().Mode == cosim.ModeLockstep {
		go u.park()
	} else {
		close(u.parked)
	}
	return u, nil
}

// park keeps the connection blocked (see User); it closes the connection
// when the wait ends for good while it is open (the node's driver went
// away).
func (u *User) park() {
	defer close(u.parked)
	for {
		_, err := u.c.WaitIRQ(context.Background(), 0, 0)
		if errors.Is(err, cosim.ErrDeadlock) {
			continue
		}
		if !errors.Is(err, cosim.ErrClosed) {
			u.asyncError(fmt.Errorf("simbus: user connection of node %d: %w: its wait ended: %w", u.c.Node(), cosim.ErrClosed, err))
			u.c.Close()
		}
		return
	}
}

func (u *User) asyncError(err error) {
	u.mu.Lock()
	u.errs = append(u.errs, err)
	u.mu.Unlock()
}

// takeErr returns the refusals and bus errors reported since the last
// call, joined.
func (u *User) takeErr() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	err := errors.Join(u.errs...)
	u.errs = nil
	return err
}

// Write64 posts a 64-bit write of v to BAR0 offset off (low word first).
// It returns the errors of earlier writes that came back meanwhile.
func (u *User) Write64(ctx context.Context, off uint32, v uint64) error {
	if err := u.takeErr(); err != nil {
		return wrap(err)
	}
	u.dirty.Store(true)
	return wrap(u.c.Write64(ctx, off, v))
}

// Write32 posts a 32-bit write, as Write64.
func (u *User) Write32(ctx context.Context, off uint32, v uint32) error {
	if err := u.takeErr(); err != nil {
		return wrap(err)
	}
	u.dirty.Store(true)
	return wrap(u.c.Write32(ctx, off, v))
}

// Sync returns once the simulator has received every write posted so far
// (and checked it against the grants), with the errors reported for them
// (a refused write: errors.Is ErrRefused).
func (u *User) Sync(ctx context.Context) error {
	if err := u.Fence(ctx); err != nil {
		return err
	}
	return wrap(u.takeErr())
}

// Fence is Sync without the writes' errors, which stay for the next
// Write or Sync: it only orders the writes before what the process does
// next on its other connections.
func (u *User) Fence(ctx context.Context) error {
	if !u.dirty.Swap(false) {
		return nil
	}
	if err := u.c.Flush(ctx); err != nil {
		u.dirty.Store(true)
		return wrap(err)
	}
	if _, err := u.c.Stats(ctx); err != nil {
		u.dirty.Store(true)
		return wrap(err)
	}
	return nil
}

// ErrRefused matches a write the bridge refused (a page not granted to
// the token).
var ErrRefused = cosim.ErrRefused

// Close closes the connection (its posted writes are sent first).
func (u *User) Close() error {
	err := u.c.Close()
	<-u.parked
	return err
}
