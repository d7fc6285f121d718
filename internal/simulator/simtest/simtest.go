// Package simtest helps tests run the real simulator: it skips or fails
// clearly when the HDL tools are missing, builds and starts the simulator
// for one test and stops it afterwards, and keeps the waveform of a
// failing test, printing the GTKWave command that opens it.
//
// Layer: test support on top of internal/simulator; it imports
// internal/simulator, cosim, the standard library and testing (never driver
// or internal/hw). Only _test.go files should import it.
package simtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/simulator"
)

// BuildTimeout bounds building the simulator (the first test of a run
// builds it; later ones reuse it).
const BuildTimeout = 10 * time.Minute

// RequireHDL skips the test when VIANIC_NO_HDL=1 and fails it when
// Verilator is missing (unless VIANIC_SIM names a ready simulator).
func RequireHDL(t testing.TB) {
	t.Helper()
	if os.Getenv("VIANIC_NO_HDL") == "1" {
		t.Skip("VIANIC_NO_HDL=1: skipping a test that needs the simulator")
	}
	if os.Getenv("VIANIC_SIM") != "" {
		return
	}
	if _, err := exec.LookPath("verilator"); err != nil {
		t.Fatal("verilator is not installed: run `make deps` (or set VIANIC_NO_HDL=1 to skip the HDL tests)")
	}
}

// Root returns the repository root or fails the test.
func Root(t testing.TB) string {
	t.Helper()
	root, err := simulator.FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// WavePath returns a waveform path for the test under build/waves/ in the
// repository, with extension ext ("vcd" or "fst"). The directory exists;
// the file does not.
func WavePath(t testing.TB, ext string) string {
	t.Helper()
	dir := filepath.Join(Root(t), "build", "waves")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "_", " ", "_", ":", "_").Replace(t.Name())
	p := filepath.Join(dir, name+"."+strings.TrimPrefix(ext, "."))
	os.Remove(p)
	return p
}

// GTKWaveCommand returns the shell command that opens a waveform with the
// project's save file.
func GTKWaveCommand(root, wave string) string {
	return "gtkwave -a " + simulator.GTKWaveSaveFile(root) + " " + wave
}

// KeepWaveOnFailure arranges that when the test fails, the waveform at
// path is kept and its path and the GTKWave command that opens it are
// printed; when the test passes the file is removed. Register it before
// starting the simulator that writes the file, so that the simulator is
// stopped (and the file complete) when this cleanup runs.
func KeepWaveOnFailure(t testing.TB, path string) {
	t.Helper()
	root := Root(t)
	t.Cleanup(func() {
		if !t.Failed() {
			os.Remove(path)
			return
		}
		if _, err := os.Stat(path); err != nil {
			t.Logf("no waveform at %s: %v", path, err)
			return
		}
		t.Logf("waveform kept: %s\nopen it with:\n  %s", path, GTKWaveCommand(root, path))
	})
}

// StartSim builds (once per test binary) and starts a simulator for the
// test and stops it when the test ends. When opts.Trace is set the
// waveform is kept if the test fails (see KeepWaveOnFailure). The last
// 16 KiB of the simulator's stderr go to the test log when the test fails;
// with VIANIC_SIM_LOG=1 all of it goes to os.Stderr as it comes.
func StartSim(t testing.TB, opts simulator.SimOptions) *simulator.Sim {
	t.Helper()
	RequireHDL(t)
	if opts.Trace != "" {
		KeepWaveOnFailure(t, opts.Trace)
	}
	if opts.Stderr == nil && os.Getenv("VIANIC_SIM_LOG") == "1" {
		opts.Stderr = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	s, err := simulator.StartSimulator(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := s.Stop()
		if err != nil {
			t.Errorf("stopping the simulator: %v", err)
		}
		if t.Failed() && err == nil {
			if out := s.Output(); out != "" {
				t.Logf("simulator output:\n%s", out)
			}
		}
	})
	return s
}

// Dial connects to s and closes the connection when the test ends.
func Dial(t testing.TB, s *simulator.Sim, opts cosim.Options) *cosim.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := s.Dial(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Driver connects as the driver of node with size bytes of host memory
// attached; both are released when the test ends.
func Driver(t testing.TB, s *simulator.Sim, node, size int, opts cosim.Options) (*cosim.Conn, *cosim.Memory) {
	t.Helper()
	opts.Role = cosim.RoleDriver
	opts.Node = node
	if opts.Name == "" {
		opts.Name = t.Name()
	}
	c := Dial(t, s, opts)
	m, err := cosim.NewMemory(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.AttachMemory(ctx, m); err != nil {
		t.Fatal(err)
	}
	return c, m
}

// StripVCDDate removes the $date ... $end section of a VCD (two runs of the
// same simulation differ only there).
func StripVCDDate(b []byte) []byte {
	i := bytes.Index(b, []byte("$date"))
	if i < 0 {
		return b
	}
	j := bytes.Index(b[i:], []byte("$end"))
	if j < 0 {
		return b
	}
	return append(append([]byte{}, b[:i]...), b[i+j+len("$end"):]...)
}

// VCDUpTo returns the VCD up to its first timestamp after ps. Determinism
// tests compare waveforms up to the last cycle a client saw: after the
// clients leave, the simulator holds the nodes in reset for a few cycles on
// its own, and Stop's signal can arrive before or after those.
func VCDUpTo(b []byte, ps uint64) []byte {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return b
		}
		line := b[i : i+j]
		if len(line) > 1 && line[0] == '#' {
			if v, err := strconv.ParseUint(string(line[1:]), 10, 64); err == nil && v > ps {
				return b[:i]
			}
		}
		i += j + 1
	}
	return b
}
