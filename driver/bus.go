package driver

import (
	"context"
	"errors"
)

// Bus is how the driver reaches one NIC: its BAR0 registers, its interrupt
// lines, its clock and the host memory it may reach by DMA. The driver
// knows nothing else of what is behind it. The simulator's bridge
// connection is one implementation (driver/simbus adapts a *cosim.Conn); a
// driver for real hardware would map the PCIe BAR and an interrupt
// eventfd; the driver's unit tests use a model of the NIC.
//
// Implementations are safe for concurrent use. Calls that can block take a
// context and return promptly when it ends.
type Bus interface {
	// Read32 and Read64 read BAR0 at byte offset off (aligned to the
	// access size). A read returns after every earlier write of this Bus
	// has reached the NIC.
	Read32(ctx context.Context, off uint32) (uint32, error)
	Read64(ctx context.Context, off uint32) (uint64, error)
	// Write32 and Write64 write BAR0. They may be posted: they return
	// before the NIC has applied them, in order, and a later read or
	// Flush pushes them out. An error of a posted write may be reported
	// by a later call.
	Write32(ctx context.Context, off uint32, v uint32) error
	Write64(ctx context.Context, off uint32, v uint64) error
	// Flush hands the posted writes to the NIC.
	Flush(ctx context.Context) error

	// WaitIRQ blocks until one of the interrupt lines in mask is high
	// and returns the lines that are (Interrupt.Vector) with the cycle.
	// With timeoutCycles > 0 it gives up after that many device cycles
	// with an error matching ErrBusTimeout (0: no timeout).
	WaitIRQ(ctx context.Context, mask uint32, timeoutCycles uint64) (Interrupt, error)
	// Interrupts returns a channel that receives an event whenever the
	// interrupt lines gain a set bit, if the bus was set up to deliver
	// them (a nil channel otherwise). It is closed when the bus closes.
	Interrupts() <-chan Interrupt

	// Run lets the device run for cycles clock cycles (in lockstep, time
	// passes only while every client waits) and returns the cycle
	// reached. Cycle returns the device cycle last seen by this Bus.
	Run(ctx context.Context, cycles uint64) (uint64, error)
	Cycle() uint64

	// Info describes the device behind the bus.
	Info() BusInfo

	// AttachMemory makes m the host memory the NIC reaches by DMA (host
	// addresses 0 to m.Size()-1). A Bus may accept only memory it can
	// share with the device (the simulator's bus needs a *cosim.Memory).
	AttachMemory(ctx context.Context, m HostMemory) error
}

// Interrupt is an interrupt event: the NIC's interrupt lines that are high
// and the device cycle at which the bus saw them.
type Interrupt struct {
	Vector uint32
	Cycle  uint64
}

// BusInfo describes the device behind a Bus.
type BusInfo struct {
	Node     int    // node (device) index behind the bus
	Nodes    int    // devices on the bus's fabric (0: unknown)
	BARBytes uint32 // size of BAR0
	IRQs     int    // interrupt lines
	// MapHash is the register-map hash the bus reports for the device
	// (0: the bus does not know it). The driver checks it, and the
	// MAP_HASH registers, against the map it was built from.
	MapHash uint64
	ClockPS uint32 // picoseconds per device clock cycle (0: unknown)
	// FreeRunning says the device's time advances on its own (real
	// hardware, a free-running simulator); false: lockstep, time passes
	// only while every client of the simulator waits.
	FreeRunning bool
}

// HostMemory is host memory the NIC can reach by DMA.
type HostMemory interface {
	Bytes() []byte // the memory; host address a is Bytes()[a]
	Size() int
}

// Errors a Bus reports with these meanings wrap them, so that errors.Is
// works on them whatever the bus.
var (
	// ErrBusTimeout means a wait ended because its timeout in device
	// cycles passed.
	ErrBusTimeout = errors.New("driver: bus: timed out in device time")
	// ErrBusClosed means the bus is gone (closed, or the device or
	// simulator went away).
	ErrBusClosed = errors.New("driver: bus: closed")
	// ErrBusError means the NIC answered an MMIO access with an error
	// response.
	ErrBusError = errors.New("driver: bus: MMIO error response")
	// ErrBusStalled means a wait without a timeout cannot end as things
	// stand: the device is idle and every other user of it waits too (a
	// lockstep simulator's deadlock report). Another user that comes
	// later may still end it.
	ErrBusStalled = errors.New("driver: bus: stalled, nothing can end the wait")
)
