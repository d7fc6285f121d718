package driver

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"

	"github.com/vianic/vianic/internal/hw"
)

// AdminTiming is the simulated time one admin command took.
type AdminTiming struct {
	Opcode uint16
	Seq    uint32
	// Start is the cycle at which the command's first posted write was
	// issued (time is frozen meanwhile in lockstep mode), Done the cycle at
	// which the driver saw ADMIN_DONE, End the cycle of the last read of
	// the response.
	Start, Done, End uint64
}

// DoneCycles is the command's round trip up to ADMIN_DONE: writing the
// command window and the doorbell, the firmware's work, the interrupt.
func (t AdminTiming) DoneCycles() uint64 { return t.Done - t.Start }

// TotalCycles includes reading the response back.
func (t AdminTiming) TotalCycles() uint64 { return t.End - t.Start }

// LastAdmin returns the timing of the last admin command that completed.
func (n *NIC) LastAdmin() AdminTiming {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

// Admin sends one admin command and returns the firmware's status and
// response payload. A status other than ST_OK is also returned as a
// *StatusError (errors.Is ErrUnknownCommand, ErrBadParam, ErrBusy). A
// payload over hw.AdminPayloadMax bytes is refused before anything is sent
// (ErrBadParam). The command must complete within
// Options.AdminTimeoutCycles; if it does not, the error is a
// *FirmwareFault if the core trapped, else ErrFirmwareHung. Commands are
// serialized: the mailbox holds one at a time.
func (n *NIC) Admin(ctx context.Context, opcode uint16, payload []byte) (status uint16, resp []byte, err error) {
	return n.admin(ctx, opcode, payload, n.opts.AdminTimeoutCycles)
}

func (n *NIC) admin(ctx context.Context, opcode uint16, payload []byte, timeout uint64) (uint16, []byte, error) {
	if len(payload) > hw.AdminPayloadMax {
		return 0, nil, fmt.Errorf("%w: %s payload of %d bytes, at most %d", ErrBadParam, OpcodeName(opcode), len(payload), hw.AdminPayloadMax)
	}
	cmd := hw.AdminCmd{Opcode: opcode, Len: uint32(len(payload))}
	copy(cmd.Payload[:], payload)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return 0, nil, err
	}
	if !n.ready {
		return 0, nil, fmt.Errorf("%w: node %d (boot or recovery failed; call Recover)", ErrNotReady, n.node)
	}
	return n.exchange(ctx, &cmd, timeout)
}

// exchange sends cmd as is (with the next sequence number) and reads the
// response. Call with mu held.
func (n *NIC) exchange(ctx context.Context, cmd *hw.AdminCmd, timeout uint64) (uint16, []byte, error) {
	n.seq++
	if n.seq == 0 {
		n.seq = 1
	}
	cmd.Seq = n.seq
	t := AdminTiming{Opcode: cmd.Opcode, Seq: cmd.Seq, Start: n.b.Cycle()}

	// Write the header and the payload words in use, 8 bytes per entry;
	// the reserved header word is written as zero every time.
	var buf [hw.AdminCmdBytes]byte
	cmd.Marshal(buf[:])
	used := 16 + int(min(cmd.Len, hw.AdminPayloadMax))
	used = (used + 7) &^ 7
	for off := 0; off < used; off += 8 {
		if err := n.b.Write64(ctx, hw.AdminCmdWinBase+uint32(off), binary.LittleEndian.Uint64(buf[off:])); err != nil {
			return 0, nil, fmt.Errorf("driver: admin %s: %w", OpcodeName(cmd.Opcode), err)
		}
	}
	n.b.Write32(ctx, hw.RegIrqStatus, irqAdmin)
	n.b.Write32(ctx, hw.RegAdminDoorbell, 1)

	irq, err := n.b.WaitIRQ(ctx, irqAdmin|irqFault, timeout)
	timedOut := isTimeout(err)
	if err != nil && !timedOut {
		return 0, nil, fmt.Errorf("driver: admin %s: %w", OpcodeName(cmd.Opcode), err)
	}
	t.Done = irq.Cycle
	if irq.Vector&irqLog != 0 {
		n.drainLog(ctx)
	}
	if timedOut || irq.Vector&irqAdmin == 0 {
		return 0, nil, n.diagnose(ctx, cmd, timeout, timedOut)
	}

	var hdr [16]byte
	for off := 0; off < 16; off += 8 {
		v, err := n.b.Read64(ctx, hw.AdminRspWinBase+uint32(off))
		if err != nil {
			return 0, nil, fmt.Errorf("driver: admin %s: reading the response: %w", OpcodeName(cmd.Opcode), err)
		}
		binary.LittleEndian.PutUint64(hdr[off:], v)
	}
	var rsp hw.AdminRsp
	rsp.Opcode = binary.LittleEndian.Uint16(hdr[0:])
	rsp.Status = binary.LittleEndian.Uint16(hdr[2:])
	rsp.Seq = binary.LittleEndian.Uint32(hdr[4:])
	rsp.Len = binary.LittleEndian.Uint32(hdr[8:])
	if rsp.Seq != cmd.Seq || rsp.Opcode != cmd.Opcode {
		st, err := n.b.Read32(ctx, hw.RegAdminStatus)
		if err == nil && hw.AdminStatusRejected.Get(st) != 0 {
			return 0, nil, fmt.Errorf("%w: node %d: doorbell of %s seq %d rejected: the firmware was still busy with seq %d",
				ErrBusy, n.node, OpcodeName(cmd.Opcode), cmd.Seq, rsp.Seq)
		}
		return 0, nil, fmt.Errorf("%w: node %d: sent %s seq %d, the response is %s seq %d",
			ErrSequence, n.node, OpcodeName(cmd.Opcode), cmd.Seq, OpcodeName(rsp.Opcode), rsp.Seq)
	}
	if rsp.Len > hw.AdminPayloadMax {
		return rsp.Status, nil, fmt.Errorf("driver: admin %s seq %d: response length %d exceeds %d", OpcodeName(cmd.Opcode), cmd.Seq, rsp.Len, hw.AdminPayloadMax)
	}
	resp := make([]byte, (rsp.Len+7)&^7)
	for off := 0; off < len(resp); off += 8 {
		v, err := n.b.Read64(ctx, hw.AdminRspWinBase+16+uint32(off))
		if err != nil {
			return 0, nil, fmt.Errorf("driver: admin %s: reading the response: %w", OpcodeName(cmd.Opcode), err)
		}
		binary.LittleEndian.PutUint64(resp[off:], v)
	}
	resp = resp[:rsp.Len]
	t.End = n.b.Cycle()
	n.last = t
	if rsp.Status != hw.AdminStOk {
		return rsp.Status, resp, &StatusError{Opcode: cmd.Opcode, Seq: cmd.Seq, Status: rsp.Status}
	}
	return rsp.Status, resp, nil
}

// diagnose explains a command that did not complete: a trap, a doorbell
// rejected because an earlier command never completed, or a hang.
func (n *NIC) diagnose(ctx context.Context, cmd *hw.AdminCmd, timeout uint64, timedOut bool) error {
	f, err := n.checkFault(ctx)
	if err != nil {
		return err
	}
	if f != nil {
		return fmt.Errorf("driver: admin %s seq %d: %w", OpcodeName(cmd.Opcode), cmd.Seq, f)
	}
	st, err := n.b.Read32(ctx, hw.RegAdminStatus)
	if err != nil {
		return fmt.Errorf("driver: reading ADMIN_STATUS: %w", err)
	}
	pc, _ := n.b.Read32(ctx, hw.RegCpuPc)
	n.log.LogAttrs(ctx, slog.LevelError, "firmware hung", slog.Uint64("cycle", n.b.Cycle()),
		slog.String("command", OpcodeName(cmd.Opcode)), slog.Uint64("seq", uint64(cmd.Seq)),
		slog.String("pc", fmt.Sprintf("0x%08x", pc)))
	if hw.AdminStatusRejected.Get(st) != 0 {
		return fmt.Errorf("%w: %w: node %d: doorbell of %s seq %d rejected, and the earlier command did not complete within %d cycles (pc 0x%08x)",
			ErrFirmwareHung, ErrBusy, n.node, OpcodeName(cmd.Opcode), cmd.Seq, timeout, pc)
	}
	return fmt.Errorf("%w: node %d: %s seq %d not completed within %d cycles (pc 0x%08x, ADMIN_STATUS 0x%x)",
		ErrFirmwareHung, n.node, OpcodeName(cmd.Opcode), cmd.Seq, timeout, pc, st)
}

// Nop sends OP_NOP.
func (n *NIC) Nop(ctx context.Context) error {
	_, _, err := n.Admin(ctx, hw.AdminOpNop, nil)
	return err
}

// Echo sends OP_ECHO with payload and returns the firmware's answer, which
// must be the payload itself.
func (n *NIC) Echo(ctx context.Context, payload []byte) ([]byte, error) {
	_, resp, err := n.Admin(ctx, hw.AdminOpEcho, payload)
	if err != nil {
		return resp, err
	}
	if !bytes.Equal(resp, payload) {
		return resp, fmt.Errorf("driver: echo of %d bytes answered %d different bytes", len(payload), len(resp))
	}
	return resp, nil
}

// CheckAlive is the watchdog's probe: a NOP that must complete within
// Options.ProbeTimeoutCycles. It returns nil, a *FirmwareFault or
// ErrFirmwareHung (or the error of the bridge).
func (n *NIC) CheckAlive(ctx context.Context) error {
	_, _, err := n.admin(ctx, hw.AdminOpNop, nil, n.opts.ProbeTimeoutCycles)
	if errors.Is(err, ErrNotReady) {
		return fmt.Errorf("%w: %w", ErrFirmwareHung, err)
	}
	return err
}
