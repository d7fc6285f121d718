package driver_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// The co-simulation tests run the real simulator and the real firmware.

// requireNIC skips the test, naming what is missing, when the driver.NIC in rtl/
// has no control processor yet (the tests need the integrated via_cpu).
func requireNIC(t *testing.T) {
	t.Helper()
	simtest.RequireHDL(t)
	root := simtest.Root(t)
	if os.Getenv("VIANIC_SIM") == "" {
		src, err := os.ReadFile(filepath.Join(root, "rtl", "via_nic.v"))
		require.NoError(t, err)
		if !bytes.Contains(src, []byte("via_cpu")) {
			t.Skip("rtl/via_nic.v does not instantiate the control processor (via_cpu) yet")
		}
	}
}

// startSim starts a lockstep simulator with nodes nodes.
func startSim(t *testing.T, nodes int) *simulator.Sim {
	t.Helper()
	requireNIC(t)
	return simtest.StartSim(t, simulator.SimOptions{Nodes: nodes})
}

// openNode connects as node's driver and opens the NIC with opts (its
// logger captured unless opts.Logger is set).
func openNode(t *testing.T, s *simulator.Sim, node int, opts driver.Options) (*driver.NIC, *driver.Capture, *cosim.Conn, error) {
	t.Helper()
	conn := simtest.Dial(t, s, cosim.Options{Role: cosim.RoleDriver, Node: node, Interrupts: true, Name: t.Name()})
	lg, c := driver.NewCapture()
	if opts.Logger == nil {
		opts.Logger = lg
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := driver.Open(ctx, mustBus(t, conn), opts)
	if n != nil {
		t.Cleanup(func() { n.Close() })
	}
	return n, c, conn, err
}

// mustBus adapts a driver connection to the driver's bus.
func mustBus(t testing.TB, c *cosim.Conn) driver.Bus {
	t.Helper()
	b, err := simbus.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestCosimBootAndFigures(t *testing.T) {
	s := startSim(t, 1)
	n, logs, conn, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	ctx := ctxT(t)
	b := n.Boot()
	assert.Equal(t, firmware.Version, b.Version)
	assert.Greater(t, b.Cycles, uint64(0))
	assert.Equal(t, b.ImageWords, b.VerifiedWords)

	// The boot line reaches the logger with the node and the cycle.
	var boot *driver.CapRec
	for _, r := range logs.FirmwareLines() {
		if strings.HasPrefix(r.Msg, "vianic fw ") {
			boot = &r
			break
		}
	}
	require.NotNil(t, boot, "boot line in %v", logs.Records())
	assert.Equal(t, int64(0), boot.Attrs["node"].Int64())
	cyc := boot.Attrs["cycle"].Uint64()
	assert.Greater(t, cyc, b.ReleaseCycle)
	assert.LessOrEqual(t, cyc, b.ReadyCycle)

	f, err := driver.MeasureFigures(ctx, n, 50)
	require.NoError(t, err)
	t.Logf("image %d bytes: download %.2f ms, %d cycles (posted writes), read-back of %d words %.2f ms (%.1f us/word)",
		f.ImageBytes, f.DownloadWallMS, f.DownloadCycles, f.VerifyWords, f.VerifyWallMS, 1000*f.VerifyWallMS/float64(max(f.VerifyWords, 1)))
	t.Logf("boot: %d cycles = %.2f us at %.0f MHz", f.BootCycles, f.BootUS, f.ClockMHz)
	t.Logf("admin NOP: %d cycles = %.2f us to ADMIN_DONE, %d cycles = %.2f us with the response read; wall %.1f us",
		f.NopDoneCycles, f.NopDoneUS, f.NopTotalCycles, f.NopTotalUS, f.NopWallUS)
	t.Logf("QUERY_NIC %d cycles, ECHO 240 B %d cycles (wall %.1f us)", f.QueryTotalCycles, f.Echo240Cycles, f.Echo240WallUS)
	assert.Greater(t, f.NopDoneCycles, uint64(0))
	assert.GreaterOrEqual(t, f.NopTotalCycles, f.NopDoneCycles)

	// Lockstep is repeatable: the same command costs the same cycles (after
	// a NOP: the firmware clears what a longer response left in the window).
	require.NoError(t, n.Nop(ctx))
	require.NoError(t, n.Nop(ctx))
	a := n.LastAdmin()
	require.NoError(t, n.Nop(ctx))
	assert.Equal(t, a.TotalCycles(), n.LastAdmin().TotalCycles())
	_ = conn
}

func TestCosimQueryNIC(t *testing.T) {
	s := startSim(t, 1)
	n, _, conn, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	ctx := ctxT(t)
	a, err := n.QueryNIC(ctx)
	require.NoError(t, err)
	t.Logf("%+v", a)
	hwv, err := conn.Read32(ctx, hw.RegHwVersion)
	require.NoError(t, err)
	capVI, err := conn.Read32(ctx, hw.RegCapVi)
	require.NoError(t, err)
	assert.NotEmpty(t, a.Name)
	assert.Equal(t, hwv, a.HardwareVersion)
	assert.Equal(t, uint32(firmware.Version), a.ProviderVersion)
	assert.Equal(t, hw.CapViNumVi.Get(capVI), a.MaxVI)
	assert.Equal(t, uint32(n.Caps().NumVI), a.MaxVI)
}

func TestCosimAdmin(t *testing.T) {
	s := startSim(t, 1)
	n, logs, conn, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	ctx := ctxT(t)

	rng := rand.New(rand.NewPCG(7, 11))
	sizes := []int{0, 1, 240}
	for range 20 {
		sizes = append(sizes, rng.IntN(241))
	}
	lastSeq := n.Seq()
	for _, size := range sizes {
		p := make([]byte, size)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		got, err := n.Echo(ctx, p)
		require.NoError(t, err, "echo of %d bytes", size)
		assert.Equal(t, p, got)
		// Sequence numbers increase, and the firmware echoes them.
		assert.Equal(t, lastSeq+1, n.Seq())
		lastSeq = n.Seq()
		rspSeq, err := conn.Read32(ctx, hw.AdminRspWinBase+4)
		require.NoError(t, err)
		assert.Equal(t, lastSeq, rspSeq)
	}

	// Oversized: refused before anything is sent.
	_, err = n.Echo(ctx, make([]byte, 241))
	assert.ErrorIs(t, err, driver.ErrBadParam)
	assert.Equal(t, lastSeq, n.Seq())

	// Unknown opcode: the firmware answers UNKNOWN_CMD and keeps running.
	st, _, err := n.Admin(ctx, 0x4242, nil)
	assert.Equal(t, uint16(hw.AdminStUnknownCmd), st)
	assert.ErrorIs(t, err, driver.ErrUnknownCommand)
	require.NoError(t, n.Nop(ctx))

	// Malformed commands written as they are: FLAGS != 0, LEN 241.
	for _, cmd := range []hw.AdminCmd{
		{Opcode: hw.AdminOpNop, Flags: 0x8000},
		{Opcode: hw.AdminOpEcho, Len: hw.AdminPayloadMax + 1},
	} {
		st, err := n.ExchangeRaw(ctx, &cmd)
		assert.Equal(t, uint16(hw.AdminStBadParam), st, "%+v", cmd)
		assert.ErrorIs(t, err, driver.ErrBadParam)
		require.NoError(t, n.Nop(ctx))
	}
	require.NoError(t, n.DrainLog(ctx))
	var complaints int
	for _, r := range logs.FirmwareLines() {
		if strings.HasPrefix(r.Msg, "admin: ") {
			complaints++
		}
	}
	assert.Equal(t, 3, complaints, "the firmware logs every refused command: %v", logs.FirmwareLines())
}

func TestCosimFaultAndRecover(t *testing.T) {
	s := startSim(t, 1)
	faults := make(chan *driver.FirmwareFault, 4)
	n, _, _, err := openNode(t, s, 0, driver.Options{Firmware: firmware.FaultTestImage(), OnFault: func(f *driver.FirmwareFault) { faults <- f }})
	require.NoError(t, err)
	ctx := ctxT(t)
	err = n.Nop(ctx)
	var ff *driver.FirmwareFault
	require.ErrorAs(t, err, &ff)
	t.Log(err)
	assert.Equal(t, uint32(firmware.FaultTestTrapCause), ff.Cause)
	assert.Equal(t, uint32(firmware.FaultTestTrapPC), ff.PC)
	assert.Equal(t, uint32(firmware.FaultTestTrapVal), ff.Val)
	assert.Contains(t, err.Error(), "illegal instruction at pc 0x00000100 (mtval 0xc0001073)")
	require.Len(t, faults, 1)
	assert.Same(t, ff, <-faults)

	require.NoError(t, n.Recover(ctx))
	require.NoError(t, n.Nop(ctx))
	_, err = n.QueryNIC(ctx)
	require.NoError(t, err)
}

func TestCosimHang(t *testing.T) {
	s := startSim(t, 1)
	const timeout = 200_000
	n, _, conn, err := openNode(t, s, 0, driver.Options{Firmware: firmware.HangTestImage(), AdminTimeoutCycles: timeout, ProbeTimeoutCycles: 20_000})
	require.NoError(t, err)
	ctx := ctxT(t)
	start := conn.LastCycle()
	err = n.Nop(ctx)
	require.ErrorIs(t, err, driver.ErrFirmwareHung)
	assert.NotErrorIs(t, err, driver.ErrFirmwareFault)
	t.Log(err)
	assert.GreaterOrEqual(t, conn.LastCycle()-start, uint64(timeout), "the deadline is simulated time")
	assert.ErrorIs(t, n.CheckAlive(ctx), driver.ErrFirmwareHung)
	require.NoError(t, n.Recover(ctx))
	require.NoError(t, n.CheckAlive(ctx))
}

func TestCosimVersionMismatch(t *testing.T) {
	s := startSim(t, 1)
	n, _, _, err := openNode(t, s, 0, driver.Options{Version: firmware.Version + 1})
	require.ErrorIs(t, err, driver.ErrFirmwareVersion)
	t.Log(err)
	require.NotNil(t, n)
	assert.ErrorIs(t, n.Nop(ctxT(t)), driver.ErrNotReady)
}

func TestCosimBootFailures(t *testing.T) {
	s := startSim(t, 1)
	ctx := ctxT(t)
	// Zeros: the first instruction is illegal.
	n, _, _, err := openNode(t, s, 0, driver.Options{Firmware: make([]byte, 256), BootTimeoutCycles: 100_000})
	var ff *driver.FirmwareFault
	require.ErrorAs(t, err, &ff)
	t.Log(err)
	assert.Equal(t, uint32(driver.CauseIllegalInsn), ff.Cause)
	assert.Equal(t, uint32(0), ff.PC)
	assert.Equal(t, uint32(0), ff.Val)

	// A loop that never writes READY: jal x0, 0.
	spin := binary.LittleEndian.AppendUint32(nil, 0x0000006f)
	err = n.Reload(ctx, spin)
	require.ErrorIs(t, err, driver.ErrBootTimeout)
	assert.NotErrorIs(t, err, driver.ErrFirmwareFault)
	t.Log(err)

	// And back.
	require.NoError(t, n.Recover(ctx))
	require.NoError(t, n.Nop(ctx))
}

func TestCosimTwoNodes(t *testing.T) {
	s := startSim(t, 2)
	ctx := ctxT(t)
	conns := make([]*cosim.Conn, 2)
	for i := range conns {
		conns[i] = simtest.Dial(t, s, cosim.Options{Role: cosim.RoleDriver, Node: i, Interrupts: true, Name: t.Name()})
	}
	nics := make([]*driver.NIC, 2)
	errs := make([]error, 2)
	logs := make([]*driver.Capture, 2)
	simulator.Together(ctx, conns, func(i int) {
		var lg *slog.Logger
		lg, logs[i] = driver.NewCapture()
		nics[i], errs[i] = driver.Open(ctx, mustBus(t, conns[i]), driver.Options{Logger: lg})
	})
	for i := range nics {
		require.NoError(t, errs[i], "node %d", i)
		t.Cleanup(func() { nics[i].Close() })
		t.Logf("node %d: boot %d cycles (%v)", i, nics[i].Boot().Cycles, nics[i].Boot().Time)
		lines := logs[i].FirmwareLines()
		require.NotEmpty(t, lines)
		assert.Equal(t, int64(i), lines[0].Attrs["node"].Int64())
	}
	attrs := make([]driver.NICAttributes, 2)
	simulator.Together(ctx, conns, func(i int) {
		attrs[i], errs[i] = nics[i].QueryNIC(ctx)
		if errs[i] == nil {
			errs[i] = nics[i].Nop(ctx)
		}
	})
	for i := range nics {
		require.NoError(t, errs[i], "node %d", i)
		assert.Equal(t, uint32(firmware.Version), attrs[i].ProviderVersion)
		// the NIC's address is its node number (the fabric port strap)
		assert.Equal(t, []byte{byte(i)}, attrs[i].LocalNICAddress, "node %d address", i)
	}
	// (both connections read at once: in lockstep a connection that is not
	// blocked on the simulator stops time for the other)
	capNet := make([]uint32, 2)
	simulator.Together(ctx, conns, func(i int) { capNet[i], errs[i] = conns[i].Read32(ctx, hw.RegCapNet) })
	for i := range nics {
		require.NoError(t, errs[i], "node %d", i)
		assert.Equal(t, uint32(i), hw.CapNetNodeId.Get(capNet[i]), "node %d CAP_NET.NODE_ID", i)
	}
}

// BenchmarkCosimNop reports the simulated cost of an admin NOP next to
// its wall-clock cost (ns/op).
func BenchmarkCosimNop(b *testing.B) {
	requireNICB(b)
	s := simtest.StartSim(b, simulator.SimOptions{Nodes: 1})
	conn := simtest.Dial(b, s, cosim.Options{Role: cosim.RoleDriver, Name: "BenchmarkCosimNop"})
	ctx := context.Background()
	n, err := driver.Open(ctx, mustBus(b, conn), driver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	b.ReportMetric(float64(n.Boot().Cycles), "boot-cycles")
	var cycles uint64
	for b.Loop() {
		if err := n.Nop(ctx); err != nil {
			b.Fatal(err)
		}
		cycles += n.LastAdmin().TotalCycles()
	}
	b.ReportMetric(float64(cycles)/float64(b.N), "cycles/nop")
	b.ReportMetric(float64(n.CyclesToDuration(cycles))/float64(b.N)/1000, "sim-us/nop")
}

func requireNICB(b *testing.B) {
	b.Helper()
	simtest.RequireHDL(b)
	src, err := os.ReadFile(filepath.Join(simtest.Root(b), "rtl", "via_nic.v"))
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("VIANIC_SIM") == "" && !bytes.Contains(src, []byte("via_cpu")) {
		b.Skip("rtl/via_nic.v does not instantiate the control processor (via_cpu) yet")
	}
}

// TestCosimFreeRunWatchdog: in free-run mode the interrupt listener
// reports a fault as soon as FW_FAULT rises, without any call; after
// Recover the watchdog finds the firmware alive, and it reports a fault.
func TestCosimFreeRunWatchdog(t *testing.T) {
	requireNIC(t)
	start := time.Now()
	mark := func(what string) { t.Logf("%8.3f s: %s", time.Since(start).Seconds(), what) }
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Mode: cosim.ModeFreeRun})
	faults := make(chan *driver.FirmwareFault, 4)
	n, _, conn, err := openNode(t, s, 0, driver.Options{Firmware: firmware.FaultTestImage(), OnFault: func(f *driver.FirmwareFault) { faults <- f }})
	require.NoError(t, err)
	mark("opened")
	ctx := ctxT(t)

	// Ring the doorbell behind the driver's back: the fault image traps.
	require.NoError(t, conn.Write32(ctx, hw.RegAdminDoorbell, 1))
	require.NoError(t, conn.Flush(ctx))
	select {
	case f := <-faults:
		assert.Equal(t, uint32(firmware.FaultTestTrapPC), f.PC)
	case <-time.After(10 * time.Second):
		t.Fatal("OnFault was not called for a fault nobody asked about")
	}
	mark("fault reported")
	assert.ErrorIs(t, n.Nop(ctx), driver.ErrFirmwareFault)
	assert.Empty(t, faults, "OnFault is called once per fault")

	require.NoError(t, n.Recover(ctx))
	mark("recovered")
	b := n.Boot()
	t.Logf("free-run boot: download %v, read-back %v (%d words), boot %d cycles", b.DownloadWall, b.VerifyWall, b.VerifiedWords, b.Cycles)
	fails := make(chan error, 16)
	wctx, cancel := context.WithCancel(ctx)
	n.Watchdog(wctx, 2*time.Millisecond, func(err error) {
		select {
		case fails <- err:
		default:
		}
	})
	time.Sleep(50 * time.Millisecond)
	assert.Empty(t, fails, "the real firmware passes the probes")
	cancel()
	mark("watchdog 1 done")

	// Back to the fault image: the watchdog's own probe trips it.
	require.NoError(t, n.Reload(ctx, firmware.FaultTestImage()))
	mark("reloaded")
	wctx, cancel = context.WithCancel(ctx)
	defer cancel()
	n.Watchdog(wctx, 2*time.Millisecond, func(err error) {
		select {
		case fails <- err:
		default:
		}
	})
	select {
	case err := <-fails:
		assert.ErrorIs(t, err, driver.ErrFirmwareFault)
	case <-time.After(10 * time.Second):
		t.Fatal("the watchdog did not report the fault")
	}
	mark("watchdog 2 reported")
}
