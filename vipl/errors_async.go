package vipl

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/vianic/vianic/internal/hw"
)

// Asynchronous errors (VipErrorCallback): errors the NIC finds outside any
// call about them, such as an RDMA write into one of the process's VIs
// that the NIC refused, or a fault of the NIC's firmware. docs/vipl.md,
// "Asynchronous errors".

// ErrorCode is what an asynchronous error reports (VIP_ERROR_CODE).
type ErrorCode uint32

const (
	ErrorPostDesc      ErrorCode = hw.VipErrorPostDesc      // a descriptor posted with an error the post could not see
	ErrorConnLost      ErrorCode = hw.VipErrorConnLost      // the connection was lost
	ErrorRecvqEmpty    ErrorCode = hw.VipErrorRecvqEmpty    // a message found no receive (reliable levels)
	ErrorViOverrun     ErrorCode = hw.VipErrorViOverrun     // the VI's queues overran
	ErrorRdmawProt     ErrorCode = hw.VipErrorRdmawProt     // an RDMA write into the VI was refused
	ErrorRdmawData     ErrorCode = hw.VipErrorRdmawData     // an RDMA write's data was corrupt
	ErrorRdmawAbort    ErrorCode = hw.VipErrorRdmawAbort    // an RDMA write was aborted
	ErrorRdmarProt     ErrorCode = hw.VipErrorRdmarProt     // an RDMA read of the VI's memory was refused
	ErrorCompProt      ErrorCode = hw.VipErrorCompProt      // a completion could not be written
	ErrorRdmaTransport ErrorCode = hw.VipErrorRdmaTransport // an RDMA transport error
	ErrorCatastrophic  ErrorCode = hw.VipErrorCatastrophic  // the NIC failed
)

func (c ErrorCode) String() string { return hw.VipError(c).String() }

// ResourceCode is what an asynchronous error is about (VIP_RESOURCE_CODE).
type ResourceCode uint32

const (
	ResourceNic        ResourceCode = hw.VipResourceNic
	ResourceVi         ResourceCode = hw.VipResourceVi
	ResourceCQ         ResourceCode = hw.VipResourceCq
	ResourceDescriptor ResourceCode = hw.VipResourceDescriptor
)

func (c ResourceCode) String() string { return hw.VipResource(c).String() }

// ErrorDescriptor is VIA's error descriptor, handed to the ErrorCallback
// handler.
type ErrorDescriptor struct {
	Nic *Nic
	// Vi is the VI of a ResourceVi error (nil if this Nic no longer has
	// it); ViID names it in any case.
	Vi   *Vi
	ViID ViID
	// CQ is the CQ of a ResourceCQ error (nil if this Nic no longer has
	// it); CQID names it in any case.
	CQ   *CQ
	CQID CQID
	// Desc and Op are the descriptor and its operation of a
	// ResourceDescriptor error (nil and 0 otherwise).
	Desc         *Desc
	Op           CompletedOp
	ResourceCode ResourceCode
	ErrorCode    ErrorCode
	Cycle        uint64 // the NIC cycle at which the error was learned of
	Message      string // more about it (a firmware fault's description)
}

func (e ErrorDescriptor) String() string {
	s := fmt.Sprintf("%s on the %s", e.ErrorCode, e.ResourceCode)
	if e.ResourceCode == ResourceVi {
		s = fmt.Sprintf("%s on VI %d", e.ErrorCode, e.ViID)
	}
	if e.ResourceCode == ResourceCQ {
		s = fmt.Sprintf("%s on CQ %d", e.ErrorCode, e.CQID)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s + fmt.Sprintf(" (cycle %d)", e.Cycle)
}

// ErrorCallback makes fn the NIC's asynchronous error handler
// (VipErrorCallback; the VIA context argument is fn's closure). fn runs in
// a goroutine of vipl's, once per error, in the order the errors were
// learned of; it may call vipl. nil restores the default handler, which
// logs the error (slog's default logger).
//
// When errors are learned of: in lockstep the NIC's time stands still
// while the process computes, so an error comes to light while the
// process waits on the NIC: in SendWait, RecvWait, Park, the poll interval
// of a Done call that found nothing, or an agent call. A process that
// never waits again learns of nothing more.
func (n *Nic) ErrorCallback(fn func(ErrorDescriptor)) error {
	const op = "ErrorCallback"
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.check(op); err != nil {
		return err
	}
	if n.errs == nil {
		n.errs = newErrorQueue(n)
		n.agent.SetErrorHandler(n.errs.push)
	}
	n.errs.setHandler(fn)
	return nil
}

// errorQueue hands the agent's errors to the handler in a goroutine of
// its own, in order; push never blocks.
type errorQueue struct {
	n       *Nic
	mu      sync.Mutex
	cond    *sync.Cond
	q       []AsyncError
	fn      func(ErrorDescriptor)
	stopped bool
	done    chan struct{}
}

func newErrorQueue(n *Nic) *errorQueue {
	e := &errorQueue{n: n, done: make(chan struct{})}
	e.cond = sync.NewCond(&e.mu)
	go e.run()
	return e
}

func (e *errorQueue) setHandler(fn func(ErrorDescriptor)) {
	e.mu.Lock()
	e.fn = fn
	e.mu.Unlock()
}

func (e *errorQueue) push(a AsyncError) {
	e.mu.Lock()
	if !e.stopped {
		e.q = append(e.q, a)
		e.cond.Signal()
	}
	e.mu.Unlock()
}

// stop ends the goroutine once the queued errors are handled.
func (e *errorQueue) stop() {
	e.mu.Lock()
	e.stopped = true
	e.cond.Signal()
	e.mu.Unlock()
}

func (e *errorQueue) run() {
	defer close(e.done)
	for {
		e.mu.Lock()
		for len(e.q) == 0 && !e.stopped {
			e.cond.Wait()
		}
		if len(e.q) == 0 {
			e.mu.Unlock()
			return
		}
		a := e.q[0]
		e.q = e.q[1:]
		fn := e.fn
		e.mu.Unlock()
		d := ErrorDescriptor{Nic: e.n, ViID: a.Vi, CQID: a.CQ, ResourceCode: a.Resource, ErrorCode: a.Code, Cycle: a.Cycle, Message: a.Message}
		switch a.Resource {
		case ResourceVi:
			e.n.mu.Lock()
			d.Vi = e.n.vis[a.Vi]
			e.n.mu.Unlock()
		case ResourceCQ:
			e.n.mu.Lock()
			d.CQ = e.n.cqs[a.CQ]
			e.n.mu.Unlock()
		}
		if fn == nil {
			slog.Default().Warn("vipl: asynchronous error", "error", d.String())
			continue
		}
		fn(d)
	}
}
