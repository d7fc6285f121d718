// Package bench is the bridge benchmark suite behind `vianic bench bridge`:
// posted-write rate, MMIO read round trip against a raw C++ echo baseline,
// the host-memory DMA model (through the driver's diagnostic copy), and
// simulated cycles per second busy and idle with and without tracing.
// BenchMemory (`vianic bench mem`) times memory registration, and BenchVI
// (`vianic bench vi`) the data path through vipl.
//
// Layer: internal tooling at the top of the host stack. It imports cosim,
// internal/simulator (to start simulators and the echo server), driver and
// driver/simbus (the diagnostic copy), internal/hw (the registers it times),
// vipl (the data path) and the standard library; only cmd/vianic and tests
// import it.
package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

// BenchOptions configure BenchBridge. Zero fields take the defaults shown.
type BenchOptions struct {
	// Sim is the base of every simulator started (Root, Binary, NoBuild,
	// Stderr); the benchmark sets nodes, mode, trace and DMA itself.
	Sim simulator.SimOptions
	// Echo is the raw echo server; default simulator.EchoBinary(root).
	Echo string

	Writes   int // posted writes timed (2,000,000)
	Reads    int // MMIO reads and echoes per round (250)
	Rounds   int // interleaved rounds of reads and echoes (41)
	DMABytes int // size of the bandwidth-model copy (4 MiB)
	DMAMBps  int // configured DMA bandwidth (1000 MB/s = 4 B/cycle at 250 MHz)
	// DMALatencyNS is the read and write latency of the bandwidth-model
	// copy (100 ns). At the reference 500 ns the diagnostic engine, with
	// 4 bursts of 128 bytes in flight, is bound by latency near 3.2
	// bytes/cycle, so it could not show a 4 bytes/cycle limit.
	DMALatencyNS int
	BusyCopies   int      // back-to-back copies per node for the busy figure (8)
	BusyBytes    int      // size of each of them (256 KiB)
	IdleCycles   uint64   // cycles of the idle Run (100,000,000)
	Traces       []string // trace formats for the cycle-rate figures ("", "vcd", "fst")

	// Progress receives one line per step; nil is silent.
	Progress io.Writer

	// NoPin measures the read round trip without pinning (see
	// BridgeFigures.PinnedCPU): the figures then depend on where the
	// scheduler happens to place the processes.
	NoPin bool
}

// CycleRate is the simulation speed in one trace configuration.
type CycleRate struct {
	Trace         string  `json:"trace"`                 // "none", "vcd" or "fst"
	BusyCycles    uint64  `json:"busy_cycles"`           // cycles simulated with DMA copies running on both nodes
	BusyPerSec    float64 `json:"busy_cycles_per_sec"`   // their rate in wall-clock time
	IdleCycles    uint64  `json:"idle_cycles"`           // cycles of Run with nothing happening
	IdlePerSec    float64 `json:"idle_cycles_per_sec"`   // their rate
	IdleBusyRatio float64 `json:"idle_busy_cost_ratio"`  // IdlePerSec / BusyPerSec (target >= 20)
	IdleCPUSec    float64 `json:"idle_sim_cpu_sec"`      // simulator CPU time during the idle run
	TraceBytes    int64   `json:"trace_bytes,omitempty"` // size of the waveform written
}

// BridgeFigures are the bridge's measured performance figures.
type BridgeFigures struct {
	// Posted writes: the client-side rate (Write32 calls until Flush
	// returns) and the applied rate (until a read after them returns, so
	// the simulator has applied them all).
	Writes              int     `json:"posted_writes"`
	WritesPerSec        float64 `json:"posted_writes_per_sec"`         // target >= 1,000,000
	WritesAppliedPerSec float64 `json:"posted_writes_applied_per_sec"` // includes simulating them
	WriteBatches        uint64  `json:"write_batches"`

	// MMIO read round trip against a raw Unix-socket echo with a C++
	// server, in interleaved rounds of the same run: the medians of the
	// rounds, and the median of the per-round ratios.
	ReadRoundTripUS float64 `json:"mmio_read_rtt_us"`
	EchoRoundTripUS float64 `json:"echo_rtt_us"`
	ReadEchoRatio   float64 `json:"read_echo_ratio"` // target <= 1.5
	// The fastest round of each, and their ratio: the least disturbed by
	// other load on the machine.
	ReadBestUS   float64   `json:"mmio_read_best_us"`
	EchoBestUS   float64   `json:"echo_best_us"`
	ReadEchoBest float64   `json:"read_echo_ratio_best"`
	ReadRoundsUS []float64 `json:"mmio_read_rounds_us"`
	EchoRoundsUS []float64 `json:"echo_rounds_us"`
	// PinnedCPU is the CPU that this process, the simulator and the echo
	// server were pinned to while the round trips were measured, or -1.
	// On a machine with few CPUs (a 2-vCPU VM) a round trip costs several
	// times more when the two ends run on different CPUs (the wake-up of
	// an idle vCPU) than on one, and which one the scheduler picks changes
	// every few milliseconds and depends on each process's CPU load, so
	// that unpinned rounds compare different things; pinned, both round
	// trips are measured on one CPU, where they cost what their work costs.
	PinnedCPU int `json:"pinned_cpu"`

	// DMA model: one large diagnostic copy with a configured bandwidth.
	DMABytes              int     `json:"dma_bytes"`
	DMACycles             uint64  `json:"dma_cycles"`
	DMABytesPerCycle      float64 `json:"dma_bytes_per_cycle"`
	DMAConfiguredPerCycle float64 `json:"dma_configured_bytes_per_cycle"`
	DMAModelRatio         float64 `json:"dma_measured_over_configured"` // target 0.95 .. 1.05
	DMAWallMBps           float64 `json:"dma_wall_mb_per_sec"`
	DMALatencyNS          int     `json:"dma_latency_ns"`
	// The same copy with the reference model (500/150 ns, 8 GB/s).
	DMARefBytesPerCycle float64 `json:"dma_reference_bytes_per_cycle"`
	DMARefWallMBps      float64 `json:"dma_reference_wall_mb_per_sec"`

	// Simulation speed of the 2-node build, busy and idle, per trace
	// configuration.
	CycleRates []CycleRate `json:"cycle_rates"`
}

// BenchBridge measures the bridge and the simulator: posted-write rate,
// MMIO read round trip against a raw echo baseline, the DMA bandwidth
// model, and simulated cycles per second busy and idle with and without
// tracing. It starts its own simulators (and the echo server).
func BenchBridge(ctx context.Context, o BenchOptions) (BridgeFigures, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Writes, 2_000_000)
	def(&o.Reads, 250)
	def(&o.Rounds, 41)
	def(&o.DMABytes, 4<<20)
	def(&o.DMAMBps, 1000)
	def(&o.DMALatencyNS, 100)
	def(&o.BusyCopies, 8)
	def(&o.BusyBytes, 256<<10)
	if o.IdleCycles == 0 {
		o.IdleCycles = 100_000_000
	}
	if o.Traces == nil {
		o.Traces = []string{"", "vcd", "fst"}
	}
	progress := func(format string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "bench: "+format+"\n", a...)
		}
	}
	var f BridgeFigures
	root := o.Sim.Root
	if root == "" {
		var err error
		if root, err = simulator.FindRoot(); err != nil {
			return f, err
		}
	}
	o.Sim.Root = root
	if o.Echo == "" {
		o.Echo = simulator.EchoBinary(root)
		if !o.Sim.NoBuild {
			if err := simulator.BuildSimulator(ctx, root, o.Sim.Stderr, "echo"); err != nil {
				return f, err
			}
		}
	}
	tmp, err := os.MkdirTemp("", "vianic-bench-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(tmp)

	if err := benchMMIO(ctx, o, &f, progress); err != nil {
		return f, err
	}
	if err := benchDMA(ctx, o, &f, progress); err != nil {
		return f, err
	}
	for _, tr := range o.Traces {
		r, err := benchCycles(ctx, o, tr, tmp, progress)
		if err != nil {
			return f, err
		}
		f.CycleRates = append(f.CycleRates, r)
	}
	return f, nil
}

func startBenchSim(ctx context.Context, o BenchOptions, nodes int, trace string, dma *simulator.DMAModel) (*simulator.Sim, error) {
	so := o.Sim
	so.Nodes, so.Mode, so.Trace, so.DMA = nodes, cosim.ModeLockstep, trace, dma
	return simulator.StartSimulator(ctx, so)
}

func benchMMIO(ctx context.Context, o BenchOptions, f *BridgeFigures, progress func(string, ...any)) error {
	s, err := startBenchSim(ctx, o, 1, "", nil)
	if err != nil {
		return err
	}
	defer s.Stop()
	c, err := s.Dial(ctx, cosim.Options{Name: "bench"})
	if err != nil {
		return err
	}
	defer c.Close()

	// Posted writes.
	if _, err := c.Read32(ctx, hw.RegMagic); err != nil {
		return err
	}
	b0 := c.Counters().WriteBatches
	start := time.Now()
	for i := range o.Writes {
		if err := c.Write32(ctx, hw.RegScratch, uint32(i)); err != nil {
			return err
		}
	}
	if err := c.Flush(ctx); err != nil {
		return err
	}
	sent := time.Since(start)
	v, err := c.Read32(ctx, hw.RegScratch)
	if err != nil {
		return err
	}
	applied := time.Since(start)
	if v != uint32(o.Writes-1) {
		return fmt.Errorf("bench: SCRATCH is %d after %d writes", v, o.Writes)
	}
	f.Writes = o.Writes
	f.WritesPerSec = float64(o.Writes) / sent.Seconds()
	f.WritesAppliedPerSec = float64(o.Writes) / applied.Seconds()
	f.WriteBatches = c.Counters().WriteBatches - b0
	progress("posted writes: %.0f/s sent, %.0f/s applied (%d batches)", f.WritesPerSec, f.WritesAppliedPerSec, f.WriteBatches)

	// Reads against the echo baseline, interleaved.
	echo, err := startEcho(ctx, o.Echo)
	if err != nil {
		return err
	}
	defer echo.stop()
	f.PinnedCPU = -1
	if !o.NoPin {
		unpin, cpu, err := pinAll(s.Pid(), echo.cmd.Process.Pid)
		if err != nil {
			progress("not pinned: %v", err)
		} else {
			defer unpin()
			f.PinnedCPU = cpu
		}
	}
	ec, err := net.Dial("unix", echo.addr)
	if err != nil {
		return fmt.Errorf("bench: echo server: %w", err)
	}
	defer ec.Close()
	// The same bytes an MMIO_READ and its READ_DATA carry.
	req := cosim.AppendMMIORead(nil, 1, hw.RegMagic, 4)
	resp := make([]byte, len(req))
	for range 200 { // warm up both
		if err := echoOnce(ec, req, resp); err != nil {
			return err
		}
		if _, err := c.Read32(ctx, hw.RegMagic); err != nil {
			return err
		}
	}
	echoRound := func() (float64, error) {
		start := time.Now()
		for range o.Reads {
			if err := echoOnce(ec, req, resp); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(o.Reads), nil
	}
	readRound := func() (float64, error) {
		start := time.Now()
		for range o.Reads {
			if _, err := c.Read32(ctx, hw.RegMagic); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(o.Reads), nil
	}
	// Short rounds, alternating which goes first, and the ratio of each
	// pair: the machine's speed drifts, a pair shares the same moment.
	var ratios []float64
	for i := range o.Rounds {
		var e, r float64
		var err1, err2 error
		if i%2 == 0 {
			e, err1 = echoRound()
			r, err2 = readRound()
		} else {
			r, err2 = readRound()
			e, err1 = echoRound()
		}
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		f.EchoRoundsUS = append(f.EchoRoundsUS, e)
		f.ReadRoundsUS = append(f.ReadRoundsUS, r)
		ratios = append(ratios, r/e)
	}
	f.EchoRoundTripUS = median(f.EchoRoundsUS)
	f.ReadRoundTripUS = median(f.ReadRoundsUS)
	f.ReadEchoRatio = median(ratios)
	f.ReadBestUS = slices.Min(f.ReadRoundsUS)
	f.EchoBestUS = slices.Min(f.EchoRoundsUS)
	f.ReadEchoBest = f.ReadBestUS / f.EchoBestUS
	progress("MMIO read %.2f us, raw echo %.2f us: ratio %.2f (median of %d interleaved rounds); best rounds %.2f / %.2f us = %.2f; pinned to CPU %d",
		f.ReadRoundTripUS, f.EchoRoundTripUS, f.ReadEchoRatio, o.Rounds, f.ReadBestUS, f.EchoBestUS, f.ReadEchoBest, f.PinnedCPU)
	return nil
}

// pinAll pins every thread of this process and the given (single-threaded)
// processes to one CPU, the last one this process may use, and returns a
// function that restores the previous affinities.
func pinAll(pids ...int) (func(), int, error) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return nil, -1, err
	}
	cpu := -1
	for i := range 1024 {
		if orig.IsSet(i) {
			cpu = i
		}
	}
	if cpu < 0 {
		return nil, -1, errors.New("no CPU in the affinity mask")
	}
	var one unix.CPUSet
	one.Set(cpu)
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, -1, err
	}
	type saved struct {
		id   int
		mask unix.CPUSet
	}
	var undo []saved
	restore := func() {
		for _, u := range undo {
			unix.SchedSetaffinity(u.id, &u.mask)
		}
		// threads started while pinned inherited the pinned mask
		if tids, err := os.ReadDir("/proc/self/task"); err == nil {
			for _, t := range tids {
				if id, err := strconv.Atoi(t.Name()); err == nil {
					unix.SchedSetaffinity(id, &orig)
				}
			}
		}
	}
	ids := slices.Clone(pids)
	for _, t := range tids {
		if id, err := strconv.Atoi(t.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		var m unix.CPUSet
		if unix.SchedGetaffinity(id, &m) != nil {
			continue // a thread that ended
		}
		if err := unix.SchedSetaffinity(id, &one); err != nil {
			restore()
			return nil, -1, fmt.Errorf("pinning %d to CPU %d: %w", id, cpu, err)
		}
		undo = append(undo, saved{id, m})
	}
	return restore, cpu, nil
}

// echoOnce sends req and reads back as many bytes as the answer has: the
// echo server returns what it gets, so this reads req back when the answer
// is the same size, and waits for the rest otherwise.
func echoOnce(c net.Conn, req, resp []byte) error {
	if _, err := c.Write(req); err != nil {
		return fmt.Errorf("bench: echo: %w", err)
	}
	if _, err := io.ReadFull(c, resp[:len(req)]); err != nil {
		return fmt.Errorf("bench: echo: %w", err)
	}
	return nil
}

func median[T ~int | ~uint64 | ~float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type echoServer struct {
	cmd  *exec.Cmd
	addr string
	dir  string
}

func startEcho(ctx context.Context, bin string) (*echoServer, error) {
	dir, err := os.MkdirTemp("", "vianic-echo-")
	if err != nil {
		return nil, err
	}
	e := &echoServer{dir: dir, addr: filepath.Join(dir, "echo.sock")}
	e.cmd = exec.Command(bin, "--socket", e.addr)
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var stderr strings.Builder
	e.cmd.Stderr = &stderr
	if err := e.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("bench: starting the echo server %s: %w", bin, err)
	}
	ready := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if strings.Contains(line, "listening") {
				ready <- nil
				io.Copy(io.Discard, br)
				return
			}
			if err != nil {
				ready <- fmt.Errorf("bench: echo server exited before listening: %s", stderr.String())
				return
			}
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			e.stop()
			return nil, err
		}
	case <-ctx.Done():
		e.stop()
		return nil, ctx.Err()
	}
	return e, nil
}

func (e *echoServer) stop() {
	e.cmd.Process.Kill()
	e.cmd.Wait()
	os.RemoveAll(e.dir)
}

func benchDMA(ctx context.Context, o BenchOptions, f *BridgeFigures, progress func(string, ...any)) error {
	n := o.DMABytes
	model := &simulator.DMAModel{ReadLatencyNS: o.DMALatencyNS, WriteLatencyNS: o.DMALatencyNS, BandwidthMBps: o.DMAMBps}
	cyc, wall, clockPS, err := timeCopy(ctx, o, model, n)
	if err != nil {
		return err
	}
	f.DMABytes = n
	f.DMALatencyNS = o.DMALatencyNS
	f.DMACycles = cyc
	f.DMABytesPerCycle = float64(n) / float64(cyc)
	f.DMAConfiguredPerCycle = float64(o.DMAMBps) * 1e6 * clockPS * 1e-12
	f.DMAModelRatio = f.DMABytesPerCycle / f.DMAConfiguredPerCycle
	f.DMAWallMBps = float64(n) / wall.Seconds() / 1e6
	progress("DMA at %d MB/s, %d ns: %d bytes in %d cycles = %.3f B/cycle, configured %.3f (ratio %.3f); %.1f MB/s wall",
		o.DMAMBps, o.DMALatencyNS, n, cyc, f.DMABytesPerCycle, f.DMAConfiguredPerCycle, f.DMAModelRatio, f.DMAWallMBps)

	cyc, wall, _, err = timeCopy(ctx, o, nil, n)
	if err != nil {
		return err
	}
	f.DMARefBytesPerCycle = float64(n) / float64(cyc)
	f.DMARefWallMBps = float64(n) / wall.Seconds() / 1e6
	progress("DMA at the reference model: %.3f B/cycle, %.1f MB/s wall", f.DMARefBytesPerCycle, f.DMARefWallMBps)
	return nil
}

// timeCopy runs one diagnostic copy of n bytes in a simulator with the
// given DMA model (nil: the simulator's default) and returns DIAG_CYCLES,
// the wall time and the clock period in ps.
func timeCopy(ctx context.Context, o BenchOptions, model *simulator.DMAModel, n int) (uint64, time.Duration, float64, error) {
	s, err := startBenchSim(ctx, o, 1, "", model)
	if err != nil {
		return 0, 0, 0, err
	}
	defer s.Stop()
	c, err := s.Dial(ctx, cosim.Options{Name: "bench dma"})
	if err != nil {
		return 0, 0, 0, err
	}
	defer c.Close()
	nic, err := diagNIC(ctx, c)
	if err != nil {
		return 0, 0, 0, err
	}
	defer nic.Close()
	mem, err := cosim.NewMemory(2 * n)
	if err != nil {
		return 0, 0, 0, err
	}
	defer mem.Close()
	if err := nic.AttachMemory(ctx, mem); err != nil {
		return 0, 0, 0, err
	}
	b := mem.Bytes()
	for i := range n {
		b[i] = byte(i * 7)
	}
	start := time.Now()
	r, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: 0, Dst: uint64(n), Len: n})
	wall := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bench: DMA copy: %w", err)
	}
	for i := range n {
		if b[n+i] != byte(i*7) {
			return 0, 0, 0, fmt.Errorf("bench: DMA copy differs at byte %d", i)
		}
	}
	return r.Cycles, wall, float64(c.Device().ClockPS), nil
}

// diagNIC opens the NIC behind the driver connection c for its DMA
// diagnostic engine, without booting the firmware (the benchmark neither
// needs nor times it).
func diagNIC(ctx context.Context, c *cosim.Conn) (*driver.NIC, error) {
	b, err := simbus.New(c)
	if err != nil {
		return nil, err
	}
	return driver.Open(ctx, b, driver.Options{NoBoot: true, Logger: slog.New(slog.DiscardHandler)})
}

func benchCycles(ctx context.Context, o BenchOptions, format, tmp string, progress func(string, ...any)) (CycleRate, error) {
	r := CycleRate{Trace: format}
	trace := ""
	if format == "" {
		r.Trace = "none"
	} else {
		trace = filepath.Join(tmp, "bench."+format)
	}
	s, err := startBenchSim(ctx, o, 2, trace, nil)
	if err != nil {
		return r, err
	}
	defer s.Stop()
	var conns [2]*cosim.Conn
	var nics [2]*driver.NIC
	for i := range conns {
		c, err := s.Dial(ctx, cosim.Options{Node: i, Name: "bench cycles"})
		if err != nil {
			return r, err
		}
		defer c.Close()
		m, err := cosim.NewMemory(2 * o.BusyBytes)
		if err != nil {
			return r, err
		}
		defer m.Close()
		if err := c.AttachMemory(ctx, m); err != nil {
			return r, err
		}
		conns[i] = c
	}
	// Opening a NIC reads registers, which takes simulated time: in
	// lockstep both clients must be blocked for it to pass.
	errs := make([]error, 2)
	simulator.Together(ctx, conns[:], func(i int) { nics[i], errs[i] = diagNIC(ctx, conns[i]) })
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	for _, n := range nics {
		defer n.Close()
	}
	// Busy: copies back to back on both nodes. Together keeps a node whose
	// copies are done blocked on the simulator until the other's are too
	// (lockstep: a client that is neither blocked nor gone freezes time).
	c0 := max(conns[0].LastCycle(), conns[1].LastCycle())
	start := time.Now()
	simulator.Together(ctx, conns[:], func(i int) {
		for range o.BusyCopies {
			if _, err := nics[i].DiagCopy(ctx, driver.DiagRequest{Src: 0, Dst: uint64(o.BusyBytes), Len: o.BusyBytes}); err != nil {
				errs[i] = fmt.Errorf("bench: copy: %w", err)
				return
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	busyWall := time.Since(start)
	c1 := max(conns[0].LastCycle(), conns[1].LastCycle())
	r.BusyCycles = c1 - c0
	r.BusyPerSec = float64(r.BusyCycles) / busyWall.Seconds()

	// Idle: both clients wait as long; nothing happens. (Together again:
	// the two Runs need not start in the same cycle.)
	cpu0 := procCPU(s.Pid())
	start = time.Now()
	simulator.Together(ctx, conns[:], func(i int) { _, errs[i] = conns[i].Run(ctx, o.IdleCycles) })
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	idleWall := time.Since(start)
	r.IdleCPUSec = procCPU(s.Pid()) - cpu0
	r.IdleCycles = o.IdleCycles
	r.IdlePerSec = float64(r.IdleCycles) / idleWall.Seconds()
	r.IdleBusyRatio = r.IdlePerSec / r.BusyPerSec
	for _, c := range conns {
		c.Close()
	}
	if err := s.Stop(); err != nil {
		return r, err
	}
	if trace != "" {
		if fi, err := os.Stat(trace); err == nil {
			r.TraceBytes = fi.Size()
		}
	}
	progress("cycles, trace %s: busy %.3g/s, idle %.3g/s, idle %.0fx cheaper", r.Trace, r.BusyPerSec, r.IdlePerSec, r.IdleBusyRatio)
	return r, nil
}

// procCPU returns the user+system CPU seconds of a process (0 if unknown).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 13 {
		return 0
	}
	var ut, st float64
	fmt.Sscan(fields[11], &ut)
	fmt.Sscan(fields[12], &st)
	return (ut + st) / 100 // USER_HZ
}
