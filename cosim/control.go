package cosim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// waitResult turns a WAIT_DONE into the value, cycle and error of a wait.
func waitResult(m msg, err error) (uint64, uint64, error) {
	if err != nil {
		return 0, 0, err
	}
	switch m.Status {
	case waitSatisfied:
		return m.Value, m.Cycle, nil
	case waitTimeout:
		return m.Value, m.Cycle, ErrTimeout
	case waitDeadlock:
		return m.Value, m.Cycle, &DeadlockError{Cycle: m.Cycle, Text: m.Text}
	case waitAborted:
		return m.Value, m.Cycle, &abortedError{text: m.Text}
	}
	return m.Value, m.Cycle, fmt.Errorf("cosim: wait: unknown status %d", m.Status)
}

// abortedError is a wait the simulator abandoned; it matches ErrAborted,
// and ErrDetached when the node's driver went away.
type abortedError struct{ text string }

func (e *abortedError) Error() string {
	if e.text == "" {
		return ErrAborted.Error()
	}
	return ErrAborted.Error() + ": " + e.text
}

func (e *abortedError) Is(target error) bool {
	return target == ErrAborted || target == ErrDetached && strings.Contains(e.text, "detached")
}

// WaitIRQ waits until (the node's irq outputs & mask) != 0 (a level, so an
// interrupt that is already pending ends it at once) and returns the irq
// outputs and the cycle. With timeoutCycles > 0 it gives up after that many
// simulated cycles with ErrTimeout (the IRQ then holds the cycle). It
// returns a *DeadlockError (errors.Is ErrDeadlock) when nothing can ever
// raise the interrupt.
//
// Canceling ctx withdraws the wait with a CANCEL: the simulator ends it
// (aborted, an answer the Conn drops), so in lockstep mode the connection
// no longer counts as blocked by it. In free-run mode the call returns at
// once; in lockstep mode it returns once the simulator has handled the
// CANCEL (a STATS round trip behind it), so that the caller never runs
// while the simulator still counts it as blocked.
func (c *Conn) WaitIRQ(ctx context.Context, mask uint32, timeoutCycles uint64) (IRQ, error) {
	r := request{typ: msgWait, wait: waitMsg{Kind: waitKindIRQ, Timeout: timeoutCycles, Mask: uint64(mask)}}
	v, cyc, err := waitResult(c.roundTrip(ctx, &r))
	return IRQ{Vector: uint32(v), Cycle: cyc}, err
}

// WaitMem waits until (the size-byte little-endian word at host address
// addr & mask) == value, checked at once and after every DMA write that
// touches the word. size is 1, 2, 4 or 8 (addr aligned to it). It returns the
// word and the cycle. Timeout, deadlock and cancellation behave as in
// WaitIRQ.
func (c *Conn) WaitMem(ctx context.Context, addr uint64, size int, mask, value, timeoutCycles uint64) (word, cycle uint64, err error) {
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return 0, 0, fmt.Errorf("cosim: WaitMem: size %d is not 1, 2, 4 or 8", size)
	}
	if addr%uint64(size) != 0 {
		return 0, 0, fmt.Errorf("cosim: WaitMem: address 0x%x is not %d-byte aligned", addr, size)
	}
	r := request{typ: msgWait, wait: waitMsg{Kind: waitKindMem, Size: uint8(size), Timeout: timeoutCycles,
		Addr: addr, Mask: mask, Value: value}}
	return waitResult(c.roundTrip(ctx, &r))
}

// Run lets cycles simulated cycles pass (in lockstep mode, this client is
// blocked meanwhile) and returns the cycle at the end.
func (c *Conn) Run(ctx context.Context, cycles uint64) (uint64, error) {
	r := request{typ: msgWait, wait: waitMsg{Kind: waitKindCycles, N: cycles}}
	_, cyc, err := waitResult(c.roundTrip(ctx, &r))
	return cyc, err
}

// Trace turns waveform tracing on or off (when the simulator was started
// with a trace file).
func (c *Conn) Trace(ctx context.Context, on bool) error {
	return c.ack(ctx, &request{typ: msgTrace, on: on})
}

// Reset resets the node and returns when the reset is done (driver only).
func (c *Conn) Reset(ctx context.Context) error {
	return c.ack(ctx, &request{typ: msgReset})
}

// Grant lets user connections that present token reach the doorbell pages
// of VIs firstVI .. firstVI+count-1 (driver only).
func (c *Conn) Grant(ctx context.Context, token uint64, firstVI, count int) error {
	if firstVI < 0 || count < 0 || int64(firstVI) > 1<<32-1 || int64(count) > 1<<32-1 {
		return fmt.Errorf("cosim: Grant: invalid VI range %d+%d", firstVI, count)
	}
	return c.ack(ctx, &request{typ: msgGrant, token: token, first: uint32(firstVI), count: uint32(count)})
}

// Revoke withdraws every grant of token (driver only).
func (c *Conn) Revoke(ctx context.Context, token uint64) error {
	return c.ack(ctx, &request{typ: msgRevoke, token: token})
}

// FabricRead reads register reg (a word index, 0..255) of the fabric switch
// (rtl/via_fabric.v's register port; docs/fabric.md) as it is in the cycle
// the read runs; driver and monitor connections. In lockstep the read
// takes one cycle of simulated time.
func (c *Conn) FabricRead(ctx context.Context, reg uint32) (uint32, error) {
	if reg > 255 {
		return 0, fmt.Errorf("cosim: FabricRead: register %d, the switch has 0..255", reg)
	}
	m, err := c.roundTrip(ctx, &request{typ: msgFabricRead, off: reg})
	if err != nil {
		return 0, err
	}
	if m.Status != readOK {
		return 0, fmt.Errorf("cosim: FabricRead of register %d: status %d", reg, m.Status)
	}
	return uint32(m.Value), nil
}

// FabricWrite writes v to register reg of the fabric switch (a fault rule,
// the seed, ...) and returns once it has taken effect (at the next clock
// edge; one cycle per write); driver and monitor connections.
func (c *Conn) FabricWrite(ctx context.Context, reg, v uint32) error {
	if reg > 255 {
		return fmt.Errorf("cosim: FabricWrite: register %d, the switch has 0..255", reg)
	}
	return c.ack(ctx, &request{typ: msgFabricWrite, off: reg, value: v})
}

// Terminate asks the simulator to exit (driver only). The Conn closes when
// the simulator goes.
func (c *Conn) Terminate(ctx context.Context) error {
	err := c.ack(ctx, &request{typ: msgTerminate})
	if errors.Is(err, ErrClosed) {
		// The simulator may close the socket right after its ACK.
		if cause := c.Err(); cause != nil && strings.Contains(cause.Error(), "simulator closed") {
			return nil
		}
	}
	return err
}

// Stats returns the simulator's statistics as key/value pairs.
func (c *Conn) Stats(ctx context.Context) (map[string]string, error) {
	m, err := c.roundTrip(ctx, &request{typ: msgStats})
	if err != nil {
		return nil, err
	}
	return parseStats(m.Text), nil
}

func parseStats(s string) map[string]string {
	out := make(map[string]string)
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// AttachMemory gives the simulator the node's host memory (driver only,
// Unix sockets only): host physical address 0 is byte 0 of m. The
// simulator maps the memfd; m stays usable here and must stay the same
// size.
func (c *Conn) AttachMemory(ctx context.Context, m *Memory) error {
	if c.uc == nil {
		return fmt.Errorf("cosim: AttachMemory needs a Unix socket connection")
	}
	if err := c.check(); err != nil {
		return err
	}
	if m == nil || m.fd < 0 {
		return fmt.Errorf("cosim: AttachMemory: memory is closed")
	}
	cl, tag, err := c.register(msgAck)
	if err != nil {
		return err
	}
	res, err := c.await(ctx, cl, tag, c.sendAttach(ctx, tag, m))
	if err != nil {
		return err
	}
	if res.Status != 0 {
		return &RemoteError{Code: ErrorCode(res.Status), RefType: msgAttachMem, Tag: tag}
	}
	return nil
}

// sendAttach sends the posted writes, then ATTACH_MEM alone in one sendmsg
// carrying the fd, so the descriptor travels with that message's bytes.
func (c *Conn) sendAttach(ctx context.Context, tag uint32, m *Memory) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	if b := c.takeBatch(); len(b) > 0 {
		if err := c.writeSock(ctx, b, len(b)); err != nil {
			return err
		}
	}
	b := appendAttachMem(nil, tag, 0, uint64(m.Size()))
	oob := syscall.UnixRights(m.fd)
	n, oobn, err := c.uc.WriteMsgUnix(b, oob, nil)
	if err == nil && (n != len(b) || oobn != len(oob)) {
		err = fmt.Errorf("short sendmsg: %d of %d bytes, %d of %d control bytes", n, len(b), oobn, len(oob))
	}
	if err != nil {
		err = fmt.Errorf("sending ATTACH_MEM: %w", err)
		c.fail(err)
		return c.Err()
	}
	return nil
}
