// Package wire builds and parses vianic wire frames (docs/wire.md): the
// base header, the RDMA extension, the payload and the trailer with its
// CRC-32, and their Ethernet framing in captures. The layouts come from
// internal/hw (generated from rtl/layouts/wire.layout); this package adds
// the frame's composition, which the NIC's RTL implements too.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/vianic/vianic/internal/hw"
)

// Frame is one frame on the wire.
type Frame struct {
	Hdr     hw.WireHdr
	Rdma    *hw.WireRdma // the extension header, for the kinds that carry one
	Payload []byte
	Status  uint32 // trailer STATUS: 0 whole, else cut short by the sender
}

// HasRdma reports whether frames of kind k carry the RDMA extension.
func HasRdma(k uint8) bool {
	return k == hw.WireKindRdmaWrite || k == hw.WireKindRdmaReadReq || k == hw.WireKindRdmaReadResp
}

// CRC is the wire's CRC-32 (IEEE 802.3, reflected, the layout's CRC_POLY).
func CRC(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

var crcTable = crc32.MakeTable(hw.WireCrcPoly)

// Bytes returns the frame as the NIC sends it, with the CRC computed.
func (f *Frame) Bytes() []byte {
	n := hw.WireHdrBytes + len(f.Payload) + hw.WireTrlBytes
	if f.Rdma != nil {
		n += hw.WireRdmaBytes
	}
	b := make([]byte, n)
	f.Hdr.Marshal(b)
	off := hw.WireHdrBytes
	if f.Rdma != nil {
		f.Rdma.Marshal(b[off:])
		off += hw.WireRdmaBytes
	}
	off += copy(b[off:], f.Payload)
	t := hw.WireTrl{Crc: CRC(b[:off]), Status: f.Status}
	t.Marshal(b[off:])
	return b
}

// Errors of Parse.
var (
	ErrShort = errors.New("wire: frame shorter than a header and a trailer")
	ErrCRC   = errors.New("wire: CRC mismatch")
)

// Parse decodes a frame. A CRC mismatch returns the decoded frame and
// ErrCRC (wrapped), so that a caller can still show it.
func Parse(b []byte) (*Frame, error) {
	if len(b) < hw.WireHdrBytes+hw.WireTrlBytes {
		return nil, ErrShort
	}
	f := &Frame{}
	f.Hdr.Unmarshal(b)
	off := hw.WireHdrBytes
	end := len(b) - hw.WireTrlBytes
	if HasRdma(f.Hdr.Kind) {
		if end-off < hw.WireRdmaBytes {
			return nil, ErrShort
		}
		f.Rdma = &hw.WireRdma{}
		f.Rdma.Unmarshal(b[off:])
		off += hw.WireRdmaBytes
	}
	f.Payload = append([]byte(nil), b[off:end]...)
	var t hw.WireTrl
	t.Unmarshal(b[end:])
	f.Status = t.Status
	if want := CRC(b[:end]); want != t.Crc {
		return f, fmt.Errorf("%w: trailer 0x%08x, computed 0x%08x", ErrCRC, t.Crc, want)
	}
	return f, nil
}

// MAC is node n's MAC address in captures.
func MAC(node uint8) [6]byte {
	var m [8]byte
	binary.BigEndian.PutUint64(m[:], uint64(hw.WireMacPrefix)+uint64(node))
	return [6]byte(m[2:])
}

// EthernetBytes is the frame as a capture holds it: an Ethernet header
// (destination and source MAC of the nodes, EtherType ETHERTYPE), then the
// frame.
func EthernetBytes(frame []byte) []byte {
	if len(frame) < 2 {
		return nil
	}
	b := make([]byte, 14+len(frame))
	dst, src := MAC(frame[0]), MAC(frame[1])
	copy(b[0:], dst[:])
	copy(b[6:], src[:])
	binary.BigEndian.PutUint16(b[12:], hw.WireEthertype)
	copy(b[14:], frame)
	return b
}

// FromEthernet returns the vianic frame inside a captured Ethernet frame.
func FromEthernet(b []byte) ([]byte, error) {
	if len(b) < 14 || binary.BigEndian.Uint16(b[12:]) != hw.WireEthertype {
		return nil, fmt.Errorf("wire: not a vianic Ethernet frame (EtherType 0x%04x)", hw.WireEthertype)
	}
	return b[14:], nil
}
