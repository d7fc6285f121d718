package driver

import (
	"context"
	"errors"
	"time"
)

// Recover brings a faulted or hung firmware back: soft reset, download of
// the real firmware (firmware.Image(), not Options.Firmware, which may be a
// test image), wait for FW_READY. The sequence numbers continue. It returns
// the boot's error, if any (as Open does).
func (n *NIC) Recover(ctx context.Context) error {
	return n.Reload(ctx, defaultImage())
}

// Reload boots img like Open does (soft reset, download, verify, release,
// wait for FW_READY); Recover reloads the real firmware.
func (n *NIC) Reload(ctx context.Context, img []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	// The soft reset clears the TPT and the firmware's ptag and region
	// tables: every session's registrations and ptags are gone (each
	// session releases its pins on its next call).
	n.resets.Add(1)
	return n.bootLocked(ctx, img)
}

// Watchdog probes the firmware with CheckAlive every period of wall-clock
// time until ctx ends, and calls onFail (on the watchdog's goroutine) with
// every error a probe returns: a *FirmwareFault, ErrFirmwareHung, or an
// error of the bridge. It returns at once; the loop ends with ctx or when
// the NIC closes. The watchdog never recovers by itself: onFail may call
// Recover.
//
// Use it in free-run mode. In lockstep mode a probe issued at a wall-clock
// moment lands at a simulated cycle that depends on the Go scheduler, so
// runs stop being repeatable; there, call CheckAlive at chosen points of the
// test instead. The NIC never starts a watchdog by itself.
func (n *NIC) Watchdog(ctx context.Context, period time.Duration, onFail func(error)) {
	if period <= 0 {
		period = time.Second
	}
	n.mu.Lock()
	if n.closed.Load() {
		n.mu.Unlock()
		return
	}
	n.wg.Add(1)
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-n.stop:
				return
			case <-tk.C:
			}
			err := n.CheckAlive(ctx)
			if err == nil || errors.Is(err, ErrClosed) || ctx.Err() != nil {
				continue
			}
			if onFail != nil {
				onFail(err)
			}
		}
	}()
}
