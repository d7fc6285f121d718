package simulator_test

// Lockstep time control against the real simulator: CANCEL withdraws a
// wait or a read so that its client stops counting as blocked, and flow
// control keeps a client that only posts writes going.

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// lateReplies waits until c has dropped n answers of canceled calls: the
// simulator has then seen the CANCELs.
func lateReplies(t *testing.T, c *cosim.Conn, n uint64) {
	t.Helper()
	require.Eventually(t, func() bool { return c.Counters().LateReplies >= n }, 5*time.Second, time.Millisecond,
		"answers of canceled calls: %d, want %d", c.Counters().LateReplies, n)
}

// notBlocked checks that c2 cannot get simulated time (its Run times out
// in wall-clock time) because the other client is not blocked. The Run is
// canceled; notBlocked returns once the simulator has withdrawn it.
func notBlocked(t *testing.T, ctx context.Context, c2 *cosim.Conn, why string) {
	t.Helper()
	late := c2.Counters().LateReplies
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := c2.Run(short, 100)
	require.ErrorIs(t, err, context.DeadlineExceeded, why)
	lateReplies(t, c2, late+1)
}

// cancelScenario runs, in lockstep, a driver and a user whose waits and
// reads are canceled through their contexts, and returns the cycle after
// each step. Cancellations happen while time is frozen (the other client
// is not blocked), so the run is deterministic.
func cancelScenario(t *testing.T, trace string) []uint64 {
	s, err := simulator.StartSimulator(ctxT(t, simtest.BuildTimeout), simulator.SimOptions{Nodes: 1, Trace: trace})
	require.NoError(t, err)
	defer s.Stop()
	ctx := ctxT(t, 60*time.Second)
	d, err := s.Dial(ctx, cosim.Options{Name: "driver"})
	require.NoError(t, err)
	defer d.Close()
	u, err := s.Dial(ctx, cosim.Options{Role: cosim.RoleUser, Token: 7, Name: "user"})
	require.NoError(t, err)
	defer u.Close()
	var cycles []uint64

	// 1. The driver is idle, so time is frozen: the user's wait is still
	// queued in the simulator when it is canceled.
	uctx, ucancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = u.WaitIRQ(uctx, 0x40, 0)
	ucancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	lateReplies(t, u, 1)
	notBlocked(t, ctx, d, "the user's canceled wait still counts as blocking it")

	// 2. A read of the driver, canceled the same way, no longer holds the
	// user either.
	dctx, dcancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = d.Read32(dctx, hw.RegMagic)
	dcancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	lateReplies(t, d, 2) // notBlocked's Run, and the read
	notBlocked(t, ctx, u, "the driver's canceled read still counts as blocking it")

	// 3. A wait in progress: the user waits while the driver runs; once
	// the driver's Run is over (time frozen again), the wait is canceled.
	wctx, wcancel := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() { _, err := u.WaitIRQ(wctx, 0x40, 0); werr <- err }()
	c, err := d.Run(ctx, 1000)
	require.NoError(t, err)
	cycles = append(cycles, c)
	select {
	case err := <-werr:
		t.Fatalf("the user's wait ended before it was canceled: %v", err)
	default:
	}
	wcancel()
	require.ErrorIs(t, <-werr, context.Canceled)
	lateReplies(t, u, 3) // two waits and notBlocked's Run
	notBlocked(t, ctx, d, "the user's canceled wait in progress still counts as blocking it")

	// 4. Both wait for interrupts nobody raises: the deadlock report lists
	// the two live waits, not the canceled ones.
	go func() { _, err := u.WaitIRQ(ctx, 0x20, 0); werr <- err }()
	_, err = d.WaitIRQ(ctx, 0x80, 0)
	var dl *cosim.DeadlockError
	require.ErrorAs(t, err, &dl)
	require.ErrorIs(t, <-werr, cosim.ErrDeadlock)
	assert.Contains(t, dl.Text, "mask 0x80")
	assert.Contains(t, dl.Text, "mask 0x20")
	assert.NotContains(t, dl.Text, "mask 0x40", "a canceled wait is not waited on")
	cycles = append(cycles, dl.Cycle)

	// 5. Time goes on normally.
	require.NoError(t, u.Close())
	c, err = d.Run(ctx, 500)
	require.NoError(t, err)
	cycles = append(cycles, c)
	v, err := d.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
	cycles = append(cycles, d.LastCycle())
	assert.Zero(t, d.Counters().UnmatchedReplies)
	assert.Zero(t, u.Counters().UnmatchedReplies)
	require.NoError(t, d.Terminate(ctx))
	require.NoError(t, s.Wait())
	return cycles
}

// A canceled WaitIRQ, WaitMem, Run or read no longer counts as blocked in
// lockstep, and runs with cancellations stay deterministic.
func TestSimCancel(t *testing.T) {
	simtest.RequireHDL(t)
	w1 := simtest.WavePath(t, "run1.vcd")
	w2 := simtest.WavePath(t, "run2.vcd")
	simtest.KeepWaveOnFailure(t, w1)
	simtest.KeepWaveOnFailure(t, w2)
	c1 := cancelScenario(t, w1)
	c2 := cancelScenario(t, w2)
	assert.Equal(t, c1, c2, "same cycle counts")
	t.Logf("cycles: %v", c1)
	b1, err := os.ReadFile(w1)
	require.NoError(t, err)
	b2, err := os.ReadFile(w2)
	require.NoError(t, err)
	if !bytes.Equal(simtest.StripVCDDate(b1), simtest.StripVCDDate(b2)) {
		t.Errorf("the waveforms differ (%d and %d bytes)", len(b1), len(b2))
	}
}

// A WaitMem canceled while it waits ends at once; the connection goes on
// working.
func TestSimCancelMem(t *testing.T) {
	// Free-run: a lone lockstep client's wait would end at once in a
	// deadlock report.
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Mode: cosim.ModeFreeRun})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{})
	ctx := ctxT(t, 60*time.Second)
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, _, err := c.WaitMem(wctx, 0x100, 4, ^uint64(0), 0x1234, 0)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	wcancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the canceled WaitMem did not return")
	}
	mem.Store32(0x100, 0x1234)
	w, _, err := c.WaitMem(ctx, 0x100, 4, ^uint64(0), 0x1234, 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x1234), w)
	lateReplies(t, c, 1) // the aborted wait's answer arrives and is dropped
}

// A read canceled behind a long queue of posted writes ends at once, is
// answered CANCELED, and the connection goes on working. Lockstep: the
// writes are all queued (time is frozen while the client posts them) when
// the read arrives, so the read certainly waits behind them.
func TestSimCancelQueuedRead(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, _ := simtest.Driver(t, s, 0, memSize, cosim.Options{})
	ctx := ctxT(t, 60*time.Second)
	var err error
	// Reads behind 200,000 writes (about 600,000 cycles): canceled before
	// they reach the bus.
	for i := range 200_000 {
		require.NoError(t, c.Write32(ctx, hw.RegScratch, uint32(i)))
	}
	// Put every write on the wire first, so that the read is sent at once
	// and waits in the simulator's queue behind them (about 600,000 cycles,
	// hundreds of milliseconds), then cancel it once it has been sent.
	require.NoError(t, c.Flush(ctx))
	before := c.Counters().Requests
	rctx, rcancel := context.WithCancel(ctx)
	rdone := make(chan error, 1)
	go func() {
		_, err := c.Read32(rctx, hw.RegDiagLen)
		rdone <- err
	}()
	require.Eventually(t, func() bool { return c.Counters().Requests > before }, 5*time.Second, 100*time.Microsecond)
	time.Sleep(5 * time.Millisecond) // the request's single send completes
	rcancel()
	select {
	case err = <-rdone:
	case <-time.After(5 * time.Second):
		t.Fatal("the canceled read did not return")
	}
	require.ErrorIs(t, err, context.Canceled)
	v, err := c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(199_999), v)
	lateReplies(t, c, 1)
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	t.Logf("node0.mmio_reads %s (the canceled read is not among them unless it was on the bus)", st["node0.mmio_reads"])
}

func statInt(t *testing.T, st map[string]string, key string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(st[key], 10, 64)
	require.NoError(t, err, "stats key %q = %q", key, st[key])
	return v
}

// A lockstep driver that only posts writes, many times more than the
// simulator's queues hold, is never stuck: when its queue in the simulator
// is full, flow control counts it as blocked and time drains the queue. No
// read is inserted behind its back, and where flow control cuts the stream
// does not change the run. (The queues are 2^15 deep here instead of the
// default 2^20, so that the flood is ten times the queues in a second.)
func TestSimLockstepWriteFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	c1 := writeFlood(t, true)
	c2 := writeFlood(t, false)
	assert.Equal(t, c1, c2, "the run ends at the same cycle")
}

// writeFlood posts ten queues' worth of writes in lockstep, then reads; it
// returns the cycle of that read.
func writeFlood(t *testing.T, log bool) uint64 {
	const queue = 1 << 15
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Args: []string{"--queue-depth", strconv.Itoa(queue)}})
	c := simtest.Dial(t, s, cosim.Options{Name: "writer"})
	ctx := ctxT(t, 2*time.Minute)
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	w0 := statInt(t, st, "node0.mmio_writes")
	r0 := c.Counters().Requests

	const n = 10*queue + 12345
	start := time.Now()
	for i := range n {
		if err := c.Write32(ctx, hw.RegScratch, uint32(i)); err != nil {
			require.NoError(t, err, "write %d", i)
		}
	}
	require.NoError(t, c.Flush(ctx))
	assert.Equal(t, r0, c.Counters().Requests, "the writes went out without any request behind them")
	// Time advanced although the client never blocked: all but at most two
	// queues' worth (the client's and the node's) are applied once the
	// simulator has read everything.
	var applied int64
	require.Eventually(t, func() bool {
		st, err := c.Stats(ctx)
		if err != nil {
			return false
		}
		applied = statInt(t, st, "node0.mmio_writes") - w0
		return applied >= n-2*queue-8192
	}, time.Minute, 20*time.Millisecond, "writes applied without a read: %d of %d", applied, n)
	if log {
		t.Logf("%d writes posted in %v; %d applied before any read", n, time.Since(start), applied)
	}

	v, err := c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(n-1), v, "the last write wins")
	cycle := c.LastCycle()
	st, err = c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(n), statInt(t, st, "node0.mmio_writes")-w0, "every write was applied")
	assert.Zero(t, c.Counters().AsyncErrors)
	c.Close()
	require.NoError(t, s.Stop())
	return cycle
}
