// Package pcap reads and writes capture files in the classic libpcap format
// with nanosecond timestamps (magic 0xa1b23c4d) and Ethernet link type, the
// format the simulator's captures use and Wireshark and tshark read.
package pcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic numbers of the file header.
const (
	MagicNanos  = 0xa1b23c4d // timestamps in nanoseconds (what Writer writes)
	MagicMicros = 0xa1b2c3d4 // timestamps in microseconds (read only)
	// LinkEthernet is LINKTYPE_ETHERNET.
	LinkEthernet = 1
	// SnapLen is the largest packet a file written here may hold.
	SnapLen = 262144
)

// Packet is one captured frame and its time in nanoseconds.
type Packet struct {
	Nanos uint64
	Data  []byte
}

// Writer writes a capture file.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter writes the file header (Ethernet, nanosecond timestamps).
func NewWriter(w io.Writer) (*Writer, error) {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], MagicNanos)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], SnapLen)
	binary.LittleEndian.PutUint32(h[20:], LinkEthernet)
	if _, err := w.Write(h[:]); err != nil {
		return nil, err
	}
	return &Writer{w: w}, nil
}

// Write appends one packet; a packet longer than SnapLen is an error.
func (w *Writer) Write(p Packet) error {
	if w.err != nil {
		return w.err
	}
	if len(p.Data) > SnapLen {
		return fmt.Errorf("pcap: packet of %d bytes is longer than the snap length %d", len(p.Data), SnapLen)
	}
	var h [16]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(p.Nanos/1e9))
	binary.LittleEndian.PutUint32(h[4:], uint32(p.Nanos%1e9))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(p.Data)))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(p.Data)))
	if _, w.err = w.w.Write(h[:]); w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(p.Data)
	return w.err
}

// ErrFormat is returned for a file that is not a capture this package reads.
var ErrFormat = errors.New("pcap: not a classic little-endian Ethernet capture")

// Read returns every packet of a capture file (classic format, little
// endian, Ethernet; micro- or nanosecond timestamps).
func Read(r io.Reader) ([]Packet, error) {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	magic := binary.LittleEndian.Uint32(h[0:])
	if magic != MagicNanos && magic != MagicMicros {
		return nil, fmt.Errorf("%w: magic 0x%08x", ErrFormat, magic)
	}
	if lt := binary.LittleEndian.Uint32(h[20:]); lt != LinkEthernet {
		return nil, fmt.Errorf("%w: link type %d", ErrFormat, lt)
	}
	var out []Packet
	for {
		var ph [16]byte
		if _, err := io.ReadFull(r, ph[:]); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, fmt.Errorf("pcap: packet %d header: %w", len(out), err)
		}
		sec := uint64(binary.LittleEndian.Uint32(ph[0:]))
		frac := uint64(binary.LittleEndian.Uint32(ph[4:]))
		incl := binary.LittleEndian.Uint32(ph[8:])
		if incl > SnapLen {
			return out, fmt.Errorf("pcap: packet %d claims %d bytes", len(out), incl)
		}
		data := make([]byte, incl)
		if _, err := io.ReadFull(r, data); err != nil {
			return out, fmt.Errorf("pcap: packet %d data: %w", len(out), err)
		}
		if magic == MagicMicros {
			frac *= 1000
		}
		out = append(out, Packet{Nanos: sec*1e9 + frac, Data: data})
	}
}
