package driver

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vianic/vianic/internal/hw"
)

// Figures are the measured costs of bringing up a NIC and of its admin
// path. Cycle counts are simulated and, in lockstep mode, exact and
// repeatable; wall-clock figures depend on the machine.
type Figures struct {
	Node     int     `json:"node"`
	ClockMHz float64 `json:"clock_mhz"`

	ImageBytes     int     `json:"image_bytes"`
	DownloadWallMS float64 `json:"download_wall_ms"` // posting the image and a read behind it
	DownloadCycles uint64  `json:"download_cycles"`  // the NIC applying the writes
	VerifyWords    int     `json:"verify_words"`
	VerifyWallMS   float64 `json:"verify_wall_ms"` // reading it back, one round trip per word
	BootCycles     uint64  `json:"boot_cycles"`    // core released to FW_READY seen
	BootUS         float64 `json:"boot_us"`

	Rounds int `json:"rounds"`
	// NOP: from the command's first posted write to ADMIN_DONE, and to the
	// end of reading the response (medians over Rounds).
	NopDoneCycles  uint64  `json:"nop_done_cycles"`
	NopDoneUS      float64 `json:"nop_done_us"`
	NopTotalCycles uint64  `json:"nop_total_cycles"`
	NopTotalUS     float64 `json:"nop_total_us"`
	NopWallUS      float64 `json:"nop_wall_us"` // median wall-clock time of Nop()
	// QUERY_NIC and a 240-byte ECHO, command to end of response.
	QueryTotalCycles uint64  `json:"query_nic_total_cycles"`
	Echo240Cycles    uint64  `json:"echo240_total_cycles"`
	Echo240WallUS    float64 `json:"echo240_wall_us"`
}

// MeasureFigures runs rounds NOPs (at least 1), a QUERY_NIC and a
// 240-byte ECHO on n and returns its figures together with those of its
// last boot.
func MeasureFigures(ctx context.Context, n *NIC, rounds int) (Figures, error) {
	rounds = max(rounds, 1)
	clockPS := n.b.Info().ClockPS
	if clockPS == 0 {
		clockPS = 4000
	}
	us := func(c uint64) float64 { return float64(c) * float64(clockPS) / 1e6 }
	b := n.Boot()
	f := Figures{
		Node:           n.node,
		ClockMHz:       1e6 / float64(clockPS),
		ImageBytes:     4 * b.ImageWords,
		DownloadWallMS: float64(b.DownloadWall) / float64(time.Millisecond),
		DownloadCycles: b.DownloadCycles,
		VerifyWords:    b.VerifiedWords,
		VerifyWallMS:   float64(b.VerifyWall) / float64(time.Millisecond),
		BootCycles:     b.Cycles,
		BootUS:         us(b.Cycles),
		Rounds:         rounds,
	}
	done := make([]uint64, 0, rounds)
	total := make([]uint64, 0, rounds)
	wall := make([]float64, 0, rounds)
	for range rounds {
		t0 := time.Now()
		if err := n.Nop(ctx); err != nil {
			return f, fmt.Errorf("driver: measuring NOP: %w", err)
		}
		wall = append(wall, float64(time.Since(t0))/float64(time.Microsecond))
		t := n.LastAdmin()
		done = append(done, t.DoneCycles())
		total = append(total, t.TotalCycles())
	}
	f.NopDoneCycles = median(done)
	f.NopTotalCycles = median(total)
	f.NopDoneUS = us(f.NopDoneCycles)
	f.NopTotalUS = us(f.NopTotalCycles)
	slices.Sort(wall)
	f.NopWallUS = wall[len(wall)/2]

	if _, err := n.QueryNIC(ctx); err != nil {
		return f, fmt.Errorf("driver: measuring QUERY_NIC: %w", err)
	}
	f.QueryTotalCycles = n.LastAdmin().TotalCycles()
	p := make([]byte, hw.AdminPayloadMax)
	for i := range p {
		p[i] = byte(i)
	}
	t0 := time.Now()
	if _, err := n.Echo(ctx, p); err != nil {
		return f, fmt.Errorf("driver: measuring ECHO: %w", err)
	}
	f.Echo240WallUS = float64(time.Since(t0)) / float64(time.Microsecond)
	f.Echo240Cycles = n.LastAdmin().TotalCycles()
	return f, nil
}

func median(v []uint64) uint64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
