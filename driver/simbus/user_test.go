package simbus_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// In lockstep a user connection whose node's driver went away (its wait
// ended by the detach) closes itself: attached and no longer waiting, it
// would stop time for the other nodes' clients for good.
func TestUserClosesWhenNodeDetaches(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, Mode: cosim.ModeLockstep})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d0 := simtest.Dial(t, s, cosim.Options{Node: 0, Name: "detach test node 0"})
	d1 := simtest.Dial(t, s, cosim.Options{Node: 1, Name: "detach test node 1"})
	u, err := simbus.DialUser(ctx, s.Addr(), 1, 0x5eed, "detach test doorbells")
	require.NoError(t, err)
	defer u.Close()

	// Time runs while both drivers wait (the user connection's wait
	// starts with it).
	both := func(n uint64) {
		errs := make(chan error, 1)
		go func() {
			_, err := d1.Run(ctx, n)
			errs <- err
		}()
		_, err := d0.Run(ctx, n)
		require.NoError(t, err)
		require.NoError(t, <-errs)
	}
	both(10)
	c0 := d0.LastCycle()

	// Node 1's driver goes: node 0 alone goes on.
	require.NoError(t, d1.Close())
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	defer rcancel()
	c, err := d0.Run(rctx, 100)
	require.NoError(t, err, "time stopped: the user connection of the detached node holds it")
	assert.GreaterOrEqual(t, c, c0+100)

	// Its next write says why; later ones find it closed.
	page := uint32(hw.DoorbellBase + driver.HandleOffset)
	err = u.Write32(ctx, page, 1)
	assert.ErrorIs(t, err, cosim.ErrClosed)
	assert.ErrorIs(t, err, cosim.ErrDetached)
	assert.ErrorIs(t, u.Write32(ctx, page, 1), cosim.ErrClosed)
	assert.NoError(t, u.Close())
}
