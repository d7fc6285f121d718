package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/vipl"
)

// RemoteOptions configure BenchRemote. Zero fields take the defaults shown.
type RemoteOptions struct {
	// Sim is the base of the simulators started (Root, Binary, NoBuild,
	// Stderr); the benchmark sets nodes, mode, clock, DMA and threads
	// itself (the reference profile: 250 MHz, 500 ns read, 150 ns write,
	// 8 GB/s, 100 ns links).
	Sim simulator.SimOptions

	LatencySizes  []int // one-way latency sizes (8 B, 1 KiB, 32 KiB, 64 KiB)
	LatencyRounds int   // rounds per size; the figure is the last (warm) one (3)
	BWBytes       int   // message size of the bandwidth figure (64 KiB)
	BWMessages    int   // messages back to back for it (8)

	// SpeedNodes are the node counts of the cycles-per-second figure
	// (2 and 8); each runs with one thread and with one per CPU.
	SpeedNodes []int
	// SpeedRounds is how many times every node sends BWMessages of
	// BWBytes to its partner (and receives as many) for it (2).
	SpeedRounds int
	// SpeedThreads are the simulator thread counts of the speed figure
	// (1 and one per CPU, at most one per node).
	SpeedThreads []int
	// SpeedQuanta are the simulator's --quantum values of the speed
	// figure (0: the nodes meet every cycle, and the link latency, 25).
	// The runs of one quantum must take the same cycles whatever the
	// thread count: the benchmark fails if they do not.
	SpeedQuanta []int

	// Progress receives one line per step; nil is silent.
	Progress io.Writer
}

// RemoteLatency is the one-way latency of one message size between nodes.
type RemoteLatency struct {
	Bytes      int     `json:"bytes"`
	Cycles     uint64  `json:"cycles"` // doorbell write on node 0 to receive DONE in node 1's memory, warm
	NS         float64 `json:"ns"`
	ColdCycles uint64  `json:"cold_cycles"` // the first round
}

// RemoteSpeed is the simulator's speed with nodes nodes under traffic.
type RemoteSpeed struct {
	Nodes        int     `json:"nodes"`
	Threads      int     `json:"threads"`
	Quantum      int     `json:"quantum"` // --quantum (0: every cycle)
	Cycles       uint64  `json:"cycles"`
	WallSec      float64 `json:"wall_sec"`
	CyclesPerSec float64 `json:"cycles_per_sec"`
	Bytes        int64   `json:"bytes"` // received, all nodes
}

// RemoteFigures are the figures between nodes (issue 10).
type RemoteFigures struct {
	ClockPS    uint32          `json:"clock_ps"`
	LineBytes  float64         `json:"line_bytes_per_cycle"` // 8
	LinkCycles int             `json:"link_latency_cycles"`  // 25 (100 ns)
	Latency    []RemoteLatency `json:"latency"`
	BWBytes    int             `json:"bw_bytes"`
	BWMessages int             `json:"bw_messages"`
	BWCycles   uint64          `json:"bw_cycles"` // first doorbell to the last receive DONE
	BWPerCycle float64         `json:"bw_bytes_per_cycle"`
	BWFraction float64         `json:"bw_line_fraction"`
	BWMBps     float64         `json:"bw_mb_per_sec"`
	Speed      []RemoteSpeed   `json:"speed"`
	CPUs       int             `json:"cpus"`
}

// rNode is one node of the benchmark: its NIC, memory and one VI
// connected to its partner's.
type rNode struct {
	nic  *vipl.Nic
	buf  *vipl.Buffer
	h    vipl.MemHandle
	vi   *vipl.Vi
	sbuf int // send data offset
	rbuf int // receive buffers offset
	rsz  int // bytes per receive buffer
}

func (n *rNode) desc(i, off, size int) (*vipl.Desc, error) {
	return n.nic.NewDesc(n.buf.VA+uint64(i*viSlot), n.h, &vipl.Descriptor{Segments: []vipl.DataSegment{
		{Addr: n.buf.VA + uint64(off), Handle: n.h, Length: uint32(size)}}})
}

// rTogether runs fn(i) on every node at once (together).
func rTogether(ctx context.Context, nodes []*rNode, fn func(i int) error) error {
	return together(ctx, len(nodes), func(i int) *vipl.Nic { return nodes[i].nic }, fn)
}

// openRemote starts a simulator of nodes nodes (threads threads, 0: the
// simulator's default) and opens every node's NIC with a VI connected to
// its partner (node i^1) and buffers for msgs messages of size bytes.
func openRemote(ctx context.Context, o RemoteOptions, nodes, threads, quantum, size, msgs int) (*simulator.Sim, []*rNode, error) {
	so := o.Sim
	so.Nodes, so.Mode, so.ClockMHz, so.Trace, so.Quantum = nodes, cosim.ModeLockstep, 250, "", quantum
	so.WaitDrivers = nodes
	so.DMA = &simulator.DMAModel{ReadLatencyNS: 500, WriteLatencyNS: 150, BandwidthMBps: 8000}
	if threads > 0 {
		so.Args = append(append([]string{}, so.Args...), "--threads", strconv.Itoa(threads))
	}
	s, err := simulator.StartSimulator(ctx, so)
	if err != nil {
		return nil, nil, err
	}
	addr := s.Addr()
	if s.Network() == "tcp" {
		addr = "tcp:" + addr
	}
	rn := make([]*rNode, nodes)
	// opened at once (the simulator holds time until every driver is
	// attached); an open node parks until the last one is open
	err = together(ctx, nodes, func(i int) *vipl.Nic {
		if rn[i] == nil {
			return nil
		}
		return rn[i].nic
	}, func(i int) error {
		var err error
		rn[i], err = openRNode(ctx, addr, i, size, msgs)
		return err
	})
	if err != nil {
		closeRemote(s, rn)
		return nil, nil, err
	}
	// every VI to its partner's
	err = rTogether(ctx, rn, func(i int) error {
		p := i ^ 1
		return rn[i].vi.ConnectRemote(ctx, vipl.NodeAddress(p), rn[p].vi.ID())
	})
	if err != nil {
		closeRemote(s, rn)
		return nil, nil, err
	}
	return s, rn, nil
}

func openRNode(ctx context.Context, addr string, node, size, msgs int) (*rNode, error) {
	nic, err := vipl.OpenNic(ctx, addr, node, vipl.Options{Name: fmt.Sprintf("bench remote %d", node), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	n := &rNode{nic: nic, rsz: (size + 4095) &^ 4095}
	fail := func(err error) (*rNode, error) {
		nic.Close(context.Background())
		return nil, err
	}
	slots := 2*msgs + 2
	n.sbuf = (slots*viSlot + 4095) &^ 4095
	n.rbuf = n.sbuf + n.rsz
	total := n.rbuf + msgs*n.rsz
	p, err := nic.CreatePtag(ctx)
	if err != nil {
		return fail(err)
	}
	if n.buf, err = nic.Alloc(ctx, total); err != nil {
		return fail(err)
	}
	for i := range n.rsz {
		n.buf.Bytes[n.sbuf+i] = byte(i*7 + node + 1)
	}
	if n.h, err = nic.RegisterMem(ctx, n.buf.VA, total, vipl.MemAttributes{Ptag: p}); err != nil {
		return fail(err)
	}
	n.vi, err = nic.CreateVi(ctx, vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: uint32(max(size, 8)), Ptag: p})
	if err != nil {
		return fail(err)
	}
	return n, nil
}

// closeRemote closes every NIC at once (closing takes simulated time), then
// stops the simulator.
func closeRemote(s *simulator.Sim, rn []*rNode) {
	var wg sync.WaitGroup
	for _, n := range rn {
		if n != nil {
			wg.Go(func() { n.nic.Close(context.Background()) })
		}
	}
	wg.Wait()
	s.Stop()
}

// timedRemote sends sizes from node snd to node rcv: rcv posts the
// receives, both let 1000 cycles pass, then snd posts every send at one
// cycle c0 and both poll every cycle; it returns c0 and the cycle rcv
// first saw each receive DONE.
func timedRemote(ctx context.Context, rn []*rNode, snd, rcv int, sizes []int) (uint64, []uint64, error) {
	s, r := rn[snd], rn[rcv]
	var sends, recvs []*vipl.Desc
	for i, size := range sizes {
		sd, err := s.desc(2*i, s.sbuf, size)
		if err != nil {
			return 0, nil, err
		}
		rd, err := r.desc(2*i+1, r.rbuf+i*r.rsz, size)
		if err != nil {
			return 0, nil, err
		}
		sends, recvs = append(sends, sd), append(recvs, rd)
	}
	if err := rTogether(ctx, rn, func(i int) error {
		if i != rcv {
			return nil
		}
		for _, d := range recvs {
			if err := r.vi.PostRecv(ctx, d); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return 0, nil, err
	}
	var c0 uint64
	var at []uint64
	err := rTogether(ctx, rn, func(i int) error {
		n := rn[i]
		switch i {
		case snd:
			n.nic.SetPollInterval(1000)
			if _, err := n.vi.SendDone(ctx); !errors.Is(err, vipl.ErrNotDone) {
				return fmt.Errorf("bench remote: SendDone on an empty queue: %v", err)
			}
			n.nic.SetPollInterval(1)
			c0 = n.nic.Cycle()
			for _, d := range sends {
				if err := n.vi.PostSend(ctx, d); err != nil {
					return err
				}
			}
			for done := 0; done < len(sends); {
				d, err := n.vi.SendDone(ctx)
				if errors.Is(err, vipl.ErrNotDone) {
					continue
				}
				if err != nil {
					return err
				}
				if err := checkDone(d, false, 0); err != nil {
					return err
				}
				done++
			}
		case rcv:
			n.nic.SetPollInterval(1)
			for len(at) < len(recvs) {
				d, err := n.vi.RecvDone(ctx)
				if errors.Is(err, vipl.ErrNotDone) {
					continue
				}
				if err != nil {
					return err
				}
				if err := checkDone(d, true, sizes[len(at)]); err != nil {
					return err
				}
				at = append(at, n.nic.Cycle())
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	for i, size := range sizes {
		got := r.buf.Bytes[r.rbuf+i*r.rsz:]
		want := s.buf.Bytes[s.sbuf:]
		for k := range size {
			if got[k] != want[k] {
				return 0, nil, fmt.Errorf("bench remote: message %d (%d bytes) differs at byte %d", i, size, k)
			}
		}
	}
	return c0, at, nil
}

// BenchRemote measures the data path between two nodes across the fabric
// on the reference profile in lockstep (one-way latency, bandwidth, exact
// cycle counts: both nodes poll every cycle), and the simulator's cycles
// per second with SpeedNodes nodes exchanging traffic in pairs, with one
// thread and with one per CPU.
func BenchRemote(ctx context.Context, o RemoteOptions) (RemoteFigures, error) {
	if o.LatencySizes == nil {
		o.LatencySizes = []int{8, 1 << 10, 32 << 10, 64 << 10}
	}
	if o.SpeedNodes == nil {
		o.SpeedNodes = []int{2, 8}
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.LatencyRounds, 3)
	def(&o.BWBytes, 64<<10)
	def(&o.BWMessages, 8)
	def(&o.SpeedRounds, 2)
	progress := func(format string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "bench remote: "+format+"\n", a...)
		}
	}
	f := RemoteFigures{ClockPS: 4000, LineBytes: 8, LinkCycles: 25, CPUs: runtime.NumCPU()}
	if o.Sim.Root == "" {
		root, err := simulator.FindRoot()
		if err != nil {
			return f, err
		}
		o.Sim.Root = root
	}
	maxSize := o.BWBytes
	for _, s := range o.LatencySizes {
		maxSize = max(maxSize, s)
	}
	progress("2 nodes: opening both NICs, a VI on each connected to the other's")
	s, rn, err := openRemote(ctx, o, 2, 0, 0, maxSize, max(o.BWMessages, 1))
	if err != nil {
		return f, err
	}
	o.Sim.NoBuild = true
	for _, size := range o.LatencySizes {
		l := RemoteLatency{Bytes: size}
		for round := range o.LatencyRounds {
			c0, at, err := timedRemote(ctx, rn, 0, 1, []int{size})
			if err != nil {
				closeRemote(s, rn)
				return f, err
			}
			l.Cycles = at[0] - c0
			if round == 0 {
				l.ColdCycles = l.Cycles
			}
		}
		l.NS = float64(l.Cycles) * float64(f.ClockPS) / 1000
		f.Latency = append(f.Latency, l)
		progress("one-way latency %s: %d cycles (%.0f ns); first round %d cycles", viSizeName(size), l.Cycles, l.NS, l.ColdCycles)
	}
	sizes := make([]int, o.BWMessages)
	for i := range sizes {
		sizes[i] = o.BWBytes
	}
	progress("bandwidth: %d x %s back to back from node 0 to node 1 (polling every cycle)", o.BWMessages, viSizeName(o.BWBytes))
	c0, at, err := timedRemote(ctx, rn, 0, 1, sizes)
	closeRemote(s, rn)
	if err != nil {
		return f, err
	}
	f.BWBytes, f.BWMessages = o.BWBytes, o.BWMessages
	f.BWCycles = at[len(at)-1] - c0
	f.BWPerCycle = float64(o.BWBytes*o.BWMessages) / float64(f.BWCycles)
	f.BWFraction = f.BWPerCycle / f.LineBytes
	f.BWMBps = f.BWPerCycle * 1e6 / float64(f.ClockPS)
	progress("bandwidth: %d cycles, %.3f B/cycle, %.0f MB/s (%.1f %% of line rate)", f.BWCycles, f.BWPerCycle, f.BWMBps, 100*f.BWFraction)

	quanta := o.SpeedQuanta
	if quanta == nil {
		quanta = []int{0, f.LinkCycles}
	}
	for _, nodes := range o.SpeedNodes {
		threads := o.SpeedThreads
		if threads == nil {
			threads = []int{1}
			if t := min(nodes, f.CPUs); t > 1 {
				threads = append(threads, t)
			}
		}
		for _, q := range quanta {
			var first *RemoteSpeed
			for _, th := range threads {
				sp, err := remoteSpeed(ctx, o, nodes, th, q, progress)
				if err != nil {
					return f, err
				}
				f.Speed = append(f.Speed, sp)
				if first == nil {
					first = &sp
				} else if sp.Cycles != first.Cycles {
					return f, fmt.Errorf("%d nodes, quantum %d: %d cycles with %d thread(s) but %d with %d: the simulator's result depends on its thread count",
						nodes, q, sp.Cycles, sp.Threads, first.Cycles, first.Threads)
				}
			}
		}
	}
	return f, nil
}

// remoteSpeed runs SpeedRounds of BWMessages x BWBytes each way between
// partners (interrupt-driven waits) and measures cycles per wall second.
func remoteSpeed(ctx context.Context, o RemoteOptions, nodes, threads, quantum int, progress func(string, ...any)) (RemoteSpeed, error) {
	sp := RemoteSpeed{Nodes: nodes, Threads: threads, Quantum: quantum}
	progress("speed: %d nodes, %d thread(s), quantum %d: opening", nodes, threads, quantum)
	s, rn, err := openRemote(ctx, o, nodes, threads, quantum, o.BWBytes, o.BWMessages)
	if err != nil {
		return sp, err
	}
	defer closeRemote(s, rn)
	var c0 uint64
	for _, n := range rn {
		c0 = max(c0, n.nic.Cycle())
	}
	bytes := make([]int64, nodes)
	sends := make([][]*vipl.Desc, nodes)
	recvs := make([][]*vipl.Desc, nodes)
	for i, n := range rn {
		for k := range o.BWMessages {
			sd, err := n.desc(2*k, n.sbuf, o.BWBytes)
			if err != nil {
				return sp, err
			}
			rd, err := n.desc(2*k+1, n.rbuf+k*n.rsz, o.BWBytes)
			if err != nil {
				return sp, err
			}
			sends[i], recvs[i] = append(sends[i], sd), append(recvs[i], rd)
		}
	}
	start := time.Now()
	for range o.SpeedRounds {
		// the receives first, everywhere (unreliable: a message that
		// finds none is dropped)
		err = rTogether(ctx, rn, func(i int) error {
			for _, d := range recvs[i] {
				if err := rn[i].vi.PostRecv(ctx, d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return sp, err
		}
		err = rTogether(ctx, rn, func(i int) error {
			n := rn[i]
			for _, d := range sends[i] {
				if err := n.vi.PostSend(ctx, d); err != nil {
					return err
				}
			}
			for range sends[i] {
				d, err := n.vi.SendWait(ctx, 100)
				if err != nil {
					return err
				}
				if err := checkDone(d, false, 0); err != nil {
					return err
				}
			}
			for range recvs[i] {
				d, err := n.vi.RecvWait(ctx, 100)
				if err != nil {
					return err
				}
				if err := checkDone(d, true, o.BWBytes); err != nil {
					return err
				}
				bytes[i] += int64(d.Length())
			}
			return nil
		})
		if err != nil {
			return sp, err
		}
	}
	wall := time.Since(start)
	var c1 uint64
	for i, n := range rn {
		c1 = max(c1, n.nic.Cycle())
		sp.Bytes += bytes[i]
	}
	sp.Cycles = c1 - c0
	sp.WallSec = wall.Seconds()
	sp.CyclesPerSec = float64(sp.Cycles) / sp.WallSec
	progress("speed: %d nodes, %d thread(s), quantum %d: %d cycles in %.2f s: %.3g cycles/s (%d MB moved)",
		nodes, threads, quantum, sp.Cycles, sp.WallSec, sp.CyclesPerSec, sp.Bytes>>20)
	return sp, nil
}
