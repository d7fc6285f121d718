package simulator_test

// A robustness fuzz test of the simulator: while a well-behaved driver keeps
// doing MMIO and DMA and checks every result, other connections throw random
// bytes, malformed and out-of-order messages and valid messages with random
// fields at it. At the end the simulator must still be alive and the good
// client must have got every answer right.

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

var fuzzTime = flag.Duration("cosim.fuzztime", 0,
	"duration of TestSimRobustness (default 10s, 2s with -short; env VIANIC_FUZZ_TIME also sets it)")

func robustnessDuration() time.Duration {
	if *fuzzTime > 0 {
		return *fuzzTime
	}
	if env := os.Getenv("VIANIC_FUZZ_TIME"); env != "" {
		if d, err := time.ParseDuration(env); err == nil {
			return d
		}
	}
	if testing.Short() {
		return 2 * time.Second
	}
	return 10 * time.Second
}

// Message types and sizes of the protocol, spelled out here because the
// attackers build their messages by hand.
const (
	tHello, tAttach, tRead, tWrite, tWait, tTrace, tReset, tGrant, tRevoke, tTerminate, tStats, tCancel = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	tError                                                                                              = 0x8f
)

func msgBytes(typ uint16, tag uint32, payload []byte) []byte {
	b := make([]byte, 12+len(payload))
	binary.LittleEndian.PutUint32(b, uint32(len(payload)))
	binary.LittleEndian.PutUint16(b[4:], typ)
	binary.LittleEndian.PutUint32(b[8:], tag)
	copy(b[12:], payload)
	return b
}

func helloBytes(r *rand.Rand, role, node uint8, token uint64) []byte {
	p := make([]byte, 52)
	binary.LittleEndian.PutUint32(p, 0x534F4356)
	binary.LittleEndian.PutUint16(p[4:], 1)
	p[8], p[9] = role, node
	binary.LittleEndian.PutUint16(p[10:], uint16(r.IntN(2)))
	binary.LittleEndian.PutUint64(p[12:], token)
	copy(p[20:], "attacker")
	return msgBytes(tHello, 1, p)
}

// randomValid returns a well-formed client message with random fields
// (never TERMINATE: an attacker that becomes the driver of a free node
// could legitimately end the simulation).
func randomValid(r *rand.Rand) []byte {
	tag := r.Uint32()
	if r.IntN(2) == 0 {
		tag = 1 + r.Uint32N(8) // small tags, so that CANCELs hit requests
	}
	off := func() uint32 {
		switch r.IntN(3) {
		case 0:
			return uint32(r.IntN(0x200)) &^ 3
		case 1:
			return hw.DoorbellOffset(r.IntN(20)) + uint32(r.IntN(0x1000))&^3
		}
		return r.Uint32()
	}
	switch r.IntN(10) {
	case 8:
		p := make([]byte, 8)
		binary.LittleEndian.PutUint32(p, tag)
		return msgBytes(tCancel, 0, p)
	case 0:
		p := make([]byte, 8)
		binary.LittleEndian.PutUint32(p, off())
		p[4] = []byte{4, 8, 4, 8, 3}[r.IntN(5)]
		return msgBytes(tRead, tag, p)
	case 1:
		n := 1 + r.IntN(40)
		if r.IntN(20) == 0 {
			n = 4095
		}
		p := make([]byte, 4+16*n)
		binary.LittleEndian.PutUint32(p, uint32(n))
		for i := range n {
			e := p[4+16*i:]
			o := off()
			if o == hw.RegCtrl && r.IntN(4) != 0 {
				o = hw.RegScratch // soft resets are fine but slow everything down
			}
			binary.LittleEndian.PutUint32(e, o)
			e[4] = []byte{4, 8}[r.IntN(2)]
			binary.LittleEndian.PutUint64(e[8:], r.Uint64())
		}
		return msgBytes(tWrite, 0, p)
	case 2:
		kind := uint8(1 + r.IntN(3))
		n := 20
		if kind == 2 {
			n = 36
		}
		p := make([]byte, n)
		p[0] = kind
		p[1] = []byte{1, 2, 4, 8}[r.IntN(4)]
		binary.LittleEndian.PutUint64(p[4:], uint64(r.IntN(5000))) // timeout
		for i := 12; i < n; i++ {
			p[i] = byte(r.Uint32())
		}
		if kind == 3 {
			binary.LittleEndian.PutUint64(p[12:], uint64(r.IntN(1000)))
		}
		return msgBytes(tWait, tag, p)
	case 3:
		p := make([]byte, 8)
		p[0] = byte(r.IntN(2))
		return msgBytes(tTrace, tag, p)
	case 4:
		return msgBytes(tReset, tag, nil)
	case 5:
		p := make([]byte, 16)
		binary.LittleEndian.PutUint64(p, r.Uint64()%4)
		binary.LittleEndian.PutUint32(p[8:], uint32(r.IntN(20)))
		binary.LittleEndian.PutUint32(p[12:], r.Uint32()%32)
		return msgBytes(tGrant, tag, p)
	case 6:
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, r.Uint64()%4)
		return msgBytes(tRevoke, tag, p)
	case 7:
		return msgBytes(tStats, tag, nil)
	default:
		p := make([]byte, 16)
		binary.LittleEndian.PutUint64(p[8:], uint64(r.IntN(1<<20)))
		return msgBytes(tAttach, tag, p) // without a descriptor
	}
}

// mutate damages a message: a flipped byte, a wrong length, truncation, a
// bad type or flags.
func mutate(r *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	switch r.IntN(6) {
	case 0:
		b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
	case 1:
		binary.LittleEndian.PutUint32(b, r.Uint32())
	case 2:
		binary.LittleEndian.PutUint32(b, uint32(len(b)-12+r.IntN(9)-4))
	case 3:
		b = b[:r.IntN(len(b))]
	case 4:
		binary.LittleEndian.PutUint16(b[4:], uint16(r.IntN(0x100)))
	default:
		binary.LittleEndian.PutUint16(b[6:], uint16(1+r.IntN(0xffff)))
	}
	return b
}

// attack runs one hostile connection.
func attack(r *rand.Rand, addr string, mem *cosim.Memory) {
	nc, err := net.DialTimeout("unix", addr, time.Second)
	if err != nil {
		return
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(100 * time.Millisecond))
	go io.Copy(io.Discard, nc) // answers are not checked; the simulator must just survive
	role := uint8(1 + r.IntN(3))
	node := uint8(r.IntN(3)) // node 2 does not exist
	var out []byte
	switch r.IntN(8) {
	case 0: // random bytes
		out = make([]byte, r.IntN(300))
		for i := range out {
			out[i] = byte(r.Uint32())
		}
	case 1: // messages before HELLO
		out = randomValid(r)
	case 2: // HELLO twice
		out = append(helloBytes(r, role, node, 1), helloBytes(r, role, node, 1)...)
	case 3: // damaged HELLO
		out = mutate(r, helloBytes(r, role, node, 1))
	case 4: // a partial header, then silence
		out = msgBytes(tRead, 1, make([]byte, 8))[:1+r.IntN(11)]
	case 5: // a huge length
		out = append(helloBytes(r, role, node, 1), msgBytes(tWrite, 0, nil)...)
		binary.LittleEndian.PutUint32(out[len(out)-12:], 0xffff_fff0)
	case 6: // the driver of node 1 with real memory that shrinks under it
		out = helloBytes(r, 1, 1, 0)
		nc.Write(out)
		p := make([]byte, 16)
		binary.LittleEndian.PutUint64(p[8:], uint64(mem.Size()))
		if uc, ok := nc.(*net.UnixConn); ok {
			uc.WriteMsgUnix(msgBytes(tAttach, 2, p), syscall.UnixRights(mem.Fd()), nil)
		}
		var batch []byte
		for range 1 + r.IntN(20) {
			batch = append(batch, randomValid(r)...)
		}
		// Start a copy on node 1.
		e := make([]byte, 4+16*3)
		binary.LittleEndian.PutUint32(e, 3)
		for i, w := range [][2]uint32{{hw.RegDiagLen, 4096}, {hw.RegDiagDstLo, 8192}, {hw.RegDiagCtrl, 1}} {
			binary.LittleEndian.PutUint32(e[4+16*i:], w[0])
			e[4+16*i+4] = 4
			binary.LittleEndian.PutUint64(e[4+16*i+8:], uint64(w[1]))
		}
		out = append(batch, msgBytes(tWrite, 0, e)...)
	default: // a valid HELLO, then valid and damaged messages
		token := uint64(r.IntN(4))
		out = helloBytes(r, role, node, token)
		for range 1 + r.IntN(30) {
			m := randomValid(r)
			if r.IntN(4) == 0 {
				m = mutate(r, m)
			}
			out = append(out, m...)
		}
	}
	nc.Write(out)
	time.Sleep(time.Duration(r.IntN(3)) * time.Millisecond)
}

func TestSimRobustness(t *testing.T) {
	dur := robustnessDuration()
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	c, mem := simtest.Driver(t, s, 0, memSize, cosim.Options{Name: "good client"})

	// Node 1's memory for the attackers; it shrinks and grows under the
	// simulator's mapping.
	amem, err := cosim.NewMemory(64 << 10)
	require.NoError(t, err)
	t.Cleanup(func() { amem.Close() })

	// The attackers stop before amem is closed, on success and on failure
	// alike (cleanups run last registered first).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopAttackers := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	t.Cleanup(stopAttackers)
	var attacks atomic.Int64
	for a := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(a), 42))
			for {
				select {
				case <-stop:
					return
				default:
				}
				attack(r, s.Addr(), amem)
				attacks.Add(1)
			}
		})
	}
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			size := int64(64 << 10)
			if i%2 == 0 {
				size = 0
			}
			unix.Ftruncate(amem.Fd(), size)
		}
	})

	// The good client.
	r := rand.New(rand.NewPCG(7, 7))
	b := mem.Bytes()
	ops := 0
	deadline := time.Now().Add(dur)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		switch ops % 4 {
		case 0, 1:
			v := r.Uint32()
			require.NoError(t, c.Write32(ctx, hw.RegScratch, v))
			got, err := c.Read32(ctx, hw.RegScratch)
			require.NoError(t, err)
			require.Equal(t, v, got, "SCRATCH after write (op %d)", ops)
		case 2:
			n := uint32(8 * (1 + r.IntN(2048)))
			fill(b[:n], uint64(ops))
			clear(b[0x80000 : 0x80000+n])
			st, err := copyAndWait(ctx, c, 0, 0x80000, n)
			require.NoError(t, err, "op %d", ops)
			require.Equal(t, uint32(0), hw.DiagStatusError.Get(st), "copy status 0x%x (op %d)", st, ops)
			require.True(t, bytes.Equal(b[:n], b[0x80000:0x80000+n]), "copy of %d bytes differs (op %d)", n, ops)
		default:
			v, err := c.Read32(ctx, hw.RegMagic)
			require.NoError(t, err)
			require.Equal(t, uint32(hw.Magic), v)
			_, err = c.Run(ctx, uint64(1+r.IntN(100)))
			require.NoError(t, err)
		}
		cancel()
		ops++
	}
	stopAttackers()

	select {
	case <-s.Exited():
		t.Fatalf("the simulator died; its output:\n%s", s.Output())
	default:
	}
	ctx := ctxT(t, 10*time.Second)
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	cnt := c.Counters()
	assert.Zero(t, cnt.AsyncErrors, "the good client got no errors")
	t.Logf("%v: %d good operations, %d hostile connections; simulator stats: %v",
		dur, ops, attacks.Load(), fmt.Sprint(st))
}

// TestSimMaxClients: connections beyond --max-clients get a fatal ERROR BUSY
// and are closed, the clients already there keep working, and a place that
// frees up is given to the next client.
func TestSimMaxClients(t *testing.T) {
	const limit = 8
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1, Args: []string{"--max-clients", fmt.Sprint(limit)}})
	c, _ := simtest.Driver(t, s, 0, memSize, cosim.Options{Name: "good client"})
	ctx := ctxT(t, 30*time.Second)

	// Hold connections open without a HELLO; the limit counts them too.
	var held []net.Conn
	defer func() {
		for _, nc := range held {
			nc.Close()
		}
	}()
	refused := 0
	for i := range 3 * limit {
		nc, err := net.DialTimeout("unix", s.Addr(), 5*time.Second)
		require.NoError(t, err)
		held = append(held, nc)
		// The good client's round trip lets the simulator take the
		// connect, so that the answers below come in connect order.
		v := uint32(0x5000 + i)
		require.NoError(t, c.Write32(ctx, hw.RegScratch, v))
		got, err := c.Read32(ctx, hw.RegScratch)
		require.NoError(t, err)
		require.Equal(t, v, got)
		if i < limit-1 {
			continue // accepted: 1 driver + limit-1 silent connections
		}
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		hdr := make([]byte, 12)
		_, err = io.ReadFull(nc, hdr)
		require.NoError(t, err, "connection %d beyond the limit gets an ERROR", i)
		assert.Equal(t, uint16(tError), binary.LittleEndian.Uint16(hdr[4:]))
		body := make([]byte, binary.LittleEndian.Uint32(hdr))
		_, err = io.ReadFull(nc, body)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(body), 16)
		assert.Equal(t, uint16(cosim.CodeBusy), binary.LittleEndian.Uint16(body), "code")
		assert.Equal(t, byte(1), body[2], "fatal")
		assert.Contains(t, string(body[16:]), "max-clients")
		_, err = nc.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "closed after the ERROR")
		refused++
	}
	assert.Equal(t, 2*limit+1, refused)

	// A held connection that leaves frees its place.
	held[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, err := s.Dial(ctx, cosim.Options{Role: cosim.RoleMonitor, Node: 0})
		if err == nil {
			m.Close()
			break
		}
		require.ErrorIs(t, err, cosim.ErrBusy)
		require.True(t, time.Now().Before(deadline), "no place freed after a client left: %v", err)
		time.Sleep(10 * time.Millisecond)
	}
	_, err := c.Stats(ctx)
	require.NoError(t, err)
}
