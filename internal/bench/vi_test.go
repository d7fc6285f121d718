package bench_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/bench"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// TestBenchVISmoke runs BenchVI small (what `vianic bench vi -quick`
// does, without the bridge baseline) and checks that the figures are
// sane, not how fast anything is: the modeled figures are exact cycle
// counts, but the wall-clock one depends on the machine.
func TestBenchVISmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	simtest.RequireHDL(t)
	ctx := ctxT(t, simtest.BuildTimeout)
	f, err := bench.BenchVI(ctx, bench.ViOptions{
		LatencySizes: []int{8, 1 << 10, 4 << 10}, LatencyRounds: 2,
		BWBytes: 4 << 10, BWMessages: 3, RateMessages: 8, TrafficRounds: 1, NoBridge: true,
		RdmaBWBytes: 16 << 10, RdmaBWMessages: 4,
	})
	require.NoError(t, err)
	b, _ := json.MarshalIndent(f, "", "  ")
	t.Logf("%s", b)
	require.Len(t, f.Latency, 3)
	for i, l := range f.Latency {
		assert.Greater(t, l.Cycles, uint64(100), "%d B: a DMA read alone is 125 cycles", l.Bytes)
		assert.Less(t, l.Cycles, uint64(100_000), "%d B", l.Bytes)
		assert.GreaterOrEqual(t, l.ColdCycles, l.Cycles, "%d B: the first round is no faster", l.Bytes)
		if i > 0 {
			assert.Greater(t, l.Cycles, f.Latency[i-1].Cycles, "more bytes take longer")
		}
	}
	assert.Greater(t, f.BWFraction, 0.05)
	assert.LessOrEqual(t, f.BWFraction, 1.0, "not above line rate")
	// 8 B messages: at least a header, a payload and a trailer beat each
	assert.GreaterOrEqual(t, f.RatePerMsg, 3.0)
	assert.Less(t, f.RatePerMsg, 10_000.0)
	assert.Equal(t, int64(3*(4<<10)+8*8), f.TrafficBytes)
	assert.Greater(t, f.TrafficCycles, uint64(0))
	assert.Greater(t, f.CyclesPerSec, 0.0)
	assert.Empty(t, f.BridgeBusyPerSec)
	require.NotEmpty(t, f.ReadLatency)
	for i, l := range f.ReadLatency {
		assert.Greater(t, l.Cycles, uint64(250), "%d B: an RDMA read is a round trip with DMA reads on both sides", l.Bytes)
		assert.Less(t, l.Cycles, uint64(100_000), "%d B", l.Bytes)
		if i > 0 && l.Bytes > f.ReadLatency[i-1].Bytes {
			assert.Greater(t, l.Cycles, f.ReadLatency[i-1].Cycles, "more bytes take longer")
		}
	}
	assert.Greater(t, f.ReadBWFraction, 0.05)
	assert.LessOrEqual(t, f.ReadBWFraction, 1.0, "not above line rate")
	// completion queues and their interrupts
	require.NotNil(t, f.CQ)
	g := f.CQ
	assert.Equal(t, 16, g.Entries)
	assert.GreaterOrEqual(t, g.LatencyWait, g.LatencyPoll, "a wake-up is no faster than polling every cycle")
	assert.Greater(t, g.LatencyMod, g.LatencyWait, "a lone message waits for the moderation's time limit")
	assert.LessOrEqual(t, g.LatencyMod, g.LatencyWait+g.ModCycles, "... at most that long")
	assert.GreaterOrEqual(t, g.BurstIRQs, uint64(1))
	assert.Less(t, g.BurstModIRQs, g.BurstIRQs, "moderation takes fewer interrupts")
	assert.GreaterOrEqual(t, g.BurstModIRQs, uint64(1))
}

// TestBenchRemoteSmoke runs BenchRemote small (2 nodes only). The modeled
// figures between nodes are exact: the 8-byte one-way latency and the
// 64 KiB bandwidth are checked against issue 10's targets.
func TestBenchRemoteSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	simtest.RequireHDL(t)
	ctx := ctxT(t, simtest.BuildTimeout)
	f, err := bench.BenchRemote(ctx, bench.RemoteOptions{
		LatencySizes: []int{8, 4 << 10}, LatencyRounds: 2, BWBytes: 64 << 10, BWMessages: 2,
		SpeedNodes: []int{2}, SpeedRounds: 1, SpeedThreads: []int{1, 2}, SpeedQuanta: []int{25},
	})
	require.NoError(t, err)
	b, _ := json.MarshalIndent(f, "", "  ")
	t.Logf("%s", b)
	require.Len(t, f.Latency, 2)
	assert.LessOrEqual(t, f.Latency[0].Cycles, uint64(625), "8 B one way: at most 2.5 us")
	assert.Greater(t, f.Latency[0].Cycles, uint64(2*f.LinkCycles+125), "two links and a DMA read at least")
	assert.Greater(t, f.Latency[1].Cycles, f.Latency[0].Cycles)
	assert.GreaterOrEqual(t, f.BWFraction, 0.90, "64 KiB: at least 90 %% of line rate")
	assert.LessOrEqual(t, f.BWFraction, 1.0)
	// (BenchRemote itself fails if the two thread counts give different
	// cycles)
	require.Len(t, f.Speed, 2)
	assert.Equal(t, f.Speed[0].Cycles, f.Speed[1].Cycles, "quantum 25: the same cycles with 1 and 2 threads")
	for _, sp := range f.Speed {
		assert.Equal(t, int64(2*2*(64<<10)), sp.Bytes, "%d threads: every byte received", sp.Threads)
		assert.Greater(t, sp.CyclesPerSec, 0.0)
	}
}
