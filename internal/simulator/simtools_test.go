package simulator_test

// The simulator's modes and tools against the real simulator: free-run
// mode, the trace window and TRACE, the transaction log, SIGUSR1, the
// command line's error paths, the waveform a failing test keeps, and the
// committed GTKWave save file against a fresh dump.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
	"github.com/vianic/vianic/internal/vcd"
)

// cpuNS returns the CPU time (user and system) a process has used, in ns,
// from /proc/PID/schedstat.
func cpuNS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.NotEmpty(t, f)
	v, err := strconv.ParseInt(f[0], 10, 64)
	require.NoError(t, err)
	return v
}

// Free-run mode: time advances on its own; a client that only posts writes,
// polls DIAG_STATUS with reads and lets time pass with Run sees a DMA copy
// complete. An idle free-run simulator with a connected client uses next to
// no CPU.
func TestSimFreeRun(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Mode: cosim.ModeFreeRun})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{Name: "free-run"})
	require.Equal(t, cosim.ModeFreeRun, c.Device().Mode)
	ctx := ctxT(t, 60*time.Second)
	b := mem.Bytes()
	const src, dst, n = 0x1000, 0x40000, 64 << 10
	fill(b[src:src+n], 21)
	require.NoError(t, startCopy(ctx, c, src, dst, n))
	var st uint32
	polls := 0
	for {
		v, err := c.Read32(ctx, hw.RegDiagStatus)
		require.NoError(t, err)
		polls++
		if hw.DiagStatusDone.Get(v) == 1 {
			st = v
			break
		}
		require.Equal(t, uint32(1), hw.DiagStatusBusy.Get(v), "status 0x%x", v)
		_, err = c.Run(ctx, 2000)
		require.NoError(t, err)
	}
	assert.Equal(t, uint32(0), hw.DiagStatusError.Get(st), "status 0x%x", st)
	require.True(t, bytes.Equal(b[src:src+n], b[dst:dst+n]), "destination differs from source")
	assert.Greater(t, polls, 1, "the copy took a while")
	t.Logf("copy done after %d polls, cycle %d", polls, c.LastCycle())

	// Idle: the NIC has nothing to do, the client is connected and silent.
	time.Sleep(200 * time.Millisecond)
	c0, w0 := cpuNS(t, s.Pid()), time.Now()
	time.Sleep(1500 * time.Millisecond)
	used, wall := cpuNS(t, s.Pid())-c0, time.Since(w0)
	share := float64(used) / float64(wall.Nanoseconds())
	t.Logf("idle free-run simulator: %.3f ms of CPU in %v (%.2f%% of a core)", float64(used)/1e6, wall, 100*share)
	assert.Less(t, share, 0.05, "an idle free-run simulator sleeps")

	// And it still answers.
	v, err := c.Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	assert.Equal(t, uint32(hw.Magic), v)
}

// vcdTimes returns the timestamps (ps) of a VCD file's value section.
func vcdTimes(t *testing.T, path string) []uint64 {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := vcd.NewReader(bufio.NewReader(f))
	require.NoError(t, err)
	var times []uint64
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return times
		}
		require.NoError(t, err)
		if ev.Kind == vcd.TimeStep {
			times = append(times, ev.Time)
		}
	}
}

// slowCopy starts a DMA copy that keeps the node busy (and so evaluated
// and dumped every cycle) for a long time at 100 MB/s.
func slowCopy(t *testing.T, s *simulator.Sim) *cosim.Conn {
	t.Helper()
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{Name: "tracer"})
	fill(mem.Bytes()[:256<<10], 5)
	require.NoError(t, startCopy(ctxT(t, 10*time.Second), c, 0, 512<<10, 256<<10))
	return c
}

var slowDMA = &simulator.DMAModel{ReadLatencyNS: 500, WriteLatencyNS: 150, BandwidthMBps: 100}

// --trace-start/--trace-end limit the dump to a window of cycles; TRACE
// off/on leaves a gap.
func TestSimTraceWindow(t *testing.T) {
	const start, end = 2000, 6000
	wave := simtest.WavePath(t, "vcd")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave, TraceStart: start, TraceEnd: end, DMA: slowDMA})
	c := slowCopy(t, s)
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Run(ctx, 10_000)
	require.NoError(t, err)
	c.Close()
	require.NoError(t, s.Stop())
	ps := uint64(c.Device().ClockPS)
	times := vcdTimes(t, wave)
	require.NotEmpty(t, times)
	first, last := times[0], times[len(times)-1]
	t.Logf("window [%d, %d) cycles = [%d, %d) ps; dump from %d to %d ps, %d timestamps", start, end, start*ps, end*ps,
		first, last, len(times))
	assert.GreaterOrEqual(t, first, start*ps, "nothing dumped before --trace-start")
	assert.Less(t, last, end*ps, "nothing dumped from --trace-end on")
	assert.LessOrEqual(t, first, (start+1)*ps, "dumping starts at the window")
	assert.GreaterOrEqual(t, last, (end-1)*ps, "the node is busy up to the end of the window")

	// TRACE off, 1000 cycles, TRACE on: no timestamp in between.
	wave2 := simtest.WavePath(t, "gap.vcd")
	s2 := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave2, DMA: slowDMA})
	c2 := slowCopy(t, s2)
	off, err := c2.Run(ctx, 500)
	require.NoError(t, err)
	require.NoError(t, c2.Trace(ctx, false))
	on, err := c2.Run(ctx, 1000)
	require.NoError(t, err)
	require.NoError(t, c2.Trace(ctx, true))
	last2, err := c2.Run(ctx, 500)
	require.NoError(t, err)
	c2.Close()
	require.NoError(t, s2.Stop())
	var before, inside, after int
	for _, tm := range vcdTimes(t, wave2) {
		switch {
		case tm <= off*ps:
			before++
		case tm < on*ps:
			inside++
		default:
			after++
		}
	}
	t.Logf("TRACE off at cycle %d, on at %d, end %d: %d timestamps before, %d in the gap, %d after", off, on, last2,
		before, inside, after)
	assert.Greater(t, before, 500, "dumped before TRACE off")
	assert.Zero(t, inside, "nothing dumped while TRACE is off")
	assert.Greater(t, after, 500, "dumped again after TRACE on")
}

var txlogLine = regexp.MustCompile(`^(\d+) node(\d+) (mmio|dma|note) (.*)$`)

// --txlog: one line per 32-bit MMIO access and per DMA burst, with the
// cycle and the node.
func TestSimTxLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "tx.log")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, TxLog: logPath})
	c, mem := simtest.Driver(t, s, 1, memSize, cosim.Options{Name: "txlog"})
	ctx := ctxT(t, 30*time.Second)
	require.NoError(t, c.Write32(ctx, hw.RegScratch, 0x1234abcd))
	v, err := c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	require.Equal(t, uint32(0x1234abcd), v)
	readCycle := c.LastCycle()
	const src, dst, n = 0x2000, 0x20000, 4096
	fill(mem.Bytes()[src:src+n], 8)
	st, err := copyAndWait(ctx, c, src, dst, n)
	require.NoError(t, err)
	require.Equal(t, uint32(0), hw.DiagStatusError.Get(st))
	id := c.Device().ClientID
	c.Close()
	require.NoError(t, s.Stop()) // the log is flushed at exit

	f, err := os.Open(logPath)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	var wrLine, rdLine string
	var wrCycle, rdCycle uint64
	var rdBytes, wrBytes uint64
	lines := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		m := txlogLine.FindStringSubmatch(line)
		require.NotNil(t, m, "txlog line %q", line)
		lines++
		cyc, _ := strconv.ParseUint(m[1], 10, 64)
		assert.Equal(t, "1", m[2], "only node 1 did anything: %q", line)
		fields := map[string]string{}
		for _, kv := range strings.Fields(m[4])[1:] {
			k, v, _ := strings.Cut(kv, "=")
			fields[k] = v
		}
		dir := strings.Fields(m[4])[0]
		switch m[3] {
		case "mmio":
			if fields["off"] == fmt.Sprintf("0x%05x", hw.RegScratch) {
				if dir == "wr" && wrLine == "" {
					wrLine, wrCycle = line, cyc
				}
				if dir == "rd" && rdLine == "" {
					rdLine, rdCycle = line, cyc
				}
			}
			assert.Equal(t, "OKAY", fields["resp"], "%q", line)
			assert.Equal(t, strconv.Itoa(int(id)), fields["client"], "%q", line)
		case "dma":
			addr, err := strconv.ParseUint(strings.TrimPrefix(fields["addr"], "0x"), 16, 64)
			require.NoError(t, err, "%q", line)
			beats, _ := strconv.ParseUint(fields["beats"], 10, 64)
			size, _ := strconv.ParseUint(fields["size"], 10, 64)
			start, _ := strconv.ParseUint(fields["start"], 10, 64)
			assert.LessOrEqual(t, start, cyc, "a burst ends after it starts: %q", line)
			assert.Equal(t, "OKAY", fields["resp"], "%q", line)
			if dir == "rd" {
				assert.True(t, addr >= src && addr+beats*size <= src+n, "read burst outside the source: %q", line)
				rdBytes += beats * size
			} else {
				assert.True(t, addr >= dst && addr+beats*size <= dst+n, "write burst outside the destination: %q", line)
				wrBytes += beats * size
			}
		}
	}
	require.NoError(t, sc.Err())
	t.Logf("%d lines; SCRATCH write: %q; read: %q", lines, wrLine, rdLine)
	require.NotEmpty(t, wrLine, "the write of SCRATCH is logged")
	require.NotEmpty(t, rdLine, "the read of SCRATCH is logged")
	assert.Contains(t, wrLine, "data=0x1234abcd")
	assert.Contains(t, rdLine, "data=0x1234abcd")
	assert.Equal(t, readCycle, rdCycle, "the read is logged at the cycle its answer carries")
	assert.Less(t, wrCycle, rdCycle, "the write came first")
	assert.Equal(t, uint64(n), rdBytes, "DMA read bursts cover the copy")
	assert.Equal(t, uint64(n), wrBytes, "DMA write bursts cover the copy")
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SIGUSR1 prints the simulated time and the per-node counters to stderr.
func TestSimSIGUSR1(t *testing.T) {
	var errOut syncBuffer
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, Stderr: &errOut})
	c := simtest.Dial(t, s, cosim.Options{Node: 1, Name: "usr1"})
	ctx := ctxT(t, 20*time.Second)
	for i := range 5 {
		require.NoError(t, c.Write32(ctx, hw.RegScratch, uint32(i)))
	}
	for range 3 {
		_, err := c.Read32(ctx, hw.RegScratch)
		require.NoError(t, err)
	}
	// Lockstep with one client: time stands still at its last answer.
	cycle := c.LastCycle()
	require.NoError(t, s.Signal(syscall.SIGUSR1))
	head := fmt.Sprintf("vianic-sim: stats at cycle %d\n", cycle)
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "node1.idle_cycles") },
		5*time.Second, 5*time.Millisecond, "no stats on stderr after SIGUSR1:\n%s", errOut.String())
	out := errOut.String()
	i := strings.Index(out, head)
	require.GreaterOrEqual(t, i, 0, "status line %q missing from:\n%s", head, out)
	st := map[string]string{}
	for _, line := range strings.Split(out[i+len(head):], "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "vianic-sim:") {
			break
		}
		st[k] = v
	}
	t.Logf("SIGUSR1 stats: %v", st)
	assert.Equal(t, strconv.FormatUint(cycle, 10), st["cycle"])
	assert.Equal(t, fmt.Sprintf("%.3f", float64(cycle)*float64(c.Device().ClockPS)/1e6), st["time_us"])
	assert.Equal(t, "3", st["node1.mmio_reads"])
	assert.Equal(t, "5", st["node1.mmio_writes"])
	assert.Equal(t, "0", st["node0.mmio_reads"])
	assert.Equal(t, "0", st["node0.mmio_writes"])
	assert.Equal(t, "1", st["clients"])
	// The simulator goes on.
	v, err := c.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(4), v)
}

// --tcp: a second listener; its line follows the Unix one.
func TestSimTCPListener(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Args: []string{"--tcp", "127.0.0.1:0"}})
	host, port, ok := strings.Cut(s.TCPAddr(), ":")
	require.True(t, ok, "TCP address %q", s.TCPAddr())
	assert.Equal(t, "127.0.0.1", host)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	assert.Greater(t, p, 0, "port 0 picks a port")
	ctx := ctxT(t, 20*time.Second)
	d := simtest.Dial(t, s, cosim.Options{Name: "unix driver"})
	m, err := cosim.Dial(ctx, "tcp", s.TCPAddr(), cosim.Options{Role: cosim.RoleMonitor, Name: "tcp monitor"})
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, d.Write32(ctx, hw.RegScratch, 0x5151))
	_, err = d.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	v, err := m.Read32(ctx, hw.RegScratch)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x5151), v, "both listeners reach the same simulator")
}

// The command line's error paths: a clear message and exit status 2.
func TestSimOptionErrors(t *testing.T) {
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1}) // builds the simulator
	bin := s.Binary()
	own, other, otherBin := ".vcd", ".fst", "build/sim/fst/vianic-sim"
	if out, _ := exec.Command(bin, "--help").Output(); bytes.Contains(out, []byte("writes FST")) {
		own, other, otherBin = ".fst", ".vcd", "build/sim/vcd/vianic-sim"
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "x.sock")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "0"}, "--nodes: 0 is out of range 1..16"},
		{[]string{"--nodes", "17"}, "--nodes: 17 is out of range 1..16"},
		{[]string{"--nodes", "two"}, "--nodes: 'two' is not a non-negative integer"},
		{[]string{"--threads", "0"}, "--threads: 0 is out of range 1..16"},
		{[]string{"--threads", "-1"}, "--threads: '-1' is not a non-negative integer"},
		{[]string{"--mode", "fast"}, "--mode: 'fast' is neither lockstep nor freerun"},
		{[]string{"--quantum", "26"}, "--quantum 26 is longer than the link latency (25 cycles at 250 MHz)"},
		{[]string{"--quantum", "25", "--link-latency-ns", "40"}, "--quantum 25 is longer than the link latency (10 cycles at 250 MHz)"},
		{[]string{"--quantum", "x"}, "--quantum: 'x' is not a non-negative integer"},
		{[]string{"--trace", filepath.Join(dir, "w"+other)}, "for the other format use " + otherBin},
		{[]string{"--trace", filepath.Join(dir, "w.txt")}, "the file name must end in " + own},
		{[]string{"--trace", filepath.Join(dir, "w"+own), "--trace-start", "10", "--trace-end", "5"},
			"--trace-end must be after --trace-start"},
		{[]string{"--tcp", "nohostport"}, "--tcp: 'nohostport' is not HOST:PORT"},
		{[]string{"--clock-mhz", "0"}, "--clock-mhz: '0' is not a frequency"},
		{[]string{"--bogus"}, "unknown option --bogus"},
		{[]string{"extra"}, "unexpected argument 'extra'"},
	}
	for _, tc := range cases {
		cmd := exec.Command(bin, append([]string{"--socket", sock}, tc.args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v: exits with an error; stderr:\n%s", tc.args, stderr.String())
		assert.Equal(t, 2, ee.ExitCode(), "%v: exit status", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v: message", tc.args)
		assert.Contains(t, stderr.String(), "vianic-sim: ", "%v: messages are prefixed", tc.args)
		_, statErr := os.Stat(sock)
		assert.True(t, os.IsNotExist(statErr), "%v: no socket is left behind", tc.args)
	}
	// A usable command line for comparison: --help exits 0.
	out, err := exec.Command(bin, "--help").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "usage: vianic-sim")
}

const failDemoEnv = "VIANIC_COSIM_FAIL_DEMO"

// TestHelperFailingWithWave is not a test: it fails on purpose, with a
// waveform, for TestSimFailureKeepsWave (it is skipped otherwise).
func TestHelperFailingWithWave(t *testing.T) {
	if os.Getenv(failDemoEnv) != "1" {
		t.Skip("helper: runs only in TestSimFailureKeepsWave's subprocess")
	}
	wave := simtest.WavePath(t, "vcd")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Trace: wave})
	c := simtest.Dial(t, s, cosim.Options{Name: "doomed"})
	_, err := c.Read32(ctxT(t, 10*time.Second), hw.RegMagic)
	require.NoError(t, err)
	t.Error("deliberate failure: the waveform must be kept")
}

// A failing co-simulation test keeps its waveform and says how to open it.
func TestSimFailureKeepsWave(t *testing.T) {
	simtest.RequireHDL(t)
	root := simtest.Root(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFailingWithWave$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), failDemoEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper test fails:\n%s", out)
	text := string(out)
	require.Contains(t, text, "--- FAIL: TestHelperFailingWithWave", text)
	m := regexp.MustCompile(`waveform kept: (\S+)`).FindStringSubmatch(text)
	require.NotNil(t, m, "no \"waveform kept:\" line in:\n%s", text)
	wave := m[1]
	defer os.Remove(wave)
	assert.Equal(t, filepath.Join(root, "build", "waves", "TestHelperFailingWithWave.vcd"), wave)
	fi, err := os.Stat(wave)
	require.NoError(t, err, "the kept waveform exists")
	assert.Greater(t, fi.Size(), int64(1000))
	assert.Contains(t, text, "gtkwave -a "+filepath.Join(root, "sim-scripts", "gtkwave", "cosim.gtkw")+" "+wave)
	assert.Equal(t, simtest.GTKWaveCommand(root, wave),
		"gtkwave -a "+filepath.Join(root, "sim-scripts", "gtkwave", "cosim.gtkw")+" "+wave)
}

// sim-scripts/gtkwave/cosim.gtkw (generated by cmd/layoutgen from
// sim-scripts/gtkwave/waves.txt) shows signals of a fresh 2-node dump: every
// signal it names exists there with the same bit range.
func TestSimGTKWaveSaveFile(t *testing.T) {
	root := simtest.Root(t)
	wave := simtest.WavePath(t, "gtkw.vcd")
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2, Trace: wave})
	c := simtest.Dial(t, s, cosim.Options{Name: "gtkw"})
	_, err := c.Run(ctxT(t, 10*time.Second), 10)
	require.NoError(t, err)
	c.Close()
	require.NoError(t, s.Stop())

	f, err := os.Open(wave)
	require.NoError(t, err)
	defer f.Close()
	r, err := vcd.NewReader(bufio.NewReader(f))
	require.NoError(t, err)

	save, err := os.ReadFile(filepath.Join(root, "sim-scripts", "gtkwave", "cosim.gtkw"))
	require.NoError(t, err)
	sigs, err := vcd.SaveFileSignals(bytes.NewReader(save))
	require.NoError(t, err)
	require.NotEmpty(t, sigs)
	for _, sig := range sigs {
		v := r.Lookup(sig.Name)
		if v == nil {
			t.Errorf("cosim.gtkw: %s is not in a 2-node dump", sig.Name)
			continue
		}
		rng := v.Range
		if v.MSB == v.LSB && strings.Contains(rng, ":") {
			rng = fmt.Sprintf("[%d]", v.MSB)
		}
		assert.Equal(t, rng, sig.Range, "cosim.gtkw: bit range of %s", sig.Name)
	}
}
