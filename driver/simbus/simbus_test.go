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
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

func TestBus(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	m := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Name: "monitor"})
	_, err := simbus.New(m)
	assert.ErrorContains(t, err, "not a monitor connection")
	_, err = simbus.New(nil)
	assert.Error(t, err)

	c := simtest.Dial(t, s, cosim.Options{Node: 1, Interrupts: true, Name: t.Name()})
	b, err := simbus.New(c)
	require.NoError(t, err)
	d := c.Device()
	assert.Equal(t, driver.BusInfo{Node: 1, Nodes: d.Nodes, BARBytes: d.BARBytes, IRQs: d.IRQs, MapHash: d.MapHash, ClockPS: d.ClockPS}, b.Info())
	assert.Equal(t, 2, b.Info().Nodes, "the nodes on the fabric")

	// A wait that times out matches both the bridge's and the driver's
	// sentinel.
	_, err = b.WaitIRQ(ctx, 1<<31, 100)
	assert.ErrorIs(t, err, driver.ErrBusTimeout)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	assert.GreaterOrEqual(t, b.Cycle(), d.Cycle+100)

	// Host memory must be the simulator's kind.
	assert.ErrorContains(t, b.AttachMemory(ctx, plainMemory(make([]byte, 4096))), "*cosim.Memory")
	mem, err := cosim.NewMemory(4096)
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, b.AttachMemory(ctx, mem))

	// A NIC opened on it without booting sees the node's identity.
	n, err := driver.Open(ctx, b, driver.Options{NoBoot: true})
	require.NoError(t, err)
	assert.Equal(t, 1, n.Node())
	require.NoError(t, n.Close())

	// Once the connection is gone, calls match ErrBusClosed and ErrClosed.
	c.Close()
	_, err = b.Read32(ctx, 0)
	assert.ErrorIs(t, err, driver.ErrBusClosed)
	assert.ErrorIs(t, err, cosim.ErrClosed)
	select {
	case _, ok := <-b.Interrupts():
		assert.False(t, ok, "the interrupt channel closes with the connection")
	case <-time.After(5 * time.Second):
		t.Error("the interrupt channel did not close")
	}
}

type plainMemory []byte

func (p plainMemory) Bytes() []byte { return p }
func (p plainMemory) Size() int     { return len(p) }
