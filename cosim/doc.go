// Package cosim is the Go client of the vianic simulator: the lowest layer of
// the host side. It speaks the co-simulation protocol (docs/cosim-protocol.md)
// over a Unix (or TCP) socket: the handshake and device description, MMIO
// reads and batched posted writes of BAR0, interrupts, waits on simulated
// time, trace and reset control. It also creates host memory (a memfd shared
// with the simulator), and starts, builds and stops the simulator process.
//
// Layer: cosim imports only the standard library, golang.org/x/sys/unix and
// cosim/hw (the generated register map). The driver and vipl packages build
// on it; nothing here knows about VIA.
//
// A Conn is safe for concurrent use by many goroutines. Every call that can
// block takes a context; when the context ends the call returns promptly
// (the request may still complete in the simulator). When the simulator dies
// or the socket breaks, every blocked call returns an error wrapping
// ErrClosed and later calls fail at once.
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
// client blocks. A driver Conn therefore inserts a read of MAGIC after
// 262,144 posted writes that no read followed, so that a long burst of
// writes cannot fill the simulator's queue (it would stop reading the
// socket, and a client that only writes would wait forever).
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
// section). Canceling a call's context does not withdraw its request (the
// protocol cannot); the simulator still counts the client as blocked until
// the request completes.
package cosim
