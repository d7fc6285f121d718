package vipl

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/vianic/vianic/internal/hw"
)

// Descriptor layout (rtl/layouts/desc.layout, docs/desc.md): a 32-byte
// control segment, then SegCount 16-byte segments: for RDMA the address
// segment first, then the data segments. Descriptors are little endian
// and 64-byte aligned.
const (
	DescAlign    = hw.DescAlign    // alignment of a descriptor in bytes
	ControlBytes = hw.DescCtlBytes // size of the control segment
	SegmentBytes = hw.DescSegBytes // size of an address or data segment
)

// Op is the operation a descriptor asks for (its control segment's
// CONTROL.OP).
type Op uint8

// The operations.
const (
	OpSendRecv  Op = hw.DescOpSendRecv  // a send on a send queue, a receive on a receive queue
	OpRdmaWrite Op = hw.DescOpRdmaWrite // an RDMA write (send queue)
	OpRdmaRead  Op = hw.DescOpRdmaRead  // an RDMA read (send queue)
)

// String returns the operation's name in the layout ("RDMA_WRITE").
func (o Op) String() string { return hw.DescOp(o).String() }

// rdma reports whether o carries an address segment.
func (o Op) rdma() bool { return o == OpRdmaWrite || o == OpRdmaRead }

// CompletedOp is the operation a completed descriptor performed (its
// status's OP field).
type CompletedOp uint8

// The completed operations.
const (
	CompletedSend            CompletedOp = hw.DescCompletedSend
	CompletedReceive         CompletedOp = hw.DescCompletedReceive
	CompletedRdmaWrite       CompletedOp = hw.DescCompletedRdmaWrite
	CompletedRemoteRdmaWrite CompletedOp = hw.DescCompletedRemoteRdmaWrite // a receive consumed by an RDMA write with immediate data
	CompletedRdmaRead        CompletedOp = hw.DescCompletedRdmaRead
)

// String returns the operation's name in the layout ("RECEIVE").
func (o CompletedOp) String() string { return hw.DescCompleted(o).String() }

// Status returns the status's OP field saying o completed, other bits
// zero (for building statuses, as a fake NIC or a test does).
func (o CompletedOp) Status() Status { return Status(hw.DescCtlStatusOp.Val(uint32(o))) }

// Status is a descriptor's status word, which the NIC writes last when the
// descriptor completes; zero while it is pending.
type Status uint32

// The status bits.
const (
	StatusDone                  Status = hw.DescCtlStatusDoneMask
	StatusLocalFormatError      Status = hw.DescCtlStatusLocalFormatErrorMask
	StatusLocalProtectionError  Status = hw.DescCtlStatusLocalProtectionErrorMask
	StatusLocalLengthError      Status = hw.DescCtlStatusLocalLengthErrorMask
	StatusPartialPacketError    Status = hw.DescCtlStatusPartialPacketErrorMask
	StatusFlushed               Status = hw.DescCtlStatusFlushedMask
	StatusTransportError        Status = hw.DescCtlStatusTransportErrorMask
	StatusRdmaProtectionError   Status = hw.DescCtlStatusRdmaProtectionErrorMask
	StatusRemoteDescriptorError Status = hw.DescCtlStatusRemoteDescriptorErrorMask
	StatusImmediate             Status = hw.DescCtlStatusImmediateMask // immediate data received
	StatusErrors                Status = hw.DescStatusErrorMask        // every error bit
)

// Done reports whether the descriptor has completed.
func (s Status) Done() bool { return s&StatusDone != 0 }

// Failed reports whether any error bit is set.
func (s Status) Failed() bool { return s&StatusErrors != 0 }

// Op returns the operation that completed.
func (s Status) Op() CompletedOp { return CompletedOp(hw.DescCtlStatusOp.Get(uint32(s))) }

// Immediate reports whether immediate data was received.
func (s Status) Immediate() bool { return s&StatusImmediate != 0 }

// String names the bits that are set, from bit 0 up:
// "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE|IMMEDIATE"; "0" while pending.
func (s Status) String() string { return hw.DescCtlStatusBits(s).String() }

// DataSegment is one local buffer of a descriptor: the gather list of a
// send or RDMA write, the scatter list of a receive or RDMA read. The
// memory must be registered under the VI's protection tag.
type DataSegment struct {
	Addr   uint64
	Handle MemHandle
	Length uint32
}

// AddressSegment is the remote buffer of an RDMA.
type AddressSegment struct {
	Addr   uint64
	Handle MemHandle
}

// Descriptor is what a descriptor says, before it is written into
// registered memory (Nic.NewDesc or Encode). The zero value is a send or
// receive with no data.
type Descriptor struct {
	Op            Op
	Immediate     bool   // ImmediateData is valid (sent with the data)
	ImmediateData uint32 // sent when Immediate
	QueueFence    bool   // wait until the queue's earlier RDMA reads are done
	// Remote is the remote buffer of an RDMA write or read; it must be
	// zero for OpSendRecv.
	Remote   AddressSegment
	Segments []DataSegment
}

// SegCount returns the descriptor's segment count: its data segments, plus
// the address segment for an RDMA.
func (d *Descriptor) SegCount() int {
	if d.Op.rdma() {
		return len(d.Segments) + 1
	}
	return len(d.Segments)
}

// Size returns the descriptor's size in memory, in bytes.
func (d *Descriptor) Size() int { return ControlBytes + SegmentBytes*d.SegCount() }

// Length returns the total bytes of the data segments.
func (d *Descriptor) Length() uint64 {
	var n uint64
	for _, s := range d.Segments {
		n += uint64(s.Length)
	}
	return n
}

// check validates what needs no NIC: the operation, the address segment,
// the segment count and the total length.
func (d *Descriptor) check(op string) error {
	switch {
	case d.Op != OpSendRecv && !d.Op.rdma():
		return newErr(op, DescriptorError, nil, "operation %d is reserved", uint8(d.Op))
	case !d.Op.rdma() && d.Remote != AddressSegment{}:
		return newErr(op, DescriptorError, nil, "a %s descriptor has no address segment", d.Op)
	case d.SegCount() > 0xFFFF:
		return newErr(op, DescriptorError, nil, "%d segments do not fit SegCount", d.SegCount())
	case d.Length() > 0xFFFFFFFF:
		return newErr(op, DescriptorError, nil, "%d bytes do not fit Length", d.Length())
	}
	return nil
}

// Encode writes the descriptor into b[:d.Size()]: the control segment with
// Next, NextHandle and Status zero and Length the data segments' total,
// then the segments. It checks what needs no NIC (VIP_DESCRIPTOR_ERROR: a
// reserved operation, an address segment on a send or receive, too many
// segments or bytes; VIP_INVALID_PARAMETER: b too short).
func (d *Descriptor) Encode(b []byte) error {
	const op = "Encode"
	if err := d.check(op); err != nil {
		return err
	}
	if len(b) < d.Size() {
		return newErr(op, InvalidParameter, nil, "%d bytes for a %d-byte descriptor", len(b), d.Size())
	}
	d.encode(b[:d.Size()])
	return nil
}

// encode writes a checked descriptor, the status word last.
func (d *Descriptor) encode(b []byte) {
	ctl := hw.DescCtl{SegCount: uint16(d.SegCount()), ImmediateData: d.ImmediateData, Length: uint32(d.Length())}
	c := hw.DescCtlControlOp.Val(uint32(d.Op))
	if d.Immediate {
		c |= hw.DescCtlControlImmediateMask
	}
	if d.QueueFence {
		c |= hw.DescCtlControlQueueFenceMask
	}
	ctl.Control = uint16(c)
	seg := b[ControlBytes:]
	if d.Op.rdma() {
		a := hw.DescAddrSeg{RemoteAddr: d.Remote.Addr, RemoteHandle: uint32(d.Remote.Handle)}
		a.Marshal(seg)
		seg = seg[SegmentBytes:]
	}
	for _, s := range d.Segments {
		ds := hw.DescDataSeg{LocalAddr: s.Addr, LocalHandle: uint32(s.Handle), Length: s.Length}
		ds.Marshal(seg)
		seg = seg[SegmentBytes:]
	}
	var cb [ControlBytes]byte
	ctl.Marshal(cb[:])
	copy(b[:28], cb[:28])
	storeStatus(b, 0)
}

// Decode reads a descriptor from b (the inverse of Encode) and returns it
// with its status word.
func Decode(b []byte) (Descriptor, Status, error) {
	const op = "Decode"
	if len(b) < ControlBytes {
		return Descriptor{}, 0, newErr(op, InvalidParameter, nil, "%d bytes", len(b))
	}
	var ctl hw.DescCtl
	ctl.Unmarshal(b)
	d := Descriptor{
		Op:            Op(hw.DescCtlControlOp.Get(uint32(ctl.Control))),
		Immediate:     ctl.Control&hw.DescCtlControlImmediateMask != 0,
		ImmediateData: ctl.ImmediateData,
		QueueFence:    ctl.Control&hw.DescCtlControlQueueFenceMask != 0,
	}
	if ctl.Control&hw.DescControlReservedMask != 0 || ctl.Reserved != 0 {
		return d, Status(ctl.Status), newErr(op, DescriptorError, nil, "reserved bits set (control %s, reserved 0x%x)", hw.DescCtlControlBits(ctl.Control), ctl.Reserved)
	}
	n := int(ctl.SegCount)
	if len(b) < ControlBytes+SegmentBytes*n {
		return d, Status(ctl.Status), newErr(op, InvalidParameter, nil, "%d bytes for %d segments", len(b), n)
	}
	seg := b[ControlBytes:]
	if d.Op.rdma() {
		if n == 0 {
			return d, Status(ctl.Status), newErr(op, DescriptorError, nil, "an %s without an address segment", d.Op)
		}
		var a hw.DescAddrSeg
		a.Unmarshal(seg)
		d.Remote = AddressSegment{Addr: a.RemoteAddr, Handle: MemHandle(a.RemoteHandle)}
		seg, n = seg[SegmentBytes:], n-1
	}
	for range n {
		var ds hw.DescDataSeg
		ds.Unmarshal(seg)
		d.Segments = append(d.Segments, DataSegment{Addr: ds.LocalAddr, Handle: MemHandle(ds.LocalHandle), Length: ds.Length})
		seg = seg[SegmentBytes:]
	}
	return d, Status(ctl.Status), nil
}

// Desc is a descriptor in registered host memory (a VIP_DESCRIPTOR the NIC
// can fetch): where it lies, under which memory handle, and its bytes,
// which the NIC writes back (Length, ImmediateData, Status) when it
// completes.
type Desc struct {
	va     uint64
	handle MemHandle
	b      []byte
	posted atomic.Bool // on a queue, not yet reaped
}

// NewDesc writes d at va, inside the region h registered through this Nic,
// and returns it. Besides what Encode checks, va must be 64-byte aligned
// and the whole descriptor must lie inside the region
// (VIP_INVALID_PARAMETER), and the data segments must not exceed the NIC's
// MaxSegmentsPerDesc nor their total its MaxTransferSize
// (VIP_DESCRIPTOR_ERROR). The segments' own memory is the NIC's to check
// when it processes the descriptor.
func (n *Nic) NewDesc(va uint64, h MemHandle, d *Descriptor) (*Desc, error) {
	const op = "NewDesc"
	if err := d.check(op); err != nil {
		return nil, err
	}
	if va%DescAlign != 0 {
		return nil, newErr(op, InvalidParameter, nil, "address 0x%x is not %d-byte aligned", va, DescAlign)
	}
	if len(d.Segments) > int(n.attrs.MaxSegmentsPerDesc) {
		return nil, newErr(op, DescriptorError, nil, "%d data segments, the NIC takes at most %d", len(d.Segments), n.attrs.MaxSegmentsPerDesc)
	}
	if d.Length() > uint64(n.attrs.MaxTransferSize) {
		return nil, newErr(op, DescriptorError, nil, "%d bytes, the NIC transfers at most %d", d.Length(), n.attrs.MaxTransferSize)
	}
	size := d.Size()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.check(op); err != nil {
		return nil, err
	}
	r, ok := n.regions[h]
	if !ok {
		return nil, newErr(op, InvalidParameter, nil, "memory handle 0x%x is not a region registered through this NIC", uint32(h))
	}
	if va < r.va || va-r.va > uint64(r.length) || uint64(size) > uint64(r.length)-(va-r.va) {
		return nil, newErr(op, InvalidParameter, nil, "%d bytes at 0x%x lie outside region 0x%x [0x%x, +%d)", size, va, uint32(h), r.va, r.length)
	}
	b, ok := n.bytesAt(va, size)
	if !ok {
		return nil, newErr(op, InvalidParameter, nil, "%d bytes at 0x%x are not in one buffer of Alloc", size, va)
	}
	d.encode(b)
	return &Desc{va: va, handle: h, b: b}, nil
}

// VA returns the descriptor's address.
func (d *Desc) VA() uint64 { return d.va }

// Handle returns the memory handle of the region that holds the
// descriptor (what posting it names).
func (d *Desc) Handle() MemHandle { return d.handle }

// Bytes returns the descriptor's bytes in host memory.
func (d *Desc) Bytes() []byte { return d.b }

// Status reads the status word (atomically: the NIC writes it last).
func (d *Desc) Status() Status { return loadStatus(d.b) }

// Length reads the Length field: the data segments' total as built; the
// bytes received once a receive has completed.
func (d *Desc) Length() uint32 { return binary.LittleEndian.Uint32(d.b[24:]) }

// ImmediateData reads the ImmediateData field.
func (d *Desc) ImmediateData() uint32 { return binary.LittleEndian.Uint32(d.b[20:]) }

// Descriptor decodes what the descriptor says now.
func (d *Desc) Descriptor() (Descriptor, error) {
	v, _, err := Decode(d.b)
	return v, err
}

func (d *Desc) String() string {
	return fmt.Sprintf("desc 0x%x (handle 0x%08x) status %s", d.va, uint32(d.handle), d.Status())
}

// The status word is at offset 28 of a 64-byte aligned descriptor, so it
// is 4-byte aligned; host memory is little endian (the simulator's hosts
// are x86-64 and arm64).
func statusWord(b []byte) *uint32 { return (*uint32)(unsafe.Pointer(&b[28])) }

func loadStatus(b []byte) Status {
	if uintptr(unsafe.Pointer(&b[28]))%4 != 0 {
		return Status(binary.LittleEndian.Uint32(b[28:]))
	}
	return Status(atomic.LoadUint32(statusWord(b)))
}

func storeStatus(b []byte, s Status) {
	if uintptr(unsafe.Pointer(&b[28]))%4 != 0 {
		binary.LittleEndian.PutUint32(b[28:], uint32(s))
		return
	}
	atomic.StoreUint32(statusWord(b), uint32(s))
}
