package driver

import (
	"context"
	"log/slog"

	"github.com/vianic/vianic/internal/hw"
)

// Hooks for the external tests (package driver_test: the co-simulation
// tests, which reach the simulator through driver/simbus, a package that
// imports driver).

type (
	Capture = capture
	CapRec  = capRec
)

// NewCapture returns a logger that keeps its records (see capture).
func NewCapture() (*slog.Logger, *capture) { return newCapture() }

func (c *capture) Records() []capRec       { return c.records() }
func (c *capture) FirmwareLines() []capRec { return c.firmwareLines() }

// ExchangeRaw sends cmd as it is (no checks, no sequence number of its
// own) and returns the firmware's status.
func (n *NIC) ExchangeRaw(ctx context.Context, cmd *hw.AdminCmd) (uint16, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	st, _, err := n.exchange(ctx, cmd, n.opts.AdminTimeoutCycles)
	return st, err
}
