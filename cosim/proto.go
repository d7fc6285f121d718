package cosim

// Wire format of the co-simulation protocol, version 1.1
// (docs/cosim-protocol.md). Everything here is pure encoding and decoding;
// conn.go does the I/O.

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Protocol version this package speaks. The protocol's constants (message
// types, sizes, codes) are generated from cosim/protocol.layout into
// proto_gen.go, which the harness's protocol_gen.h shares.
const (
	ProtocolMajor = protocolMajor // a simulator with another major version is refused
	// ProtocolMinor is the minor version this package speaks and the
	// least it accepts: it relies on 1.1's CANCEL and lockstep flow
	// control, so a 1.0 simulator is refused with ErrVersion.
	ProtocolMinor = protocolMinor
)

var le = binary.LittleEndian

// header is the 12-byte frame header.
type header struct {
	Len   uint32
	Type  uint16
	Flags uint16
	Tag   uint32
}

func putHeader(b []byte, typ uint16, tag uint32, payloadLen int) {
	le.PutUint32(b[0:], uint32(payloadLen))
	le.PutUint16(b[4:], typ)
	le.PutUint16(b[6:], 0)
	le.PutUint32(b[8:], tag)
}

func parseHeader(b []byte) header {
	return header{
		Len:   le.Uint32(b[0:]),
		Type:  le.Uint16(b[4:]),
		Flags: le.Uint16(b[6:]),
		Tag:   le.Uint32(b[8:]),
	}
}

// appendMsg appends a header and room for an n-byte payload to b and
// returns the extended slice and the payload part of it.
func appendMsg(b []byte, typ uint16, tag uint32, n int) ([]byte, []byte) {
	start := len(b)
	need := start + headerSize + n
	if cap(b) < need {
		nb := make([]byte, start, need+64)
		copy(nb, b)
		b = nb
	}
	b = b[:need]
	putHeader(b[start:], typ, tag, n)
	p := b[start+headerSize:]
	clear(p)
	return b, p
}

// helloMsg is the content of HELLO.
type helloMsg struct {
	Role       Role
	Node       uint8
	Interrupts bool
	Token      uint64
	Name       string
}

func appendHello(b []byte, tag uint32, h helloMsg) []byte {
	b, p := appendMsg(b, msgHello, tag, helloSize)
	le.PutUint32(p[0:], helloMagic)
	le.PutUint16(p[4:], ProtocolMajor)
	le.PutUint16(p[6:], ProtocolMinor)
	p[8] = uint8(h.Role)
	p[9] = h.Node
	if h.Interrupts {
		le.PutUint16(p[10:], 1)
	}
	le.PutUint64(p[12:], h.Token)
	copy(p[20:20+nameSize-1], h.Name) // keep at least one NUL
	return b
}

func appendAttachMem(b []byte, tag uint32, base, size uint64) []byte {
	b, p := appendMsg(b, msgAttachMem, tag, attachMemSize)
	le.PutUint64(p[0:], base)
	le.PutUint64(p[8:], size)
	return b
}

func appendMMIORead(b []byte, tag uint32, off uint32, size uint8) []byte {
	b, p := appendMsg(b, msgMMIORead, tag, mmioReadSize)
	le.PutUint32(p[0:], off)
	p[4] = size
	return b
}

// putWriteEntry encodes one MMIO_WRITE entry into e (16 bytes).
func putWriteEntry(e []byte, off uint32, size uint8, v uint64) {
	le.PutUint32(e[0:], off)
	e[4] = size
	e[5], e[6], e[7] = 0, 0, 0
	le.PutUint64(e[8:], v)
}

// finishWriteBatch fills in the header and count of an MMIO_WRITE message
// whose n entries start at b[headerSize+4:].
func finishWriteBatch(b []byte, n int) {
	putHeader(b, msgMMIOWrite, 0, 4+n*writeEntrySize)
	le.PutUint32(b[headerSize:], uint32(n))
}

// waitMsg is the content of WAIT.
type waitMsg struct {
	Kind    uint8
	Size    uint8
	Timeout uint64
	Mask    uint64 // irq: low 32 bits; mem: word mask
	Addr    uint64 // mem
	Value   uint64 // mem
	N       uint64 // cycles
}

func appendWait(b []byte, tag uint32, w waitMsg) []byte {
	n := waitCycSize
	switch w.Kind {
	case waitKindIRQ:
		n = waitIRQSize
	case waitKindMem:
		n = waitMemSize
	}
	b, p := appendMsg(b, msgWait, tag, n)
	p[0] = w.Kind
	p[1] = w.Size
	le.PutUint64(p[4:], w.Timeout)
	switch w.Kind {
	case waitKindIRQ:
		le.PutUint32(p[12:], uint32(w.Mask))
	case waitKindMem:
		le.PutUint64(p[12:], w.Addr)
		le.PutUint64(p[20:], w.Mask)
		le.PutUint64(p[28:], w.Value)
	default:
		le.PutUint64(p[12:], w.N)
	}
	return b
}

func appendTrace(b []byte, tag uint32, on bool) []byte {
	b, p := appendMsg(b, msgTrace, tag, traceSize)
	if on {
		p[0] = 1
	}
	return b
}

func appendGrant(b []byte, tag uint32, token uint64, first, count uint32) []byte {
	b, p := appendMsg(b, msgGrant, tag, grantSize)
	le.PutUint64(p[0:], token)
	le.PutUint32(p[8:], first)
	le.PutUint32(p[12:], count)
	return b
}

func appendRevoke(b []byte, tag uint32, token uint64) []byte {
	b, p := appendMsg(b, msgRevoke, tag, revokeSize)
	le.PutUint64(p[0:], token)
	return b
}

func appendFabric(b []byte, typ uint16, tag uint32, addr, v uint32) []byte {
	b, p := appendMsg(b, typ, tag, fabricWriteSize)
	le.PutUint32(p[0:], addr)
	le.PutUint32(p[4:], v)
	return b
}

// appendCancel appends a CANCEL of the request with tag canceled; the
// message itself has tag 0 and no answer.
func appendCancel(b []byte, canceled uint32) []byte {
	b, p := appendMsg(b, msgCancel, 0, cancelSize)
	le.PutUint32(p[0:], canceled)
	return b
}

func appendEmpty(b []byte, typ uint16, tag uint32) []byte {
	b, _ = appendMsg(b, typ, tag, 0)
	return b
}

// msg is a decoded simulator-to-client message. Only the fields of its
// type are meaningful.
type msg struct {
	Type   uint16
	Tag    uint32
	Status uint16 // ACK, READ_DATA, WAIT_DONE
	Value  uint64 // READ_DATA, WAIT_DONE; IRQ: vector
	Cycle  uint64 // READ_DATA, WAIT_DONE, IRQ
	Text   string // WAIT_DONE, STATS_DATA, ERROR
	Hello  Device // HELLO_OK
	Err    *RemoteError
}

// MalformedError reports a message from the simulator that breaks the
// protocol; the Conn that received it is closed.
type MalformedError struct {
	Type   uint16 // message type from the header
	Tag    uint32
	Len    uint32 // payload length from the header
	Reason string
}

// Error describes the offending message.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("cosim: malformed message from simulator (type 0x%02x, tag %d, len %d): %s",
		e.Type, e.Tag, e.Len, e.Reason)
}

// checkHeader validates a header read from the simulator before its payload
// is read.
func checkHeader(h header) error {
	bad := func(format string, a ...any) error {
		return &MalformedError{Type: h.Type, Tag: h.Tag, Len: h.Len, Reason: fmt.Sprintf(format, a...)}
	}
	if h.Len > maxPayload {
		return bad("payload length exceeds %d", maxPayload)
	}
	if h.Flags != 0 {
		return bad("non-zero flags 0x%04x", h.Flags)
	}
	want, exact := 0, true
	switch h.Type {
	case msgHelloOK:
		want = helloOKSize
	case msgAck:
		want = ackSize
	case msgReadData:
		want = readDataSize
	case msgWaitDone:
		want, exact = waitDoneSize, false
	case msgStatsData:
		want, exact = 0, false
	case msgIRQ:
		want = irqSize
	case msgError:
		want, exact = errorSize, false
	default:
		return bad("unknown message type")
	}
	if exact && int(h.Len) != want {
		return bad("payload is %d bytes, want %d", h.Len, want)
	}
	if !exact && int(h.Len) < want {
		return bad("payload is %d bytes, want at least %d", h.Len, want)
	}
	switch h.Type {
	case msgIRQ:
		if h.Tag != 0 {
			return bad("asynchronous message with non-zero tag")
		}
	case msgError:
		// any tag: 0 for errors about posted writes
	default:
		if h.Tag == 0 {
			return bad("answer with tag 0")
		}
	}
	return nil
}

// text converts protocol text to a Go string: invalid UTF-8 is replaced and
// trailing NULs and newlines are dropped.
func text(p []byte) string {
	s := string(p)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.TrimRight(s, "\x00\n")
}

// decodeMsg decodes the payload p of a message whose header passed
// checkHeader. It does not keep p.
func decodeMsg(h header, p []byte) (msg, error) {
	m := msg{Type: h.Type, Tag: h.Tag}
	switch h.Type {
	case msgHelloOK:
		d := Device{
			Major:     int(le.Uint16(p[0:])),
			Minor:     int(le.Uint16(p[2:])),
			Nodes:     int(le.Uint16(p[4:])),
			IRQs:      int(le.Uint16(p[6:])),
			BARBytes:  le.Uint32(p[8:]),
			ClockPS:   le.Uint32(p[12:]),
			MapHash:   le.Uint64(p[16:]),
			Cycle:     le.Uint64(p[24:]),
			Mode:      Mode(p[32]),
			ClientID:  le.Uint32(p[36:]),
			DataWidth: int(le.Uint32(p[40:])),
		}
		m.Hello = d
		m.Cycle = d.Cycle
	case msgAck:
		m.Status = le.Uint16(p[0:])
	case msgReadData:
		m.Status = le.Uint16(p[0:])
		m.Value = le.Uint64(p[8:])
		m.Cycle = le.Uint64(p[16:])
	case msgWaitDone:
		m.Status = le.Uint16(p[0:])
		m.Cycle = le.Uint64(p[8:])
		m.Value = le.Uint64(p[16:])
		m.Text = text(p[waitDoneSize:])
	case msgStatsData:
		m.Text = text(p)
	case msgIRQ:
		m.Value = uint64(le.Uint32(p[0:]))
		m.Cycle = le.Uint64(p[8:])
	case msgError:
		m.Err = &RemoteError{
			Code:      ErrorCode(le.Uint16(p[0:])),
			Fatal:     p[2] != 0,
			RefType:   le.Uint16(p[4:]),
			RefOffset: le.Uint64(p[8:]),
			Tag:       h.Tag,
			Text:      text(p[errorSize:]),
		}
	default:
		return m, &MalformedError{Type: h.Type, Tag: h.Tag, Len: h.Len, Reason: "unknown message type"}
	}
	return m, nil
}

// nextMsg decodes the first message of b and returns it with the number of
// bytes it took, or n == 0 when b does not hold a whole message yet. A
// header that breaks the protocol is an error at once.
func nextMsg(b []byte) (m msg, n int, err error) {
	if len(b) < headerSize {
		return msg{}, 0, nil
	}
	h := parseHeader(b)
	if err := checkHeader(h); err != nil {
		return msg{}, 0, err
	}
	n = headerSize + int(h.Len)
	if len(b) < n {
		return msg{}, 0, nil
	}
	m, err = decodeMsg(h, b[headerSize:n])
	return m, n, err
}

// msgName names a message type for errors and logs.
func msgName(t uint16) string {
	if name, ok := msgNames[t]; ok {
		return name
	}
	return fmt.Sprintf("type 0x%02x", t)
}
