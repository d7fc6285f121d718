package cosim

import (
	"errors"
	"fmt"
)

// Sentinel errors; check them with errors.Is.
var (
	// ErrClosed is returned by every call on a Conn that is closed, by Close
	// or because the simulator went away or broke the protocol; the error
	// wraps the cause.
	ErrClosed = errors.New("cosim: connection closed")
	// ErrVersion means the simulator speaks another major protocol version.
	ErrVersion = errors.New("cosim: protocol version mismatch")
	// ErrTimeout means a wait ended because its timeout in simulated cycles
	// passed.
	ErrTimeout = errors.New("cosim: timed out in simulated time")
	// ErrDeadlock is matched by *DeadlockError.
	ErrDeadlock = errors.New("cosim: deadlock")
	// ErrAborted means the simulator abandoned a wait (the node was reset or
	// detached).
	ErrAborted = errors.New("cosim: wait aborted")
	// ErrDetached means the node has no driver connection (its host memory
	// and state are gone).
	ErrDetached = errors.New("cosim: node detached")
	// ErrRefused means the access is outside the connection's rights.
	ErrRefused = errors.New("cosim: access refused")
	// ErrBusError means the NIC answered an MMIO access with SLVERR or
	// DECERR.
	ErrBusError = errors.New("cosim: bus error")
	// ErrBusy means the node already has a driver connection, or the
	// simulator already has its maximum of clients (--max-clients).
	ErrBusy = errors.New("cosim: node busy")
)

// ErrorCode (the code of an ERROR message, or the status of an ACK) and
// its constants CodeMalformed... are generated into proto_gen.go.

// String returns the protocol's name of the code.
func (c ErrorCode) String() string {
	if name, ok := codeNames[c]; ok {
		return name
	}
	return fmt.Sprintf("code %d", uint16(c))
}

// RemoteError is an error reported by the simulator: an ERROR message, or
// an ACK with a non-zero status (then only Code and RefType are set).
type RemoteError struct {
	Code      ErrorCode
	Fatal     bool   // the simulator closes the connection after it
	RefType   uint16 // type of the message it refers to
	RefOffset uint64 // BAR0 offset of the access it refers to, if any
	Tag       uint32 // tag of the message it refers to; 0 for posted writes
	Text      string // the simulator's explanation
}

// Error describes the error as "cosim: simulator: CODE on MSG [at offset]: text".
func (e *RemoteError) Error() string {
	s := fmt.Sprintf("cosim: simulator: %v", e.Code)
	if e.RefType != 0 {
		s += " on " + msgName(e.RefType)
	}
	if e.RefType == msgMMIOWrite || e.RefType == msgMMIORead || e.RefOffset != 0 {
		s += fmt.Sprintf(" at 0x%x", e.RefOffset)
	}
	if e.Fatal {
		s += " (fatal)"
	}
	if e.Text != "" {
		s += ": " + e.Text
	}
	return s
}

// Is matches the sentinel errors that correspond to the code.
func (e *RemoteError) Is(target error) bool {
	switch target {
	case ErrRefused:
		return e.Code == CodeRefused || e.Code == CodeRole
	case ErrBusError:
		return e.Code == CodeBusError
	case ErrVersion:
		return e.Code == CodeVersion
	case ErrBusy:
		return e.Code == CodeBusy
	}
	return false
}

// BusError is an MMIO read that the NIC answered with an error response.
type BusError struct {
	Offset uint32 // BAR0 offset
	Resp   uint16 // AXI response: 2 SLVERR, 3 DECERR
	Cycle  uint64
}

// Error describes the access.
func (e *BusError) Error() string {
	r := "SLVERR"
	if e.Resp == readDECERR {
		r = "DECERR"
	}
	return fmt.Sprintf("cosim: bus error: read of 0x%x got %s at cycle %d", e.Offset, r, e.Cycle)
}

// Is matches ErrBusError.
func (e *BusError) Is(target error) bool { return target == ErrBusError }

// DeadlockError is returned by a wait that can never end: every client is
// blocked, every node is idle and no wait has a deadline.
type DeadlockError struct {
	Cycle uint64 // simulated cycle when the simulator gave up
	Text  string // the simulator's list of what every client waits on
}

// Error includes the simulator's report.
func (e *DeadlockError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("cosim: deadlock at cycle %d", e.Cycle)
	}
	return fmt.Sprintf("cosim: deadlock at cycle %d:\n%s", e.Cycle, e.Text)
}

// Is matches ErrDeadlock.
func (e *DeadlockError) Is(target error) bool { return target == ErrDeadlock }

// closedError wraps ErrClosed and the cause of the close.
type closedError struct{ cause error }

func (e *closedError) Error() string {
	if e.cause == nil {
		return ErrClosed.Error()
	}
	return ErrClosed.Error() + ": " + e.cause.Error()
}

func (e *closedError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrClosed}
	}
	return []error{ErrClosed, e.cause}
}
