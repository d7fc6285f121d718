package bench_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/bench"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// TestBenchBridgeSmoke runs BenchBridge with small sizes, so that the
// function the CLI calls stays working; the figures it prints are not
// meaningful at these sizes (use BenchmarkBridge or `vianic bench`).
func TestBenchBridgeSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	simtest.RequireHDL(t)
	ctx := ctxT(t, simtest.BuildTimeout)
	f, err := bench.BenchBridge(ctx, bench.BenchOptions{
		Writes: 20000, Reads: 100, Rounds: 2, DMABytes: 64 << 10, BusyCopies: 1, BusyBytes: 16 << 10,
		IdleCycles: 1_000_000, Traces: []string{"", "vcd"},
	})
	require.NoError(t, err)
	assert.Greater(t, f.WritesPerSec, 0.0)
	assert.Greater(t, f.ReadEchoRatio, 0.0)
	assert.InDelta(t, 1.0, f.DMAModelRatio, 0.25, "even a small copy roughly follows the model")
	require.Len(t, f.CycleRates, 2)
	assert.Greater(t, f.CycleRates[1].TraceBytes, int64(0))
	b, _ := json.MarshalIndent(f, "", "  ")
	t.Logf("%s", b)
}

// BenchmarkBridge runs the full BenchBridge once and reports its figures
// as benchmark metrics.
func BenchmarkBridge(b *testing.B) {
	simtest.RequireHDL(b)
	var f bench.BridgeFigures
	for b.Loop() {
		var err error
		f, err = bench.BenchBridge(context.Background(), bench.BenchOptions{Progress: os.Stderr})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(f.WritesPerSec, "writes/s")
	b.ReportMetric(f.WritesAppliedPerSec, "applied-writes/s")
	b.ReportMetric(f.ReadRoundTripUS, "read-µs")
	b.ReportMetric(f.EchoRoundTripUS, "echo-µs")
	b.ReportMetric(f.ReadEchoRatio, "read/echo")
	b.ReportMetric(f.DMAModelRatio, "dma-measured/configured")
	b.ReportMetric(f.DMAWallMBps, "dma-wall-MB/s")
	for _, r := range f.CycleRates {
		b.ReportMetric(r.BusyPerSec, "busy-cycles/s-"+r.Trace)
		b.ReportMetric(r.IdleBusyRatio, "idle/busy-"+r.Trace)
	}
	out, _ := json.MarshalIndent(f, "", "  ")
	b.Logf("%s", out)
}

func benchConn(b *testing.B) *cosim.Conn {
	simtest.RequireHDL(b)
	s := simtest.StartSim(b, simulator.SimOptions{Nodes: 1})
	return simtest.Dial(b, s, cosim.Options{Name: "bench"})
}

// BenchmarkPostedWrite measures Write32 calls; the writes are flushed and
// applied (a read) before the timer stops.
func BenchmarkPostedWrite(b *testing.B) {
	c := benchConn(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if err := c.Write32(ctx, hw.RegScratch, uint32(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := c.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	if v, err := c.Read32(ctx, hw.RegScratch); err != nil || v != uint32(i-1) {
		b.Fatalf("SCRATCH %d, %v", v, err)
	}
}

// BenchmarkRead32 measures the MMIO read round trip.
func BenchmarkRead32(b *testing.B) {
	c := benchConn(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Read32(ctx, hw.RegMagic); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead32Parallel measures reads from many goroutines at once.
func BenchmarkRead32Parallel(b *testing.B) {
	c := benchConn(b)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Read32(ctx, hw.RegMagic); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEcho measures the raw Unix-socket echo baseline with the C++
// echo server.
func BenchmarkEcho(b *testing.B) {
	simtest.RequireHDL(b)
	simtest.StartSim(b, simulator.SimOptions{Nodes: 1}) // builds the echo server too
	root := simtest.Root(b)
	addr := b.TempDir() + "/echo.sock"
	cmd := exec.Command(simulator.EchoBinary(root), "--socket", addr)
	require.NoError(b, cmd.Start())
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var nc net.Conn
	var err error
	for start := time.Now(); ; {
		if nc, err = net.Dial("unix", addr); err == nil || time.Since(start) > 5*time.Second {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	// A framed message as big as an MMIO_READ: 12-byte header, 8 bytes.
	msg := []byte{8, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0}
	buf := make([]byte, len(msg))
	for b.Loop() {
		if _, err := nc.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(nc, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDMACopy measures the wall-clock speed of 256 KiB diagnostic
// copies at the default DMA model.
func BenchmarkDMACopy(b *testing.B) {
	simtest.RequireHDL(b)
	s := simtest.StartSim(b, simulator.SimOptions{Nodes: 1})
	c, mem := simtest.Driver(b, s, 0, 1<<20, cosim.Options{})
	ctx := context.Background()
	bus, err := simbus.New(c)
	require.NoError(b, err)
	nic, err := driver.Open(ctx, bus, driver.Options{NoBoot: true, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	defer nic.Close()
	const n = 256 << 10
	fill(mem.Bytes()[:n], 1)
	b.SetBytes(n)
	for b.Loop() {
		if _, err := nic.DiagCopy(ctx, driver.DiagRequest{Src: 0, Dst: 512 << 10, Len: n}); err != nil {
			b.Fatal(err)
		}
	}
}

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func fill(b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}
