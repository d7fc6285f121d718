package driver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vianic/vianic/internal/hw"
)

// bootLocked soft-resets the NIC, downloads img into the instruction
// memory, releases the core and waits for FW_READY. Call with mu held.
func (n *NIC) bootLocked(ctx context.Context, img []byte) error {
	n.ready = false
	n.fault = nil
	n.faultIRQ.Store(false)
	n.logBuf = n.logBuf[:0]
	n.boot = BootInfo{}
	if n.caps.IMemBytes > 0 && len(img) > n.caps.IMemBytes {
		return fmt.Errorf("%w: %d bytes, the NIC has %d", ErrImageTooLarge, len(img), n.caps.IMemBytes)
	}
	words := imageWords(img)
	n.startListener()
	if err := n.softReset(ctx); err != nil {
		return err
	}
	// Hold the core (the soft reset already did; say it anyway, it costs
	// one posted write) and mask every interrupt while loading.
	n.b.Write32(ctx, hw.RegCpuCtrl, 0)
	n.irqEn = 0
	n.b.Write32(ctx, hw.RegIrqEnable, 0)
	n.b.Write32(ctx, hw.RegIrqStatus, ^uint32(0))

	start := time.Now()
	n.b.Write32(ctx, hw.RegCpuMemAddr, hw.CpuMemAddrSel.Val(0)|hw.CpuMemAddrWord.Val(0))
	for _, w := range words {
		if err := n.b.Write32(ctx, hw.RegCpuMemData, w); err != nil {
			return fmt.Errorf("driver: downloading firmware: %w", err)
		}
	}
	// One read behind the posted writes: it returns once the NIC has
	// applied them all, and CPU_MEM_ADDR.WORD must have counted every one.
	c0 := n.b.Cycle()
	addr, err := n.b.Read32(ctx, hw.RegCpuMemAddr)
	if err != nil {
		return fmt.Errorf("driver: downloading firmware: %w", err)
	}
	n.boot.ImageWords = len(words)
	n.boot.DownloadWall = time.Since(start)
	n.boot.DownloadCycles = n.b.Cycle() - c0
	if got := hw.CpuMemAddrWord.Get(addr); got != uint32(len(words))&0xffff {
		return fmt.Errorf("%w: CPU_MEM_ADDR.WORD is %d after writing %d words", ErrDownload, got, len(words))
	}

	start = time.Now()
	verified, err := n.verify(ctx, words)
	n.boot.VerifyWall = time.Since(start)
	n.boot.VerifiedWords = verified
	if err != nil {
		return err
	}

	// Release: the driver handles faults, admin completions and log words.
	n.b.Write32(ctx, hw.RegIrqStatus, ^uint32(0))
	n.irqEn = irqMask
	n.b.Write32(ctx, hw.RegIrqEnable, irqMask)
	n.b.Write32(ctx, hw.RegCpuCtrl, hw.CpuCtrlRun.Val(1))
	if _, err := n.b.Read32(ctx, hw.RegCpuStatus); err != nil {
		return fmt.Errorf("driver: releasing the core: %w", err)
	}
	n.boot.ReleaseCycle = n.b.Cycle()
	return n.waitReady(ctx)
}

// imageWords returns img as little-endian words, the last one padded with
// zero bytes.
func imageWords(img []byte) []uint32 {
	words := make([]uint32, (len(img)+3)/4)
	for i := range words {
		var w [4]byte
		copy(w[:], img[4*i:])
		words[i] = binary.LittleEndian.Uint32(w[:])
	}
	return words
}

// softReset pulses CTRL.SOFT_RESET and waits until STATUS.RESET_BUSY is 0.
func (n *NIC) softReset(ctx context.Context) error {
	if err := n.b.Write32(ctx, hw.RegCtrl, hw.CtrlSoftReset.Val(1)); err != nil {
		return fmt.Errorf("driver: soft reset: %w", err)
	}
	first := uint64(0)
	for i := 0; ; i++ {
		st, err := n.b.Read32(ctx, hw.RegStatus)
		if err != nil {
			return fmt.Errorf("driver: soft reset: %w", err)
		}
		if hw.StatusResetBusy.Get(st) == 0 {
			return nil
		}
		now := n.b.Cycle()
		if i == 0 {
			first = now
		} else if now-first > resetTimeoutCycles {
			return fmt.Errorf("%w: STATUS.RESET_BUSY still 1 after %d cycles", ErrResetTimeout, now-first)
		}
		if _, err := n.b.Run(ctx, 8); err != nil {
			return fmt.Errorf("driver: soft reset: %w", err)
		}
	}
}

// verify reads the instruction memory back according to Options.Verify and
// returns how many words it compared.
func (n *NIC) verify(ctx context.Context, words []uint32) (int, error) {
	if n.opts.Verify == VerifyNone || len(words) == 0 {
		return 0, nil
	}
	step := 1
	if n.opts.Verify == VerifySample {
		step = 16
	}
	checked := 0
	check := func(i int) error {
		// CPU_MEM_DATA auto-increments, so a full read-back needs the
		// address only once; a sample sets it before every read.
		if step > 1 || i == 0 {
			n.b.Write32(ctx, hw.RegCpuMemAddr, hw.CpuMemAddrSel.Val(0)|hw.CpuMemAddrWord.Val(uint32(i)))
		}
		got, err := n.b.Read32(ctx, hw.RegCpuMemData)
		if err != nil {
			return fmt.Errorf("driver: verifying firmware: %w", err)
		}
		checked++
		if got != words[i] {
			return fmt.Errorf("%w: word %d (byte 0x%x) reads 0x%08x, wrote 0x%08x", ErrDownload, i, 4*i, got, words[i])
		}
		return nil
	}
	for i := 0; i < len(words); i += step {
		if err := check(i); err != nil {
			return checked, err
		}
	}
	if last := len(words) - 1; step > 1 && last%step != 0 {
		if err := check(last); err != nil {
			return checked, err
		}
	}
	return checked, nil
}

// waitReady polls FW_READY until the firmware writes its magic, the core
// traps, or BootTimeoutCycles pass. Between two reads it waits for a log or
// fault interrupt for at most BootPollCycles, so log lines are drained as
// they come and the measured boot time is accurate to that many cycles.
func (n *NIC) waitReady(ctx context.Context) error {
	deadline := n.boot.ReleaseCycle + n.opts.BootTimeoutCycles
	for {
		v, err := n.b.Read32(ctx, hw.RegFwReady)
		if err != nil {
			return fmt.Errorf("driver: waiting for FW_READY: %w", err)
		}
		now := n.b.Cycle()
		if hw.FwReadyMagic.Get(v) == hw.FwReadyMagicValue {
			n.boot.ReadyCycle = now
			n.boot.Cycles = now - n.boot.ReleaseCycle
			n.boot.Time = n.CyclesToDuration(n.boot.Cycles)
			n.boot.Version = uint16(hw.FwReadyVersion.Get(v))
			n.drainLog(ctx)
			if n.boot.Version != n.opts.Version {
				return fmt.Errorf("%w: node %d runs firmware %s, this driver expects %s (rebuild the firmware with `vianic fw build` or the driver)",
					ErrFirmwareVersion, n.node, VersionString(n.boot.Version), VersionString(n.opts.Version))
			}
			n.ready = true
			n.log.LogAttrs(ctx, slog.LevelDebug, "firmware ready", slog.Uint64("cycle", now),
				slog.String("version", VersionString(n.boot.Version)), slog.Uint64("boot_cycles", n.boot.Cycles))
			return nil
		}
		if now >= deadline {
			if f, err := n.checkFault(ctx); err != nil {
				return err
			} else if f != nil {
				return fmt.Errorf("driver: boot: %w", f)
			}
			n.drainLog(ctx)
			return fmt.Errorf("%w: node %d: no FW_READY %d cycles after the core was released (FW_READY 0x%08x)",
				ErrBootTimeout, n.node, now-n.boot.ReleaseCycle, v)
		}
		irq, err := n.b.WaitIRQ(ctx, irqFault|irqLog, min(n.opts.BootPollCycles, deadline-now))
		if err != nil && !isTimeout(err) {
			return fmt.Errorf("driver: waiting for FW_READY: %w", err)
		}
		if irq.Vector&irqLog != 0 {
			n.drainLog(ctx)
		}
		if irq.Vector&irqFault != 0 {
			f, err := n.checkFault(ctx)
			if err != nil {
				return err
			}
			if f != nil {
				return fmt.Errorf("driver: boot: %w", f)
			}
		}
	}
}

func isTimeout(err error) bool { return err != nil && errors.Is(err, ErrBusTimeout) }

// VersionString formats a firmware version (major in bits 15:8, minor in
// 7:0) as "major.minor".
func VersionString(v uint16) string { return fmt.Sprintf("%d.%d", v>>8, v&0xff) }
