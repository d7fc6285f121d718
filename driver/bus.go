package driver

import (
	"context"

	"github.com/vianic/vianic/cosim"
)

// bus is what the driver needs from a driver connection: *cosim.Conn
// provides it; unit tests substitute a model of the NIC.
type bus interface {
	Read32(ctx context.Context, off uint32) (uint32, error)
	Read64(ctx context.Context, off uint32) (uint64, error)
	Write32(ctx context.Context, off uint32, v uint32) error
	Write64(ctx context.Context, off uint32, v uint64) error
	Flush(ctx context.Context) error
	WaitIRQ(ctx context.Context, mask uint32, timeoutCycles uint64) (cosim.IRQ, error)
	Run(ctx context.Context, cycles uint64) (uint64, error)
	LastCycle() uint64
	Device() cosim.Device
	Node() int
	Role() cosim.Role
	Interrupts() <-chan cosim.IRQ
}

var _ bus = (*cosim.Conn)(nil)
