package cosim

// Unit tests of the client against a scripted peer. They cover what the
// real simulator never does (malformed messages, a version or map
// mismatch, a peer that stops reading); everything the simulator does is
// tested against the real one in sim_test.go.

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peer is the far end of a Conn in a unit test.
type peer struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func (p *peer) read() (header, []byte) {
	var hb [headerSize]byte
	if _, err := io.ReadFull(p.br, hb[:]); err != nil {
		return header{}, nil
	}
	h := parseHeader(hb[:])
	b := make([]byte, h.Len)
	if _, err := io.ReadFull(p.br, b); err != nil {
		return header{}, nil
	}
	return h, b
}

func (p *peer) send(b []byte) { p.nc.Write(b) }

func helloOKPayload(major uint16, hash uint64) []byte {
	b := make([]byte, helloOKSize)
	le.PutUint16(b[0:], major)
	le.PutUint16(b[2:], ProtocolMinor)
	le.PutUint16(b[4:], 1)
	le.PutUint16(b[6:], 8)
	le.PutUint32(b[8:], 1<<20)
	le.PutUint32(b[12:], 4000)
	le.PutUint64(b[16:], hash)
	b[32] = byte(ModeLockstep)
	le.PutUint32(b[36:], 1)
	le.PutUint32(b[40:], 64)
	return b
}

// startPeer listens, accepts one connection, answers its HELLO with
// helloOK and runs script. It returns the address.
func startPeer(t *testing.T, helloOK []byte, script func(p *peer)) string {
	t.Helper()
	addr := filepath.Join(t.TempDir(), "peer.sock")
	ln, err := net.Listen("unix", addr)
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		p := &peer{t: t, nc: nc, br: bufio.NewReader(nc)}
		h, _ := p.read()
		if h.Type != msgHello {
			return
		}
		p.send(frame(msgHelloOK, h.Tag, helloOK))
		if script != nil {
			script(p)
		}
	})
	return addr
}

// The fake peer knows no register map: any hash and any aligned BAR0
// offset do.
const (
	peerHash        = 0x0123_4567_89ab_cdef
	peerReg  uint32 = 0x40
)

func dialPeer(t *testing.T, addr string, opts Options) (*Conn, error) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	return Dial(ctx, "unix", addr, opts)
}

func TestHandshakeChecks(t *testing.T) {
	addr := startPeer(t, helloOKPayload(2, peerHash), nil)
	_, err := dialPeer(t, addr, Options{})
	assert.ErrorIs(t, err, ErrVersion)

	// 1.0 has neither CANCEL nor flow control: refused.
	old := helloOKPayload(1, peerHash)
	le.PutUint16(old[2:], 0)
	addr = startPeer(t, old, nil)
	_, err = dialPeer(t, addr, Options{})
	assert.ErrorIs(t, err, ErrVersion)
	assert.ErrorContains(t, err, "simulator speaks 1.0")

	// The map hash is reported, not checked: the bridge knows no register
	// map (the driver checks it).
	addr = startPeer(t, helloOKPayload(1, 0x1234), func(p *peer) { p.read() })
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	assert.Equal(t, uint64(0x1234), c.Device().MapHash)
	c.Close()
}

func TestHandshakeTimeout(t *testing.T) {
	addr := filepath.Join(t.TempDir(), "mute.sock")
	ln, err := net.Listen("unix", addr)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err == nil {
			defer nc.Close()
			io.Copy(io.Discard, nc) // never answers
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Dial(ctx, "unix", addr, Options{})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 3*time.Second)
}

// A malformed message closes the Conn with a clear error, and every blocked
// call returns it.
func TestMalformedClosesConn(t *testing.T) {
	release := make(chan struct{})
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) {
		for range 3 {
			p.read() // three reads
		}
		<-release
		p.send(frame(msgReadData, 999, make([]byte, 5))) // wrong length
		io.Copy(io.Discard, p.nc)
	})
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := c.Read32(context.Background(), peerReg)
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range 3 {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, ErrClosed)
			var me *MalformedError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, msgReadData, me.Type)
		case <-time.After(3 * time.Second):
			t.Fatal("blocked call did not return")
		}
	}
	_, err = c.Read32(context.Background(), 0)
	assert.ErrorIs(t, err, ErrClosed, "later calls fail fast")
	assert.ErrorIs(t, c.Write32(context.Background(), 0x10, 1), ErrClosed)
	_, ok := <-c.Interrupts()
	assert.False(t, ok, "interrupt channel closed")
}

func TestPeerGoneUnblocksEverything(t *testing.T) {
	gone := make(chan struct{})
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) {
		<-gone
	})
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = c.Read32(context.Background(), 0)
			case 1:
				_, err = c.WaitIRQ(context.Background(), 1, 0)
			default:
				_, err = c.Run(context.Background(), 100)
			}
			errs <- err
		})
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	close(gone)
	wg.Wait()
	close(errs)
	assert.Less(t, time.Since(start), time.Second)
	for err := range errs {
		assert.ErrorIs(t, err, ErrClosed)
		assert.Contains(t, err.Error(), "simulator closed the connection")
	}
}

func TestCancelKeepsTagReserved(t *testing.T) {
	reqs := make(chan header, 4)
	canceled := make(chan uint32, 4)
	answer := make(chan struct{})
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) {
		h1, _ := p.read()
		reqs <- h1
		<-answer
		h2, b := p.read()
		for h2.Type == msgCancel {
			if h2.Tag != 0 || len(b) != cancelSize {
				p.t.Errorf("bad CANCEL: tag %d, %d bytes", h2.Tag, len(b))
			}
			canceled <- le.Uint32(b)
			h2, b = p.read()
		}
		reqs <- h2
		// Late answer to the canceled read first, then the second read's.
		rd := make([]byte, readDataSize)
		le.PutUint64(rd[8:], 111)
		p.send(frame(msgReadData, h1.Tag, rd))
		le.PutUint64(rd[8:], 222)
		p.send(frame(msgReadData, h2.Tag, rd))
		io.Copy(io.Discard, p.nc)
	})
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	defer c.Close()

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := c.Read32(ctx, 0)
		done <- err
	}()
	h1 := <-reqs
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	close(answer)
	v, err := c.Read32(t.Context(), 4)
	require.NoError(t, err)
	h2 := <-reqs
	assert.NotEqual(t, h1.Tag, h2.Tag)
	assert.Equal(t, uint32(222), v, "the late answer of the canceled read is not taken for the new one")
	select {
	case tag := <-canceled:
		assert.Equal(t, h1.Tag, tag, "the canceled read is withdrawn with a CANCEL of its tag")
	default:
		t.Error("no CANCEL was sent for the canceled read")
	}
	assert.Eventually(t, func() bool { return c.Counters().LateReplies == 1 }, 5*time.Second, time.Millisecond)
}

// Posted writes go out in order, in few messages, before the next read.
func TestPostedWritesBatchedAndOrdered(t *testing.T) {
	const n = 20000
	got := make(chan []uint64, 1)
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) {
		var vals []uint64
		batches := 0
		for {
			h, b := p.read()
			switch h.Type {
			case msgMMIOWrite:
				batches++
				cnt := int(le.Uint32(b))
				if cnt < 1 || cnt > maxWriteEntries || len(b) != 4+cnt*writeEntrySize {
					p.t.Errorf("bad MMIO_WRITE: count %d, len %d", cnt, len(b))
				}
				for i := range cnt {
					e := b[4+i*writeEntrySize:]
					vals = append(vals, le.Uint64(e[8:]))
				}
			case msgMMIORead:
				rd := make([]byte, readDataSize)
				le.PutUint64(rd[8:], uint64(len(vals)))
				p.send(frame(msgReadData, h.Tag, rd))
				p.t.Logf("%d writes in %d MMIO_WRITE messages", len(vals), batches)
				got <- vals
				io.Copy(io.Discard, p.nc)
				return
			default:
				p.t.Errorf("unexpected message %s", msgName(h.Type))
				return
			}
		}
	})
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	defer c.Close()
	for i := range n {
		require.NoError(t, c.Write32(t.Context(), peerReg, uint32(i)))
	}
	v, err := c.Read32(t.Context(), peerReg)
	require.NoError(t, err)
	assert.Equal(t, uint32(n), v)
	vals := <-got
	require.Len(t, vals, n)
	for i, v := range vals {
		if v != uint64(i) {
			t.Fatalf("write %d carries %d", i, v)
		}
	}
	cnt := c.Counters()
	assert.Equal(t, uint64(n), cnt.PostedWrites)
	// How many go in one message depends on how fast the flusher runs;
	// at most 4095 do.
	assert.GreaterOrEqual(t, cnt.WriteBatches, uint64((n+maxWriteEntries-1)/maxWriteEntries))
	assert.LessOrEqual(t, cnt.WriteBatches, uint64(n))
}

// A peer that stops reading must not make a call with a deadline hang.
func TestStuckPeerRespectsContext(t *testing.T) {
	stop := make(chan struct{})
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) { <-stop })
	defer close(stop)
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	for {
		if err = c.Write32(ctx, peerReg, 1); err != nil {
			break
		}
	}
	assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed), "got %v", err)
	assert.Less(t, time.Since(start), 5*time.Second)
	_, err = c.Read32(ctx, 0)
	assert.Error(t, err)
}

func TestAccessChecks(t *testing.T) {
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) { io.Copy(io.Discard, p.nc) })
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Read32(t.Context(), 2)
	assert.ErrorContains(t, err, "aligned")
	_, err = c.Read64(t.Context(), 4)
	assert.ErrorContains(t, err, "aligned")
	assert.ErrorContains(t, c.Write32(t.Context(), 1<<20, 0), "outside BAR0")
	_, _, err = c.WaitMem(t.Context(), 0, 3, 0, 0, 0)
	assert.ErrorContains(t, err, "size")
}

func TestMemory(t *testing.T) {
	m, err := NewMemory(5000)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, 8192, m.Size(), "rounded up to pages")
	m.Store32(4, 0xdeadbeef)
	m.Store64(8, 0x0102030405060708)
	assert.Equal(t, uint32(0xdeadbeef), m.Load32(4))
	assert.Equal(t, uint64(0x0102030405060708), m.Load64(8))
	assert.Equal(t, byte(0x08), m.Bytes()[8], "little endian")
	assert.Panics(t, func() { m.Load32(2) })
	assert.Panics(t, func() { m.Load64(8192) })
	assert.NotNil(t, m.File())
	require.NoError(t, m.Close())
	require.NoError(t, m.Close())
}

// A call whose context is done (a wait canceled as it is sent: a parked
// client whose partner finished) neither closes the Conn nor loses the
// posted writes that go out with its request: they were accepted already,
// and in lockstep a client whose connection died would stop time for the
// others (its node's other connections stay attached but no longer wait).
func TestDoneContextKeepsConnAndPostedWrites(t *testing.T) {
	addr := startPeer(t, helloOKPayload(1, peerHash), func(p *peer) {
		writes := 0
		for {
			h, b := p.read()
			switch h.Type {
			case 0:
				return // closed
			case msgMMIOWrite:
				for i := range int(le.Uint32(b)) {
					if v := le.Uint64(b[4+i*writeEntrySize+8:]); v != uint64(writes) {
						p.t.Errorf("write %d carries %d", writes, v)
					}
					writes++
				}
			case msgWait: // answered when canceled
			case msgCancel:
				wd := make([]byte, waitDoneSize)
				le.PutUint16(wd, waitAborted)
				p.send(frame(msgWaitDone, le.Uint32(b), wd))
			case msgStats:
				p.send(frame(msgStatsData, h.Tag, nil))
			case msgMMIORead:
				rd := make([]byte, readDataSize)
				le.PutUint64(rd[8:], uint64(writes))
				p.send(frame(msgReadData, h.Tag, rd))
			default:
				p.t.Errorf("unexpected message %s", msgName(h.Type))
				return
			}
		}
	})
	c, err := dialPeer(t, addr, Options{})
	require.NoError(t, err)
	defer c.Close()
	done, cancel := context.WithCancel(t.Context())
	cancel()
	const rounds = 1000
	for i := range rounds {
		require.NoError(t, c.Write32(t.Context(), peerReg, uint32(i)))
		_, err := c.Run(done, 100)
		require.ErrorIs(t, err, context.Canceled)
		require.NoError(t, c.Err(), "round %d: the canceled call closed the connection", i)
	}
	v, err := c.Read32(t.Context(), peerReg)
	require.NoError(t, err)
	assert.Equal(t, uint32(rounds), v, "every posted write reached the peer, in order")
}
