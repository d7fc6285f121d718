package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

// evBus is a Bus for the doorbell and completion paths: IRQ_STATUS (w1c),
// IRQ_ENABLE, a log of writes, and a discrete-event clock that advances
// only inside WaitIRQ and Run (as in lockstep), to the next scheduled
// VI_DONE or the wait's timeout.
type evBus struct {
	mu        sync.Mutex
	cycle     uint64
	status    uint32
	enable    uint32
	events    []uint64 // cycles at which VI_DONE rises, ascending
	writes    []string
	reads     int
	waiting   int // WaitIRQ calls outstanding
	maxWait   int
	kick      chan struct{}
	waitCalls int
}

func newEvBus() *evBus { return &evBus{kick: make(chan struct{})} }

var _ Bus = (*evBus)(nil)

func (b *evBus) Read32(_ context.Context, off uint32) (uint32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	b.cycle++
	switch off {
	case hw.RegIrqStatus:
		return b.status, nil
	case hw.RegIrqEnable:
		return b.enable, nil
	}
	return 0, nil
}

func (b *evBus) Read64(ctx context.Context, off uint32) (uint64, error) {
	v, err := b.Read32(ctx, off)
	return uint64(v), err
}

func (b *evBus) Write32(_ context.Context, off uint32, v uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, fmt.Sprintf("w32 0x%x 0x%x", off, v))
	switch off {
	case hw.RegIrqStatus:
		b.status &^= v
	case hw.RegIrqEnable:
		b.enable = v
	}
	return nil
}

func (b *evBus) Write64(_ context.Context, off uint32, v uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, fmt.Sprintf("w64 0x%x 0x%x", off, v))
	return nil
}

func (b *evBus) Flush(context.Context) error { return nil }

// raise sets VI_DONE now, from outside (a free-running NIC).
func (b *evBus) raise() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status |= irqVIDone
	close(b.kick)
	b.kick = make(chan struct{})
}

// runTo applies the events up to cycle. Call with mu held.
func (b *evBus) runTo(cycle uint64) {
	for len(b.events) > 0 && b.events[0] <= cycle {
		b.status |= irqVIDone
		b.events = b.events[1:]
	}
	b.cycle = max(b.cycle, cycle)
}

func (b *evBus) WaitIRQ(ctx context.Context, mask uint32, timeout uint64) (Interrupt, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitCalls++
	b.waiting++
	b.maxWait = max(b.maxWait, b.waiting)
	defer func() { b.waiting-- }()
	end := b.cycle + timeout
	for {
		if lv := b.status & b.enable & mask; lv != 0 {
			return Interrupt{Vector: b.status & b.enable, Cycle: b.cycle}, nil
		}
		if len(b.events) > 0 && (timeout == 0 || b.events[0] <= end) {
			b.runTo(b.events[0])
			continue
		}
		if timeout != 0 {
			b.cycle = end
			return Interrupt{Cycle: b.cycle}, ErrBusTimeout
		}
		ch := b.kick
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		b.mu.Lock()
		if err := ctx.Err(); err != nil {
			return Interrupt{Cycle: b.cycle}, err
		}
	}
}

func (b *evBus) Interrupts() <-chan Interrupt { return nil }

func (b *evBus) Run(_ context.Context, n uint64) (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runTo(b.cycle + n)
	return b.cycle, nil
}

func (b *evBus) Cycle() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cycle
}

func (b *evBus) Info() BusInfo                                  { return BusInfo{ClockPS: 4000} }
func (b *evBus) AttachMemory(context.Context, HostMemory) error { return nil }

func (b *evBus) takeWrites() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.writes
	b.writes = nil
	return w
}

func newEvNIC() (*NIC, *evBus) {
	b := newEvBus()
	return &NIC{b: b, stop: make(chan struct{}), irqEn: irqMask}, b
}

func TestDoorbellWrites(t *testing.T) {
	ctx := context.Background()
	n, b := newEvNIC()
	s := &Session{n: n, name: "t", vis: map[VI]struct{}{3: {}}}
	_, err := s.Doorbell(4)
	require.Error(t, err)
	assert.Equal(t, hw.VipReturn(hw.VipReturnInvalidParameter), VipCode(err), "not a VI of the session")

	d, err := s.Doorbell(3)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x13000), d.Offset(), "page 3 at 0x10000 + 3*0x1000")
	require.NoError(t, d.SetHandle(ctx, QueueRecv, 0x1234))
	require.NoError(t, d.Ring(ctx, QueueRecv, 0x7000_0000_0040))
	require.NoError(t, d.Ring(ctx, QueueSend, 0x7000_0000_0080))
	require.NoError(t, d.SetHandle(ctx, QueueSend, 7))
	require.Error(t, d.Ring(ctx, 2, 0x40), "no queue 2")
	assert.Equal(t, []string{
		"w32 0x13018 0x1234",
		"w64 0x13010 0x700000000040",
		"w64 0x13000 0x700000000080",
		"w32 0x13008 0x7",
	}, b.takeWrites())

	require.NoError(t, n.Close())
	assert.ErrorIs(t, d.Ring(ctx, QueueSend, 0x40), ErrClosed)
}

func TestCompletionsWaitClears(t *testing.T) {
	ctx := context.Background()
	n, b := newEvNIC()
	c := n.Completions()
	assert.Same(t, c, n.Completions(), "one per NIC")
	b.events = []uint64{100}

	g := c.Gen()
	g2, err := c.Wait(ctx, g, 0)
	require.NoError(t, err)
	assert.Equal(t, g+1, g2)
	assert.Equal(t, uint64(100+1), b.Cycle(), "woken at the completion (plus the read behind the clear)")
	assert.Equal(t, []string{
		fmt.Sprintf("w32 0x%x 0x%x", hw.RegIrqEnable, irqMask|irqVIDone|irqAsync),
		fmt.Sprintf("w32 0x%x 0x%x", hw.RegIrqStatus, irqVIDone),
	}, b.takeWrites(), "VI_DONE enabled once, then cleared")
	assert.Equal(t, 1, b.reads, "the clear is read back before the generation grows")
	assert.Zero(t, b.status&irqVIDone)

	g3, err := c.Wait(ctx, g, 0)
	require.NoError(t, err, "a stale generation returns at once")
	assert.Equal(t, g2, g3)
	assert.Empty(t, b.takeWrites(), "IRQ_ENABLE is written only when VI_DONE is missing from it")

	// timeouts count simulated cycles from the call
	c0 := b.Cycle()
	_, err = c.Wait(ctx, g2, 500)
	assert.ErrorIs(t, err, ErrBusTimeout)
	assert.Equal(t, c0+500, b.Cycle())

	// a recovery rewrote IRQ_ENABLE: the next wait enables VI_DONE again
	n.irqEn = irqMask
	b.events = []uint64{b.Cycle() + 10}
	_, err = c.Wait(ctx, g2, 0)
	require.NoError(t, err)
	assert.Contains(t, b.takeWrites(), fmt.Sprintf("w32 0x%x 0x%x", hw.RegIrqEnable, irqMask|irqVIDone|irqAsync))

	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Wait(ctx2, c.Gen(), 0)
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, n.Close())
	_, err = c.Wait(ctx, c.Gen(), 0)
	assert.ErrorIs(t, err, ErrClosed)
}

// Many waiters: one wait on the bus at a time, and a completion wakes
// them all (each then checks its own descriptor).
func TestCompletionsManyWaiters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, b := newEvNIC()
	c := n.Completions()
	g := c.Gen()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Wait(ctx, g, 0)
		}()
	}
	for {
		time.Sleep(time.Millisecond)
		c.mu.Lock()
		k := c.deadlines[0]
		c.mu.Unlock()
		if k == len(errs) {
			break
		}
	}
	b.raise()
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, g+1, c.Gen(), "one completion, one generation")
	assert.Equal(t, 1, b.maxWait, "never two VI_DONE waits on the bus")
}

// A waiter with a deadline earlier than the leader's wait preempts it and
// times out on time; the leader goes on waiting.
func TestCompletionsPreempt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, b := newEvNIC()
	c := n.Completions()
	g := c.Gen()
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(ctx, g, 0)
		done <- err
	}()
	for {
		time.Sleep(time.Millisecond)
		c.mu.Lock()
		l := c.leader
		c.mu.Unlock()
		if l {
			break
		}
	}
	c0 := b.Cycle()
	_, err := c.Wait(ctx, g, 1000)
	assert.True(t, errors.Is(err, ErrBusTimeout), "%v", err)
	assert.Equal(t, c0+1000, b.Cycle())
	select {
	case err := <-done:
		t.Fatalf("the first waiter returned: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	b.raise()
	require.NoError(t, <-done)
	assert.Equal(t, 1, b.maxWait)
}

func TestIdle(t *testing.T) {
	n, b := newEvNIC()
	c, err := n.Idle(context.Background(), 64)
	require.NoError(t, err)
	assert.Equal(t, uint64(64), c)
	assert.Equal(t, uint64(64), n.Cycle())
	assert.Equal(t, uint32(4000), n.BusInfo().ClockPS)
	_ = b
}

// Two waiters with deadlines both time out, neither before its own
// timeout (counted from its call, which may come after the other's wait
// has let time pass: the fake bus jumps to a wait's timeout at once).
func TestCompletionsTwoDeadlines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 20 {
		n, b := newEvNIC()
		c := n.Completions()
		g := c.Gen()
		var wg sync.WaitGroup
		ends := make([]uint64, 2)
		for i, to := range []uint64{5000, 1000} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.Wait(ctx, g, to)
				assert.ErrorIs(t, err, ErrBusTimeout)
				ends[i] = b.Cycle()
			}()
		}
		wg.Wait()
		assert.Contains(t, []uint64{5000, 6000}, ends[0])
		assert.GreaterOrEqual(t, ends[1], uint64(1000))
		assert.Equal(t, 1, b.maxWait)
	}
}
