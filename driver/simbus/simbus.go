// Package simbus makes a driver connection of the co-simulation bridge (a
// *cosim.Conn) a driver.Bus, so that the driver runs a simulated NIC:
//
//	conn, err := sim.Dial(ctx, cosim.Options{Role: cosim.RoleDriver, Node: 0, Interrupts: true})
//	bus, err := simbus.New(conn)
//	nic, err := driver.Open(ctx, bus, driver.Options{})
//
// Errors of the bridge keep their cosim sentinels (errors.Is(err,
// cosim.ErrClosed) still holds) and also match the driver's bus sentinels:
// cosim.ErrTimeout is driver.ErrBusTimeout, cosim.ErrClosed
// driver.ErrBusClosed, cosim.ErrBusError driver.ErrBusError, cosim.ErrDeadlock
// driver.ErrBusStalled.
//
// Layer: the adapter between the bridge client and the driver. It imports
// cosim, driver and the standard library only; the driver itself never
// imports cosim.
package simbus

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
)

// Bus is a driver connection seen as a driver.Bus.
type Bus struct {
	c    *cosim.Conn
	once sync.Once
	irqs chan driver.Interrupt
}

var _ driver.Bus = (*Bus)(nil)

// New adapts c, which must be a driver connection (cosim.RoleDriver). The
// Conn stays the caller's: closing it ends the Bus. If c was dialed with
// Interrupts, its interrupts are forwarded to Interrupts() by a goroutine
// that ends when c closes; do not read c.Interrupts() yourself then.
func New(c *cosim.Conn) (*Bus, error) {
	if c == nil {
		return nil, errors.New("simbus: nil connection")
	}
	if c.Role() != cosim.RoleDriver {
		return nil, fmt.Errorf("simbus: the driver needs a driver connection, not a %v connection", c.Role())
	}
	return &Bus{c: c}, nil
}

// Conn returns the adapted connection.
func (b *Bus) Conn() *cosim.Conn { return b.c }

// Read32 reads BAR0 (cosim.Conn.Read32).
func (b *Bus) Read32(ctx context.Context, off uint32) (uint32, error) {
	v, err := b.c.Read32(ctx, off)
	return v, wrap(err)
}

// Read64 reads BAR0 (cosim.Conn.Read64).
func (b *Bus) Read64(ctx context.Context, off uint32) (uint64, error) {
	v, err := b.c.Read64(ctx, off)
	return v, wrap(err)
}

// Write32 posts a write (cosim.Conn.Write32).
func (b *Bus) Write32(ctx context.Context, off uint32, v uint32) error {
	return wrap(b.c.Write32(ctx, off, v))
}

// Write64 posts a write (cosim.Conn.Write64).
func (b *Bus) Write64(ctx context.Context, off uint32, v uint64) error {
	return wrap(b.c.Write64(ctx, off, v))
}

// Flush sends the posted writes (cosim.Conn.Flush).
func (b *Bus) Flush(ctx context.Context) error { return wrap(b.c.Flush(ctx)) }

// WaitIRQ waits for an interrupt in mask (cosim.Conn.WaitIRQ).
func (b *Bus) WaitIRQ(ctx context.Context, mask uint32, timeoutCycles uint64) (driver.Interrupt, error) {
	irq, err := b.c.WaitIRQ(ctx, mask, timeoutCycles)
	return driver.Interrupt{Vector: irq.Vector, Cycle: irq.Cycle}, wrap(err)
}

// Interrupts returns the connection's interrupts as driver events (nil
// when the connection was dialed without Interrupts). The first call
// starts the goroutine that forwards them.
func (b *Bus) Interrupts() <-chan driver.Interrupt {
	b.once.Do(func() {
		src := b.c.Interrupts()
		b.irqs = make(chan driver.Interrupt, cap(src))
		go func() {
			defer close(b.irqs)
			for irq := range src {
				ev := driver.Interrupt{Vector: irq.Vector, Cycle: irq.Cycle}
				// Like the Conn's channel: when full, drop the oldest.
				for sent := false; !sent; {
					select {
					case b.irqs <- ev:
						sent = true
					default:
						select {
						case <-b.irqs:
						default:
						}
					}
				}
			}
		}()
	})
	return b.irqs
}

// Run lets simulated time pass (cosim.Conn.Run).
func (b *Bus) Run(ctx context.Context, cycles uint64) (uint64, error) {
	c, err := b.c.Run(ctx, cycles)
	return c, wrap(err)
}

// Cycle returns the last simulated cycle the connection saw.
func (b *Bus) Cycle() uint64 { return b.c.LastCycle() }

// Info describes the simulated NIC from the handshake's device description.
func (b *Bus) Info() driver.BusInfo {
	d := b.c.Device()
	return driver.BusInfo{
		Node:        b.c.Node(),
		Nodes:       d.Nodes,
		BARBytes:    d.BARBytes,
		IRQs:        d.IRQs,
		MapHash:     d.MapHash,
		ClockPS:     d.ClockPS,
		FreeRunning: d.Mode == cosim.ModeFreeRun,
	}
}

// AttachMemory attaches m, which must be a *cosim.Memory (memory the
// simulator can map), as the node's host memory.
func (b *Bus) AttachMemory(ctx context.Context, m driver.HostMemory) error {
	cm, ok := m.(*cosim.Memory)
	if !ok {
		return fmt.Errorf("simbus: host memory must be a *cosim.Memory (shared with the simulator), not %T", m)
	}
	return wrap(b.c.AttachMemory(ctx, cm))
}

// busError is a bridge error that also matches a driver sentinel.
type busError struct {
	err, sentinel error
}

func (e *busError) Error() string   { return e.err.Error() }
func (e *busError) Unwrap() []error { return []error{e.err, e.sentinel} }

// wrap adds the driver sentinel matching a bridge error.
func wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cosim.ErrTimeout):
		return &busError{err, driver.ErrBusTimeout}
	case errors.Is(err, cosim.ErrClosed):
		return &busError{err, driver.ErrBusClosed}
	case errors.Is(err, cosim.ErrBusError):
		return &busError{err, driver.ErrBusError}
	case errors.Is(err, cosim.ErrDeadlock):
		return &busError{err, driver.ErrBusStalled}
	}
	return err
}
