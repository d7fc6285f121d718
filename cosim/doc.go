// Package cosim is the Go client of the vianic simulator: the lowest layer of
// the host side. It speaks the co-simulation protocol (docs/cosim-protocol.md)
// over a Unix (or TCP) socket: the handshake and device description, MMIO
// reads and batched posted writes of BAR0, interrupts, waits on simulated
// time, trace and reset control. It also creates host memory (a memfd shared
// with the simulator). Starting and building the simulator process is
// internal/simulator's job.
//
// Layer: cosim is the bridge client only. It imports only the standard
// library and golang.org/x/sys/unix and knows nothing of VIA: no register
// map, no register names. The handshake reports the device's register-map
// hash (Device.MapHash); the driver checks it. driver/simbus makes a Conn
// the driver's bus; internal/simulator starts the process a Conn talks to.
//
// A Conn is safe for concurrent use by many goroutines. Every call that can
// block takes a context; when the context ends the call returns promptly
// (the request may still complete in the simulator), and the Conn stays
// usable: posted writes already accepted still go out, in order. When the
// simulator dies or the socket breaks, every blocked call returns an error
// wrapping ErrClosed and later calls fail at once.
//
// Posted writes (Write32, Write64) never wait for the simulator: they are
// appended to a buffer that is sent as one MMIO_WRITE message, by a
// background flusher, before any request that expects an answer (so a read
// always observes earlier writes of the same Conn), when the buffer is full,
// and on Flush. Errors caused by posted writes (an access refused to a user
// connection, a bus error) arrive later; see Options.OnAsyncError and
// Options.FailOnAsyncError.
//
// In lockstep mode the simulator holds a client's posted writes until the
// client blocks. A client that only posts writes still makes progress: when
// its queue in the simulator is full, the simulator counts it as blocked
// (flow control, protocol 1.1), lets time advance and drains the queue; the
// Conn's writes then wait in the socket meanwhile.
//
// A waiting caller reads the socket itself when no other goroutine does,
// so that an answer reaches it without a goroutine hand-off; while no call
// waits, a background goroutine reads it, delivering interrupts and
// noticing a simulator that went away.
//
// Simulated time: in lockstep mode time advances only while every client
// (monitors aside) waits for an answer. Two clients of one simulator must
// therefore both block for either to see time pass: a client that sits
// idle, connected, stops the clock for all (see the protocol's Time
// section). Canceling the context of a call that waits (WaitIRQ, WaitMem,
// Run, Read32/Read64) withdraws its request with a CANCEL message, so that
// the client stops counting as blocked; a read already on the bus completes
// and its answer is dropped. This package needs a simulator that speaks
// protocol 1.1 or later.
package cosim
