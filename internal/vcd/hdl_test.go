package vcd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The tests that run RTL benches need Verilator and Icarus Verilog (and
// GTKWave with Xvfb for the screenshot). Without them they fail and say to
// run `make deps`; with VIANIC_NO_HDL=1 (or -short) they are skipped.

var hdl struct {
	sync.Mutex
	dir  string               // temporary directory of the dumps, removed by TestMain
	runs map[string]*benchRun // by bench and simulator
}

type benchRun struct {
	once sync.Once
	vcd  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if hdl.dir != "" {
		os.RemoveAll(hdl.dir)
	}
	os.Exit(code)
}

// repoRoot returns the directory of go.mod, found by walking up from the
// test's working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// requireTools skips the test when HDL tests are turned off and fails it
// when a tool is missing.
func requireTools(t testing.TB, tools ...string) {
	t.Helper()
	if os.Getenv("VIANIC_NO_HDL") == "1" {
		t.Skip("VIANIC_NO_HDL=1: skipping a test that runs HDL tools")
	}
	if testing.Short() {
		t.Skip("-short: skipping a test that runs HDL tools")
	}
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%v not found on PATH: run `make deps` to install the HDL toolchain "+
			"(or set VIANIC_NO_HDL=1 to skip the tests that need it)", missing)
	}
}

// simTools are the programs bench.sh runs for each simulator.
var simTools = map[string][]string{
	"verilator": {"verilator"},
	"icarus":    {"iverilog", "vvp"},
}

// keptDump returns the dump of bench name in simulator sim that make test's
// hardware half kept (sim-scripts/bench.sh -W: the run benchVCD would do,
// seed 1, +short, written only when it passed) in the directory
// VIANIC_BENCH_DUMPS names, or "" when there is none or it is older than a
// source of the bench (rtl/, the bench's directory, testbench/common/,
// sim-scripts/bench.sh): then the test simulates the bench itself.
func keptDump(t *testing.T, root, name, sim string) string {
	t.Helper()
	dir := os.Getenv("VIANIC_BENCH_DUMPS")
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, name+"-"+sim+".vcd")
	st, err := os.Stat(path)
	if err != nil {
		t.Logf("bench %s [%s]: no kept dump %s, simulating", name, sim, path)
		return ""
	}
	newer := ""
	for _, src := range []string{"rtl", filepath.Join("testbench", name), filepath.Join("testbench", "common"), filepath.Join("sim-scripts", "bench.sh")} {
		filepath.WalkDir(filepath.Join(root, src), func(p string, d os.DirEntry, err error) error {
			if err != nil || newer != "" {
				return filepath.SkipAll
			}
			if info, err := d.Info(); err == nil && !d.IsDir() && info.ModTime().After(st.ModTime()) {
				newer = p
				return filepath.SkipAll
			}
			return nil
		})
	}
	if newer != "" {
		t.Logf("bench %s [%s]: %s is newer than the kept dump %s, simulating", name, sim, newer, path)
		return ""
	}
	return path
}

// benchVCD runs testbench/NAME in simulator sim with
// `sim-scripts/bench.sh -q -s SIM -w X.vcd NAME` and returns the dump's
// path. Each bench and simulator runs once per test binary; under make
// test, whose hardware half has run the same simulation with a dump
// (keptDump), the test reads that dump instead.
func benchVCD(t *testing.T, name, sim string) string {
	t.Helper()
	requireTools(t, simTools[sim]...)
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "testbench", name, "files.f")); err != nil {
		t.Fatalf("bench %s: testbench/%s/files.f not found", name, name)
	}
	hdl.Lock()
	if hdl.runs == nil {
		hdl.runs = make(map[string]*benchRun)
	}
	if hdl.dir == "" {
		dir, err := os.MkdirTemp("", "vianic-vcd-test-")
		if err != nil {
			hdl.Unlock()
			t.Fatal(err)
		}
		hdl.dir = dir
	}
	run := hdl.runs[name+"/"+sim]
	if run == nil {
		run = new(benchRun)
		hdl.runs[name+"/"+sim] = run
	}
	dir := hdl.dir
	hdl.Unlock()

	run.once.Do(func() {
		if kept := keptDump(t, root, name, sim); kept != "" {
			t.Logf("bench %s [%s]: reading the dump make test's run kept, %s", name, sim, kept)
			run.vcd = kept
			return
		}
		ctx := context.Background()
		if d, ok := t.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
			defer cancel()
		}
		vcd := filepath.Join(dir, name+"-"+sim+".vcd")
		// +short: a bench that knows it runs only what a waveform check
		// needs (tb_via_dma_diag: only its pass with back-pressure); the
		// full sequence is `make bench`'s job.
		cmd := exec.CommandContext(ctx, filepath.Join(root, "sim-scripts", "bench.sh"), "-q", "-s", sim, "-w", vcd, "-a", "+short", name)
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			run.err = fmt.Errorf("sim-scripts/bench.sh -s %s %s: %v\n%s", sim, name, err, out.Bytes())
			return
		}
		if _, err := os.Stat(vcd); err != nil {
			run.err = fmt.Errorf("bench %s [%s] passed but wrote no dump: %v", name, sim, err)
			return
		}
		t.Logf("bench %s [%s]: built and ran in %.1f s", name, sim, time.Since(start).Seconds())
		run.vcd = vcd
	})
	if run.err != nil {
		t.Fatal(run.err)
	}
	return run.vcd
}
