package vipl_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"testing"

	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/vipl"
)

// TestMain leaves out the examples that start a simulator when
// VIANIC_NO_HDL=1 (as simtest.RequireHDL skips the tests), unless -run
// says what to run.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("VIANIC_NO_HDL") == "1" && flag.Lookup("test.run").Value.String() == "" {
		flag.Set("test.run", "^(Test|ExampleDescriptor)")
	}
	os.Exit(m.Run())
}

// startSimulator starts a one-node simulator for an example (a program
// would connect to one started with `vianic sim`).
func startSimulator(ctx context.Context) *simulator.Sim {
	s, err := simulator.StartSimulator(ctx, simulator.SimOptions{Nodes: 1})
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// Open node 0 of a simulator, allocate a buffer in its host memory and
// register it under a new protection tag.
func ExampleOpenNic() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()

	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Name: "example", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer nic.Close(ctx)
	attrs, err := nic.Query(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("NIC %q: %d protection tags, %d segments per descriptor, %d bytes per transfer\n",
		attrs.Name, attrs.MaxPtags, attrs.MaxSegmentsPerDesc, attrs.MaxTransferSize)

	ptag, err := nic.CreatePtag(ctx)
	if err != nil {
		log.Fatal(err)
	}
	buf, err := nic.Alloc(ctx, 64<<10)
	if err != nil {
		log.Fatal(err)
	}
	copy(buf.Bytes, "hello, VIA")
	h, err := nic.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: ptag, EnableRdmaWrite: true})
	if err != nil {
		log.Fatal(err)
	}
	a, err := nic.QueryMem(ctx, buf.VA, h)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("registered under the ptag:", a.Ptag == ptag, "RDMA write:", a.EnableRdmaWrite, "RDMA read:", a.EnableRdmaRead)

	// registered memory cannot be freed, nor its ptag destroyed
	err = nic.Free(ctx, buf)
	fmt.Println(vipl.Code(err), errors.Is(err, vipl.ErrErrorResource))
	err = nic.DestroyPtag(ctx, ptag)
	fmt.Println(vipl.Code(err))

	if err := nic.DeregisterMem(ctx, buf.VA, h); err != nil {
		log.Fatal(err)
	}
	err = nic.DeregisterMem(ctx, buf.VA, h)
	fmt.Println("again:", vipl.Code(err), errors.Is(err, vipl.ErrInvalidParameter))
	// Output:
	// NIC "vianic": 64 protection tags, 16 segments per descriptor, 65536 bytes per transfer
	// registered under the ptag: true RDMA write: true RDMA read: false
	// VIP_ERROR_RESOURCE true
	// VIP_ERROR_RESOURCE
	// again: VIP_INVALID_PARAMETER true
}

// Build a receive descriptor with two data segments in registered memory.
func ExampleNic_NewDesc() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()
	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer nic.Close(ctx)
	ptag, err := nic.CreatePtag(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// One buffer: descriptors in its first page, data after.
	buf, err := nic.Alloc(ctx, 3*4096)
	if err != nil {
		log.Fatal(err)
	}
	h, err := nic.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: ptag})
	if err != nil {
		log.Fatal(err)
	}
	recv := &vipl.Descriptor{
		Op: vipl.OpSendRecv,
		Segments: []vipl.DataSegment{
			{Addr: buf.VA + 4096, Handle: h, Length: 4096},
			{Addr: buf.VA + 8192, Handle: h, Length: 1024},
		},
	}
	d, err := nic.NewDesc(buf.VA, h, recv)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes, %d segments, length %d, status %s\n", recv.Size(), recv.SegCount(), d.Length(), d.Status())

	_, err = nic.NewDesc(buf.VA+32, h, recv)
	fmt.Println("misaligned:", vipl.Code(err))
	_, err = nic.NewDesc(buf.VA+64, h, &vipl.Descriptor{Segments: make([]vipl.DataSegment, 17)})
	fmt.Println("17 segments:", vipl.Code(err))
	// Output:
	// 64 bytes, 2 segments, length 5120, status 0
	// misaligned: VIP_INVALID_PARAMETER
	// 17 segments: VIP_DESCRIPTOR_ERROR
}

// Encode a descriptor into bytes and read it back; a completed status
// names its bits.
func ExampleDescriptor() {
	d := vipl.Descriptor{
		Op:            vipl.OpRdmaWrite,
		Immediate:     true,
		ImmediateData: 7,
		Remote:        vipl.AddressSegment{Addr: 0x7f0000010000, Handle: 0x10002},
		Segments:      []vipl.DataSegment{{Addr: 0x7f0000001000, Handle: 0x10001, Length: 512}},
	}
	b := make([]byte, d.Size())
	if err := d.Encode(b); err != nil {
		log.Fatal(err)
	}
	back, _, err := vipl.Decode(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Op, back.SegCount(), back.Length(), back.Remote.Handle == d.Remote.Handle)

	st := vipl.StatusDone | vipl.StatusLocalLengthError | vipl.StatusImmediate | vipl.CompletedReceive.Status()
	fmt.Println(st, st.Failed())

	err = (&vipl.Descriptor{Op: vipl.OpSendRecv, Remote: vipl.AddressSegment{Addr: 1}}).Encode(b)
	fmt.Println(errors.Is(err, vipl.ErrDescriptorError))
	// Output:
	// RDMA_WRITE 2 512 true
	// DONE|LOCAL_LENGTH_ERROR|op=RECEIVE|IMMEDIATE true
	// true
}

// Send a message from one VI to another of the same NIC through the
// loopback join: post a receive and a send, wait for the send, poll for
// the receive. (Errors are printed rather than fatal, so that a failure
// shows as a difference in the output.)
func Example_sendRecv() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()
	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nic.Close(ctx)

	// Memory: descriptors in the first page, the message in the second,
	// the receive buffer in the third; all registered under one ptag.
	ptag, err := nic.CreatePtag(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	buf, err := nic.Alloc(ctx, 3*4096)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := nic.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: ptag})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Two VIs, joined.
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: ptag}
	sender, err := nic.CreateVi(ctx, attrs)
	if err != nil {
		fmt.Println(err)
		return
	}
	receiver, err := nic.CreateVi(ctx, attrs)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sender.ConnectLoopback(ctx, receiver); err != nil {
		fmt.Println(err)
		return
	}

	// A receive of up to 64 bytes, posted first.
	recv, err := nic.NewDesc(buf.VA, h, &vipl.Descriptor{
		Segments: []vipl.DataSegment{{Addr: buf.VA + 8192, Handle: h, Length: 64}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := receiver.PostRecv(ctx, recv); err != nil {
		fmt.Println(err)
		return
	}

	// A send of 13 bytes with immediate data.
	n := copy(buf.Bytes[4096:], "hello, VIA!\r\n")
	send, err := nic.NewDesc(buf.VA+64, h, &vipl.Descriptor{
		Immediate: true, ImmediateData: 42,
		Segments: []vipl.DataSegment{{Addr: buf.VA + 4096, Handle: h, Length: uint32(n)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sender.PostSend(ctx, send); err != nil {
		fmt.Println(err)
		return
	}

	// Block for the send (at most 10 ms of simulated time)...
	d, err := sender.SendWait(ctx, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("send:", d.Status())

	// ... and poll for the receive.
	for {
		d, err = receiver.RecvDone(ctx)
		if !errors.Is(err, vipl.ErrNotDone) {
			break
		}
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("receive:", d.Status())
	fmt.Printf("%d bytes, immediate %d: %q\n", d.Length(), d.ImmediateData(), buf.Bytes[8192:8192+d.Length()])

	// Nothing more to reap.
	_, err = receiver.RecvWait(ctx, 1)
	fmt.Println(vipl.Code(err))
	// Output:
	// send: DONE|op=SEND
	// receive: DONE|op=RECEIVE|IMMEDIATE
	// 13 bytes, immediate 42: "hello, VIA!\r\n"
	// VIP_TIMEOUT
}

// An RDMA write with immediate data into another VI's memory (here on the
// same NIC, through the loopback), and the target's asynchronous error
// handler, which hears of a write the NIC refused.
func Example_rdmaWrite() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()
	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nic.Close(ctx)
	refused := make(chan vipl.ErrorDescriptor, 1)
	nic.ErrorCallback(func(e vipl.ErrorDescriptor) { refused <- e })

	// Page 0: descriptors; page 1: the source; pages 2 and 3: the target,
	// registered a second time with RDMA write enabled.
	ptag, _ := nic.CreatePtag(ctx)
	buf, err := nic.Alloc(ctx, 4*4096)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := nic.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: ptag})
	target, err := nic.RegisterMem(ctx, buf.VA+2*4096, 2*4096, vipl.MemAttributes{Ptag: ptag, EnableRdmaWrite: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: ptag, EnableRdmaWrite: true}
	writer, _ := nic.CreateVi(ctx, attrs)
	owner, _ := nic.CreateVi(ctx, attrs)
	if err := writer.ConnectLoopback(ctx, owner); err != nil {
		fmt.Println(err)
		return
	}

	// The target posts a receive without segments for the immediate data.
	recv, _ := nic.NewDesc(buf.VA, h, &vipl.Descriptor{})
	owner.PostRecv(ctx, recv)

	// 19 bytes into the target, across its page boundary.
	n := copy(buf.Bytes[4096:], "written by RDMA!\r\n\x00")
	write, _ := nic.NewDesc(buf.VA+64, h, &vipl.Descriptor{
		Op:        vipl.OpRdmaWrite,
		Remote:    vipl.AddressSegment{Addr: buf.VA + 3*4096 - 8, Handle: target},
		Immediate: true, ImmediateData: 7,
		Segments: []vipl.DataSegment{{Addr: buf.VA + 4096, Handle: h, Length: uint32(n)}},
	})
	writer.PostSend(ctx, write)
	d, err := writer.SendWait(ctx, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("write:", d.Status())
	r, err := owner.RecvWait(ctx, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("target:", r.Status(), r.Length(), r.ImmediateData())
	fmt.Printf("%q\n", buf.Bytes[3*4096-8:3*4096-8+n-1])

	// A plain write through the handle without RDMA write is refused at
	// the target: nothing written, and the owner's handler hears of it
	// (here while it waits for the next message).
	bad, _ := nic.NewDesc(buf.VA+128, h, &vipl.Descriptor{
		Op:       vipl.OpRdmaWrite,
		Remote:   vipl.AddressSegment{Addr: buf.VA + 2*4096, Handle: h},
		Segments: []vipl.DataSegment{{Addr: buf.VA + 4096, Handle: h, Length: 8}},
	})
	writer.PostSend(ctx, bad)
	writer.SendWait(ctx, 10)
	owner.RecvWait(ctx, 1) // nothing comes: VIP_TIMEOUT after 1 ms
	e := <-refused
	fmt.Println("error callback:", e.ErrorCode, e.ResourceCode, e.Vi == owner)
	// Output:
	// write: DONE|op=RDMA_WRITE
	// target: DONE|op=REMOTE_RDMA_WRITE|IMMEDIATE 19 7
	// "written by RDMA!\r\n"
	// error callback: RDMAW_PROT VI true
}

// Resolve host names with the name service: a hosts file names the nodes
// (without one, the nodes are node0..nodeN-1).
func ExampleNic_NSGetHostByName() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()
	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Name: "example", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer nic.Close(ctx)

	dir, err := os.MkdirTemp("", "hosts")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	hosts := dir + "/hosts"
	if err := os.WriteFile(hosts, []byte("# name  node(s)\nalpha   0\nbeta    1\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := nic.NSInit(vipl.NSInfo{HostsFile: hosts}); err != nil {
		log.Fatal(err)
	}
	defer nic.NSShutdown()
	addr, err := nic.NSGetHostByName("beta", 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("beta is", addr)
	attrs, err := nic.Query(ctx)
	if err != nil {
		log.Fatal(err)
	}
	me, err := nic.NSGetHostByAddr(vipl.NetAddress{Host: attrs.LocalNicAddress})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("this NIC is", me)
	_, err = nic.NSGetHostByName("gamma", 0)
	fmt.Println(vipl.Code(err))
	// Output:
	// beta is node 1
	// this NIC is alpha
	// VIP_ERROR_NAMESERVICE
}

// Completion queues: two VIs' receive queues report to one CQ; CQ.Wait
// names the VI whose receive completed, and RecvDone reaps it.
func ExampleNic_CreateCQ() {
	ctx := context.Background()
	sim := startSimulator(ctx)
	defer sim.Stop()
	nic, err := vipl.OpenNic(ctx, sim.Addr(), 0, vipl.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nic.Close(ctx)
	ptag, _ := nic.CreatePtag(ctx)
	buf, err := nic.Alloc(ctx, 2*4096)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := nic.RegisterMem(ctx, buf.VA, len(buf.Bytes), vipl.MemAttributes{Ptag: ptag})

	cq, err := nic.CreateCQ(ctx, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	attrs := vipl.ViAttributes{ReliabilityLevel: vipl.Unreliable, MaxTransferSize: 4096, Ptag: ptag}
	var senders, receivers []*vipl.Vi
	for range 2 {
		s, _ := nic.CreateVi(ctx, attrs)
		r, err := nic.CreateViWithCQ(ctx, attrs, nil, cq) // receives report to cq
		if err != nil {
			fmt.Println(err)
			return
		}
		s.ConnectLoopback(ctx, r)
		senders, receivers = append(senders, s), append(receivers, r)
	}
	// one message to the second receiver: descriptors in page 0, data in page 1
	copy(buf.Bytes[4096:], "hello")
	recv, _ := nic.NewDesc(buf.VA, h, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: buf.VA + 4096 + 64, Handle: h, Length: 64}}})
	receivers[1].PostRecv(ctx, recv)
	send, _ := nic.NewDesc(buf.VA+64, h, &vipl.Descriptor{Segments: []vipl.DataSegment{{Addr: buf.VA + 4096, Handle: h, Length: 5}}})
	senders[1].PostSend(ctx, send)

	v, q, err := cq.Wait(ctx, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := v.RecvDone(ctx)
	fmt.Println("entry: second receiver:", v == receivers[1], "queue:", q)
	fmt.Printf("%s %q\n", d.Status(), buf.Bytes[4096+64:4096+64+d.Length()])
	// Output:
	// entry: second receiver: true queue: receive
	// DONE|op=RECEIVE "hello"
}
