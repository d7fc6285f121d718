package driver

import (
	"context"
	"fmt"
	"sync"

	"github.com/vianic/vianic/internal/hw"
)

// Asynchronous errors (VipErrorCallback; docs/vi.md, "Asynchronous
// errors"): errors the NIC finds outside any call of the process they
// concern, such as an RDMA write into one of its VIs that the NIC refused.
// The data path queues them in hardware (VI_AERR, IRQ_STATUS.ASYNC_ERR);
// the driver reads them and hands each to the handler of the session that
// owns the VI (SetErrorHandler). A firmware fault is one too: CATASTROPHIC,
// about the NIC, for every session, when the driver notices the fault
// (checkFault: the next call after the FW_FAULT interrupt).
//
// When: the driver reads the queue where it already waits on the NIC in
// the process's own sequence of calls, so a lockstep run stays
// deterministic: in the completion path's bus wait (Completions: every
// SendWait, RecvWait, Park) and, once a session has a handler, in Idle
// (the poll interval of a Done call that found nothing).

// AsyncError is one asynchronous error.
type AsyncError struct {
	Code     hw.VipError    // what happened (VIP_ERROR_*)
	Resource hw.VipResource // what it is about (VIP_RESOURCE_*)
	VI       VI             // the VI (Resource VI)
	CQ       CQ             // the completion queue (Resource CQ)
	Cycle    uint64         // the device cycle at which the driver read it
	Err      error          // CATASTROPHIC: the fault
}

func (e AsyncError) String() string {
	if e.Resource == hw.VipResourceVi {
		return fmt.Sprintf("%s on VI %d at cycle %d", e.Code, uint32(e.VI), e.Cycle)
	}
	if e.Resource == hw.VipResourceCq {
		return fmt.Sprintf("%s on CQ %d at cycle %d", e.Code, uint32(e.CQ), e.Cycle)
	}
	return fmt.Sprintf("%s on the %s at cycle %d", e.Code, e.Resource, e.Cycle)
}

// irqAsync is IRQ_STATUS.ASYNC_ERR.
const irqAsync = hw.IrqStatusAsyncErrMask

// asyncState is the NIC's part: the handlers by session, the VIs' owners.
type asyncState struct {
	drain    sync.Mutex // one reader of VI_AERR at a time
	mu       sync.Mutex // guards the rest
	handlers map[*Session]func(AsyncError)
	owners   map[VI]*Session
	lost     uint32 // VI_AERR_LOST as last read
}

func (n *NIC) asyncs() *asyncState {
	n.asyncOnce.Do(func() {
		n.async = &asyncState{handlers: map[*Session]func(AsyncError){}, owners: map[VI]*Session{}}
	})
	return n.async
}

// SetErrorHandler makes fn the session's handler of asynchronous errors
// (nil: none). fn runs in whichever driver goroutine found the error and
// must not block or call the driver (vipl queues the errors for a
// goroutine of its own).
func (s *Session) SetErrorHandler(fn func(AsyncError)) {
	a := s.n.asyncs()
	a.mu.Lock()
	defer a.mu.Unlock()
	if fn == nil {
		delete(a.handlers, s)
		return
	}
	a.handlers[s] = fn
}

// hasHandlers says some session wants asynchronous errors.
func (n *NIC) hasHandlers() bool {
	a := n.asyncs()
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.handlers) > 0
}

// ownVI and disownVI keep the VIs' owners for dispatching.
func (s *Session) ownVI(vi VI) {
	a := s.n.asyncs()
	a.mu.Lock()
	a.owners[vi] = s
	a.mu.Unlock()
}

func (s *Session) disownVI(vi VI) {
	a := s.n.asyncs()
	a.mu.Lock()
	if a.owners[vi] == s {
		delete(a.owners, vi)
	}
	a.mu.Unlock()
}

// forgetSession drops the session's handler and VIs (its close).
func (s *Session) forgetSession() {
	a := s.n.asyncs()
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.handlers, s)
	for vi, o := range a.owners {
		if o == s {
			delete(a.owners, vi)
		}
	}
}

// dispatch hands e to the owner of its VI, or to every session (an error
// about the NIC).
func (n *NIC) dispatch(e AsyncError) {
	a := n.asyncs()
	a.mu.Lock()
	var fns []func(AsyncError)
	switch e.Resource {
	case hw.VipResourceVi:
		if s := a.owners[e.VI]; s != nil && a.handlers[s] != nil {
			fns = append(fns, a.handlers[s])
		}
	case hw.VipResourceCq:
		if s := n.cqOwner(e.CQ); s != nil && a.handlers[s] != nil {
			fns = append(fns, a.handlers[s])
		}
	default:
		for _, fn := range a.handlers {
			fns = append(fns, fn)
		}
	}
	a.mu.Unlock()
	if len(fns) == 0 {
		n.log.Info("asynchronous error without a handler", "error", e.String())
	}
	for _, fn := range fns {
		fn(e)
	}
}

// maxAsyncDrain bounds one drain (the queue holds 16).
const maxAsyncDrain = 64

// drainAsync clears IRQ_STATUS.ASYNC_ERR, then pops VI_AERR until it is
// empty and dispatches every error; an error popped after the clear that
// came before it raises ASYNC_ERR again at most (a later drain reads an
// empty queue).
func (n *NIC) drainAsync(ctx context.Context) error {
	a := n.asyncs()
	a.drain.Lock()
	defer a.drain.Unlock()
	if err := n.b.Write32(ctx, hw.RegIrqStatus, irqAsync); err != nil {
		return err
	}
	for range maxAsyncDrain {
		v, err := n.b.Read32(ctx, hw.RegViAerr)
		if err != nil {
			return err
		}
		if hw.ViAerrValid.Get(v) == 0 {
			break
		}
		e := AsyncError{Code: hw.VipError(hw.ViAerrCode.Get(v)), Resource: hw.VipResource(hw.ViAerrResource.Get(v)), Cycle: n.b.Cycle()}
		if e.Resource == hw.VipResourceCq {
			e.CQ = CQ(hw.ViAerrVi.Get(v))
		} else {
			e.VI = VI(hw.ViAerrVi.Get(v))
		}
		n.dispatch(e)
	}
	lost, err := n.b.Read32(ctx, hw.RegViAerrLost)
	if err != nil {
		return err
	}
	if lost != a.lost {
		n.log.Warn("asynchronous errors lost: the NIC's queue was full", "lost", lost-a.lost)
		a.lost = lost
	}
	return nil
}
