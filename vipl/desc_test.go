package vipl

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

func requireCode(t *testing.T, want Return, err error, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equal(t, want, Code(err), "%v", err)
	require.ErrorIs(t, err, want.Err())
}

// The bytes Encode writes, checked against the descriptor layout of the
// VIA specification (offsets written out here, not taken from hw).
func TestEncodeSend(t *testing.T) {
	d := Descriptor{
		Op: OpSendRecv, Immediate: true, ImmediateData: 0xfeedf00d,
		Segments: []DataSegment{{Addr: 0x1000, Handle: 0x10001, Length: 100}, {Addr: 0x2040, Handle: 0x20002, Length: 28}, {Addr: 0x3000, Handle: 0x10001, Length: 0}},
	}
	require.Equal(t, 3, d.SegCount())
	require.Equal(t, 32+3*16, d.Size())
	b := make([]byte, 128)
	for i := range b {
		b[i] = 0xAA
	}
	require.NoError(t, d.Encode(b))
	le := binary.LittleEndian
	assert.Equal(t, uint64(0), le.Uint64(b[0:]), "Next")
	assert.Equal(t, uint32(0), le.Uint32(b[8:]), "NextHandle")
	assert.Equal(t, uint16(3), le.Uint16(b[12:]), "SegCount")
	assert.Equal(t, uint16(0x4), le.Uint16(b[14:]), "Control: op 0, IMMEDIATE")
	assert.Equal(t, uint32(0), le.Uint32(b[16:]), "Reserved")
	assert.Equal(t, uint32(0xfeedf00d), le.Uint32(b[20:]), "ImmediateData")
	assert.Equal(t, uint32(128), le.Uint32(b[24:]), "Length")
	assert.Equal(t, uint32(0), le.Uint32(b[28:]), "Status")
	for i, s := range d.Segments {
		o := 32 + 16*i
		assert.Equal(t, s.Addr, le.Uint64(b[o:]))
		assert.Equal(t, uint32(s.Handle), le.Uint32(b[o+8:]))
		assert.Equal(t, s.Length, le.Uint32(b[o+12:]))
	}
	assert.Equal(t, byte(0xAA), b[80], "nothing written past the descriptor")

	got, st, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, d, got)
	assert.Equal(t, Status(0), st)
}

func TestEncodeRdma(t *testing.T) {
	le := binary.LittleEndian
	for _, op := range []Op{OpRdmaWrite, OpRdmaRead} {
		d := Descriptor{Op: op, QueueFence: true, Remote: AddressSegment{Addr: 0xdead_beef_0000, Handle: 0x30003},
			Segments: []DataSegment{{Addr: 0x5000, Handle: 7, Length: 4096}}}
		b := make([]byte, d.Size())
		require.NoError(t, d.Encode(b))
		assert.Equal(t, uint16(2), le.Uint16(b[12:]), "SegCount counts the address segment")
		assert.Equal(t, uint16(op)|0x8, le.Uint16(b[14:]), "Control: op, QUEUE_FENCE")
		assert.Equal(t, uint32(4096), le.Uint32(b[24:]))
		assert.Equal(t, uint64(0xdead_beef_0000), le.Uint64(b[32:]), "address segment first")
		assert.Equal(t, uint32(0x30003), le.Uint32(b[40:]))
		assert.Equal(t, uint32(0), le.Uint32(b[44:]), "address segment reserved")
		assert.Equal(t, uint64(0x5000), le.Uint64(b[48:]))
		got, _, err := Decode(b)
		require.NoError(t, err)
		assert.Equal(t, d, got)
		assert.Equal(t, "op="+op.String()+"|QUEUE_FENCE", hw.DescCtlControlBits(le.Uint16(b[14:])).String())
	}
	// a zero-length RDMA write (with immediate data: a notification) is fine
	z := Descriptor{Op: OpRdmaWrite, Immediate: true, Remote: AddressSegment{Addr: 1, Handle: 1}}
	assert.Equal(t, 1, z.SegCount())
	assert.NoError(t, z.Encode(make([]byte, z.Size())))
}

func TestEncodeErrors(t *testing.T) {
	big := make([]DataSegment, 0x10000)
	for _, c := range []struct {
		name string
		d    Descriptor
		code Return
	}{
		{"reserved operation", Descriptor{Op: 3}, DescriptorError},
		{"address segment on a send", Descriptor{Remote: AddressSegment{Addr: 1}}, DescriptorError},
		{"too many segments", Descriptor{Segments: big}, DescriptorError},
		{"too many segments with the address segment", Descriptor{Op: OpRdmaRead, Segments: big[:0xFFFF]}, DescriptorError},
		{"length overflow", Descriptor{Segments: []DataSegment{{Length: 0xFFFFFFFF}, {Length: 1}}}, DescriptorError},
	} {
		requireCode(t, c.code, c.d.Encode(make([]byte, 1<<21)), c.name)
	}
	d := Descriptor{Segments: []DataSegment{{Length: 1}}}
	requireCode(t, InvalidParameter, d.Encode(make([]byte, d.Size()-1)), "short buffer")

	// Decode refuses reserved bits and RDMA without its address segment
	b := make([]byte, 64)
	require.NoError(t, (&Descriptor{}).Encode(b))
	b[15] = 0x80
	_, _, err := Decode(b)
	requireCode(t, DescriptorError, err)
	b[15] = 0
	b[14] = byte(OpRdmaWrite)
	_, _, err = Decode(b)
	requireCode(t, DescriptorError, err)
	_, _, err = Decode(b[:31])
	requireCode(t, InvalidParameter, err)
}

func TestStatusString(t *testing.T) {
	for _, c := range []struct {
		s    Status
		want string
	}{
		{0, "0"},
		{StatusDone | StatusLocalLengthError | Status(hw.DescCtlStatusOp.Val(hw.DescCompletedReceive)) | StatusImmediate, "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE|IMMEDIATE"},
		{StatusDone, "DONE|op=SEND"},
		{StatusDone | StatusLocalFormatError | StatusLocalProtectionError | StatusPartialPacketError | StatusFlushed |
			StatusTransportError | StatusRdmaProtectionError | StatusRemoteDescriptorError | Status(hw.DescCtlStatusOp.Val(hw.DescCompletedRdmaRead)),
			"DONE|LOCAL_FORMAT_ERROR|LOCAL_PROTECTION_ERROR|PARTIAL_PACKET_ERROR|FLUSHED|TRANSPORT_ERROR|RDMA_PROTECTION_ERROR|REMOTE_DESCRIPTOR_ERROR|op=RDMA_READ"},
		{StatusDone | Status(hw.DescCtlStatusOp.Val(hw.DescCompletedRemoteRdmaWrite)), "DONE|op=REMOTE_RDMA_WRITE"},
		{StatusDone | 1<<24, "DONE|op=SEND|0x1000000"},
	} {
		assert.Equal(t, c.want, c.s.String(), "%#x", uint32(c.s))
	}
	s := StatusDone | StatusLocalLengthError | Status(hw.DescCtlStatusOp.Val(hw.DescCompletedReceive)) | StatusImmediate
	assert.True(t, s.Done())
	assert.True(t, s.Failed())
	assert.True(t, s.Immediate())
	assert.Equal(t, CompletedReceive, s.Op())
	assert.Equal(t, "RECEIVE", s.Op().String())
	assert.False(t, (StatusDone | StatusImmediate).Failed())
	assert.False(t, Status(0).Done())
	assert.Equal(t, Status(0x1FE), StatusErrors)
	assert.Equal(t, Status(4<<16), CompletedRdmaRead.Status())
}

// NewDesc's own checks, over a fake kernel agent.
func TestNewDesc(t *testing.T) {
	ctx := context.Background()
	f := newFakeAgent()
	n, err := NewNic(ctx, f)
	require.NoError(t, err)
	p, err := n.CreatePtag(ctx)
	require.NoError(t, err)
	buf, err := n.Alloc(ctx, 8192)
	require.NoError(t, err)
	// the region covers [VA+64, VA+4096)
	h, err := n.RegisterMem(ctx, buf.VA+64, 4096-64, MemAttributes{Ptag: p})
	require.NoError(t, err)
	d := &Descriptor{Segments: []DataSegment{{Addr: buf.VA + 1024, Handle: h, Length: 512}}}

	desc, err := n.NewDesc(buf.VA+128, h, d)
	require.NoError(t, err)
	assert.Equal(t, buf.VA+128, desc.VA())
	assert.Equal(t, h, desc.Handle())
	assert.Equal(t, Status(0), desc.Status())
	assert.Equal(t, uint32(512), desc.Length())
	assert.Equal(t, buf.Bytes[128:128+48], desc.Bytes(), "written in the buffer")
	got, err := desc.Descriptor()
	require.NoError(t, err)
	assert.Equal(t, *d, got)
	// what the NIC writes back, seen through the Desc
	binary.LittleEndian.PutUint32(buf.Bytes[128+28:], uint32(StatusDone|StatusLocalLengthError|Status(hw.DescCtlStatusOp.Val(hw.DescCompletedReceive))))
	assert.Equal(t, "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE", desc.Status().String())
	assert.Contains(t, desc.String(), "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE")

	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+128+32, h, d)), "not 64-byte aligned")
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA, h, d)), "before the region")
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+4096-64, h, &Descriptor{Segments: make([]DataSegment, 3)})), "runs past the region's end")
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+4096, h, d)), "after the region")
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+128, h+1, d)), "unknown handle")
	requireCode(t, DescriptorError, second(n.NewDesc(buf.VA+128, h, &Descriptor{Segments: make([]DataSegment, 5)})), "more than MaxSegmentsPerDesc")
	rd := &Descriptor{Op: OpRdmaRead, Remote: AddressSegment{Addr: 1, Handle: 1}, Segments: make([]DataSegment, 4)}
	_, err = n.NewDesc(buf.VA+128, h, rd)
	assert.NoError(t, err, "MaxSegmentsPerDesc counts data segments: the address segment comes on top")
	requireCode(t, DescriptorError, second(n.NewDesc(buf.VA+128, h, &Descriptor{Segments: []DataSegment{{Length: 1<<16 + 1}}})), "more than MaxTransferSize")
	requireCode(t, DescriptorError, second(n.NewDesc(buf.VA+128, h, &Descriptor{Op: 3})), "reserved operation")

	require.NoError(t, n.DeregisterMem(ctx, buf.VA+64, h))
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+128, h, d)), "deregistered")

	// Free: only this NIC's buffers, once
	requireCode(t, InvalidParameter, n.Free(ctx, &Buffer{VA: buf.VA}), "a copy is not the buffer")
	require.NoError(t, n.Free(ctx, buf))
	assert.Nil(t, buf.Bytes)
	requireCode(t, InvalidParameter, n.Free(ctx, buf), "freed twice")

	require.NoError(t, n.Close(ctx))
	assert.True(t, f.closed)
	require.NoError(t, n.Close(ctx), "closing twice")
	requireCode(t, InvalidParameter, second(n.CreatePtag(ctx)), "closed")
	requireCode(t, InvalidParameter, second(n.NewDesc(buf.VA+128, h, d)), "closed")
}

func second[T any](_ T, err error) error { return err }
