package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vianic/vianic/internal/hw"
)

// Defaults of Options.
const (
	// DefaultBootTimeoutCycles is 8 ms at 250 MHz: boot takes a few
	// thousand cycles, so this only ends a firmware that never gets ready.
	DefaultBootTimeoutCycles = 2_000_000
	// DefaultAdminTimeoutCycles is 4 ms at 250 MHz, far more than any
	// command of today's firmware needs (hundreds of cycles).
	DefaultAdminTimeoutCycles = 1_000_000
	// DefaultProbeTimeoutCycles is the deadline of CheckAlive's NOP: 200 us
	// at 250 MHz.
	DefaultProbeTimeoutCycles = 50_000
	// DefaultBootPollCycles is how long boot waits for a log or fault
	// interrupt between two reads of FW_READY; it bounds the error of the
	// measured boot time.
	DefaultBootPollCycles = 64
	// resetTimeoutCycles bounds a soft reset (the NIC needs
	// SOFT_RESET_CYCLES plus a DMA drain).
	resetTimeoutCycles = 100_000
)

// Verify says how Open checks the downloaded image.
type Verify uint8

// Verification modes. Reading a word back is one bridge round trip (15 to
// 45 us of wall-clock time, a few simulated cycles), so VerifyAll costs
// about 20 ms for a 4 KiB image: cheap enough to be the default.
const (
	VerifyAll    Verify = iota // read every word back
	VerifySample               // read back every 16th word and the last one
	VerifyNone                 // trust the posted writes
)

// Options configure Open. The zero value boots the firmware built into the
// firmware package with the default deadlines, logging to slog.Default().
type Options struct {
	// Firmware is the instruction-memory image (little-endian words from
	// address 0); nil: firmware.Image().
	Firmware []byte
	// Version is the firmware version the driver expects in
	// FW_READY.VERSION; 0: firmware.Version.
	Version uint16
	// Logger receives the firmware's log lines and the driver's warnings;
	// nil: slog.Default().
	Logger *slog.Logger
	// BootTimeoutCycles bounds the wait for FW_READY after the core is
	// released (DefaultBootTimeoutCycles when 0).
	BootTimeoutCycles uint64
	// BootPollCycles is the longest wait between two reads of FW_READY
	// during boot (DefaultBootPollCycles when 0).
	BootPollCycles uint64
	// AdminTimeoutCycles bounds every admin command
	// (DefaultAdminTimeoutCycles when 0).
	AdminTimeoutCycles uint64
	// ProbeTimeoutCycles bounds CheckAlive's NOP
	// (DefaultProbeTimeoutCycles when 0).
	ProbeTimeoutCycles uint64
	// Verify selects how the download is checked (VerifyAll by default).
	Verify Verify
	// OnFault, if set, is called once per firmware fault, when the driver
	// notices it: by a call that ran into it, or, when the bus runs free
	// (BusInfo.FreeRunning), by the interrupt listener as soon as FW_FAULT
	// is raised (when the bus delivers Interrupts). It runs on the goroutine that noticed the
	// fault, must return quickly and must not call the NIC.
	OnFault func(*FirmwareFault)
	// NoBoot opens the NIC without touching its control processor: Open
	// checks the NIC's identity and register map and reads its
	// capabilities, but neither resets it nor downloads firmware. The
	// bus-level functions (DiagCopy and the other Diag calls,
	// AttachMemory) work; admin commands fail with ErrNotReady until
	// Recover or Reload boots the firmware. Benchmarks and tests of the
	// hardware use it so as not to pay (or depend on) a firmware boot.
	NoBoot bool
}

// BootInfo describes the last boot (Open or Recover) of a NIC.
type BootInfo struct {
	ImageWords     int           // words downloaded
	DownloadWall   time.Duration // posting the image until a read behind it returned (wall clock)
	DownloadCycles uint64        // simulated cycles the NIC took to apply the image's writes
	VerifyWall     time.Duration // reading it back (wall clock)
	VerifiedWords  int           // words read back
	ReleaseCycle   uint64        // first read after CPU_CTRL.RUN=1 answered
	ReadyCycle     uint64        // the read of FW_READY that saw the magic answered
	Cycles         uint64        // ReadyCycle - ReleaseCycle
	Time           time.Duration // Cycles in simulated time at the device's clock
	Version        uint16        // FW_READY.VERSION
}

// Caps are the capability registers the driver reads at Open.
type Caps struct {
	HWVersion      uint32 // HW_VERSION
	DataWidth      int    // CAP_DATAPATH.DATA_WIDTH
	NumVI          int    // CAP_VI.NUM_VI
	NumIRQ         int    // CAP_IRQ.NUM_IRQ
	IMemBytes      int    // CAP_CPU.IMEM_KB * 1024
	DMemBytes      int    // CAP_CPU.DMEM_KB * 1024
	DoorbellBase   uint32 // CAP_DB_BASE
	DoorbellStride uint32 // CAP_DB_STRIDE
	// TPTRegions and TPTCacheEntries are CAP_TPT's: memory regions of
	// the translation and protection table and page-list entries its
	// cache holds.
	TPTRegions, TPTCacheEntries int
}

// irqMask is every interrupt the driver handles; the bits are generated
// from IRQ_STATUS's fields.
const (
	irqFault = hw.IrqStatusFwFaultMask
	irqAdmin = hw.IrqStatusAdminDoneMask
	irqLog   = hw.IrqStatusFwLogMask
	irqMask  = irqFault | irqAdmin | irqLog
)

// NIC is an opened vianic NIC: its driver connection and the state of its
// firmware.
type NIC struct {
	b    Bus
	node int
	opts Options
	log  *slog.Logger
	caps Caps

	mu      sync.Mutex // serializes every use of the bus by the NIC
	seq     uint32
	boot    BootInfo
	ready   bool           // the firmware booted and has not faulted since
	fault   *FirmwareFault // sticky until Recover
	last    AdminTiming
	logBuf  []byte // log text not yet ended by '\n'
	logCyc  uint64 // cycle of the first word in logBuf
	lines   atomic.Uint64
	dropped atomic.Uint64

	faultIRQ atomic.Bool // the listener saw FW_FAULT

	listening bool   // the interrupt listener runs; guarded by mu
	irqEn     uint32 // what the driver last wrote to IRQ_ENABLE; guarded by mu

	// host memory and the sessions using it (mem.go); memMu is never
	// held across a bus call
	memMu  sync.Mutex
	mem    memState
	resets atomic.Uint64 // reloads of the firmware (each clears the TPT)

	// the completion path (event.go), made on first use
	complOnce sync.Once
	compl     *Completions
	fwevOnce  sync.Once
	fwev      *Completions // FW_EVENT (FWEvents)
	vec       vecState     // the interrupt vectors' users and moderation (evt.go)
	vecOnce   [NumVectors]sync.Once
	vecEv     [NumVectors]*Completions // the vectors' completion paths (VectorEvents)
	// asynchronous errors (async.go), made on first use
	asyncOnce sync.Once
	async     *asyncState
	cqOnce    sync.Once
	cq        *cqState
	cmMu      sync.Mutex
	cmPending []hw.AdminCmEvent // CM events polled and not yet taken by their waiter

	closed atomic.Bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Open brings up the NIC behind b: it checks the NIC's identity and
// register map (the one register-map check of the host software: an NIC
// generated from another layout fails with ErrMapMismatch), soft-resets it,
// downloads the firmware into the control processor's instruction memory,
// verifies it, releases the core and waits for FW_READY with the expected
// version, then enables the interrupts the driver handles (FW_FAULT,
// ADMIN_DONE, FW_LOG). With Options.NoBoot it stops after the identity
// check. The bus stays the caller's: Close does not close it. If the bus
// delivers Interrupts, a booted NIC consumes them.
//
// For the simulator, b is simbus.New(conn) of a driver connection.
//
// A boot that fails with a firmware fault returns a *FirmwareFault; one that
// times out ErrBootTimeout; a version mismatch ErrFirmwareVersion. The NIC
// is returned with such errors too (not nil), so that the caller can still
// Recover it or read its state; any other error returns a nil NIC.
func Open(ctx context.Context, b Bus, opts Options) (*NIC, error) {
	if b == nil {
		return nil, errors.New("driver: Open: nil bus")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	def := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&opts.BootTimeoutCycles, DefaultBootTimeoutCycles)
	def(&opts.BootPollCycles, DefaultBootPollCycles)
	def(&opts.AdminTimeoutCycles, DefaultAdminTimeoutCycles)
	def(&opts.ProbeTimeoutCycles, DefaultProbeTimeoutCycles)
	if opts.Version == 0 {
		opts.Version = defaultVersion()
	}
	node := b.Info().Node
	n := &NIC{
		b:    b,
		node: node,
		opts: opts,
		log:  opts.Logger.With(slog.Int("node", node)),
		stop: make(chan struct{}),
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.identify(ctx); err != nil {
		return nil, err
	}
	if opts.NoBoot {
		return n, nil
	}
	img := opts.Firmware
	if img == nil {
		img = defaultImage()
	}
	if err := n.bootLocked(ctx, img); err != nil {
		if errors.Is(err, ErrFirmwareFault) || errors.Is(err, ErrBootTimeout) || errors.Is(err, ErrFirmwareVersion) {
			return n, err
		}
		n.closeLocked()
		return nil, err
	}
	return n, nil
}

// identify checks MAGIC and the register map and reads the capabilities.
// The map is checked here and nowhere else: first the hash the bus reports
// (if it knows one), before any register is read at an offset that
// another map might place elsewhere, then the NIC's MAP_HASH registers.
func (n *NIC) identify(ctx context.Context) error {
	if h := n.b.Info().MapHash; h != 0 && h != hw.Bar0Hash {
		return mapMismatch(h)
	}
	magic, err := n.b.Read32(ctx, hw.RegMagic)
	if err != nil {
		return fmt.Errorf("driver: reading MAGIC: %w", err)
	}
	if magic != hw.Magic {
		return fmt.Errorf("%w: MAGIC reads 0x%08x, expected 0x%08x", ErrNotVIANIC, magic, uint32(hw.Magic))
	}
	hash, err := n.b.Read64(ctx, hw.RegMapHashLo)
	if err != nil {
		return fmt.Errorf("driver: reading MAP_HASH: %w", err)
	}
	if hash != hw.Bar0Hash {
		return mapMismatch(hash)
	}
	regs := []uint32{hw.RegHwVersion, hw.RegCapDatapath, hw.RegCapVi, hw.RegCapIrq, hw.RegCapCpu, hw.RegCapDbBase, hw.RegCapDbStride, hw.RegCapTpt}
	v := make([]uint32, len(regs))
	for i, r := range regs {
		if v[i], err = n.b.Read32(ctx, r); err != nil {
			return fmt.Errorf("driver: reading capabilities: %w", err)
		}
	}
	n.caps = Caps{
		HWVersion:      v[0],
		DataWidth:      int(hw.CapDatapathDataWidth.Get(v[1])),
		NumVI:          int(hw.CapViNumVi.Get(v[2])),
		NumIRQ:         int(hw.CapIrqNumIrq.Get(v[3])),
		IMemBytes:      int(hw.CapCpuImemKb.Get(v[4])) * 1024,
		DMemBytes:      int(hw.CapCpuDmemKb.Get(v[4])) * 1024,
		DoorbellBase:   v[5],
		DoorbellStride: v[6],
	}
	if v[7] != 0 {
		n.caps.TPTRegions = 1 << hw.CapTptRegionsLog2.Get(v[7])
		n.caps.TPTCacheEntries = 1 << hw.CapTptCacheLog2.Get(v[7])
	}
	return nil
}

func mapMismatch(hash uint64) error {
	return fmt.Errorf("%w: the NIC was generated from register map 0x%016x, the driver from 0x%016x (rebuild the simulator or the driver)",
		ErrMapMismatch, hash, hw.Bar0Hash)
}

// Node returns the node index of the NIC.
func (n *NIC) Node() int { return n.node }

// Caps returns the capabilities read at Open.
func (n *NIC) Caps() Caps { return n.caps }

// Boot returns what the last boot (Open or Recover) measured.
func (n *NIC) Boot() BootInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.boot
}

// Seq returns the sequence number of the last admin command sent (0 before
// the first).
func (n *NIC) Seq() uint32 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seq
}

// LogLines returns how many firmware log lines the NIC has passed to its
// logger, and LogDropped how many log words the hardware dropped.
func (n *NIC) LogLines() uint64 { return n.lines.Load() }

// LogDropped returns the number of firmware log words the hardware
// reported dropped (FW_LOG_LEVEL.DROPPED) since Open.
func (n *NIC) LogDropped() uint64 { return n.dropped.Load() }

// CyclesToDuration converts simulated cycles to simulated time at the
// device's clock.
func (n *NIC) CyclesToDuration(cycles uint64) time.Duration {
	return cyclesToDuration(cycles, n.b.Info().ClockPS)
}

func cyclesToDuration(cycles uint64, clockPS uint32) time.Duration {
	if clockPS == 0 {
		clockPS = 4000
	}
	return time.Duration(cycles * uint64(clockPS) / 1000)
}

// Close stops the NIC's interrupt listener and passes a partial log line
// to the logger. It leaves the hardware as it is and does not close the
// bus. Later calls fail with ErrClosed.
func (n *NIC) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closeLocked()
	return nil
}

func (n *NIC) closeLocked() {
	if n.closed.Swap(true) {
		return
	}
	close(n.stop)
	if len(n.logBuf) > 0 {
		n.emitLine(string(n.logBuf), n.logCyc)
		n.logBuf = n.logBuf[:0]
	}
	n.mu.Unlock()
	n.wg.Wait()
	n.mu.Lock()
}

// startListener starts the interrupt listener (once; the first boot does).
// Call with mu held.
func (n *NIC) startListener() {
	if n.listening || n.closed.Load() {
		return
	}
	n.listening = true
	n.wg.Add(1)
	go n.listen()
}

// listen watches the bus's interrupts for FW_FAULT. In lockstep mode it
// only records the fault (the next call reads the trap registers, at a
// deterministic point); on a free-running bus it reads them at once and
// calls OnFault.
func (n *NIC) listen() {
	defer n.wg.Done()
	irqs := n.b.Interrupts()
	for {
		select {
		case <-n.stop:
			return
		case irq, ok := <-irqs:
			if !ok {
				return
			}
			if irq.Vector&irqFault == 0 {
				continue
			}
			n.faultIRQ.Store(true)
			if !n.b.Info().FreeRunning || n.opts.OnFault == nil {
				continue
			}
			if n.mu.TryLock() {
				if !n.closed.Load() && n.fault == nil {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					n.checkFault(ctx)
					cancel()
				}
				n.mu.Unlock()
			}
		}
	}
}

// begin starts a call: it fails on a closed NIC and reports a fault the
// listener saw. Call with mu held.
func (n *NIC) begin(ctx context.Context) error {
	if n.closed.Load() {
		return ErrClosed
	}
	if n.fault != nil {
		return n.fault
	}
	if n.faultIRQ.Load() {
		if f, err := n.checkFault(ctx); err != nil {
			return err
		} else if f != nil {
			return f
		}
	}
	return nil
}

// checkFault reads CPU_STATUS and, if the core halted, the trap registers;
// it records the fault (sticky until Recover), calls OnFault and returns
// it. It returns nil, nil when the core runs. Call with mu held.
func (n *NIC) checkFault(ctx context.Context) (*FirmwareFault, error) {
	n.faultIRQ.Store(false)
	st, err := n.b.Read32(ctx, hw.RegCpuStatus)
	if err != nil {
		return nil, fmt.Errorf("driver: reading CPU_STATUS: %w", err)
	}
	if hw.CpuStatusHalted.Get(st) == 0 {
		return nil, nil
	}
	f := &FirmwareFault{Node: n.node}
	for _, p := range []struct {
		off uint32
		v   *uint32
	}{{hw.RegCpuTrapCause, &f.Cause}, {hw.RegCpuTrapPc, &f.PC}, {hw.RegCpuTrapVal, &f.Val}} {
		if *p.v, err = n.b.Read32(ctx, p.off); err != nil {
			return nil, fmt.Errorf("driver: reading the trap registers: %w", err)
		}
	}
	f.Cycle = n.b.Cycle()
	n.fault = f
	n.ready = false
	// The fault usually comes with log lines explaining it.
	n.drainLog(ctx)
	n.log.LogAttrs(ctx, slog.LevelError, "firmware fault", slog.Uint64("cycle", f.Cycle),
		slog.String("trap", TrapName(f.Cause)), slog.String("pc", fmt.Sprintf("0x%08x", f.PC)),
		slog.String("mtval", fmt.Sprintf("0x%08x", f.Val)))
	if cb := n.opts.OnFault; cb != nil {
		cb(f)
	}
	// every session's asynchronous error (async.go)
	n.dispatch(AsyncError{Code: hw.VipErrorCatastrophic, Resource: hw.VipResourceNic, Cycle: f.Cycle, Err: f})
	return f, nil
}

// Fault returns the firmware fault the NIC noticed and has not recovered
// from, or nil.
func (n *NIC) Fault() *FirmwareFault {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fault
}

// AttachMemory makes m the host memory the NIC reaches by DMA (see
// Bus.AttachMemory).
func (n *NIC) AttachMemory(ctx context.Context, m HostMemory) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	return n.b.AttachMemory(ctx, m)
}
