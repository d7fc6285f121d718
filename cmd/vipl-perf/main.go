// Command vipl-perf is a perftest-style program written against the Go
// VIPL alone (package vipl and the standard library): one process per
// node, a server and a client, each with its own NIC, connected to each
// other, measuring a ping-pong and a stream of messages in simulated time.
// `vianic demo` runs two of them on a 2-node simulator.
//
//	vipl-perf -sim ADDR -node 1 -peer node0 -role server
//	vipl-perf -sim ADDR -node 0 -peer node1 -role client [-sizes 8,4096] [-iters 50] [-json]
//
// The two connect through the NICs' connection managers: the server
// waits on the discriminator "viplperf" (ConnectWait) and accepts with its
// VI; the client asks with ConnectRequest (and asks again, a simulated
// 20 us later, while the answer is VIP_NO_MATCH: the server is not waiting
// yet).
//
// Messages are unreliable: a message that finds no receive posted is
// dropped. So every message the program sends is answered, and a message
// whose answer does not come within the timeout is sent again; each side
// posts the receive for the next message before it answers the current
// one.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vianic/vianic/vipl"
)

// message kinds (the first byte of every message)
const (
	kPing   = 1 // ping-pong: answered by a pong of the same size
	kPong   = 2
	kReady  = 3 // stream: the server has posted its receives
	kDone   = 4 // stream: the server has them all; bytes 8..15: the cycle of the last
	kStart  = 5 // stream: the client asks for READY (count, size in bytes 4..11)
	kFinish = 6 // the client is done: the server may close
)

// Result is the client's output (-json), one per size.
type Result struct {
	Test       string  `json:"test"` // "pingpong" or "stream"
	Bytes      int     `json:"bytes"`
	Iterations int     `json:"iterations"`
	TMinUs     float64 `json:"t_min_us,omitempty"` // one-way: half a round trip
	TTypUs     float64 `json:"t_typical_us,omitempty"`
	TMaxUs     float64 `json:"t_max_us,omitempty"`
	MBps       float64 `json:"mb_per_sec,omitempty"`
	LineFrac   float64 `json:"line_fraction,omitempty"`
	Cycles     uint64  `json:"cycles"`
	Resent     int     `json:"resent"`
}

type peer struct {
	nic     *vipl.Nic
	vi      *vipl.Vi
	buf     *vipl.Buffer
	h       vipl.MemHandle
	clockNs float64
	maxSize int
	slots   int
}

const slot = 128 // bytes per descriptor slot

// layout of buf: descriptors (slots of 128 bytes) in the first pages,
// then the send area, then the receive areas
func (p *peer) sendOff() int { return (p.slots*slot + 4095) &^ 4095 }
func (p *peer) recvOff(i int) int {
	return p.sendOff() + ((p.maxSize+4095)&^4095)*(1+i)
}

func (p *peer) desc(i, off, n int) (*vipl.Desc, error) {
	return p.nic.NewDesc(p.buf.VA+uint64(i*slot), p.h, &vipl.Descriptor{
		Segments: []vipl.DataSegment{{Addr: p.buf.VA + uint64(off), Handle: p.h, Length: uint32(n)}}})
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "vipl-perf:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vipl-perf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sim := fs.String("sim", os.Getenv("VIANIC_SIM_SOCKET"), "the simulator's address (a Unix socket path, or tcp:HOST:PORT)")
	node := fs.Int("node", 0, "this process's node")
	peerName := fs.String("peer", "", "the other process's host name (name service: node0, node1, ...)")
	role := fs.String("role", "", "server or client")
	sizesArg := fs.String("sizes", "8,64,512,4096,32768,65536", "ping-pong message sizes in bytes")
	iters := fs.Int("iters", 20, "ping-pong round trips per size")
	streamSize := fs.Int("stream-size", 65536, "stream: bytes per message")
	streamCount := fs.Int("stream-count", 16, "stream: messages")
	asJSON := fs.Bool("json", false, "client: print the results as JSON lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *sim == "" || *peerName == "" || (*role != "server" && *role != "client") {
		fs.Usage()
		return errors.New("-sim, -peer and -role (server or client) are needed")
	}
	var sizes []int
	for _, f := range strings.Split(*sizesArg, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 8 || n > 65536 {
			return fmt.Errorf("-sizes: %q is not a size in 8..65536", f)
		}
		sizes = append(sizes, n)
	}
	if *streamSize < 16 || *streamSize > 65536 || *streamCount < 1 || *streamCount > 64 || *iters < 1 {
		return errors.New("-stream-size 16..65536, -stream-count 1..64, -iters >= 1")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	nic, err := vipl.OpenNic(ctx, *sim, *node, vipl.Options{Name: "vipl-perf " + *role, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer nic.Close(context.Background())
	if err := nic.NSInit(vipl.NSInfo{}); err != nil {
		return err
	}
	remote, err := nic.NSGetHostByName(*peerName, 0)
	if err != nil {
		return err
	}
	maxSize := *streamSize
	for _, s := range sizes {
		maxSize = max(maxSize, s)
	}
	p := &peer{nic: nic, maxSize: maxSize, slots: 2 * (*streamCount + 4), clockNs: 4}
	if ps := nic.ClockPS(); ps > 0 {
		p.clockNs = float64(ps) / 1000
	}
	ptag, err := nic.CreatePtag(ctx)
	if err != nil {
		return err
	}
	size := p.recvOff(*streamCount + 1)
	if p.buf, err = nic.Alloc(ctx, size); err != nil {
		return err
	}
	if p.h, err = nic.RegisterMem(ctx, p.buf.VA, size, vipl.MemAttributes{Ptag: ptag}); err != nil {
		return err
	}
	p.vi, err = nic.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: uint32(maxSize), Ptag: ptag})
	if err != nil {
		return err
	}
	disc := []byte("viplperf")
	if *role == "server" {
		req, err := nic.ConnectWait(ctx, vipl.NetAddress{Discriminator: disc}, vipl.Infinite)
		if err != nil {
			return err
		}
		if err := p.vi.ConnectAccept(ctx, req); err != nil {
			return err
		}
		return p.serve(ctx)
	}
	setup, err := p.connect(ctx, vipl.NetAddress{Host: remote.Host, Discriminator: disc})
	if err != nil {
		return err
	}
	results, err := p.client(ctx, sizes, *iters, *streamSize, *streamCount)
	if err != nil {
		return err
	}
	results = append([]Result{{Test: "connect", Cycles: setup, TMinUs: float64(setup) * p.clockNs / 1000}}, results...)
	for _, r := range results {
		if *asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(b))
		} else {
			fmt.Fprintf(stdout, "%-8s %6d bytes %4d iters: t_min %.2f us, t_typ %.2f us, t_max %.2f us, %.1f MB/s\n",
				r.Test, r.Bytes, r.Iterations, r.TMinUs, r.TTypUs, r.TMaxUs, r.MBps)
		}
	}
	return nil
}

// connect asks the server for a connection until it is waiting (the
// answer is VIP_NO_MATCH before), 5,000 cycles apart; it returns the
// cycles of the request that succeeded (the connection set-up time).
func (p *peer) connect(ctx context.Context, remote vipl.NetAddress) (uint64, error) {
	for try := 0; try < 1000; try++ {
		c0 := p.nic.Cycle()
		_, err := p.vi.ConnectRequest(ctx, vipl.NetAddress{}, remote, 10)
		if err == nil {
			return p.nic.Cycle() - c0, nil
		}
		if vipl.Code(err) != vipl.NoMatch {
			return 0, err
		}
		// let simulated time pass: a look at the empty send queue waits
		// one poll interval
		p.nic.SetPollInterval(5000)
		if _, err := p.vi.SendDone(ctx); vipl.Code(err) != vipl.NotDone {
			return 0, fmt.Errorf("waiting before asking again: %v", err)
		}
		p.nic.SetPollInterval(0)
	}
	return 0, errors.New("the server never waited for the connection")
}

// postRecv posts a receive of up to maxSize bytes into receive area i.
func (p *peer) postRecv(ctx context.Context, slotIdx, area int) (*vipl.Desc, error) {
	d, err := p.desc(slotIdx, p.recvOff(area), p.maxSize)
	if err != nil {
		return nil, err
	}
	return d, p.vi.PostRecv(ctx, d)
}

// send sends n bytes of the send area (its first byte: kind) and waits
// for the send to complete.
func (p *peer) send(ctx context.Context, kind byte, n int) error {
	p.buf.Bytes[p.sendOff()] = kind
	d, err := p.desc(0, p.sendOff(), n)
	if err != nil {
		return err
	}
	if err := p.vi.PostSend(ctx, d); err != nil {
		return err
	}
	sd, err := p.vi.SendWait(ctx, vipl.Infinite)
	if err != nil {
		return err
	}
	if sd.Status().Failed() {
		return fmt.Errorf("send completed with %v", sd.Status())
	}
	return nil
}

// serve answers until the client says FINISH: a PING with a PONG of the
// same size; a START with READY once it has posted the stream's receives,
// then DONE with the cycle of the last one.
func (p *peer) serve(ctx context.Context) error {
	if _, err := p.postRecv(ctx, 1, 0); err != nil {
		return err
	}
	for {
		d, err := p.vi.RecvWait(ctx, vipl.Infinite)
		if err != nil {
			return err
		}
		if d.Status().Failed() {
			return fmt.Errorf("receive completed with %v", d.Status())
		}
		n := int(d.Length())
		msg := p.buf.Bytes[p.recvOff(0):]
		kind := msg[0]
		switch kind {
		case kPing:
			if _, err := p.postRecv(ctx, 1, 0); err != nil {
				return err
			}
			if err := p.send(ctx, kPong, n); err != nil {
				return err
			}
		case kStart:
			count := int(binary.LittleEndian.Uint32(msg[4:]))
			size := int(binary.LittleEndian.Uint32(msg[8:]))
			if count < 1 || count > p.slots/2-2 || size > p.maxSize {
				return fmt.Errorf("START of %d messages of %d bytes: at most %d of %d", count, size, p.slots/2-2, p.maxSize)
			}
			for i := range count {
				if _, err := p.postRecv(ctx, 2+i, 1+i); err != nil {
					return err
				}
			}
			if _, err := p.postRecv(ctx, 1, 0); err != nil {
				return err
			}
			if err := p.send(ctx, kReady, 8); err != nil {
				return err
			}
			for range count {
				d, err := p.vi.RecvWait(ctx, vipl.Infinite)
				if err != nil {
					return err
				}
				if d.Status().Failed() || int(d.Length()) != size {
					return fmt.Errorf("stream receive: %v, %d bytes", d.Status(), d.Length())
				}
			}
			binary.LittleEndian.PutUint64(p.buf.Bytes[p.sendOff()+8:], p.nic.Cycle())
			if err := p.send(ctx, kDone, 16); err != nil {
				return err
			}
		case kFinish:
			return nil
		default:
			return fmt.Errorf("unexpected message kind %d (%d bytes)", kind, n)
		}
	}
}

// exchange sends a message of kind and n bytes and waits up to timeout ms
// for the answer, sending again when none comes (the unreliable level
// drops a message that finds no receive); it returns the cycle the send
// was posted at and the answer.
func (p *peer) exchange(ctx context.Context, kind byte, n int, resent *int) (uint64, *vipl.Desc, error) {
	for try := 0; try < 20; try++ {
		c0 := p.nic.Cycle()
		if err := p.send(ctx, kind, n); err != nil {
			return 0, nil, err
		}
		d, err := p.vi.RecvWait(ctx, 2)
		if vipl.Code(err) == vipl.Timeout {
			*resent++
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		if d.Status().Failed() {
			return 0, nil, fmt.Errorf("receive completed with %v", d.Status())
		}
		return c0, d, nil
	}
	return 0, nil, errors.New("no answer after 20 tries: is the server running?")
}

func (p *peer) client(ctx context.Context, sizes []int, iters, streamSize, streamCount int) ([]Result, error) {
	var out []Result
	us := func(cycles uint64) float64 { return float64(cycles) * p.clockNs / 1000 }
	if _, err := p.postRecv(ctx, 1, 0); err != nil {
		return nil, err
	}
	for _, size := range sizes {
		r := Result{Test: "pingpong", Bytes: size, Iterations: iters}
		var oneWay []uint64
		for range iters {
			c0, d, err := p.exchange(ctx, kPing, size, &r.Resent)
			if err != nil {
				return nil, err
			}
			if p.buf.Bytes[p.recvOff(0)] != kPong || int(d.Length()) != size {
				return nil, fmt.Errorf("ping of %d bytes: answered kind %d, %d bytes", size, p.buf.Bytes[p.recvOff(0)], d.Length())
			}
			rtt := p.nic.Cycle() - c0
			r.Cycles += rtt
			oneWay = append(oneWay, rtt/2)
			if _, err := p.postRecv(ctx, 1, 0); err != nil {
				return nil, err
			}
		}
		sort.Slice(oneWay, func(i, j int) bool { return oneWay[i] < oneWay[j] })
		r.TMinUs, r.TTypUs, r.TMaxUs = us(oneWay[0]), us(oneWay[len(oneWay)/2]), us(oneWay[len(oneWay)-1])
		r.MBps = float64(size) / r.TTypUs
		r.LineFrac = r.MBps / (8 / p.clockNs * 1000)
		out = append(out, r)
	}

	// stream: ask for READY, then send every message at once
	r := Result{Test: "stream", Bytes: streamSize, Iterations: streamCount}
	binary.LittleEndian.PutUint32(p.buf.Bytes[p.sendOff()+4:], uint32(streamCount))
	binary.LittleEndian.PutUint32(p.buf.Bytes[p.sendOff()+8:], uint32(streamSize))
	if _, d, err := p.exchange(ctx, kStart, 16, &r.Resent); err != nil {
		return nil, err
	} else if p.buf.Bytes[p.recvOff(0)] != kReady {
		return nil, fmt.Errorf("START answered with kind %d (%d bytes)", p.buf.Bytes[p.recvOff(0)], d.Length())
	}
	if _, err := p.postRecv(ctx, 1, 0); err != nil {
		return nil, err
	}
	p.buf.Bytes[p.sendOff()] = kPing
	var sends []*vipl.Desc
	for i := range streamCount {
		d, err := p.desc(2+i, p.sendOff(), streamSize)
		if err != nil {
			return nil, err
		}
		sends = append(sends, d)
	}
	c0 := p.nic.Cycle()
	for _, d := range sends {
		if err := p.vi.PostSend(ctx, d); err != nil {
			return nil, err
		}
	}
	for range sends {
		sd, err := p.vi.SendWait(ctx, vipl.Infinite)
		if err != nil {
			return nil, err
		}
		if sd.Status().Failed() {
			return nil, fmt.Errorf("stream send completed with %v", sd.Status())
		}
	}
	d, err := p.vi.RecvWait(ctx, 100)
	if err != nil {
		return nil, fmt.Errorf("waiting for the server's DONE: %w", err)
	}
	msg := p.buf.Bytes[p.recvOff(0):]
	if msg[0] != kDone || d.Length() != 16 {
		return nil, fmt.Errorf("stream: answered kind %d (%d bytes)", msg[0], d.Length())
	}
	last := binary.LittleEndian.Uint64(msg[8:])
	r.Cycles = last - c0
	r.MBps = float64(streamSize*streamCount) / us(r.Cycles)
	r.LineFrac = r.MBps / (8 / p.clockNs * 1000)
	out = append(out, r)
	// tell the server to stop (it may close; no answer)
	if err := p.send(ctx, kFinish, 8); err != nil {
		return nil, err
	}
	return out, nil
}
