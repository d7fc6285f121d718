package simulator_test

// Integration tests against the real simulator (build/sim/*/vianic-sim,
// built by sim-scripts/build-sim.sh on first use).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

const memSize = 1 << 20

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// diagNICs holds the NIC opened (without booting) on each driver
// connection for the DMA diagnostic engine.
var diagNICs sync.Map // *cosim.Conn -> *driver.NIC

// diagNIC returns the driver's NIC behind the driver connection c, opened
// with NoBoot on first use: the tests run the engine through the driver's
// diagnostic calls, the only place that knows the copy sequence.
func diagNIC(ctx context.Context, c *cosim.Conn) (*driver.NIC, error) {
	if n, ok := diagNICs.Load(c); ok {
		return n.(*driver.NIC), nil
	}
	b, err := simbus.New(c)
	if err != nil {
		return nil, err
	}
	n, err := driver.Open(ctx, b, driver.Options{NoBoot: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	diagNICs.Store(c, n)
	return n, nil
}

// startCopy starts a diagnostic copy without waiting for it.
func startCopy(ctx context.Context, c *cosim.Conn, src, dst uint64, n uint32) error {
	nic, err := diagNIC(ctx, c)
	if err != nil {
		return err
	}
	return nic.DiagStart(ctx, driver.DiagRequest{Src: src, Dst: dst, Len: int(n)})
}

// copyAndWait runs one diagnostic copy to its interrupt and returns
// DIAG_STATUS; a copy the engine failed is no error here (the callers
// check the status).
func copyAndWait(ctx context.Context, c *cosim.Conn, src, dst uint64, n uint32) (uint32, error) {
	r, err := diagCopy(ctx, c, src, dst, n)
	return r.Status, err
}

func diagCopy(ctx context.Context, c *cosim.Conn, src, dst uint64, n uint32) (driver.DiagResult, error) {
	nic, err := diagNIC(ctx, c)
	if err != nil {
		return driver.DiagResult{}, err
	}
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: src, Dst: dst, Len: int(n)})
	if errors.Is(err, driver.ErrDiagFailed) {
		err = nil
	}
	return r, err
}

func fill(b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

// park blocks c in a long wait (so that lockstep time can advance for the
// other clients) and returns a function that waits for it to end.
func park(t *testing.T, c *cosim.Conn) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.WaitIRQ(context.Background(), 1<<31, 100_000)
	}()
	return func() {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("parked wait did not end")
		}
	}
}

func TestSimHandshake(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	c := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleDriver, Node: 1, Name: "handshake"})
	d := c.Device()
	assert.Equal(t, cosim.ProtocolMajor, d.Major)
	assert.Equal(t, 2, d.Nodes)
	assert.Equal(t, uint32(1)<<hw.DefaultAxilAddrWidth, d.BARBytes)
	assert.Equal(t, uint32(4000), d.ClockPS)
	assert.Equal(t, hw.Bar0Hash, d.MapHash)
	assert.Equal(t, cosim.ModeLockstep, d.Mode)
	assert.Equal(t, hw.DefaultDataWidth, d.DataWidth)
	assert.Equal(t, hw.DefaultNumIrq, d.IRQs)
	m := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Node: 0})
	assert.Greater(t, m.Device().ClientID, d.ClientID, "ids in connection order")

	_, err := s.Dial(ctxT(t, 5*time.Second), cosim.Options{Role: cosim.RoleDriver, Node: 1})
	assert.ErrorIs(t, err, cosim.ErrBusy, "one driver per node")
	_, err = s.Dial(ctxT(t, 5*time.Second), cosim.Options{Role: cosim.RoleDriver, Node: 2})
	var re *cosim.RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, cosim.CodeNoNode, re.Code)
}

func TestSimRegisters(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 20*time.Second)

	v, err := c.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
	h, err := c.Read64(ctx, hw.RegMapHashLo)
	require.NoError(t, err)
	assert.Equal(t, hw.Bar0Hash, h)

	require.NoError(t, c.Write32(ctx, hw.RegScratch, 0xa5a5_1234))
	v, err = c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(0xa5a5_1234), v)

	require.NoError(t, c.Write64(ctx, hw.RegDiagSrcLo, 0x1122_3344_5566_7788))
	lo, err := c.Read32(ctx, hw.RegDiagSrcLo)
	require.NoError(t, err)
	hi, err := c.Read32(ctx, hw.RegDiagSrcHi)
	require.NoError(t, err)
	assert.Equal(t, [2]uint32{0x5566_7788, 0x1122_3344}, [2]uint32{lo, hi})
	v64, err := c.Read64(ctx, hw.RegDiagSrcLo)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x1122_3344_5566_7788), v64)

	nv, err := c.Read32(ctx, hw.RegCapVi)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.DefaultNumVi), hw.CapViNumVi.Get(nv))
	assert.Greater(t, c.LastCycle(), uint64(0))

	st, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, st)
	t.Logf("stats: %v", st)
}

// Many posted writes, then a read: the read sees the last one, and every
// write before it was applied in order (the last write wins for each
// register).
func TestSimPostedWriteOrdering(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 30*time.Second)
	regs := []uint32{hw.RegScratch, hw.RegDiagSrcLo, hw.RegDiagSrcHi, hw.RegDiagDstLo, hw.RegDiagDstHi, hw.RegDiagLen}
	const n = 10000
	for i := range n {
		require.NoError(t, c.Write32(ctx, regs[i%len(regs)], uint32(i)))
	}
	for k, r := range regs {
		v, err := c.Read32(ctx, r)
		require.NoError(t, err)
		last := n - 1 - (n-1-k)%len(regs)
		assert.Equal(t, uint32(last), v, "register 0x%x", r)
	}
	// Rounds of write-then-read.
	for i := range 50 {
		for j := range 100 {
			require.NoError(t, c.Write32(ctx, hw.RegScratch, uint32(i*1000+j)))
		}
		v, err := c.Read32(ctx, hw.RegScratch)
		require.NoError(t, err)
		require.Equal(t, uint32(i*1000+99), v)
	}
	cnt := c.Counters()
	assert.Equal(t, uint64(n+5000), cnt.PostedWrites)
	t.Logf("counters: %+v", cnt)
}

func TestSimDMACopy(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{Interrupts: true})
	ctx := ctxT(t, 30*time.Second)
	b := mem.Bytes()
	const src, dst, n = 0x1000, 0x40000, 64 << 10
	fill(b[src:src+n], 1)
	r, err := diagCopy(ctx, c, src, dst, n)
	require.NoError(t, err)
	st := r.Status
	assert.Equal(t, uint32(1), hw.DiagStatusDone.Get(st), "DONE (status 0x%x)", st)
	assert.Equal(t, uint32(0), hw.DiagStatusError.Get(st), "ERROR (status 0x%x)", st)
	require.True(t, bytes.Equal(b[src:src+n], b[dst:dst+n]), "destination differs from source")
	assert.True(t, allZero(b[dst+n:dst+n+4096]), "nothing written past the end")
	assert.True(t, allZero(b[dst-4096:dst]), "nothing written before the start")
	assert.Equal(t, uint32(n), r.Bytes)
	nb, err := c.Read32(ctx, hw.RegDiagBytes)
	require.NoError(t, err)
	assert.Equal(t, uint32(n), nb)
	cyc, err := c.Read32(ctx, hw.RegDiagCycles)
	require.NoError(t, err)
	assert.Equal(t, uint64(cyc), r.Cycles)
	t.Logf("64 KiB copy: %d cycles (%.2f bytes/cycle)", cyc, float64(n)/float64(cyc))

	select {
	case irq := <-c.Interrupts():
		assert.Equal(t, uint32(1), irq.Vector&1)
		assert.Greater(t, irq.Cycle, uint64(0))
	case <-time.After(5 * time.Second):
		t.Error("no IRQ message on Interrupts()")
	}
	p, err := c.Read32(ctx, hw.RegIrqPending)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), p, "interrupt cleared")
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func TestSimDMAOutOfRange(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, mem := simtest.Driver(t, s, 0, 64<<10, cosim.Options{})
	ctx := ctxT(t, 30*time.Second)
	nic, err := diagNIC(ctx, c)
	require.NoError(t, err)
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: 1 << 30, Dst: 0x1000, Len: 4096})
	var de *driver.DiagError
	require.ErrorAs(t, err, &de)
	require.ErrorIs(t, err, driver.ErrDiagFailed)
	t.Log(err)
	assert.Contains(t, err.Error(), "RD_ERR")
	assert.Equal(t, uint64(1<<30), r.ErrAddr)
	st := r.Status
	assert.Equal(t, uint32(1), hw.DiagStatusDone.Get(st), "status 0x%x", st)
	assert.Equal(t, uint32(1), hw.DiagStatusError.Get(st), "status 0x%x", st)
	assert.Equal(t, uint32(1), hw.DiagStatusRdErr.Get(st), "status 0x%x", st)
	assert.Equal(t, uint32(3), hw.DiagStatusResp.Get(st), "DECERR (status 0x%x)", st)
	ea, err := c.Read64(ctx, hw.RegDiagErrAddrLo)
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<30), ea)
	assert.True(t, allZero(mem.Bytes()), "memory untouched")

	// Writes beyond the end fail too; the simulator keeps serving.
	st, err = copyAndWait(ctx, c, 0, 64<<10-1024, 4096)
	require.NoError(t, err)
	assert.Equal(t, uint32(1), hw.DiagStatusWrErr.Get(st), "status 0x%x", st)

	fill(mem.Bytes()[:4096], 2)
	st, err = copyAndWait(ctx, c, 0, 0x8000, 4096)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), hw.DiagStatusError.Get(st), "status 0x%x", st)
	assert.Equal(t, mem.Bytes()[:4096], mem.Bytes()[0x8000:0x9000])
}

func TestSimWaitMem(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{})
	ctx := ctxT(t, 30*time.Second)
	b := mem.Bytes()
	const src, dst, n = 0x2000, 0x10000, 16 << 10
	fill(b[src:src+n], 3)
	marker := uint64(0x600d_f00d_cafe_0001)
	mem.Store64(src+n-8, marker) // the last word of the copy

	// Already true: returns at once.
	w, _, err := c.WaitMem(ctx, src+n-8, 8, ^uint64(0), marker, 0)
	require.NoError(t, err)
	assert.Equal(t, marker, w)

	require.NoError(t, startCopy(ctx, c, src, dst, n))
	w, cyc, err := c.WaitMem(ctx, dst+n-8, 8, ^uint64(0), marker, 1_000_000)
	require.NoError(t, err)
	assert.Equal(t, marker, w)
	assert.Equal(t, marker, mem.Load64(dst+n-8))
	// The data before the status word is visible once the word is.
	assert.True(t, bytes.Equal(b[src:src+n], b[dst:dst+n]))
	t.Logf("word written at cycle %d", cyc)

	// A masked 4-byte wait on a word nobody writes times out.
	_, _, err = c.WaitMem(ctx, 0x100, 4, 0xff, 0x42, 1000)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
}

func TestSimRunAndTimeout(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 30*time.Second)
	c1, err := c.Run(ctx, 1000)
	require.NoError(t, err)
	c2, err := c.Run(ctx, 1000)
	require.NoError(t, err)
	assert.Equal(t, uint64(1000), c2-c1, "Run(1000) lasts exactly 1000 cycles")
	big, err := c.Run(ctx, 10_000_000)
	require.NoError(t, err)
	assert.Equal(t, uint64(10_000_000), big-c2, "idle cycles are skipped exactly")

	irq, err := c.WaitIRQ(ctx, 0x80, 5000)
	require.ErrorIs(t, err, cosim.ErrTimeout)
	assert.Equal(t, big+5000, irq.Cycle, "the timeout is exact in cycles")

	// A pending interrupt satisfies a wait at once (level).
	require.NoError(t, c.Write32(ctx, hw.RegIrqEnable, 0x4))
	require.NoError(t, c.Write32(ctx, hw.RegIrqForce, 0x4))
	irq, err = c.WaitIRQ(ctx, 0x4, 100)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x4), irq.Vector)
	irq2, err := c.WaitIRQ(ctx, 0x4, 100)
	require.NoError(t, err, "level: still pending")
	assert.GreaterOrEqual(t, irq2.Cycle, irq.Cycle)
	require.NoError(t, c.Write32(ctx, hw.RegIrqStatus, 0x4))
	_, err = c.WaitIRQ(ctx, 0x4, 100)
	assert.ErrorIs(t, err, cosim.ErrTimeout, "cleared")
}

func TestSimDeadlock(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, _ := simtest.Driver(t, s, 0, memSize, cosim.Options{Name: "waiter"})
	ctx := ctxT(t, 30*time.Second)
	start := time.Now()
	_, err := c.WaitIRQ(ctx, 0x80, 0)
	var dl *cosim.DeadlockError
	require.ErrorAs(t, err, &dl)
	assert.ErrorIs(t, err, cosim.ErrDeadlock)
	assert.NotEmpty(t, dl.Text, "the report lists what every client waits on")
	t.Logf("deadlock report after %v:\n%s", time.Since(start), dl.Text)
	_, _, err = c.WaitMem(ctx, 0, 4, 1, 1, 0)
	require.ErrorIs(t, err, cosim.ErrDeadlock)
	_, _, err = c.WaitMem(ctx, memSize, 4, 1, 1, 0)
	require.ErrorIs(t, err, cosim.ErrAborted, "a word outside the memory")
	assert.ErrorContains(t, err, "outside")
	// The connection stays usable.
	v, err := c.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
}

func TestSimTwoNodes(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	ctx := ctxT(t, 60*time.Second)
	type node struct {
		c   *cosim.Conn
		mem *cosim.Memory
	}
	var nodes [2]node
	for i := range nodes {
		nodes[i].c, nodes[i].mem = simtest.Driver(t, s, i, memSize, cosim.Options{})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, nd := range nodes {
		wg.Go(func() {
			// Close at the end: an idle client would hold lockstep time
			// for the other.
			defer nd.c.Close()
			b := nd.mem.Bytes()
			for round := range 3 {
				n := uint32(8192 * (i + 1 + round))
				fill(b[:n], uint64(10*i+round))
				if err := nd.c.Write32(ctx, hw.RegScratch, uint32(i*100+round)); err != nil {
					errs[i] = err
					return
				}
				st, err := copyAndWait(ctx, nd.c, 0, 0x80000, n)
				if err != nil || hw.DiagStatusError.Get(st) != 0 {
					errs[i] = fmt.Errorf("node %d round %d: status 0x%x, %v", i, round, st, err)
					return
				}
				if !bytes.Equal(b[:n], b[0x80000:0x80000+n]) {
					errs[i] = fmt.Errorf("node %d round %d: copy differs", i, round)
					return
				}
				v, err := nd.c.Read32(ctx, hw.RegScratch)
				if err != nil || v != uint32(i*100+round) {
					errs[i] = fmt.Errorf("node %d: SCRATCH 0x%x, %v", i, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

func TestSimUserRole(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	d := simtest.Dial(t, s, cosim.Options{Name: "driver"})
	ctx := ctxT(t, 30*time.Second)
	const token = 0xfeed_0001
	require.NoError(t, d.Grant(ctx, token, 2, 2))

	var async []error
	var mu sync.Mutex
	u := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleUser, Token: token, Name: "user",
		OnAsyncError: func(err error) { mu.Lock(); async = append(async, err); mu.Unlock() }})
	unpark := park(t, d)
	require.NoError(t, u.Write32(ctx, hw.DoorbellOffset(2), 1))
	require.NoError(t, u.Write32(ctx, hw.DoorbellOffset(3)+0x10, 2))
	require.NoError(t, u.Write32(ctx, hw.DoorbellOffset(5), 3)) // not granted
	require.NoError(t, u.Write32(ctx, hw.RegScratch, 4))        // not a doorbell
	v, err := u.Read32(ctx, hw.DoorbellOffset(3))
	require.NoError(t, err, "granted page is readable")
	assert.Equal(t, uint32(0), v)
	_, err = u.Read32(ctx, hw.RegMagic)
	require.ErrorIs(t, err, cosim.ErrRefused)
	_, err = u.Run(ctx, 10)
	require.NoError(t, err)
	// A user may not grant: refused, and fatal for the connection.
	assert.ErrorIs(t, u.Grant(ctx, token, 0, 16), cosim.ErrRefused)
	u.Close()
	unpark()

	// One ERROR per MMIO_WRITE message that had refused entries, naming
	// the first: the two refused writes went out in one or two batches.
	mu.Lock()
	require.NotEmpty(t, async, "refused writes are reported")
	require.LessOrEqual(t, len(async), 2, "%v", async)
	var re *cosim.RemoteError
	require.ErrorAs(t, async[0], &re)
	assert.Equal(t, cosim.CodeRefused, re.Code)
	assert.False(t, re.Fatal)
	assert.Equal(t, uint64(hw.DoorbellOffset(5)), re.RefOffset)
	if len(async) == 2 {
		require.ErrorAs(t, async[1], &re)
		assert.Equal(t, uint64(hw.RegScratch), re.RefOffset)
	}
	assert.Equal(t, uint64(len(async)), u.Counters().AsyncErrors)
	mu.Unlock()

	sc, err := d.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.NotEqual(t, uint32(4), sc, "the refused write had no effect")
	st, err := d.Stats(ctx)
	require.NoError(t, err)
	t.Logf("stats: %v", st)
	refused, _ := strconv.Atoi(st["node0.refused"])
	assert.GreaterOrEqual(t, refused, 2, "refused accesses counted (per message)")

	// After Revoke the page is refused, and FailOnAsyncError reports it.
	require.NoError(t, d.Revoke(ctx, token))
	u2 := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleUser, Token: token, FailOnAsyncError: true})
	unpark = park(t, d)
	require.NoError(t, u2.Write32(ctx, hw.DoorbellOffset(2), 1))
	_, err = u2.Run(ctx, 10)
	if err == nil {
		_, err = u2.Run(ctx, 10)
	}
	assert.ErrorIs(t, err, cosim.ErrRefused, "the next call reports the refused write")
	u2.Close()
	unpark()
}

func TestSimMonitor(t *testing.T) {
	// 100 MB/s: a 1 MiB copy keeps the node busy for 2.6M cycles.
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1,
		DMA: &simulator.DMAModel{ReadLatencyNS: 500, WriteLatencyNS: 150, BandwidthMBps: 100}})
	d, _ := simtest.Driver(t, s, 0, 4<<20, cosim.Options{Name: "driver"})
	ctx := ctxT(t, 30*time.Second)
	require.NoError(t, d.Write32(ctx, hw.RegScratch, 77))
	require.NoError(t, d.Write32(ctx, hw.RegIrqEnable, 1))
	require.NoError(t, startCopy(ctx, d, 0, 2<<20, 1<<20))
	v, err := d.Read32(ctx, hw.RegDiagStatus) // everything above is applied
	require.NoError(t, err)
	require.Equal(t, uint32(1), hw.DiagStatusBusy.Get(v), "status 0x%x", v)

	m := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Name: "monitor"})
	v, err = m.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(77), v)
	v, err = m.Read32(ctx, hw.RegDiagStatus)
	require.NoError(t, err)
	assert.Equal(t, uint32(1), hw.DiagStatusBusy.Get(v), "the copy runs (status 0x%x)", v)
	h, err := m.Read64(ctx, hw.RegMapHashLo)
	require.NoError(t, err)
	assert.Equal(t, hw.Bar0Hash, h)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, st)
	require.NoError(t, m.Write32(ctx, hw.RegScratch, 1))
	v, err = m.Read32(ctx, hw.RegScratch) // orders after the refused write
	require.NoError(t, err)
	assert.Equal(t, uint32(77), v, "monitor writes have no effect")
	require.Eventually(t, func() bool { return m.Counters().AsyncErrors == 1 }, 5*time.Second, time.Millisecond)
	assert.ErrorIs(t, m.AsyncErr(), cosim.ErrRefused)
	assert.ErrorIs(t, m.Reset(ctx), cosim.ErrRefused, "a monitor may not reset")
	assert.ErrorIs(t, m.Err(), cosim.ErrClosed, "... and is disconnected for trying")

	nic, err := diagNIC(ctx, d)
	require.NoError(t, err)
	require.NoError(t, nic.DiagAbort(ctx))
	_, err = d.WaitIRQ(ctx, 1, 0)
	require.NoError(t, err)
	v, err = d.Read32(ctx, hw.RegDiagStatus)
	require.NoError(t, err)
	assert.Equal(t, uint32(1), hw.DiagStatusAborted.Get(v), "status 0x%x", v)
}

// A monitor (a tool such as `vianic regs`) reads while a lockstep driver is
// idle, i.e. while time is frozen.
func TestSimMonitorWhileDriverIdle(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	d := simtest.Dial(t, s, cosim.Options{Name: "idle driver"})
	ctx := ctxT(t, 5*time.Second)
	require.NoError(t, d.Write32(ctx, hw.RegScratch, 78))
	_, err := d.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	m := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Name: "monitor"})
	v, err := m.Read32(ctx, hw.RegScratch)
	require.NoError(t, err, "a monitor read must not need the driver to block")
	assert.Equal(t, uint32(78), v)
}

func TestSimReset(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 30*time.Second)
	require.NoError(t, c.Write32(ctx, hw.RegDiagLen, 1234))
	require.NoError(t, c.Reset(ctx))
	v, err := c.Read32(ctx, hw.RegDiagLen)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), v, "registers reset")
	v, err = c.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
}

// ---------------------------------------------------------------- failures

const helperEnv = "VIANIC_COSIM_HELPER_ADDR"

// TestHelperDriverProcess is not a test: it is the driver process that
// TestSimDriverKilledMidDMA starts and kills.
func TestHelperDriverProcess(t *testing.T) {
	addr := os.Getenv(helperEnv)
	if addr == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	c, err := cosim.Dial(ctx, "unix", addr, cosim.Options{Name: "doomed driver"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	mem, err := cosim.NewMemory(4 << 20)
	if err == nil {
		err = c.AttachMemory(ctx, mem)
	}
	if err == nil {
		fill(mem.Bytes()[:2<<20], 9)
		err = startCopy(ctx, c, 0, 2<<20, 2<<20)
	}
	var st uint32
	if err == nil {
		_, err = c.Run(ctx, 2000)
	}
	if err == nil {
		st, err = c.Read32(ctx, hw.RegDiagStatus)
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("copying status=0x%x\n", st)
	c.WaitIRQ(ctx, 1<<31, 0) // runs the copy until killed
	os.Exit(0)
}

func TestSimDriverKilledMidDMA(t *testing.T) {
	// 100 MB/s: the 2 MiB copy takes about 5M cycles, far longer than the
	// helper lives.
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1,
		DMA: &simulator.DMAModel{ReadLatencyNS: 500, WriteLatencyNS: 150, BandwidthMBps: 100}})
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDriverProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Addr())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "helper output %q", line)
	require.True(t, strings.HasPrefix(line, "copying"), "helper: %q", line)
	st, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "copying status=")), 0, 32)
	require.NoError(t, err)
	require.Equal(t, uint32(1), hw.DiagStatusBusy.Get(uint32(st)), "the copy is running when the driver dies")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()

	// The node is detached: a new driver attaches (once the simulator has
	// seen the old one go) and finds the NIC reset and working.
	ctx := ctxT(t, 30*time.Second)
	var c *cosim.Conn
	require.Eventually(t, func() bool {
		c, err = s.Dial(ctx, cosim.Options{Name: "new driver"})
		return err == nil
	}, 10*time.Second, 10*time.Millisecond, "new driver: %v", err)
	defer c.Close()
	v, err := c.Read32(ctx, hw.RegDiagStatus)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), hw.DiagStatusBusy.Get(v), "DMA stopped (status 0x%x)", v)
	mem, err := cosim.NewMemory(memSize)
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, c.AttachMemory(ctx, mem))
	fill(mem.Bytes()[:8192], 11)
	st2, err := copyAndWait(ctx, c, 0, 0x10000, 8192)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), hw.DiagStatusError.Get(st2), "status 0x%x", st2)
	assert.Equal(t, mem.Bytes()[:8192], mem.Bytes()[0x10000:0x12000])
	assert.True(t, allZero(mem.Bytes()[0x12000:]), "no stray DMA from the old driver's copy")
	stats, err := c.Stats(ctx)
	require.NoError(t, err)
	t.Logf("stats: %v", stats)
}

// hold connects an idle user: in lockstep, time cannot advance while it
// is attached, so every call of the other clients that needs time blocks.
func hold(t *testing.T, s *simulator.Sim) *cosim.Conn {
	return simtest.Dial(t, s, cosim.Options{Role: cosim.RoleUser, Token: 1, Name: "idle user"})
}

func TestSimKilledWhileBlocked(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, _ := simtest.Driver(t, s, 0, memSize, cosim.Options{Interrupts: true})
	hold(t, s)
	const n = 30
	errs := make(chan error, n)
	var started sync.WaitGroup
	for i := range n {
		started.Add(1)
		go func() {
			started.Done()
			var err error
			switch i % 4 {
			case 0:
				_, err = c.Read32(context.Background(), hw.RegMagic)
			case 1:
				_, err = c.WaitIRQ(context.Background(), 1, 0)
			case 2:
				_, _, err = c.WaitMem(context.Background(), 0, 4, 1, 1, 0)
			default:
				_, err = c.Run(context.Background(), 100)
			}
			errs <- err
		}()
	}
	started.Wait()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-errs:
		t.Fatalf("a call returned while time was held: %v", err)
	default:
	}
	require.NoError(t, s.Signal(syscall.SIGKILL))
	deadline := time.After(time.Second)
	for range n {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, cosim.ErrClosed)
		case <-deadline:
			t.Fatal("blocked calls did not return within 1 s of the simulator's death")
		}
	}
	_, err := c.Read32(context.Background(), 0)
	assert.ErrorIs(t, err, cosim.ErrClosed, "later calls fail fast")
	assert.ErrorIs(t, c.Write32(context.Background(), hw.RegScratch, 0), cosim.ErrClosed)
	_, ok := <-c.Interrupts()
	assert.False(t, ok)
	s.Wait()
}

func TestSimContextCancel(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	u := hold(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Read32(ctx, hw.RegMagic)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = c.WaitIRQ(ctx, 1, 0)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)

	ctx2, cancel2 := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := c.Run(ctx2, 10); done <- err }()
	time.Sleep(20 * time.Millisecond)
	cancel2()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(2 * time.Second):
		t.Fatal("cancel did not return")
	}

	// The abandoned requests were withdrawn (CANCEL) and their answers
	// (aborted, canceled) are dropped; the Conn goes on working once time
	// is released.
	u.Close()
	ctx3 := ctxT(t, 20*time.Second)
	require.NoError(t, c.Write32(ctx3, hw.RegScratch, 99))
	v, err := c.Read32(ctx3, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(99), v)
	require.Eventually(t, func() bool { return c.Counters().LateReplies >= 1 }, 5*time.Second, time.Millisecond,
		"late answers of canceled requests are dropped")
	assert.Zero(t, c.Counters().UnmatchedReplies)
}

// ---------------------------------------------------------------- lockstep

// scenario runs a fixed lockstep scenario and returns the cycle after each
// blocking step.
func scenario(t *testing.T, trace string) []uint64 {
	s, err := simulator.StartSimulator(ctxT(t, simtest.BuildTimeout), simulator.SimOptions{Nodes: 2, Trace: trace})
	require.NoError(t, err)
	defer s.Stop()
	ctx := ctxT(t, 30*time.Second)
	c, err := s.Dial(ctx, cosim.Options{Name: "determinism", Interrupts: true})
	require.NoError(t, err)
	mem, err := cosim.NewMemory(memSize)
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, c.AttachMemory(ctx, mem))
	var cycles []uint64
	step := func(err error) {
		t.Helper()
		require.NoError(t, err)
		cycles = append(cycles, c.LastCycle())
	}
	fill(mem.Bytes()[:32<<10], 5)
	_, err = c.Read32(ctx, hw.RegMagic)
	step(err)
	for i := range 20 {
		require.NoError(t, c.Write32(ctx, hw.RegScratch, uint32(i)))
	}
	_, err = c.Read32(ctx, hw.RegScratch)
	step(err)
	_, err = copyAndWait(ctx, c, 0, 0x40000, 32<<10)
	step(err)
	_, err = c.Run(ctx, 777)
	step(err)
	_, _, err = c.WaitMem(ctx, 0x40000, 8, ^uint64(0), mem.Load64(0), 100)
	step(err)
	_, err = c.WaitIRQ(ctx, 0x2, 300)
	require.ErrorIs(t, err, cosim.ErrTimeout)
	cycles = append(cycles, c.LastCycle())
	_, err = c.Read32(ctx, hw.RegDiagCycles)
	step(err)
	// TERMINATE, not a close and a signal: the simulator then stops at a
	// cycle that depends only on the messages.
	require.NoError(t, c.Terminate(ctx))
	require.NoError(t, s.Wait())
	return cycles
}

func TestSimLockstepDeterminism(t *testing.T) {
	simtest.RequireHDL(t)
	w1 := simtest.WavePath(t, "run1.vcd")
	w2 := simtest.WavePath(t, "run2.vcd")
	simtest.KeepWaveOnFailure(t, w1)
	simtest.KeepWaveOnFailure(t, w2)
	c1 := scenario(t, w1)
	c2 := scenario(t, w2)
	assert.Equal(t, c1, c2, "same cycle counts")
	t.Logf("cycles: %v", c1)
	b1, err := os.ReadFile(w1)
	require.NoError(t, err)
	b2, err := os.ReadFile(w2)
	require.NoError(t, err)
	require.NotEmpty(t, b1)
	// up to the last cycle a client saw: after the clients leave, the
	// simulator holds the nodes in reset for a few cycles on its own, and
	// Stop's signal can arrive before or after those
	end := slices.Max(c1) * 4000
	v1, v2 := simtest.VCDUpTo(simtest.StripVCDDate(b1), end), simtest.VCDUpTo(simtest.StripVCDDate(b2), end)
	require.Greater(t, len(v1), len(b1)/2, "most of the waveform is compared")
	if !bytes.Equal(v1, v2) {
		t.Errorf("the waveforms differ (%d and %d bytes up to %d ps)", len(v1), len(v2), end)
	}
}

// ---------------------------------------------------------------- concurrency

func TestSimConcurrentClients(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{Interrupts: true})
	ctx := ctxT(t, 60*time.Second)
	regs := []uint32{hw.RegScratch, hw.RegDiagSrcLo, hw.RegDiagSrcHi, hw.RegDiagDstLo, hw.RegDiagDstHi}
	var wg sync.WaitGroup
	var ops atomic.Int64
	errs := make(chan error, 64)
	for g, r := range regs {
		wg.Go(func() {
			for i := range 300 {
				v := uint32(g<<24 | i)
				if err := c.Write32(ctx, r, v); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					got, err := c.Read32(ctx, r)
					if err != nil || got != v {
						errs <- fmt.Errorf("reg 0x%x: got 0x%x want 0x%x (%v)", r, got, v, err)
						return
					}
				}
				ops.Add(1)
			}
		})
	}
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				var err error
				switch (g + i) % 4 {
				case 0:
					var v uint32
					v, err = c.Read32(ctx, hw.RegMagic)
					if err == nil && v != hw.Magic {
						err = fmt.Errorf("MAGIC 0x%x", v)
					}
				case 1:
					_, err = c.Run(ctx, 5)
				case 2:
					_, err = c.Stats(ctx)
				default:
					_, _, err = c.WaitMem(ctx, 0x1000, 4, 0, 0, 0) // true at once
				}
				if err != nil {
					errs <- err
					return
				}
				ops.Add(1)
			}
		})
	}
	// Interrupts forced while everything runs.
	wg.Go(func() {
		if err := c.Write32(ctx, hw.RegIrqEnable, 0x2); err != nil {
			errs <- err
			return
		}
		for range 20 {
			if err := errors.Join(c.Write32(ctx, hw.RegIrqForce, 0x2)); err != nil {
				errs <- err
				return
			}
			if _, err := c.WaitIRQ(ctx, 0x2, 0); err != nil {
				errs <- err
				return
			}
			if err := c.Write32(ctx, hw.RegIrqStatus, 0x2); err != nil {
				errs <- err
				return
			}
			if _, err := c.Read32(ctx, hw.RegIrqPending); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_ = mem
	t.Logf("%d operations; counters %+v", ops.Load(), c.Counters())
	assert.GreaterOrEqual(t, c.Counters().IRQs, uint64(20))
}

// ---------------------------------------------------------------- control

func TestSimTraceControl(t *testing.T) {
	wave := simtest.WavePath(t, "vcd")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 20*time.Second)
	require.NoError(t, c.Trace(ctx, false))
	_, err := c.Run(ctx, 100)
	require.NoError(t, err)
	require.NoError(t, c.Trace(ctx, true))
	require.NoError(t, c.Write32(ctx, hw.RegScratch, 0x1234))
	_, err = c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	c.Close()
	require.NoError(t, s.Stop())
	fi, err := os.Stat(wave)
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(1000))

	// Without a trace file there is nothing to turn on.
	s2 := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c2 := simtest.Dial(t, s2, cosim.Options{})
	var re *cosim.RemoteError
	require.ErrorAs(t, c2.Trace(ctx, true), &re)
	assert.Equal(t, cosim.CodeUnsupported, re.Code)
}

func TestSimFSTTrace(t *testing.T) {
	if os.Getenv("VIANIC_SIM") != "" {
		t.Skip("VIANIC_SIM names one build; the FST build is another")
	}
	wave := simtest.WavePath(t, "fst")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{})
	ctx := ctxT(t, 20*time.Second)
	fill(mem.Bytes()[:4096], 4)
	st, err := copyAndWait(ctx, c, 0, 0x10000, 4096)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), hw.DiagStatusError.Get(st))
	c.Close()
	require.NoError(t, s.Stop())
	fi, err := os.Stat(wave)
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(100))
}

func TestSimTerminate(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	c := simtest.Dial(t, s, cosim.Options{})
	ctx := ctxT(t, 20*time.Second)
	require.NoError(t, c.Terminate(ctx))
	select {
	case <-s.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("the simulator did not exit")
	}
	require.NoError(t, s.Wait(), "exit status 0")
	_, err := c.Read32(ctx, hw.RegMagic)
	assert.ErrorIs(t, err, cosim.ErrClosed)
}

// A user's wait is aborted, with ErrDetached, when the node's driver goes.
func TestSimWaitAbortedOnDetach(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	d := simtest.Dial(t, s, cosim.Options{Name: "driver"})
	u := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleUser, Token: 5, Name: "user"})
	ctx := ctxT(t, 20*time.Second)
	errc := make(chan error, 1)
	go func() { _, err := u.WaitIRQ(ctx, 1, 0); errc <- err }()
	// Both blocked: the user's wait starts while the driver's times out.
	_, err := d.WaitIRQ(ctx, 0x80, 1000)
	require.ErrorIs(t, err, cosim.ErrTimeout)
	d.Close()
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, cosim.ErrAborted)
		assert.ErrorIs(t, err, cosim.ErrDetached)
		t.Log(err)
	case <-time.After(5 * time.Second):
		t.Fatal("the user's wait did not end")
	}
}

func TestSimTCP(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Args: []string{"--tcp", "127.0.0.1:0"}})
	require.NotEmpty(t, s.TCPAddr())
	ctx := ctxT(t, 20*time.Second)
	c, err := cosim.Dial(ctx, "tcp", s.TCPAddr(), cosim.Options{Name: "over tcp"})
	require.NoError(t, err)
	defer c.Close()
	v, err := c.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
	m, err := cosim.NewMemory(4096)
	require.NoError(t, err)
	defer m.Close()
	assert.ErrorContains(t, c.AttachMemory(ctx, m), "Unix socket")
}

// threadScenario runs DMA copies on both nodes at once (so that both models
// are evaluated every edge) with the given evaluation threads, and returns
// the cycles each connection saw.
func threadScenario(t *testing.T, trace string, threads int) []uint64 {
	s, err := simulator.StartSimulator(ctxT(t, simtest.BuildTimeout), simulator.SimOptions{
		Nodes: 2, Trace: trace, Args: []string{"--threads", fmt.Sprint(threads)}})
	require.NoError(t, err)
	defer s.Stop()
	ctx := ctxT(t, 60*time.Second)
	var conns []*cosim.Conn
	for node := range 2 {
		c, err := s.Dial(ctx, cosim.Options{Name: fmt.Sprintf("threads %d", node), Node: node, Interrupts: true})
		require.NoError(t, err)
		mem, err := cosim.NewMemory(memSize)
		require.NoError(t, err)
		defer mem.Close()
		require.NoError(t, c.AttachMemory(ctx, mem))
		fill(mem.Bytes()[:32<<10], uint64(7+node))
		conns = append(conns, c)
	}
	cycles := make([]uint64, 2)
	errs := make([]error, 2)
	simulator.Together(ctx, conns, func(i int) {
		// different sizes: the nodes finish at different cycles
		var st uint32
		st, errs[i] = copyAndWait(ctx, conns[i], 0, 0x40000, uint32(16<<10*(i+1)))
		if errs[i] == nil && (st&hw.DiagStatusDoneMask == 0 || st&hw.DiagStatusErrorMask != 0) {
			errs[i] = fmt.Errorf("node %d: copy status %d", i, st)
		}
		cycles[i] = conns[i].LastCycle()
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	require.NoError(t, s.Stop())
	require.NoError(t, s.Wait())
	return cycles
}

// The nodes' models are evaluated in parallel (--threads): the thread count
// must not change a cycle or a waveform.
func TestSimThreadsSameWaveform(t *testing.T) {
	simtest.RequireHDL(t)
	w1 := simtest.WavePath(t, "threads1.vcd")
	w2 := simtest.WavePath(t, "threads2.vcd")
	simtest.KeepWaveOnFailure(t, w1)
	simtest.KeepWaveOnFailure(t, w2)
	c1 := threadScenario(t, w1, 1)
	c2 := threadScenario(t, w2, 2)
	assert.Equal(t, c1, c2, "same cycles with 1 and 2 threads")
	assert.NotEqual(t, c1[0], c1[1], "the nodes finished at different cycles")
	t.Logf("cycles: %v", c1)
	b1, err := os.ReadFile(w1)
	require.NoError(t, err)
	b2, err := os.ReadFile(w2)
	require.NoError(t, err)
	require.NotEmpty(t, b1)
	// up to the last cycle a client saw: after the clients leave, the
	// simulator holds the nodes in reset for a few cycles on its own, and
	// Stop's signal can arrive before or after those
	end := max(c1[0], c1[1]) * 4000
	v1, v2 := simtest.VCDUpTo(simtest.StripVCDDate(b1), end), simtest.VCDUpTo(simtest.StripVCDDate(b2), end)
	require.Greater(t, len(v1), len(b1)/2, "most of the waveform is compared")
	if !bytes.Equal(v1, v2) {
		t.Errorf("the waveforms differ (%d and %d bytes up to %d ps)", len(v1), len(v2), end)
	}
}

// The switch's register port over the bridge: a monitor reads INFO and
// writes and reads back SEED; a user connection may not reach it (a fatal
// ROLE error); a register above 255 is refused before it is sent.
func TestSimFabricRegisterPort(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 3})
	ctx := ctxT(t, 60*time.Second)
	m := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleMonitor, Name: "monitor"})
	info, err := m.FabricRead(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, uint32(0xFAB0)<<16, info&0xFFFF0000, "INFO's signature")
	assert.Equal(t, uint32(16), info&0xFF, "the simulator's switch has 16 ports")
	require.NoError(t, m.FabricWrite(ctx, 2, 0x12345678))
	seed, err := m.FabricRead(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x12345678), seed)
	st, err := m.FabricRead(ctx, 3)
	require.NoError(t, err)
	assert.Equal(t, uint32(1), st&1, "the switch is idle")
	_, err = m.FabricRead(ctx, 256)
	require.Error(t, err)

	u, err := s.Dial(ctx, cosim.Options{Role: cosim.RoleUser, Token: 9, Name: "user"})
	require.NoError(t, err)
	defer u.Close()
	_, err = u.FabricRead(ctx, 0)
	require.Error(t, err, "a user connection may not reach the switch")
	assert.Contains(t, err.Error(), "not allowed")
	// the monitor still works
	_, err = m.FabricRead(ctx, 0)
	require.NoError(t, err)
}
