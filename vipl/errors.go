package vipl

import (
	"errors"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// Return is a VIA return code (VIP_RETURN), in the specification's value
// order; the values and names come from rtl/layouts/vip.layout.
type Return uint32

// The VIA return codes.
const (
	Success                 Return = hw.VipReturnSuccess
	NotDone                 Return = hw.VipReturnNotDone
	InvalidParameter        Return = hw.VipReturnInvalidParameter
	ErrorResource           Return = hw.VipReturnErrorResource
	Timeout                 Return = hw.VipReturnTimeout
	Reject                  Return = hw.VipReturnReject
	InvalidReliabilityLevel Return = hw.VipReturnInvalidReliabilityLevel
	InvalidMTU              Return = hw.VipReturnInvalidMtu
	InvalidQoS              Return = hw.VipReturnInvalidQos
	InvalidPtag             Return = hw.VipReturnInvalidPtag
	InvalidRdmaRead         Return = hw.VipReturnInvalidRdmaread
	DescriptorError         Return = hw.VipReturnDescriptorError
	InvalidState            Return = hw.VipReturnInvalidState
	ErrorNameService        Return = hw.VipReturnErrorNameservice
	NoMatch                 Return = hw.VipReturnNoMatch
	NotReachable            Return = hw.VipReturnNotReachable
	ErrorNotSupported       Return = hw.VipReturnErrorNotSupported
)

// String returns the code's C name, "VIP_INVALID_PTAG".
func (r Return) String() string { return "VIP_" + hw.VipReturn(r).String() }

// Err returns the sentinel error of r (ErrInvalidPtag for InvalidPtag),
// nil for Success, and a new error for a code the specification does not
// define.
func (r Return) Err() error {
	if r == Success {
		return nil
	}
	if int(r) < len(sentinels) && sentinels[r] != nil {
		return sentinels[r]
	}
	return fmt.Errorf("vipl: %s", r)
}

// sentinels[code] is the sentinel error of code.
var sentinels [ErrorNotSupported + 1]error

func sentinel(r Return) error {
	err := errors.New("vipl: " + r.String())
	sentinels[r] = err
	return err
}

// The sentinel errors, one per VIA return code but VIP_SUCCESS. Every error
// of this package matches exactly one of them with errors.Is: the one of
// its code (see Code).
var (
	ErrNotDone                 = sentinel(NotDone)
	ErrInvalidParameter        = sentinel(InvalidParameter)
	ErrErrorResource           = sentinel(ErrorResource)
	ErrTimeout                 = sentinel(Timeout)
	ErrReject                  = sentinel(Reject)
	ErrInvalidReliabilityLevel = sentinel(InvalidReliabilityLevel)
	ErrInvalidMTU              = sentinel(InvalidMTU)
	ErrInvalidQoS              = sentinel(InvalidQoS)
	ErrInvalidPtag             = sentinel(InvalidPtag)
	ErrInvalidRdmaRead         = sentinel(InvalidRdmaRead)
	ErrDescriptorError         = sentinel(DescriptorError)
	ErrInvalidState            = sentinel(InvalidState)
	ErrErrorNameService        = sentinel(ErrorNameService)
	ErrNoMatch                 = sentinel(NoMatch)
	ErrNotReachable            = sentinel(NotReachable)
	ErrErrorNotSupported       = sentinel(ErrorNotSupported)
)

// Error is a failed call: which call, its VIA return code and why. Cause,
// when not nil, is the failure underneath (a kernel-agent or bridge error);
// errors.Is and errors.As see through it.
type Error struct {
	Op     string // the call, as "RegisterMem"
	Code   Return
	Detail string
	Cause  error
}

func (e *Error) Error() string {
	s := "vipl: " + e.Op + ": " + e.Code.String()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is the sentinel of e's code.
func (e *Error) Is(target error) bool { return target != nil && target == e.Code.Err() }

// Code returns the VIA return code of err: Success for nil, the code of
// the first *Error or sentinel in its chain, and ErrorResource for any
// other error (a failure underneath the library: a closed simulator, a
// firmware fault).
func Code(err error) Return {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	for r, s := range sentinels {
		if s != nil && errors.Is(err, s) {
			return Return(r)
		}
	}
	return ErrorResource
}

func newErr(op string, code Return, cause error, format string, args ...any) error {
	return &Error{Op: op, Code: code, Detail: fmt.Sprintf(format, args...), Cause: cause}
}

// wrapErr makes err, from the kernel agent, an error of call op: an *Error
// from the agent keeps its code and detail under op's name; anything else
// is VIP_ERROR_RESOURCE with err as the cause.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Op == op {
			return err
		}
		return &Error{Op: op, Code: e.Code, Detail: e.Detail, Cause: e.Cause}
	}
	return &Error{Op: op, Code: Code(err), Cause: err}
}
