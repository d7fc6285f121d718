package vipl

import (
	"context"
	"sync"
	"time"
)

// Notify (VipSendNotify, VipRecvNotify, VipCQNotify): a handler that runs
// once, for the next completion of a queue or the next entry of a CQ, in a
// goroutine of vipl's. The completion is taken for the handler (the send
// or receive descriptor is reaped from its queue and handed to it; the
// CQ's entry is taken and its VI and queue handed to it), so the program
// does not reap it again. Handlers run one at a time, in the order their
// completions are found, and may call vipl. Several handlers may wait on
// one queue: each takes one completion, first registered first.
//
// When: a free-running NIC's notifier waits on the completion interrupt
// itself. In lockstep, simulated time passes only while the program waits
// on the NIC, and a notifier that waited on its own would let time run
// while the program computes; so the notifier looks for completions each
// time a wait of the program returns from the NIC (SendWait, RecvWait,
// CQWait, the poll interval of a Done call, Park), the same rule as the
// asynchronous errors'. Which completion a handler gets is then the same
// in every run.

// Notification is a handler registered by SendNotify, RecvNotify or
// CQ.Notify that has not run yet.
type Notification struct {
	n    *Nic
	vi   *Vi // SendNotify, RecvNotify
	q    Queue
	cq   *CQ // CQ.Notify
	desc func(*Desc)
	ent  func(*Vi, Queue)
}

// Cancel withdraws the handler (VIA has no such call: closing the VI or
// the NIC does it there). It reports whether the handler had not run yet;
// after Cancel returns true it never runs.
func (x *Notification) Cancel() bool {
	nt := x.n.notifier()
	nt.mu.Lock()
	defer nt.mu.Unlock()
	for i, r := range nt.regs {
		if r == x {
			nt.regs = append(nt.regs[:i], nt.regs[i+1:]...)
			return true
		}
	}
	return false
}

// notifier is a Nic's: the handlers waiting and the goroutine that runs
// them.
type notifier struct {
	n       *Nic
	mu      sync.Mutex // guards regs, started
	regs    []*Notification
	started bool
	poke    chan struct{} // a wait of the program returned from the NIC
	stop    chan struct{} // closed by Nic.Close
	closing sync.Once
	ctx     context.Context
	cancel  context.CancelFunc
}

func (n *Nic) notifier() *notifier {
	n.notifyOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		n.nt.Store(&notifier{n: n, poke: make(chan struct{}, 1), stop: make(chan struct{}), ctx: ctx, cancel: cancel})
	})
	return n.nt.Load()
}

// waited tells the notifier that a wait of the program returned from the
// NIC (lockstep: completions may have come).
func (n *Nic) waited() {
	if nt := n.nt.Load(); nt != nil {
		select {
		case nt.poke <- struct{}{}:
		default:
		}
	}
}

// add registers x and starts the goroutine on first use.
func (nt *notifier) add(x *Notification) {
	nt.mu.Lock()
	nt.regs = append(nt.regs, x)
	if !nt.started {
		nt.started = true
		go nt.run()
	}
	nt.mu.Unlock()
	select {
	case nt.poke <- struct{}{}:
	default:
	}
}

// close drops the handlers and tells the goroutine to end (Nic.Close);
// it does not wait for it (a handler may be the one closing the Nic): a
// handler running meanwhile finds the Nic closed.
func (nt *notifier) close() {
	nt.closing.Do(func() {
		nt.mu.Lock()
		nt.regs = nil
		nt.mu.Unlock()
		close(nt.stop)
		nt.cancel()
	})
}

// freeRunWait is how long a free-running notifier waits on the interrupt
// before it looks again (simulated time; a completion ends it sooner).
const freeRunWait = 1 // ms

func (nt *notifier) run() {
	ev := nt.n.agent.Events()
	for {
		g := ev.Gen()
		for nt.deliver() {
		}
		nt.mu.Lock()
		waiting := len(nt.regs) > 0
		nt.mu.Unlock()
		if waiting && ev.FreeRunning() {
			nt.arm(ev)
			if _, err := ev.Wait(nt.ctx, g, msToCycles(freeRunWait, ev.ClockPS())); err != nil && Code(err) != Timeout {
				select {
				case <-nt.stop:
					return
				case <-time.After(time.Millisecond): // the NIC is away: do not spin
				}
			}
			continue
		}
		select {
		case <-nt.poke:
		case <-nt.stop:
			return
		}
	}
}

// arm arms the queues and CQs the handlers wait on (a free-running
// notifier's wait; one that fails leaves the wait to its time limit).
func (nt *notifier) arm(ev Events) {
	nt.mu.Lock()
	regs := append([]*Notification(nil), nt.regs...)
	nt.mu.Unlock()
	for _, x := range regs {
		switch {
		case x.vi != nil && !x.vi.destroyed.Load():
			_ = ev.Arm(nt.ctx, x.vi.id, x.q)
		case x.cq != nil:
			_ = ev.ArmCQ(nt.ctx, x.cq.id)
		}
	}
}

// deliver runs the first handler whose completion has come, if any, and
// reports whether it did.
func (nt *notifier) deliver() bool {
	nt.mu.Lock()
	for i, x := range nt.regs {
		if x.vi != nil {
			if x.vi.destroyed.Load() {
				continue
			}
			// an earlier handler of the same queue goes first
			if nt.earlier(i, x) {
				continue
			}
			d := x.vi.reap(x.q)
			if d == nil {
				continue
			}
			nt.regs = append(nt.regs[:i], nt.regs[i+1:]...)
			nt.mu.Unlock()
			x.desc(d)
			return true
		}
		if nt.earlier(i, x) {
			continue
		}
		x.cq.mu.Lock()
		var v *Vi
		var q Queue
		ok := false
		if x.cq.check("CQNotify") == nil {
			v, q, ok, _ = x.cq.take(nt.ctx, "CQNotify")
		}
		x.cq.mu.Unlock()
		if !ok {
			continue
		}
		nt.regs = append(nt.regs[:i], nt.regs[i+1:]...)
		nt.mu.Unlock()
		x.ent(v, q)
		return true
	}
	nt.mu.Unlock()
	return false
}

// earlier says a handler before position i waits on the same queue or CQ
// as x. Call with mu held.
func (nt *notifier) earlier(i int, x *Notification) bool {
	for _, y := range nt.regs[:i] {
		if (x.vi != nil && y.vi == x.vi && y.q == x.q) || (x.cq != nil && y.cq == x.cq) {
			return true
		}
	}
	return false
}

// SendNotify runs fn once, in a goroutine of vipl's, with the send queue's
// next completed descriptor, reaped for it (VipSendNotify; see the package
// comment of notify.go in docs/vipl.md, "Notify"). VIP_INVALID_PARAMETER
// for a nil fn or a destroyed VI.
func (v *Vi) SendNotify(fn func(*Desc)) (*Notification, error) {
	return v.notify("SendNotify", SendQueue, fn)
}

// RecvNotify is SendNotify for the receive queue (VipRecvNotify).
func (v *Vi) RecvNotify(fn func(*Desc)) (*Notification, error) {
	return v.notify("RecvNotify", RecvQueue, fn)
}

func (v *Vi) notify(op string, q Queue, fn func(*Desc)) (*Notification, error) {
	if err := v.nic.checkLocked(op); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, newErr(op, InvalidParameter, nil, "no handler")
	}
	if v.destroyed.Load() {
		return nil, newErr(op, InvalidParameter, nil, "VI %d was destroyed", v.id)
	}
	x := &Notification{n: v.nic, vi: v, q: q, desc: fn}
	v.nic.notifier().add(x)
	return x, nil
}

// Notify runs fn once, in a goroutine of vipl's, with the VI and queue of
// the CQ's next entry, taken for it (VipCQNotify); fn reaps the descriptor
// (SendDone, RecvDone) itself. VIP_INVALID_PARAMETER for a nil fn or a
// destroyed CQ.
func (c *CQ) Notify(fn func(*Vi, Queue)) (*Notification, error) {
	const op = "CQNotify"
	c.mu.Lock()
	err := c.check(op)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, newErr(op, InvalidParameter, nil, "no handler")
	}
	x := &Notification{n: c.nic, cq: c, ent: fn}
	c.nic.notifier().add(x)
	return x, nil
}
