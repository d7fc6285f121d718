package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/vipl"
)

// ViOptions configure BenchVI. Zero fields take the defaults shown.
type ViOptions struct {
	// Sim is the base of the simulators started (Root, Binary, NoBuild,
	// Stderr); the benchmark sets nodes, mode, clock and DMA itself (the
	// reference profile: 250 MHz, 500 ns read, 150 ns write, 8 GB/s).
	Sim simulator.SimOptions

	LatencySizes  []int // message sizes of the latency figure (8 B, 1 KiB, 32 KiB)
	LatencyRounds int   // rounds per size; the figure is the last (warm) one (3)
	BWBytes       int   // message size of the bandwidth figure (32 KiB)
	BWMessages    int   // messages back to back for it (16)
	RateMessages  int   // 8-byte messages posted at once for the rate figure (64)
	// RDMA write (with immediate data, so that the target's receive says
	// when the data is placed): latency sizes (8 B, 4 KiB) and the
	// bandwidth figure's message size and count (64 KiB, 16).
	RdmaSizes      []int
	RdmaBWBytes    int
	RdmaBWMessages int
	// TrafficRounds is how many times each node repeats the bandwidth and
	// rate traffic (with interrupt-driven waits) for the cycles-per-second
	// figure (4).
	TrafficRounds int
	// NoBridge skips the bridge benchmark's busy figure (`vianic bench
	// bridge`'s 2-node DMA copies) that the cycle rate is compared with.
	NoBridge   bool
	BusyCopies int // for the bridge busy figure (8)
	BusyBytes  int // (256 KiB)
	// Quantum, when not 0, runs the same traffic once more on a simulator
	// of its own with --quantum Quantum (the nodes run that many cycles
	// apart, each on a thread of its own: docs/fabric.md, "Quantum
	// synchronisation") for a second cycles-per-second figure.
	Quantum int

	// Progress receives one line per step; nil is silent.
	Progress io.Writer
}

// ViLatency is the loopback latency of one message size.
type ViLatency struct {
	Bytes      int     `json:"bytes"`
	Cycles     uint64  `json:"cycles"`      // doorbell write to receive DONE in host memory, warm
	NS         float64 `json:"ns"`          // the same in ns
	ColdCycles uint64  `json:"cold_cycles"` // the first round (TPT and descriptor caches cold)
}

// ViFigures are the data path's figures (issue 9).
type ViFigures struct {
	ClockPS   uint32      `json:"clock_ps"`
	LineBytes float64     `json:"line_bytes_per_cycle"` // 8 (64-bit data path)
	Latency   []ViLatency `json:"latency"`

	// Bandwidth: BWMessages receives of BWBytes pre-posted, then as many
	// sends posted at once.
	BWBytes    int    `json:"bw_bytes"`
	BWMessages int    `json:"bw_messages"`
	BWCycles   uint64 `json:"bw_cycles"`       // first doorbell to the last receive DONE
	BWFirst    uint64 `json:"bw_first_cycles"` // first doorbell to the first receive DONE
	// BWBytesPerCycle is all bytes over BWCycles. (There is no "after the
	// first message" figure: the engines move several messages at once, so
	// the bytes of messages 2..N are partly moved before the first DONE.)
	BWBytesPerCycle float64 `json:"bw_bytes_per_cycle"`
	BWFraction      float64 `json:"bw_line_fraction"`

	// Message rate: RateMessages 8-byte receives pre-posted, then as many
	// sends posted at once (their doorbells all written in one cycle).
	RateMessages  int     `json:"rate_messages"`
	RateCycles    uint64  `json:"rate_cycles"` // first doorbell to the last receive DONE
	RatePerMsg    float64 `json:"rate_cycles_per_message"`
	RateFirst     uint64  `json:"rate_first_cycles"` // first doorbell to the first receive DONE
	RateSteadyMsg float64 `json:"rate_steady_cycles_per_message"`
	// RateSendCycles is the first doorbell to the last send DONE.
	RateSendCycles uint64 `json:"rate_send_cycles"`

	// RDMA write with immediate data through the loopback: doorbell write
	// to the target's receive DONE (the data placed), and RdmaBWMessages
	// writes of RdmaBWBytes posted at once.
	RdmaLatency    []ViLatency `json:"rdma_write_latency"`
	RdmaBWBytes    int         `json:"rdma_write_bw_bytes"`
	RdmaBWMessages int         `json:"rdma_write_bw_messages"`
	RdmaBWCycles   uint64      `json:"rdma_write_bw_cycles"`
	RdmaBWPerCycle float64     `json:"rdma_write_bw_bytes_per_cycle"`
	RdmaBWFraction float64     `json:"rdma_write_bw_line_fraction"`

	// RDMA read through the loopback (a RELIABLE_DELIVERY pair): doorbell
	// write to the read's DONE (the data placed in the local segment), and
	// RdmaBWMessages reads of RdmaBWBytes posted at once (a VI has one
	// read in flight: the reads of one VI follow each other).
	ReadLatency    []ViLatency `json:"rdma_read_latency"`
	ReadBWBytes    int         `json:"rdma_read_bw_bytes"`
	ReadBWMessages int         `json:"rdma_read_bw_messages"`
	ReadBWCycles   uint64      `json:"rdma_read_bw_cycles"`
	ReadBWPerCycle float64     `json:"rdma_read_bw_bytes_per_cycle"`
	ReadBWFraction float64     `json:"rdma_read_bw_line_fraction"`

	// Simulation speed: 2 nodes, both running the bandwidth and rate
	// traffic (interrupt-driven waits), no trace.
	TrafficMessages int     `json:"traffic_messages"` // messages per node
	TrafficBytes    int64   `json:"traffic_bytes"`    // bytes per node
	TrafficCycles   uint64  `json:"traffic_cycles"`
	TrafficWallSec  float64 `json:"traffic_wall_sec"`
	CyclesPerSec    float64 `json:"cycles_per_sec"`
	// SimCPUSec is the CPU time the simulator process used over the
	// traffic (every thread), SimCPUPerCycleUS that per simulated cycle:
	// the model's cost without the client's share of the machine (10 ms
	// resolution).
	SimCPUSec        float64 `json:"sim_cpu_sec"`
	SimCPUPerCycleUS float64 `json:"sim_cpu_us_per_cycle"`
	// BridgeBusyPerSec are `vianic bench bridge`'s busy figures (2 nodes,
	// DMA copies, no trace) measured before and after, in the same run;
	// Ratio is CyclesPerSec over their mean.
	BridgeBusyPerSec []float64 `json:"bridge_busy_cycles_per_sec,omitempty"`
	Ratio            float64   `json:"ratio_to_bridge_busy,omitempty"`

	// CQ are the completion queues' figures (cq.go).
	CQ *CQFigures `json:"cq,omitempty"`

	// QuantumTraffic is the same traffic with ViOptions.Quantum (nil
	// without).
	QuantumTraffic *ViSpeed `json:"quantum_traffic,omitempty"`
}

// ViSpeed is the simulator's speed over the traffic of BenchVI.
type ViSpeed struct {
	Quantum          int     `json:"quantum"`
	Cycles           uint64  `json:"cycles"`
	WallSec          float64 `json:"wall_sec"`
	CyclesPerSec     float64 `json:"cycles_per_sec"`
	SimCPUSec        float64 `json:"sim_cpu_sec"`
	SimCPUPerCycleUS float64 `json:"sim_cpu_us_per_cycle"`
}

// viNode is one node's NIC, memory and pair of loopback-joined VIs.
type viNode struct {
	nic    *vipl.Nic
	buf    *vipl.Buffer
	h      vipl.MemHandle
	ptag   vipl.Ptag
	a, b   *vipl.Vi // a sends to b
	ra, rb *vipl.Vi // a RELIABLE_DELIVERY pair with RDMA read: ra reads b's memory
	slots  int      // descriptor slots at the start of buf
	sbuf   int      // offset of the send data
	rbuf   int      // offset of the receive buffers
	rsize  int      // bytes per receive buffer
	nrbufs int
}

const viSlot = 64 // bytes per descriptor slot

func (n *viNode) seg(off, size int) vipl.DataSegment {
	return vipl.DataSegment{Addr: n.buf.VA + uint64(off), Handle: n.h, Length: uint32(size)}
}

// rdmaDesc writes into slot i an RDMA write with immediate data of size
// bytes from off to the target offset to (the same buffer).
func (n *viNode) rdmaDesc(i, off, size, to int) (*vipl.Desc, error) {
	if i >= n.slots {
		return nil, fmt.Errorf("bench vi: descriptor slot %d of %d", i, n.slots)
	}
	return n.nic.NewDesc(n.buf.VA+uint64(i*viSlot), n.h, &vipl.Descriptor{Op: vipl.OpRdmaWrite,
		Remote: vipl.AddressSegment{Addr: n.buf.VA + uint64(to), Handle: n.h}, Immediate: true, ImmediateData: uint32(i),
		Segments: []vipl.DataSegment{n.seg(off, size)}})
}

// readDesc writes into slot i an RDMA read of size bytes at offset from
// (the target range, the same buffer) into offset to.
func (n *viNode) readDesc(i, from, size, to int) (*vipl.Desc, error) {
	if i >= n.slots {
		return nil, fmt.Errorf("bench vi: descriptor slot %d of %d", i, n.slots)
	}
	return n.nic.NewDesc(n.buf.VA+uint64(i*viSlot), n.h, &vipl.Descriptor{Op: vipl.OpRdmaRead,
		Remote:   vipl.AddressSegment{Addr: n.buf.VA + uint64(from), Handle: n.h},
		Segments: []vipl.DataSegment{n.seg(to, size)}})
}

// recvNone writes a receive without segments into slot i (for an RDMA
// write with immediate data).
func (n *viNode) recvNone(i int) (*vipl.Desc, error) {
	if i >= n.slots {
		return nil, fmt.Errorf("bench vi: descriptor slot %d of %d", i, n.slots)
	}
	return n.nic.NewDesc(n.buf.VA+uint64(i*viSlot), n.h, &vipl.Descriptor{})
}

// desc writes a one-segment descriptor into slot i.
func (n *viNode) desc(i, off, size int) (*vipl.Desc, error) {
	if i >= n.slots {
		return nil, fmt.Errorf("bench vi: descriptor slot %d of %d", i, n.slots)
	}
	return n.nic.NewDesc(n.buf.VA+uint64(i*viSlot), n.h, &vipl.Descriptor{Segments: []vipl.DataSegment{n.seg(off, size)}})
}

func openViNode(ctx context.Context, addr string, node int, o ViOptions) (*viNode, error) {
	nic, err := vipl.OpenNic(ctx, addr, node, vipl.Options{Name: fmt.Sprintf("bench vi %d", node), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	n := &viNode{nic: nic}
	fail := func(err error) (*viNode, error) {
		nic.Close(context.Background())
		return nil, err
	}
	maxSize := max(o.BWBytes, o.RdmaBWBytes, 8)
	for _, s := range append(o.LatencySizes, o.RdmaSizes...) {
		maxSize = max(maxSize, s)
	}
	n.rsize = (maxSize + 4095) &^ 4095
	n.nrbufs = max(o.BWMessages, o.RdmaBWMessages, 1)
	n.slots = 2 * (max(o.BWMessages, o.RdmaBWMessages, 1) + o.RateMessages)
	n.sbuf = (n.slots*viSlot + 4095) &^ 4095
	n.rbuf = n.sbuf + n.rsize
	size := n.rbuf + n.nrbufs*n.rsize
	p, err := nic.CreatePtag(ctx)
	if err != nil {
		return fail(err)
	}
	if n.buf, err = nic.Alloc(ctx, size); err != nil {
		return fail(err)
	}
	for i := range n.rsize {
		n.buf.Bytes[n.sbuf+i] = byte(i*7 + 1)
	}
	n.ptag = p
	if n.h, err = nic.RegisterMem(ctx, n.buf.VA, size, vipl.MemAttributes{Ptag: p, EnableRdmaWrite: true, EnableRdmaRead: true}); err != nil {
		return fail(err)
	}
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: uint32(maxSize), Ptag: p, EnableRdmaWrite: true}
	if n.a, err = nic.CreateVi(ctx, attrs); err != nil {
		return fail(err)
	}
	if n.b, err = nic.CreateVi(ctx, attrs); err != nil {
		return fail(err)
	}
	if err := n.a.ConnectLoopback(ctx, n.b); err != nil {
		return fail(err)
	}
	rattrs := attrs
	rattrs.ReliabilityLevel, rattrs.EnableRdmaRead = vipl.ReliableDelivery, true
	if n.ra, err = nic.CreateVi(ctx, rattrs); err != nil {
		return fail(err)
	}
	if n.rb, err = nic.CreateVi(ctx, rattrs); err != nil {
		return fail(err)
	}
	if err := n.ra.ConnectLoopback(ctx, n.rb); err != nil {
		return fail(err)
	}
	// One message to map both doorbells and write both HANDLE registers.
	s, err := n.desc(0, n.sbuf, 8)
	if err != nil {
		return fail(err)
	}
	r, err := n.desc(1, n.rbuf, 8)
	if err != nil {
		return fail(err)
	}
	if _, err := n.exchangeWait(ctx, []*vipl.Desc{s}, []*vipl.Desc{r}); err != nil {
		return fail(err)
	}
	return n, nil
}

// checkDone fails unless d completed without error with want bytes (a
// receive).
func checkDone(d *vipl.Desc, recv bool, want int) error {
	st := d.Status()
	if !st.Done() || st.Failed() {
		return fmt.Errorf("bench vi: descriptor completed with %v", st)
	}
	if recv && d.Length() != uint32(want) {
		return fmt.Errorf("bench vi: received %d bytes, sent %d", d.Length(), want)
	}
	return nil
}

// exchangeWait posts the receives, then the sends, and waits for all of
// them (interrupt-driven); it returns the messages' bytes.
func (n *viNode) exchangeWait(ctx context.Context, sends, recvs []*vipl.Desc) (int64, error) {
	for _, r := range recvs {
		if err := n.b.PostRecv(ctx, r); err != nil {
			return 0, err
		}
	}
	for _, s := range sends {
		if err := n.a.PostSend(ctx, s); err != nil {
			return 0, err
		}
	}
	var bytes int64
	for _, r := range recvs {
		d, err := n.b.RecvWait(ctx, 100)
		if err != nil {
			return 0, err
		}
		if d != r {
			return 0, errors.New("bench vi: receives completed out of order")
		}
		if err := checkDone(d, false, 0); err != nil {
			return 0, err
		}
		bytes += int64(d.Length())
	}
	for range sends {
		d, err := n.a.SendWait(ctx, 100)
		if err != nil {
			return 0, err
		}
		if err := checkDone(d, false, 0); err != nil {
			return 0, err
		}
	}
	return bytes, nil
}

// pass lets cycles pass through a vipl call: a SendDone on the empty
// send queue idles one poll interval.
func (n *viNode) pass(ctx context.Context, cycles int64) error {
	n.nic.SetPollInterval(cycles)
	defer n.nic.SetPollInterval(1)
	if _, err := n.a.SendDone(ctx); !errors.Is(err, vipl.ErrNotDone) {
		return fmt.Errorf("bench vi: SendDone on an empty queue: %v", err)
	}
	return nil
}

// timed posts the receives, lets the receive queue settle, then posts
// the sends at one cycle c0 and polls with a poll interval of one cycle:
// it returns c0 and the cycle at which each receive, and the last send,
// was first seen DONE in host memory.
func (n *viNode) timed(ctx context.Context, sends, recvs []*vipl.Desc, sizes []int) (uint64, []uint64, uint64, error) {
	return n.timedOn(ctx, n.a, n.b, sends, recvs, sizes)
}

// timedOn is timed with the sends on a and the receives on b.
func (n *viNode) timedOn(ctx context.Context, a, b *vipl.Vi, sends, recvs []*vipl.Desc, sizes []int) (uint64, []uint64, uint64, error) {
	n.nic.SetPollInterval(1)
	for _, r := range recvs {
		if err := b.PostRecv(ctx, r); err != nil {
			return 0, nil, 0, err
		}
	}
	if err := n.pass(ctx, 2000); err != nil {
		return 0, nil, 0, err
	}
	c0 := n.nic.Cycle()
	for _, s := range sends {
		if err := a.PostSend(ctx, s); err != nil {
			return 0, nil, 0, err
		}
	}
	if c := n.nic.Cycle(); c != c0 {
		return 0, nil, 0, fmt.Errorf("bench vi: posting took simulated time (cycle %d to %d)", c0, c)
	}
	var at []uint64
	var sendAt uint64
	sent := 0
	for len(at) < len(recvs) || sent < len(sends) {
		for len(at) < len(recvs) {
			d, err := b.RecvDone(ctx)
			if errors.Is(err, vipl.ErrNotDone) {
				break
			}
			if err != nil {
				return 0, nil, 0, err
			}
			if err := checkDone(d, true, sizes[len(at)]); err != nil {
				return 0, nil, 0, err
			}
			at = append(at, n.nic.Cycle())
		}
		for sent < len(sends) {
			d, err := a.SendDone(ctx)
			if errors.Is(err, vipl.ErrNotDone) {
				break
			}
			if err != nil {
				return 0, nil, 0, err
			}
			if err := checkDone(d, false, 0); err != nil {
				return 0, nil, 0, err
			}
			sent++
			sendAt = n.nic.Cycle()
		}
		if n.nic.Cycle()-c0 > 50_000_000 {
			return 0, nil, 0, errors.New("bench vi: no completion within 50,000,000 cycles")
		}
	}
	return c0, at, sendAt, nil
}

// BenchVI measures the data path through vipl on the reference profile
// in lockstep: loopback latency, bandwidth, message rate (node 0, polling
// with a poll interval of one cycle, so the cycle counts are exact), and
// the simulator's cycles per second with both nodes running the traffic,
// against the bridge benchmark's busy figure measured in the same run.
func BenchVI(ctx context.Context, o ViOptions) (ViFigures, error) {
	if o.LatencySizes == nil {
		o.LatencySizes = []int{8, 1 << 10, 32 << 10}
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.LatencyRounds, 3)
	def(&o.BWBytes, 32<<10)
	def(&o.BWMessages, 16)
	def(&o.RateMessages, 64)
	if o.RdmaSizes == nil {
		o.RdmaSizes = []int{8, 4 << 10}
	}
	def(&o.RdmaBWBytes, 64<<10)
	def(&o.RdmaBWMessages, 16)
	def(&o.TrafficRounds, 4)
	def(&o.BusyCopies, 8)
	def(&o.BusyBytes, 256<<10)
	progress := func(format string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "bench vi: "+format+"\n", a...)
		}
	}
	f := ViFigures{LineBytes: 8}
	if o.Sim.Root == "" {
		root, err := simulator.FindRoot()
		if err != nil {
			return f, err
		}
		o.Sim.Root = root
	}
	bo := BenchOptions{Sim: o.Sim, BusyCopies: o.BusyCopies, BusyBytes: o.BusyBytes, IdleCycles: 1000}
	bo.Sim.TxLog = "" // the data path's simulator only
	tmp, err := os.MkdirTemp("", "vianic-bench-vi-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(tmp)
	bridge := func() error {
		if o.NoBridge {
			return nil
		}
		r, err := benchCycles(ctx, bo, "", tmp, func(string, ...any) {})
		if err != nil {
			return err
		}
		f.BridgeBusyPerSec = append(f.BridgeBusyPerSec, r.BusyPerSec)
		progress("bridge busy (2 nodes, DMA copies, no trace): %.3g cycles/s", r.BusyPerSec)
		// the same binary from now on
		bo.Sim.NoBuild = true
		o.Sim.NoBuild = true
		return nil
	}
	if err := bridge(); err != nil {
		return f, err
	}

	s, addr, err := viSim(ctx, o.Sim, 0)
	if err != nil {
		return f, err
	}
	defer s.Stop()
	progress("2 nodes started; opening both NICs (firmware boot, memory, VIs)")
	var nodes viPair
	nicOf := nodes.nic
	// opened at once: an open node waits on the simulator until the other
	// is open too
	openErr := viOpen(ctx, addr, o, &nodes)
	defer func() { // on an error: close both at once, or stop the simulator first
		s.Stop()
		for _, n := range nodes {
			if n != nil {
				n.nic.Close(context.Background())
			}
		}
	}()
	if openErr != nil {
		return f, openErr
	}
	f.ClockPS = 4000 // 250 MHz, set above
	if err := together(ctx, len(nodes), nicOf, func(i int) error {
		if i != 0 {
			return nil
		}
		return viModeled(ctx, nodes[0], o, &f, progress)
	}); err != nil {
		return f, err
	}

	progress("traffic on both nodes: %d rounds of %d x %d B and %d x 8 B, interrupt-driven waits",
		o.TrafficRounds, o.BWMessages, o.BWBytes, o.RateMessages)
	sp, bytes, err := viMeasure(ctx, s, &nodes, o)
	if err != nil {
		return f, err
	}
	f.TrafficMessages = o.TrafficRounds * (o.BWMessages + o.RateMessages)
	f.TrafficBytes = bytes
	f.TrafficCycles, f.TrafficWallSec, f.CyclesPerSec = sp.Cycles, sp.WallSec, sp.CyclesPerSec
	f.SimCPUSec, f.SimCPUPerCycleUS = sp.SimCPUSec, sp.SimCPUPerCycleUS
	progress("traffic: %d cycles in %.2f s: %.3g cycles/s; simulator CPU %.2f s = %.2f us per cycle (2 nodes)",
		f.TrafficCycles, f.TrafficWallSec, f.CyclesPerSec, f.SimCPUSec, f.SimCPUPerCycleUS)
	viClose(ctx, &nodes)
	s.Stop()

	if o.Quantum > 0 {
		q, err := viQuantumTraffic(ctx, o, progress)
		if err != nil {
			return f, err
		}
		f.QuantumTraffic = &q
	}

	if err := bridge(); err != nil {
		return f, err
	}
	if len(f.BridgeBusyPerSec) > 0 {
		var sum float64
		for _, b := range f.BridgeBusyPerSec {
			sum += b
		}
		f.Ratio = f.CyclesPerSec / (sum / float64(len(f.BridgeBusyPerSec)))
	}
	return f, nil
}

// viQuantumTraffic runs BenchVI's traffic on both nodes of a simulator
// with --quantum o.Quantum.
func viQuantumTraffic(ctx context.Context, o ViOptions, progress func(string, ...any)) (ViSpeed, error) {
	progress("traffic again with --quantum %d: opening both NICs", o.Quantum)
	base := o.Sim
	base.TxLog = "" // the first simulator's only
	s, addr, err := viSim(ctx, base, o.Quantum)
	if err != nil {
		return ViSpeed{}, err
	}
	defer s.Stop()
	var nodes viPair
	if err := viOpen(ctx, addr, o, &nodes); err != nil {
		s.Stop()
		viClose(ctx, &nodes)
		return ViSpeed{}, err
	}
	sp, _, err := viMeasure(ctx, s, &nodes, o)
	if err != nil {
		s.Stop()
		viClose(ctx, &nodes)
		return sp, err
	}
	sp.Quantum = o.Quantum
	progress("traffic with --quantum %d: %d cycles in %.2f s: %.3g cycles/s; simulator CPU %.2f s = %.2f us per cycle",
		o.Quantum, sp.Cycles, sp.WallSec, sp.CyclesPerSec, sp.SimCPUSec, sp.SimCPUPerCycleUS)
	viClose(ctx, &nodes)
	return sp, nil
}

// viPair is BenchVI's two nodes (nil until opened).
type viPair [2]*viNode

// nic is node i's Nic, nil until it is open (for together).
func (p *viPair) nic(i int) *vipl.Nic {
	if p[i] == nil {
		return nil
	}
	return p[i].nic
}

// viSim starts BenchVI's simulator: 2 nodes in lockstep on the reference
// profile (250 MHz, 500 ns read, 150 ns write, 8 GB/s), with --quantum
// quantum; it returns the address to open the NICs at.
func viSim(ctx context.Context, base simulator.SimOptions, quantum int) (*simulator.Sim, string, error) {
	so := base
	so.Nodes, so.Mode, so.ClockMHz, so.Trace, so.Quantum = 2, cosim.ModeLockstep, 250, "", quantum
	so.DMA = &simulator.DMAModel{ReadLatencyNS: 500, WriteLatencyNS: 150, BandwidthMBps: 8000}
	s, err := simulator.StartSimulator(ctx, so)
	if err != nil {
		return nil, "", err
	}
	addr := s.Addr()
	if s.Network() == "tcp" {
		addr = "tcp:" + addr
	}
	return s, addr, nil
}

// viOpen opens both nodes at once (an open node waits on the simulator
// until the other is open too).
func viOpen(ctx context.Context, addr string, o ViOptions, nodes *viPair) error {
	return together(ctx, len(nodes), nodes.nic, func(i int) error {
		var err error
		nodes[i], err = openViNode(ctx, addr, i, o)
		return err
	})
}

// viClose closes the open nodes at once: closing takes admin commands,
// hence simulated time.
func viClose(ctx context.Context, nodes *viPair) {
	var wg sync.WaitGroup
	for _, n := range nodes {
		if n != nil {
			wg.Go(func() { n.nic.Close(ctx) })
		}
	}
	wg.Wait()
}

// viMeasure runs the traffic on both nodes (viTraffic) and returns the
// simulated cycles, the wall and the simulator's CPU time it took, and
// the bytes node 0 received.
func viMeasure(ctx context.Context, s *simulator.Sim, nodes *viPair, o ViOptions) (ViSpeed, int64, error) {
	var sp ViSpeed
	var bytes [2]int64
	c0 := max(nodes[0].nic.Cycle(), nodes[1].nic.Cycle())
	cpu0, cpuErr := s.CPUTime()
	start := time.Now()
	if err := together(ctx, len(nodes), nodes.nic, func(i int) error {
		b, err := viTraffic(ctx, nodes[i], o)
		bytes[i] = b
		return err
	}); err != nil {
		return sp, 0, err
	}
	wall := time.Since(start)
	cpu1, err := s.CPUTime()
	if cpuErr == nil && err == nil {
		sp.SimCPUSec = (cpu1 - cpu0).Seconds()
	}
	sp.Cycles = max(nodes[0].nic.Cycle(), nodes[1].nic.Cycle()) - c0
	sp.WallSec = wall.Seconds()
	sp.CyclesPerSec = float64(sp.Cycles) / sp.WallSec
	if sp.Cycles > 0 {
		sp.SimCPUPerCycleUS = sp.SimCPUSec * 1e6 / float64(sp.Cycles)
	}
	return sp, bytes[0], nil
}

// viModeled measures latency, bandwidth and message rate on node n.
func viModeled(ctx context.Context, n *viNode, o ViOptions, f *ViFigures, progress func(string, ...any)) error {
	for _, size := range o.LatencySizes {
		s, err := n.desc(0, n.sbuf, size)
		if err != nil {
			return err
		}
		r, err := n.desc(1, n.rbuf, size)
		if err != nil {
			return err
		}
		l := ViLatency{Bytes: size}
		for round := range o.LatencyRounds {
			clear(n.buf.Bytes[n.rbuf : n.rbuf+size])
			c0, at, _, err := n.timed(ctx, []*vipl.Desc{s}, []*vipl.Desc{r}, []int{size})
			if err != nil {
				return err
			}
			for i := range size {
				if n.buf.Bytes[n.rbuf+i] != n.buf.Bytes[n.sbuf+i] {
					return fmt.Errorf("bench vi: %d-byte message differs at byte %d", size, i)
				}
			}
			l.Cycles = at[0] - c0
			if round == 0 {
				l.ColdCycles = l.Cycles
			}
		}
		l.NS = float64(l.Cycles) * 4
		f.Latency = append(f.Latency, l)
		progress("latency %s: %d cycles (%.0f ns); first round %d cycles", viSizeName(size), l.Cycles, l.NS, l.ColdCycles)
	}

	// bandwidth
	var sends, recvs []*vipl.Desc
	var sizes []int
	for i := range o.BWMessages {
		s, err := n.desc(2*i, n.sbuf, o.BWBytes)
		if err != nil {
			return err
		}
		r, err := n.desc(2*i+1, n.rbuf+i*n.rsize, o.BWBytes)
		if err != nil {
			return err
		}
		sends, recvs, sizes = append(sends, s), append(recvs, r), append(sizes, o.BWBytes)
	}
	progress("bandwidth: %d x %s back to back (polling every cycle)", o.BWMessages, viSizeName(o.BWBytes))
	c0, at, _, err := n.timed(ctx, sends, recvs, sizes)
	if err != nil {
		return err
	}
	last := at[len(at)-1]
	f.BWBytes, f.BWMessages = o.BWBytes, o.BWMessages
	f.BWCycles, f.BWFirst = last-c0, at[0]-c0
	f.BWBytesPerCycle = float64(o.BWBytes*o.BWMessages) / float64(f.BWCycles)
	f.BWFraction = f.BWBytesPerCycle / f.LineBytes
	progress("bandwidth: %d cycles, %.3f B/cycle (%.1f %% of line rate)",
		f.BWCycles, f.BWBytesPerCycle, 100*f.BWFraction)

	// message rate
	sends, recvs, sizes = nil, nil, nil
	for i := range o.RateMessages {
		s, err := n.desc(2*i, n.sbuf, 8)
		if err != nil {
			return err
		}
		r, err := n.desc(2*i+1, n.rbuf+i*64, 8)
		if err != nil {
			return err
		}
		sends, recvs, sizes = append(sends, s), append(recvs, r), append(sizes, 8)
	}
	progress("message rate: %d x 8 B posted at once", o.RateMessages)
	c0, at, sendAt, err := n.timed(ctx, sends, recvs, sizes)
	if err != nil {
		return err
	}
	last = at[len(at)-1]
	f.RateMessages = o.RateMessages
	f.RateCycles, f.RateFirst, f.RateSendCycles = last-c0, at[0]-c0, sendAt-c0
	f.RatePerMsg = float64(f.RateCycles) / float64(o.RateMessages)
	if len(at) > 1 {
		f.RateSteadyMsg = float64(last-at[0]) / float64(len(at)-1)
	}
	progress("message rate: %d cycles, %.1f cycles/message; after the first: %.1f cycles/message", f.RateCycles, f.RatePerMsg, f.RateSteadyMsg)
	if err := viRdma(ctx, n, o, f, progress); err != nil {
		return err
	}
	if err := viRdmaRead(ctx, n, o, f, progress); err != nil {
		return err
	}
	return viCQ(ctx, n, o, f, progress)
}

// viRdma measures RDMA write with immediate data: latency per size and
// bandwidth (node n, loopback, polling every cycle).
func viRdma(ctx context.Context, n *viNode, o ViOptions, f *ViFigures, progress func(string, ...any)) error {
	for _, size := range o.RdmaSizes {
		s, err := n.rdmaDesc(0, n.sbuf, size, n.rbuf)
		if err != nil {
			return err
		}
		l := ViLatency{Bytes: size}
		for round := range o.LatencyRounds {
			r, err := n.recvNone(1)
			if err != nil {
				return err
			}
			clear(n.buf.Bytes[n.rbuf : n.rbuf+size])
			c0, at, _, err := n.timed(ctx, []*vipl.Desc{s}, []*vipl.Desc{r}, []int{size})
			if err != nil {
				return err
			}
			if !bytes.Equal(n.buf.Bytes[n.rbuf:n.rbuf+size], n.buf.Bytes[n.sbuf:n.sbuf+size]) {
				return fmt.Errorf("bench vi: %d-byte RDMA write placed wrong bytes", size)
			}
			l.Cycles = at[0] - c0
			if round == 0 {
				l.ColdCycles = l.Cycles
			}
		}
		l.NS = float64(l.Cycles) * 4
		f.RdmaLatency = append(f.RdmaLatency, l)
		progress("RDMA write latency %s: %d cycles (%.0f ns); first round %d cycles", viSizeName(size), l.Cycles, l.NS, l.ColdCycles)
	}
	var sends, recvs []*vipl.Desc
	var sizes []int
	for i := range o.RdmaBWMessages {
		s, err := n.rdmaDesc(2*i, n.sbuf, o.RdmaBWBytes, n.rbuf+i*n.rsize)
		if err != nil {
			return err
		}
		r, err := n.recvNone(2*i + 1)
		if err != nil {
			return err
		}
		sends, recvs, sizes = append(sends, s), append(recvs, r), append(sizes, o.RdmaBWBytes)
	}
	progress("RDMA write bandwidth: %d x %s posted at once", o.RdmaBWMessages, viSizeName(o.RdmaBWBytes))
	c0, at, _, err := n.timed(ctx, sends, recvs, sizes)
	if err != nil {
		return err
	}
	f.RdmaBWBytes, f.RdmaBWMessages = o.RdmaBWBytes, o.RdmaBWMessages
	f.RdmaBWCycles = at[len(at)-1] - c0
	f.RdmaBWPerCycle = float64(o.RdmaBWBytes*o.RdmaBWMessages) / float64(f.RdmaBWCycles)
	f.RdmaBWFraction = f.RdmaBWPerCycle / f.LineBytes
	progress("RDMA write bandwidth: %d cycles, %.3f B/cycle (%.1f %% of line rate)", f.RdmaBWCycles, f.RdmaBWPerCycle, 100*f.RdmaBWFraction)
	return nil
}

// viRdmaRead measures RDMA read: latency per size (doorbell to the read's
// DONE) and bandwidth (node n, loopback, polling every cycle).
func viRdmaRead(ctx context.Context, n *viNode, o ViOptions, f *ViFigures, progress func(string, ...any)) error {
	for _, size := range o.RdmaSizes {
		d, err := n.readDesc(0, n.sbuf, size, n.rbuf)
		if err != nil {
			return err
		}
		l := ViLatency{Bytes: size}
		for round := range o.LatencyRounds {
			clear(n.buf.Bytes[n.rbuf : n.rbuf+size])
			c0, _, at, err := n.timedOn(ctx, n.ra, n.rb, []*vipl.Desc{d}, nil, nil)
			if err != nil {
				return err
			}
			if d.Status().Op() != vipl.CompletedRdmaRead {
				return fmt.Errorf("bench vi: an RDMA read completed as %v", d.Status())
			}
			if !bytes.Equal(n.buf.Bytes[n.rbuf:n.rbuf+size], n.buf.Bytes[n.sbuf:n.sbuf+size]) {
				return fmt.Errorf("bench vi: %d-byte RDMA read placed wrong bytes", size)
			}
			l.Cycles = at - c0
			if round == 0 {
				l.ColdCycles = l.Cycles
			}
		}
		l.NS = float64(l.Cycles) * 4
		f.ReadLatency = append(f.ReadLatency, l)
		progress("RDMA read latency %s: %d cycles (%.0f ns); first round %d cycles", viSizeName(size), l.Cycles, l.NS, l.ColdCycles)
	}
	var reads []*vipl.Desc
	for i := range o.RdmaBWMessages {
		d, err := n.readDesc(i, n.sbuf, o.RdmaBWBytes, n.rbuf+i*n.rsize)
		if err != nil {
			return err
		}
		reads = append(reads, d)
	}
	progress("RDMA read bandwidth: %d x %s posted at once", o.RdmaBWMessages, viSizeName(o.RdmaBWBytes))
	c0, _, at, err := n.timedOn(ctx, n.ra, n.rb, reads, nil, nil)
	if err != nil {
		return err
	}
	for i := range o.RdmaBWMessages {
		got := n.buf.Bytes[n.rbuf+i*n.rsize : n.rbuf+i*n.rsize+o.RdmaBWBytes]
		if !bytes.Equal(got, n.buf.Bytes[n.sbuf:n.sbuf+o.RdmaBWBytes]) {
			return fmt.Errorf("bench vi: RDMA read %d of %d placed wrong bytes", i, o.RdmaBWMessages)
		}
	}
	f.ReadBWBytes, f.ReadBWMessages = o.RdmaBWBytes, o.RdmaBWMessages
	f.ReadBWCycles = at - c0
	f.ReadBWPerCycle = float64(o.RdmaBWBytes*o.RdmaBWMessages) / float64(f.ReadBWCycles)
	f.ReadBWFraction = f.ReadBWPerCycle / f.LineBytes
	progress("RDMA read bandwidth: %d cycles, %.3f B/cycle (%.1f %% of line rate)", f.ReadBWCycles, f.ReadBWPerCycle, 100*f.ReadBWFraction)
	return nil
}

// viTraffic runs the bandwidth and rate traffic TrafficRounds times on n
// with interrupt-driven waits and returns the bytes received.
func viTraffic(ctx context.Context, n *viNode, o ViOptions) (int64, error) {
	var bw, bwr, rate, rater []*vipl.Desc
	for i := range o.BWMessages {
		s, err := n.desc(2*i, n.sbuf, o.BWBytes)
		if err != nil {
			return 0, err
		}
		r, err := n.desc(2*i+1, n.rbuf+i*n.rsize, o.BWBytes)
		if err != nil {
			return 0, err
		}
		bw, bwr = append(bw, s), append(bwr, r)
	}
	base := 2 * o.BWMessages
	var bytes int64
	for range o.TrafficRounds {
		b, err := n.exchangeWait(ctx, bw, bwr)
		if err != nil {
			return 0, err
		}
		bytes += b
		rate, rater = rate[:0], rater[:0]
		for i := range o.RateMessages {
			s, err := n.desc(base+2*i, n.sbuf, 8)
			if err != nil {
				return 0, err
			}
			r, err := n.desc(base+2*i+1, n.rbuf+i*64, 8)
			if err != nil {
				return 0, err
			}
			rate, rater = append(rate, s), append(rater, r)
		}
		if b, err = n.exchangeWait(ctx, rate, rater); err != nil {
			return 0, err
		}
		bytes += b
	}
	return bytes, nil
}

func viSizeName(n int) string {
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
