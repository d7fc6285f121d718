package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"demo", "the main job: two processes using only vipl on two simulated nodes, a ping-pong and a stream across the fabric; the figures, the waveform and the capture", runDemo})
}

// perfResult is one line of vipl-perf -json (cmd/vipl-perf).
type perfResult struct {
	Test       string  `json:"test"`
	Bytes      int     `json:"bytes"`
	Iterations int     `json:"iterations"`
	TMinUs     float64 `json:"t_min_us"`
	TTypUs     float64 `json:"t_typical_us"`
	TMaxUs     float64 `json:"t_max_us"`
	MBps       float64 `json:"mb_per_sec"`
	LineFrac   float64 `json:"line_fraction"`
	Cycles     uint64  `json:"cycles"`
	Resent     int     `json:"resent"`
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr, "[-iters N] [-sizes LIST] [-stream-count N] [-wave FILE] [-wave-cycles N] [-pcap FILE]")
	iters := fs.Int("iters", 20, "ping-pong round trips per size")
	sizes := fs.String("sizes", "8,64,512,4096,32768,65536", "ping-pong message sizes")
	streamCount := fs.Int("stream-count", 16, "stream: messages of 64 KiB")
	wave := fs.String("wave", "", "waveform file, .vcd or .fst (default build/demo/demo.vcd)")
	waveCycles := fs.Uint64("wave-cycles", 120000, "cycles the waveform covers from the start (the boot and the first ping-pongs; 0: all, which is large)")
	capture := fs.String("pcap", "", "capture file (default build/demo/demo.pcap)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *iters < 1 || *iters > 100000 || *streamCount < 1 || *streamCount > 64 {
		return errors.New("-iters must be 1..100000 and -stream-count 1..64")
	}
	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "build", "demo")
	if *wave == "" {
		*wave = filepath.Join(dir, "demo.vcd")
	}
	if *capture == "" {
		*capture = filepath.Join(dir, "demo.pcap")
	}
	for _, p := range []*string{wave, capture} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(*p), 0o755); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	// the simulator's stderr and the server's output go to stderr from
	// goroutines of their own
	stderr = &lockedWriter{w: stderr}

	// the two programs: built from cmd/vipl-perf (they import only vipl)
	bin := filepath.Join(root, "build", "bin", "vipl-perf")
	fmt.Fprintf(stdout, "demo: building %s (cmd/vipl-perf: a perftest-style program that uses only vipl)\n", bin)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/vipl-perf")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building vipl-perf: %v\n%s", err, out)
	}

	fmt.Fprintf(stdout, "demo: starting a simulator with 2 nodes and the fabric (lockstep; waveform %s, capture %s)\n", *wave, *capture)
	sim, err := simulator.StartSimulator(ctx, simulator.SimOptions{Root: root, Nodes: 2, Mode: cosim.ModeLockstep,
		WaitDrivers: 2, Trace: *wave, TraceEnd: *waveCycles, Pcap: *capture, Stderr: stderr})
	if err != nil {
		return err
	}
	defer sim.Stop()
	addr := sim.Addr()
	if sim.Network() == "tcp" {
		addr = "tcp:" + addr
	}
	common := []string{"-sim", addr, "-sizes", *sizes, "-iters", strconv.Itoa(*iters), "-stream-count", strconv.Itoa(*streamCount)}
	fmt.Fprintf(stdout, "demo: process 1 on node 1 (server: ConnectWait, ConnectAccept) and process 2 on node 0 (client: ConnectRequest); each opens its NIC and creates a VI\n")
	fmt.Fprintf(stdout, "demo: ping-pong of %s bytes, %d round trips each, then a stream of %d x 64 KiB\n", *sizes, *iters, *streamCount)
	server := exec.CommandContext(ctx, bin, append([]string{"-node", "1", "-peer", "node0", "-role", "server"}, common...)...)
	client := exec.CommandContext(ctx, bin, append([]string{"-node", "0", "-peer", "node1", "-role", "client", "-json"}, common...)...)
	var clientOut bytes.Buffer
	var serverErr, clientErr bytes.Buffer
	server.Stdout, server.Stderr = stderr, &serverErr
	client.Stdout, client.Stderr = &clientOut, &clientErr
	start := time.Now()
	if err := server.Start(); err != nil {
		return err
	}
	if err := client.Start(); err != nil {
		server.Process.Kill()
		return err
	}
	var wg sync.WaitGroup
	var serr, cerr error
	wg.Go(func() { serr = server.Wait() })
	wg.Go(func() { cerr = client.Wait() })
	wg.Wait()
	wall := time.Since(start)
	if cerr != nil || serr != nil {
		return fmt.Errorf("vipl-perf failed: client: %v %s; server: %v %s", cerr, clientErr.String(), serr, serverErr.String())
	}
	var results []perfResult
	sc := bufio.NewScanner(&clientOut)
	for sc.Scan() {
		var r perfResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("vipl-perf's output %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if len(results) == 0 {
		return errors.New("vipl-perf printed no results")
	}
	stats, _ := simStats(ctx, sim)
	sim.Stop()

	fmt.Fprintf(stdout, "\n")
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "test\tbytes\titerations\tt_min[us]\tt_typical[us]\tt_max[us]\tBW[MB/s]\tof line rate\t\n")
	resent := 0
	var setup *perfResult
	for i, r := range results {
		resent += r.Resent
		if r.Test == "connect" {
			setup = &results[i]
			continue
		}
		if r.Test == "stream" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t\t\t\t%.1f\t%.1f %%\t\n", r.Test, r.Bytes, r.Iterations, r.MBps, 100*r.LineFrac)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f %%\t\n", r.Test, r.Bytes, r.Iterations, r.TMinUs, r.TTypUs, r.TMaxUs, r.MBps, 100*r.LineFrac)
	}
	tw.Flush()
	if setup != nil {
		fmt.Fprintf(stdout, "\nconnection set-up (ConnectRequest until CONNECTED, the server waiting in ConnectWait): %.2f us (%d cycles)\n", setup.TMinUs, setup.Cycles)
	}
	fmt.Fprintf(stdout, "\nTimes are simulated (250 MHz NIC clock, 100 ns links, 500 ns host memory reads); t = one way, half a round trip;\n")
	fmt.Fprintf(stdout, "line rate: 8 bytes per cycle = 2000 MB/s. Wall time %.1f s", wall.Seconds())
	if c := stats["cycle"]; c != "" {
		fmt.Fprintf(stdout, ", %s simulated cycles", c)
	}
	if resent > 0 {
		fmt.Fprintf(stdout, "; %d message(s) sent again (a receive was not posted yet: the unreliable level drops such a message)", resent)
	}
	fmt.Fprintf(stdout, ".\n")

	fmt.Fprintf(stdout, "\ndemo: waveform %s (the first %d cycles)\ndemo: open it with\n  %s\n", *wave, *waveCycles, shellQuote(waveCommand(root, *wave)))
	lua := filepath.Join(root, "sim-scripts", "wireshark", "vianic.lua")
	fmt.Fprintf(stdout, "demo: capture %s (every frame the switch delivered)\ndemo: read it with\n  %s\n  %s\n", *capture,
		shellQuote([]string{"tshark", "-X", "lua_script:" + lua, "-r", *capture}),
		shellQuote([]string{"wireshark", "-X", "lua_script:" + lua, *capture}))
	return nil
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// simStats asks the simulator for its statistics over a monitor
// connection.
func simStats(ctx context.Context, sim *simulator.Sim) (map[string]string, error) {
	m, err := sim.Dial(ctx, cosim.Options{Role: cosim.RoleMonitor, Name: "demo"})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return m.Stats(ctx)
}
