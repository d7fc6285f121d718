package driver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

func openFake(t *testing.T, f *fakeNIC, opts Options) (*NIC, *capture, error) {
	t.Helper()
	lg, c := newCapture()
	if opts.Logger == nil {
		opts.Logger = lg
	}
	if opts.Firmware == nil {
		opts.Firmware = fakeImage(0, 0x0001, 700)
	}
	if opts.Version == 0 {
		opts.Version = 0x0001
	}
	n, err := Open(context.Background(), f, opts)
	if n != nil {
		t.Cleanup(func() { n.Close() })
	}
	return n, c, err
}

func TestOpenBoots(t *testing.T) {
	f := newFake(1)
	n, logs, err := openFake(t, f, Options{})
	require.NoError(t, err)
	b := n.Boot()
	assert.Equal(t, 700, b.ImageWords)
	assert.Equal(t, 700, b.VerifiedWords)
	assert.Equal(t, uint16(0x0001), b.Version)
	// The fake becomes ready bootCycles after the release; the driver sees
	// it within one poll and one read.
	assert.GreaterOrEqual(t, b.Cycles, f.bootCycles-10)
	assert.LessOrEqual(t, b.Cycles, f.bootCycles+DefaultBootPollCycles+20)
	assert.Equal(t, time.Duration(b.Cycles)*4*time.Nanosecond, b.Time)
	assert.Equal(t, 16, n.Caps().NumVI)
	assert.Equal(t, 16384, n.Caps().IMemBytes)
	assert.Equal(t, uint32(irqMask), f.irqEnable)

	lines := logs.firmwareLines()
	require.Len(t, lines, 1)
	assert.Equal(t, "vianic fw 0.1: 16 VIs", lines[0].Msg)
	assert.Equal(t, int64(1), lines[0].Attrs["node"].Int64())
	assert.Greater(t, lines[0].Attrs["cycle"].Uint64(), b.ReleaseCycle)
	assert.Equal(t, uint64(1), n.LogLines())
}

func TestOpenIdentity(t *testing.T) {
	f := newFake(0)
	f.magic = 0x12345678
	_, _, err := openFake(t, f, Options{})
	assert.ErrorIs(t, err, ErrNotVIANIC)

	f = newFake(0)
	f.hash = 42
	_, _, err = openFake(t, f, Options{})
	assert.ErrorIs(t, err, ErrMapMismatch)
	assert.Contains(t, err.Error(), "0x000000000000002a")
}

func TestOpenDownloadChecks(t *testing.T) {
	f := newFake(0)
	f.corruptWord = 123
	_, _, err := openFake(t, f, Options{})
	require.ErrorIs(t, err, ErrDownload)
	assert.Contains(t, err.Error(), "word 123")

	f = newFake(0)
	f.corruptWord = 17 // not sampled: the sample mode misses it, by design
	n, _, err := openFake(t, f, Options{Verify: VerifySample})
	require.NoError(t, err)
	assert.Equal(t, 45, n.Boot().VerifiedWords) // 0, 16, ..., 688, and 699

	f = newFake(0)
	f.corruptWord = 32
	_, _, err = openFake(t, f, Options{Verify: VerifySample})
	assert.ErrorIs(t, err, ErrDownload)

	f = newFake(0)
	reads := 0
	n, _, err = openFake(t, f, Options{Verify: VerifyNone})
	require.NoError(t, err)
	reads = f.reads
	assert.Less(t, reads, 200)
	assert.Equal(t, 0, n.Boot().VerifiedWords)

	f = newFake(0)
	f.imemKB = 2
	_, _, err = openFake(t, f, Options{})
	assert.ErrorIs(t, err, ErrImageTooLarge)
}

func TestOpenVersionMismatch(t *testing.T) {
	f := newFake(0)
	n, _, err := openFake(t, f, Options{Firmware: fakeImage(0, 0x0203, 64)})
	require.ErrorIs(t, err, ErrFirmwareVersion)
	require.NotNil(t, n)
	assert.Contains(t, err.Error(), "runs firmware 2.3, this driver expects 0.1")
	assert.ErrorIs(t, n.Nop(context.Background()), ErrNotReady)
	// The real firmware brings it back.
	require.NoError(t, n.Reload(context.Background(), fakeImage(0, 0x0001, 64)))
	assert.NoError(t, n.Nop(context.Background()))
}

func TestOpenZeroImageFaults(t *testing.T) {
	f := newFake(0)
	var faults atomic.Int32
	n, _, err := openFake(t, f, Options{Firmware: make([]byte, 64), OnFault: func(*FirmwareFault) { faults.Add(1) }})
	var ff *FirmwareFault
	require.ErrorAs(t, err, &ff)
	assert.ErrorIs(t, err, ErrFirmwareFault)
	assert.Equal(t, uint32(CauseIllegalInsn), ff.Cause)
	assert.Equal(t, uint32(0), ff.PC)
	assert.Contains(t, err.Error(), "illegal instruction at pc 0x00000000 (mtval 0x00000000)")
	assert.Equal(t, int32(1), faults.Load())
	require.NotNil(t, n)
}

func TestOpenBootTimeout(t *testing.T) {
	f := newFake(0)
	spin := []byte{0x6f, 0, 0, 0} // jal x0, 0
	n, _, err := openFake(t, f, Options{Firmware: spin, BootTimeoutCycles: 50_000})
	require.ErrorIs(t, err, ErrBootTimeout)
	assert.NotErrorIs(t, err, ErrFirmwareFault)
	require.NotNil(t, n)
	assert.GreaterOrEqual(t, f.cycle, n.Boot().ReleaseCycle+50_000)
}

func TestAdmin(t *testing.T) {
	ctx := context.Background()
	f := newFake(0)
	n, logs, err := openFake(t, f, Options{})
	require.NoError(t, err)

	require.NoError(t, n.Nop(ctx))
	assert.Equal(t, uint32(1), n.Seq())
	tm := n.LastAdmin()
	assert.Equal(t, uint32(1), tm.Seq)
	assert.GreaterOrEqual(t, tm.DoneCycles(), f.adminCycles)
	assert.Greater(t, tm.TotalCycles(), tm.DoneCycles())

	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 3, 8, 239, 240} {
		p := make([]byte, size)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		got, err := n.Echo(ctx, p)
		require.NoError(t, err, "size %d", size)
		assert.Equal(t, p, got)
	}

	a, err := n.QueryNIC(ctx)
	require.NoError(t, err)
	assert.Equal(t, "vianic0", a.Name)
	assert.Equal(t, uint32(16), a.MaxVI)
	assert.Equal(t, []byte{0, 0}, a.LocalNICAddress)

	before := f.reads
	_, err = n.Echo(ctx, make([]byte, 241))
	assert.ErrorIs(t, err, ErrBadParam)
	assert.Equal(t, before, f.reads, "an oversized payload must not reach the NIC")

	seq := n.Seq()
	st, _, err := n.Admin(ctx, 0x7777, nil)
	assert.Equal(t, uint16(hw.AdminStUnknownCmd), st)
	assert.ErrorIs(t, err, ErrUnknownCommand)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, seq+1, se.Seq)
	assert.Contains(t, err.Error(), "opcode 0x7777")
	require.NoError(t, n.Nop(ctx))
	// The firmware's complaint was logged after ADMIN_DONE and drained
	// with the next command.
	found := false
	for _, r := range logs.firmwareLines() {
		found = found || bytes.Contains([]byte(r.Msg), []byte("status 1"))
	}
	assert.True(t, found, "the firmware's line about the unknown opcode reaches the logger")

	// A malformed command written as is.
	n.mu.Lock()
	cmd := hw.AdminCmd{Opcode: hw.AdminOpNop, Flags: 1}
	st, _, err = n.exchange(ctx, &cmd, 10_000)
	n.mu.Unlock()
	assert.Equal(t, uint16(hw.AdminStBadParam), st)
	assert.ErrorIs(t, err, ErrBadParam)
	require.NoError(t, n.CheckAlive(ctx))
}

func TestAdminSequenceMismatch(t *testing.T) {
	f := newFake(0)
	n, _, err := openFake(t, f, Options{})
	require.NoError(t, err)
	f.badSeq = true
	assert.ErrorIs(t, n.Nop(context.Background()), ErrSequence)
}

func TestAdminRejectedDoorbell(t *testing.T) {
	ctx := context.Background()
	f := newFake(0)
	n, _, err := openFake(t, f, Options{AdminTimeoutCycles: 1000})
	require.NoError(t, err)
	f.slowFirst = 1500 // the first command completes 1800 cycles after its doorbell
	err = n.Nop(ctx)
	require.ErrorIs(t, err, ErrFirmwareHung)
	assert.NotErrorIs(t, err, ErrBusy)
	// The firmware is still on seq 1: the doorbell of seq 2 is rejected,
	// then seq 1 completes.
	err = n.Nop(ctx)
	assert.ErrorIs(t, err, ErrBusy)
	assert.Contains(t, err.Error(), "rejected")
	// Now the mailbox is free again.
	assert.NoError(t, n.Nop(ctx))
}

func TestFaultAndRecover(t *testing.T) {
	ctx := context.Background()
	f := newFake(2)
	var got []*FirmwareFault
	var mu sync.Mutex
	n, logs, err := openFake(t, f, Options{Firmware: fakeImage(1, 0x0001, 65), OnFault: func(ff *FirmwareFault) {
		mu.Lock()
		got = append(got, ff)
		mu.Unlock()
	}})
	require.NoError(t, err)
	err = n.Nop(ctx)
	var ff *FirmwareFault
	require.ErrorAs(t, err, &ff)
	assert.Equal(t, FirmwareFault{Node: 2, Cause: 2, PC: 0x100, Val: 0xc0001073, Cycle: ff.Cycle}, *ff)
	assert.Contains(t, err.Error(), "firmware fault on node 2: illegal instruction at pc 0x00000100 (mtval 0xc0001073)")
	// Sticky until Recover, without touching the NIC.
	reads := f.reads
	assert.Same(t, ff, errAs(n.Nop(ctx)))
	assert.Equal(t, reads, f.reads)
	assert.Same(t, ff, n.Fault())
	mu.Lock()
	assert.Len(t, got, 1)
	mu.Unlock()
	hasFaultRecord := false
	for _, r := range logs.records() {
		hasFaultRecord = hasFaultRecord || r.Msg == "firmware fault"
	}
	assert.True(t, hasFaultRecord)

	require.NoError(t, n.Recover(ctx))
	assert.Nil(t, n.Fault())
	assert.NoError(t, n.Nop(ctx))
}

func errAs(err error) *FirmwareFault {
	var ff *FirmwareFault
	errors.As(err, &ff)
	return ff
}

func TestHang(t *testing.T) {
	ctx := context.Background()
	f := newFake(0)
	n, _, err := openFake(t, f, Options{Firmware: fakeImage(2, 0x0001, 33), AdminTimeoutCycles: 20_000, ProbeTimeoutCycles: 5_000})
	require.NoError(t, err)
	start := f.cycle
	err = n.Nop(ctx)
	require.ErrorIs(t, err, ErrFirmwareHung)
	assert.NotErrorIs(t, err, ErrFirmwareFault)
	assert.GreaterOrEqual(t, f.cycle-start, uint64(20_000))
	// The probe now finds the mailbox still busy.
	err = n.CheckAlive(ctx)
	assert.ErrorIs(t, err, ErrFirmwareHung)
	assert.ErrorIs(t, err, ErrBusy)
	require.NoError(t, n.Recover(ctx))
	assert.NoError(t, n.CheckAlive(ctx))
}

func TestLogAssembly(t *testing.T) {
	f := newFake(3)
	f.logTooMuch = 5
	n, logs, err := openFake(t, f, Options{})
	require.NoError(t, err)
	assert.Equal(t, uint64(5), n.LogDropped())
	var warned bool
	for _, r := range logs.records() {
		if r.Level == slog.LevelWarn && r.Attrs["dropped"].Uint64() == 5 {
			warned = true
		}
	}
	assert.True(t, warned, "dropped log words are reported as a warning")

	// Words split anywhere; a partial line is kept until its end.
	n.mu.Lock()
	for _, w := range []uint32{'a' | 'b'<<8, 'c' | '\n'<<8 | 'd'<<16, 'e'} {
		n.logWord(w, 77)
	}
	n.mu.Unlock()
	lines := logs.firmwareLines()
	assert.Equal(t, "abc", lines[len(lines)-1].Msg)
	assert.Equal(t, uint64(77), lines[len(lines)-1].Attrs["cycle"].Uint64())
	assert.Equal(t, int64(3), lines[len(lines)-1].Attrs["node"].Int64())
	require.NoError(t, n.Close())
	lines = logs.firmwareLines()
	assert.Equal(t, "de", lines[len(lines)-1].Msg, "Close passes on the partial line")
	assert.ErrorIs(t, n.Nop(context.Background()), ErrClosed)
	assert.ErrorIs(t, n.DrainLog(context.Background()), ErrClosed)
}

func TestConcurrentAdmin(t *testing.T) {
	f := newFake(0)
	n, _, err := openFake(t, f, Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				p := []byte{byte(g), byte(i), 1, 2, 3}
				got, err := n.Echo(context.Background(), p)
				assert.NoError(t, err)
				assert.Equal(t, p, got)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, uint32(160), n.Seq())
}

func TestListenerNoticesFault(t *testing.T) {
	f := newFake(0)
	f.free = true
	faulted := make(chan *FirmwareFault, 1)
	n, _, err := openFake(t, f, Options{Firmware: fakeImage(1, 0x0001, 65), OnFault: func(ff *FirmwareFault) { faulted <- ff }})
	require.NoError(t, err)
	// Ring the doorbell behind the driver's back: the fault comes as an
	// interrupt, and the listener reports it without any call.
	f.Write32(context.Background(), hw.RegAdminDoorbell, 1)
	f.Run(context.Background(), 100)
	select {
	case ff := <-faulted:
		assert.Equal(t, uint32(0x100), ff.PC)
	case <-time.After(5 * time.Second):
		t.Fatal("OnFault was not called")
	}
	assert.ErrorIs(t, n.Nop(context.Background()), ErrFirmwareFault)
}

func TestWatchdog(t *testing.T) {
	f := newFake(0)
	f.free = true
	n, _, err := openFake(t, f, Options{Firmware: fakeImage(2, 0x0001, 33), ProbeTimeoutCycles: 1000})
	require.NoError(t, err)
	fails := make(chan error, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n.Watchdog(ctx, time.Millisecond, func(err error) {
		select {
		case fails <- err:
		default:
		}
	})
	select {
	case err := <-fails:
		assert.ErrorIs(t, err, ErrFirmwareHung)
	case <-time.After(5 * time.Second):
		t.Fatal("the watchdog did not report the hang")
	}
	cancel()
	n.Close()
}

func TestErrorsAndNames(t *testing.T) {
	ff := &FirmwareFault{Node: 0, Cause: 2, PC: 0x1a4, Val: 0xffffffff}
	assert.Equal(t, "firmware fault on node 0: illegal instruction at pc 0x000001a4 (mtval 0xffffffff)", ff.Error())
	assert.Equal(t, "store access fault", TrapName(7))
	assert.Equal(t, "trap cause 9", TrapName(9))
	assert.ErrorIs(t, &StatusError{Status: hw.AdminStBusy}, ErrBusy)
	assert.NotErrorIs(t, &StatusError{Status: 99}, ErrBusy)
	assert.Equal(t, "status 99", StatusName(99))
	assert.Equal(t, "1.2", VersionString(0x0102))
	assert.Equal(t, []uint32{0x04030201, 0x05}, imageWords([]byte{1, 2, 3, 4, 5}))
}

func TestOpenNoBoot(t *testing.T) {
	f := newFake(0)
	n, _, err := openFake(t, f, Options{NoBoot: true})
	require.NoError(t, err)
	assert.False(t, f.run, "the core is not released")
	assert.Equal(t, uint32(0), f.memAddr, "nothing downloaded")
	assert.Equal(t, 16, n.Caps().NumVI, "the capabilities are read")
	assert.ErrorIs(t, n.Nop(context.Background()), ErrNotReady)
	require.NoError(t, n.Recover(context.Background()))
	require.NoError(t, n.Nop(context.Background()))
}

func TestDiagCopyChecks(t *testing.T) {
	f := newFake(0)
	n, _, err := openFake(t, f, Options{NoBoot: true})
	require.NoError(t, err)
	ctx := context.Background()
	reads := f.reads
	for _, r := range []DiagRequest{
		{Len: 0},
		{Len: -8},
		{Len: 1 << 32},
		{Src: 4, Len: 64},
		{Dst: 12, Len: 64},
		{Len: 60},
		{Src: ^uint64(0) - 7, Len: 64},
		{Len: 64, MaxBurst: 512},
		{Len: 64, MaxOutstanding: 16},
		{Len: 64, MaxBurst: -1},
	} {
		_, err := n.DiagCopy(ctx, r)
		assert.ErrorIs(t, err, ErrDiagParam, "%+v", r)
		assert.ErrorIs(t, n.DiagStart(ctx, r), ErrDiagParam, "%+v", r)
	}
	assert.Equal(t, reads, f.reads, "refused before touching the NIC")
	e := &DiagError{Node: 1, Result: DiagResult{Status: hw.DiagStatusDone.Val(1) | hw.DiagStatusError.Val(1) | hw.DiagStatusRdErr.Val(1) | hw.DiagStatusResp.Val(3), ErrAddr: 0x4000_0000}}
	assert.ErrorIs(t, e, ErrDiagFailed)
	assert.Equal(t, "driver: diag: copy on node 1 failed: RD_ERR (DIAG_STATUS 0x316), AXI response 3 at host address 0x40000000", e.Error())
	n.Close()
	_, err = n.DiagCopy(ctx, DiagRequest{Len: 64})
	assert.ErrorIs(t, err, ErrClosed)
}
