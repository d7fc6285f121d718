// Package driver is the vianic kernel agent: it opens a NIC over a Bus (a
// small interface of its own: MMIO, interrupts, device time, host memory;
// driver/simbus makes a co-simulation bridge connection one), checks its
// identity and register map, brings up its control processor
// (soft reset, firmware download into the instruction memory, release,
// wait for FW_READY), and talks to the firmware through the admin mailbox
// (docs/admin.md). It turns the firmware's log FIFO into slog records and
// turns traps and hangs of the firmware into errors (FirmwareFault,
// ErrFirmwareHung) that the caller can recover from (NIC.Recover).
//
// It also runs the DMA diagnostic engine (DiagCopy), which needs no
// firmware: Options.NoBoot opens a NIC for such bus-level functions
// without booting it.
//
// Layer: driver imports internal/hw (the generated register and admin
// layouts), the firmware package (the image it embeds) and the standard
// library. It is hardware-neutral: it never imports cosim (the simulator's
// bridge is reached through driver/simbus) nor vipl (the user library
// builds on the driver, not the other way round).
//
// Time. Every deadline of the driver (boot, admin commands, the watchdog
// probe) is counted in simulated NIC cycles, never in wall-clock time, so a
// test gives the same answer on a loaded machine and in lockstep mode the
// same cycle counts on every run. A NIC does nothing in the background on
// its own: in lockstep mode background traffic (a goroutine doing MMIO on
// its own schedule) would make cycle counts depend on the Go scheduler, so
// the watchdog (NIC.Watchdog) runs only when the caller starts it, and is
// meant for free-run mode. The only goroutine a NIC starts itself listens
// to the bus's interrupt channel and never touches the bus in lockstep
// mode.
//
// In lockstep mode time advances only while every client of the simulator
// is blocked: a caller that holds a NIC open and does nothing stops the
// clock for every node. Tests that drive several nodes keep each one waiting
// on the simulator (Bus.Run) while another works.
//
// A NIC is safe for concurrent use; the mailbox holds one command at a
// time, so admin commands are serialized.
package driver
