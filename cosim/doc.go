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
package cosim
