package cosim

import (
	"context"
	"fmt"
)

// checkAccess validates an MMIO access before it is sent: the simulator
// treats a malformed one as a protocol error and closes the connection.
func (c *Conn) checkAccess(off uint32, size uint8) error {
	if off%uint32(size) != 0 {
		return fmt.Errorf("cosim: MMIO offset 0x%x is not %d-byte aligned", off, size)
	}
	if bar := c.dev.BARBytes; bar != 0 && (off >= bar || bar-off < uint32(size)) {
		return fmt.Errorf("cosim: MMIO offset 0x%x is outside BAR0 (0x%x bytes)", off, bar)
	}
	return nil
}

// Read32 reads the 32-bit register at BAR0 byte offset off. Posted writes
// of this Conn issued before it are applied first. A bus error from the
// NIC is a *BusError; an access outside the role's rights fails with
// ErrRefused; a node without a driver with ErrDetached.
func (c *Conn) Read32(ctx context.Context, off uint32) (uint32, error) {
	v, err := c.read(ctx, off, 4)
	return uint32(v), err
}

// Read64 reads 64 bits at BAR0 byte offset off (8-byte aligned): the
// register at off in the low half, the one at off+4 in the high half.
func (c *Conn) Read64(ctx context.Context, off uint32) (uint64, error) {
	return c.read(ctx, off, 8)
}

func (c *Conn) read(ctx context.Context, off uint32, size uint8) (uint64, error) {
	if err := c.checkAccess(off, size); err != nil {
		return 0, err
	}
	r := request{typ: msgMMIORead, off: off, size: size}
	m, err := c.roundTrip(ctx, &r)
	if err != nil {
		return 0, err
	}
	switch m.Status {
	case readOK:
		return m.Value, nil
	case readSLVERR, readDECERR:
		return 0, &BusError{Offset: off, Resp: m.Status, Cycle: m.Cycle}
	case readRefused:
		return 0, fmt.Errorf("%w: read of 0x%x by a %v connection", ErrRefused, off, c.opts.Role)
	case readDetached:
		return 0, fmt.Errorf("%w: read of 0x%x", ErrDetached, off)
	case readCanceled:
		return 0, fmt.Errorf("cosim: read of 0x%x: %w", off, context.Canceled)
	}
	return 0, fmt.Errorf("cosim: read of 0x%x: unknown status %d", off, m.Status)
}

// Write32 posts a 32-bit write of v to BAR0 byte offset off. It does not
// wait for the simulator (see the package documentation for when posted
// writes are sent and how their errors are reported); it blocks only when
// the write buffer is full and the socket does not take it.
func (c *Conn) Write32(ctx context.Context, off uint32, v uint32) error {
	return c.post(ctx, off, 4, uint64(v))
}

// Write64 posts a 64-bit write (8-byte aligned): the low half to the
// register at off, the high half to off+4.
func (c *Conn) Write64(ctx context.Context, off uint32, v uint64) error {
	return c.post(ctx, off, 8, v)
}

func (c *Conn) post(ctx context.Context, off uint32, size uint8, v uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	if err := c.checkAccess(off, size); err != nil {
		return err
	}
	for {
		c.bmu.Lock()
		if n := c.curN; n < maxWriteEntries {
			putWriteEntry(c.cur[batchHead+n*writeEntrySize:], off, size, v)
			c.curN = n + 1
			c.posted++
			c.bmu.Unlock()
			if n == 0 {
				select {
				case c.wake <- struct{}{}:
				default:
				}
			}
			return nil
		}
		c.bmu.Unlock()
		if err := c.flush(ctx); err != nil {
			return err
		}
	}
}

// AppendMMIORead appends the wire bytes of an MMIO_READ request of size
// bytes (4 or 8) at BAR0 offset off with the given tag to b. It is for
// tools that measure the transport itself without a Conn (the bridge
// benchmark sends these bytes to a raw echo server); a Conn encodes its
// own requests.
func AppendMMIORead(b []byte, tag uint32, off uint32, size int) []byte {
	return appendMMIORead(b, tag, off, uint8(size))
}
