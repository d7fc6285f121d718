// Package simulator launches and builds the vianic simulator (the Verilated
// NIC with its C++ co-simulation harness, built by sim-scripts/build-sim.sh
// from rtl/ and cosim/harness/) and knows where the repository keeps it:
// FindRoot, SimBinary, EchoBinary, GTKWaveSaveFile, TraceFormat.
//
// Layer: tooling above the bridge client. It imports cosim (to dial the
// simulator it started), the standard library and golang.org/x/sys/unix;
// never driver or internal/hw. It is internal: tests, benchmarks and
// cmd/vianic use it, a driver for real hardware never does.
//
// Its tests are the end-to-end tests of the simulator behind the bridge
// (roles, lockstep, tracing, the transaction log, robustness, the DMA
// model): they know the NIC, so they use internal/hw and run the DMA
// diagnostic engine through the driver (driver/simbus); cosim's own tests
// need no simulator and no register map.
package simulator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vianic/vianic/cosim"
)

// DMAModel is the host-memory timing model of the simulator.
type DMAModel struct {
	ReadLatencyNS  int // latency of a DMA read burst (simulator default 500)
	WriteLatencyNS int // latency of a DMA write response (default 150)
	BandwidthMBps  int // per direction, in MB/s (10^6 bytes/s); 0: unlimited (default 8000)
}

// SimOptions configure StartSimulator. Zero fields keep the simulator's
// defaults (2 nodes, lockstep, 250 MHz, no tracing).
type SimOptions struct {
	// Root is the repository root; default: the first directory holding
	// go.mod, walking up from the working directory.
	Root string
	// Binary is the simulator to run; default: $VIANIC_SIM, else
	// build/sim/{vcd,fst}/vianic-sim under Root, built by
	// sim-scripts/build-sim.sh.
	Binary string
	// NoBuild uses the existing binary without running the build script.
	NoBuild bool

	Nodes    int        // nodes, 1..16
	Mode     cosim.Mode // cosim.ModeLockstep or cosim.ModeFreeRun
	ClockMHz float64    // NIC clock
	// Trace is the waveform file; its extension (.vcd or .fst) picks the
	// simulator build. Empty: no tracing.
	Trace string
	// TraceStart and TraceEnd limit the waveform to the cycles
	// [TraceStart, TraceEnd); TraceEnd 0 means no end.
	TraceStart, TraceEnd uint64
	// DMA sets the host-memory model; nil keeps the simulator's.
	DMA   *DMAModel
	TxLog string // file for the transaction log (one line per MMIO and DMA transaction)
	// Pcap is the capture file of the frames the fabric switch delivers
	// (docs/fabric.md, "Captures"); empty: no capture.
	Pcap string
	// WaitDrivers holds time (after the power-on reset) until that many
	// driver connections have attached (vianic-sim --wait-drivers), so
	// that clients that connect at different wall-clock times start at
	// the same cycle every run.
	WaitDrivers int
	// LinkLatencyNs is the fabric's link latency each way; 0 keeps the
	// simulator's (100 ns).
	LinkLatencyNs int
	// Quantum lets the nodes run that many cycles apart (vianic-sim
	// --quantum; at most the link latency in cycles): faster on several
	// cores, and requests and answers take effect at quantum ends
	// (docs/fabric.md, "Quantum synchronisation"). 0: every cycle.
	Quantum int
	Seed    uint32 // Verilator random initialisation seed (0: the simulator's default)
	// Socket is the Unix socket path; default: sim.sock in a new
	// temporary directory, removed by Stop.
	Socket string
	// Args are more command-line arguments for the simulator.
	Args []string

	// Stderr receives the simulator's stderr (and the build's output)
	// as it comes; nil discards it (the tail is kept for errors either
	// way).
	Stderr io.Writer
	// Stdout receives the simulator's stdout after its "listening" line.
	Stdout io.Writer
	// Grace is how long Stop waits after SIGTERM before SIGKILL (default
	// 5 s).
	Grace time.Duration
}

// Sim is a running simulator process.
type Sim struct {
	opts    SimOptions
	root    string
	binary  string
	addr    string
	network string
	tmpDir  string
	cmd     *exec.Cmd
	tail    *tailBuffer

	done     chan struct{} // closed when the process has exited
	waitErr  error
	stopOnce sync.Once
	stopErr  error
	killed   atomic.Bool // ended by a signal sent with Signal
	tcpAddr  string
}

const listeningPrefix = "vianic-sim: listening on "

// StartSimulator builds the simulator if needed, starts it and waits (at
// most until ctx ends) until it listens. The process is not tied to ctx:
// end it with Stop.
func StartSimulator(ctx context.Context, opts SimOptions) (*Sim, error) {
	if opts.Grace == 0 {
		opts.Grace = 5 * time.Second
	}
	s := &Sim{opts: opts, tail: newTailBuffer(16 << 10), done: make(chan struct{})}
	var err error
	if s.binary, s.root, err = findBinary(ctx, opts); err != nil {
		return nil, err
	}
	sock := opts.Socket
	if sock == "" {
		if s.tmpDir, err = os.MkdirTemp("", "vianic-sim-"); err != nil {
			return nil, fmt.Errorf("simulator: simulator run directory: %w", err)
		}
		sock = filepath.Join(s.tmpDir, "sim.sock")
	}
	args := simArgs(opts, sock)
	cmd := exec.Command(s.binary, args...)
	cmd.Dir = s.root
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr io.Writer = s.tail
	if opts.Stderr != nil {
		stderr = io.MultiWriter(s.tail, opts.Stderr)
	}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("simulator: simulator stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("simulator: starting simulator: %w", err)
	}
	s.cmd = cmd

	// One "listening" line per listener: Unix, and TCP with --tcp.
	wantLines := 1
	if slices.Contains(args, "--tcp") {
		wantLines = 2
	}
	ready := make(chan string, 2)
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		br := bufio.NewReader(stdout)
		found := false
		listening := 0
		for {
			line, err := br.ReadString('\n')
			if !found {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), listeningPrefix); ok {
					listening++
					found = listening == wantLines
					ready <- rest
				} else if line != "" {
					s.tail.Write([]byte(line)) // early stdout helps diagnose a failed start
				}
			} else if opts.Stdout != nil {
				io.WriteString(opts.Stdout, line)
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		<-outDone // all output is read before Wait closes the pipe
		s.waitErr = cmd.Wait()
		close(s.done)
	}()

	for got := 0; ; {
		select {
		case where := <-ready:
			network, addr, _ := strings.Cut(where, ":")
			switch network {
			case "unix":
				s.network, s.addr = network, addr
			case "tcp":
				s.tcpAddr = addr
			default:
				s.Stop()
				return nil, fmt.Errorf("simulator: simulator printed an address I cannot parse: %q", where)
			}
			if got++; got < wantLines {
				continue
			}
			if s.addr == "" {
				s.Stop()
				return nil, fmt.Errorf("simulator: simulator did not say where it listens on a Unix socket")
			}
			return s, nil
		case <-s.done:
			s.cleanup()
			return nil, fmt.Errorf("simulator: simulator %s exited before listening (%v); its output:\n%s", s.binary, s.waitErr, s.tail.String())
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("simulator: simulator did not listen in time (%w); its output:\n%s", ctx.Err(), s.tail.String())
		}
	}
}

// simArgs maps options to the simulator's command line.
func simArgs(o SimOptions, sock string) []string {
	args := []string{"--socket", sock}
	if o.Nodes != 0 {
		args = append(args, "--nodes", strconv.Itoa(o.Nodes))
	}
	if o.Mode != 0 {
		args = append(args, "--mode", o.Mode.String())
	}
	if o.ClockMHz != 0 {
		args = append(args, "--clock-mhz", strconv.FormatFloat(o.ClockMHz, 'g', -1, 64))
	}
	if o.WaitDrivers > 0 {
		args = append(args, "--wait-drivers", strconv.Itoa(o.WaitDrivers))
	}
	if o.Pcap != "" {
		args = append(args, "--pcap", o.Pcap)
	}
	if o.LinkLatencyNs > 0 {
		args = append(args, "--link-latency-ns", strconv.Itoa(o.LinkLatencyNs))
	}
	if o.Quantum > 0 {
		args = append(args, "--quantum", strconv.Itoa(o.Quantum))
	}
	if o.Trace != "" {
		args = append(args, "--trace", o.Trace)
		if o.TraceStart != 0 {
			args = append(args, "--trace-start", strconv.FormatUint(o.TraceStart, 10))
		}
		if o.TraceEnd != 0 {
			args = append(args, "--trace-end", strconv.FormatUint(o.TraceEnd, 10))
		}
	}
	if d := o.DMA; d != nil {
		args = append(args,
			"--dma-read-latency-ns", strconv.Itoa(d.ReadLatencyNS),
			"--dma-write-latency-ns", strconv.Itoa(d.WriteLatencyNS),
			"--dma-bandwidth-mbps", strconv.Itoa(d.BandwidthMBps))
	}
	if o.TxLog != "" {
		args = append(args, "--txlog", o.TxLog)
	}
	if o.Seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(uint64(o.Seed), 10))
	}
	return append(args, o.Args...)
}

// Addr returns the simulator's socket address (a path for Unix sockets).
func (s *Sim) Addr() string { return s.addr }

// Network returns "unix".
func (s *Sim) Network() string { return s.network }

// TCPAddr returns the simulator's TCP address (host:port) when it was
// started with --tcp (in SimOptions.Args), else "".
func (s *Sim) TCPAddr() string { return s.tcpAddr }

// Binary returns the path of the simulator executable.
func (s *Sim) Binary() string { return s.binary }

// Root returns the repository root the simulator runs in.
func (s *Sim) Root() string { return s.root }

// Pid returns the simulator's process id.
func (s *Sim) Pid() int { return s.cmd.Process.Pid }

// CPUTime returns the CPU time (user and system, all threads) the simulator
// process has used so far, from /proc (Linux), at the kernel's clock-tick
// resolution (10 ms).
func (s *Sim) CPUTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.Pid()))
	if err != nil {
		return 0, fmt.Errorf("simulator CPU time: %w", err)
	}
	// pid (comm) state ppid ... : comm may hold spaces, so count from
	// the last ')'; utime and stime are fields 14 and 15
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("simulator CPU time: unexpected /proc stat %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("simulator CPU time: unexpected /proc stat %q", b)
	}
	var ticks uint64
	for _, x := range f[11:13] {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("simulator CPU time: %w", err)
		}
		ticks += v
	}
	const userHZ = 100 // USER_HZ: the unit of /proc's times on every Linux
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// Dial connects to the simulator (see cosim.Dial).
func (s *Sim) Dial(ctx context.Context, opts cosim.Options) (*cosim.Conn, error) {
	return cosim.Dial(ctx, s.network, s.addr, opts)
}

// Signal sends sig to the simulator (e.g. syscall.SIGUSR1).
func (s *Sim) Signal(sig os.Signal) error {
	select {
	case <-s.done:
		return fmt.Errorf("simulator: simulator has exited")
	default:
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		return err
	}
	if sig == syscall.SIGKILL || sig == syscall.SIGTERM || sig == syscall.SIGINT {
		s.killed.Store(true)
	}
	return nil
}

// Exited returns a channel closed when the simulator process has exited.
func (s *Sim) Exited() <-chan struct{} { return s.done }

// Output returns the last 16 KiB of the simulator's stderr.
func (s *Sim) Output() string { return s.tail.String() }

// Wait waits for the simulator to exit and returns its exit status (nil for
// exit code 0).
func (s *Sim) Wait() error {
	<-s.done
	s.cleanup()
	if s.waitErr != nil {
		return fmt.Errorf("simulator: simulator: %w", s.waitErr)
	}
	return nil
}

// Stop ends the simulator: SIGTERM, then SIGKILL if it has not exited
// after the grace period. It returns nil if the simulator exited cleanly
// (status 0, or by the SIGTERM or a signal sent with Signal), else the exit
// status and its last output.
// Stop may be called more than once.
func (s *Sim) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			s.stopErr = s.exitError(s.killed.Load())
			s.cleanup()
			return
		default:
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
			s.stopErr = s.exitError(true)
		case <-time.After(s.opts.Grace):
			s.cmd.Process.Kill()
			<-s.done
			s.stopErr = fmt.Errorf("simulator: simulator ignored SIGTERM for %v and was killed; its output:\n%s", s.opts.Grace, s.tail.String())
		}
		s.cleanup()
	})
	return s.stopErr
}

func (s *Sim) exitError(termSent bool) error {
	if s.waitErr == nil {
		return nil
	}
	var ee *exec.ExitError
	if termSent && errors.As(s.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return nil // ended by our signal
		}
	}
	return fmt.Errorf("simulator: simulator exited: %v; its output:\n%s", s.waitErr, s.tail.String())
}

func (s *Sim) cleanup() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

// ---------------------------------------------------------------- building

// FindRoot returns the repository root: the nearest directory at or above
// the working directory, or else above the running executable, whose go.mod
// declares this module.
func FindRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/vianic/vianic\n") {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("simulator: no go.mod of github.com/vianic/vianic above the working directory or the executable; set SimOptions.Root")
}

// GTKWaveSaveFile returns the project's GTKWave save file for the simulator's
// dumps (nodes node0.via_node.via_nic, node1.via_node.via_nic, ...; the switch fabric.via_fabric).
func GTKWaveSaveFile(root string) string {
	return filepath.Join(root, "sim-scripts", "gtkwave", "cosim.gtkw")
}

// TraceFormat returns "fst" for a path ending in .fst and "vcd" otherwise.
func TraceFormat(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".fst") {
		return "fst"
	}
	return "vcd"
}

// SimBinary returns the path of the simulator build for the trace format
// ("vcd" or "fst") under the repository root.
func SimBinary(root, format string) string {
	return filepath.Join(root, "build", "sim", format, "vianic-sim")
}

// EchoBinary returns the path of the raw socket echo server built with the
// simulator (the baseline of the bridge benchmark, internal/bench).
func EchoBinary(root string) string {
	return filepath.Join(root, "build", "sim", "vianic-echo")
}

func findBinary(ctx context.Context, o SimOptions) (bin, root string, err error) {
	root = o.Root
	if root == "" {
		if root, err = FindRoot(); err != nil {
			return "", "", err
		}
	}
	if o.Binary != "" {
		return o.Binary, root, nil
	}
	if env := os.Getenv("VIANIC_SIM"); env != "" {
		return env, root, nil
	}
	format := TraceFormat(o.Trace)
	bin = SimBinary(root, format)
	if !o.NoBuild {
		if err := BuildSimulator(ctx, root, o.Stderr, format); err != nil {
			return "", "", err
		}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "", fmt.Errorf("simulator: simulator binary: %w (build it with sim-scripts/build-sim.sh)", err)
	}
	return bin, root, nil
}

var (
	buildMu   sync.Mutex
	buildDone = map[string]bool{}
)

// BuildSimulator runs sim-scripts/build-sim.sh under root for the given
// variants ("vcd", "fst", "echo"; none: all of them), at most once per
// process, root and variant, holding a file lock so that concurrent test
// processes do not build at the same time. The script skips what is up to
// date. Progress goes to progress (os.Stderr when nil).
func BuildSimulator(ctx context.Context, root string, progress io.Writer, variants ...string) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	if len(variants) == 0 {
		variants = []string{"vcd", "fst", "echo"}
	}
	var todo []string
	for _, v := range variants {
		if !buildDone[root+"\x00"+v] {
			todo = append(todo, v)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if progress == nil {
		progress = os.Stderr
	}
	script := filepath.Join(root, "sim-scripts", "build-sim.sh")
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("simulator: cannot build the simulator: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "build", "sim"), 0o755); err != nil {
		return fmt.Errorf("simulator: build directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(root, "build", "sim", ".build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("simulator: build lock: %w", err)
	}
	defer lock.Close()
	if err := flockContext(ctx, int(lock.Fd())); err != nil {
		return fmt.Errorf("simulator: waiting for another build of the simulator: %w", err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)

	start := time.Now()
	cmd := exec.CommandContext(ctx, script, todo...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = progress, progress
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("simulator: %s %s failed (%w); run it by hand to see why", script, strings.Join(todo, " "), err)
	}
	if d := time.Since(start); d > 2*time.Second {
		fmt.Fprintf(progress, "simulator: simulator build took %.1f s\n", d.Seconds())
	}
	for _, v := range todo {
		buildDone[root+"\x00"+v] = true
	}
	return nil
}

func flockContext(ctx context.Context, fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
