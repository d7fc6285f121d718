package wire

import (
	"bytes"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

func TestFrameRoundTrip(t *testing.T) {
	f := &Frame{
		Hdr: hw.WireHdr{DstNode: 3, SrcNode: 1, DstVi: 7, SrcVi: 9, Kind: hw.WireKindRdmaWrite,
			Flags: 3, Seq: 42, MsgLen: 5, SegLen: 5, Immediate: 0xabcd},
		Rdma:    &hw.WireRdma{RemoteVa: 0x1122334455667788, RemoteHandle: 0x10002, Tag: 0x99aabbcc},
		Payload: []byte("hello"),
	}
	b := f.Bytes()
	require.Len(t, b, hw.WireHdrBytes+hw.WireRdmaBytes+5+hw.WireTrlBytes)
	g, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, f.Hdr, g.Hdr)
	assert.Equal(t, *f.Rdma, *g.Rdma)
	assert.Equal(t, f.Payload, g.Payload)
	// the CRC is the standard CRC-32 of everything before the trailer
	end := len(b) - hw.WireTrlBytes
	assert.Equal(t, crc32.ChecksumIEEE(b[:end]), uint32(b[end])|uint32(b[end+1])<<8|uint32(b[end+2])<<16|uint32(b[end+3])<<24)
}

func TestParseErrors(t *testing.T) {
	_, err := Parse(make([]byte, hw.WireHdrBytes+hw.WireTrlBytes-1))
	assert.ErrorIs(t, err, ErrShort)
	f := &Frame{Hdr: hw.WireHdr{DstNode: 1, Kind: hw.WireKindSend, SegLen: 3, MsgLen: 3}, Payload: []byte{1, 2, 3}}
	b := f.Bytes()
	for i := range b[:len(b)-hw.WireTrlBytes+4] { // every byte the CRC covers, and the CRC itself
		c := append([]byte{}, b...)
		c[i] ^= 0x10
		_, err := Parse(c)
		assert.True(t, errors.Is(err, ErrCRC), "byte %d flipped: %v", i, err)
	}
	// an RDMA kind too short for its extension
	r := &Frame{Hdr: hw.WireHdr{Kind: hw.WireKindRdmaReadReq}}
	rb := r.Bytes() // no extension given: shorter than the kind needs
	_, err = Parse(rb)
	assert.ErrorIs(t, err, ErrShort)
}

func TestEthernet(t *testing.T) {
	f := (&Frame{Hdr: hw.WireHdr{DstNode: 5, SrcNode: 2}}).Bytes()
	e := EthernetBytes(f)
	assert.Equal(t, []byte{2, 0, 0, 0, 0, 5, 2, 0, 0, 0, 0, 2, 0x88, 0xb5}, e[:14])
	g, err := FromEthernet(e)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(f, g))
	e[12] = 0x08
	_, err = FromEthernet(e)
	assert.Error(t, err)
}
