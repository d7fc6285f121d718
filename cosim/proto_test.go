package cosim

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// The encodings below are written out byte by byte from the tables of
// docs/cosim-protocol.md.
func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"HELLO", appendHello(nil, 1, helloMsg{Role: RoleUser, Node: 2, Interrupts: true, Token: 0x1122334455667788, Name: "abc"}),
			"34000000 0100 0000 01000000" + // len 52, HELLO, flags, tag 1
				"56434f53 0100 0100 02 02 0100 8877665544332211" + // magic, version 1.1, user, node 2, irqs, token
				"61626300" + strings.Repeat("00", 28)},
		{"ATTACH_MEM", appendAttachMem(nil, 7, 0, 0x100000),
			"10000000 0200 0000 07000000 0000000000000000 0000100000000000"},
		{"MMIO_READ", appendMMIORead(nil, 0x01020304, 0x11c, 4),
			"08000000 0300 0000 04030201 1c010000 04 000000"},
		{"WAIT irq", appendWait(nil, 9, waitMsg{Kind: waitKindIRQ, Timeout: 1000, Mask: 1}),
			"14000000 0500 0000 09000000 01 00 0000 e803000000000000 01000000 00000000"},
		{"WAIT mem", appendWait(nil, 9, waitMsg{Kind: waitKindMem, Size: 8, Addr: 0x40, Mask: 0xff, Value: 1}),
			"24000000 0500 0000 09000000 02 08 0000 0000000000000000 4000000000000000 ff00000000000000 0100000000000000"},
		{"WAIT cycles", appendWait(nil, 9, waitMsg{Kind: waitKindCycles, N: 5}),
			"14000000 0500 0000 09000000 03 00 0000 0000000000000000 0500000000000000"},
		{"TRACE", appendTrace(nil, 3, true), "08000000 0600 0000 03000000 01 00000000000000"},
		{"RESET", appendEmpty(nil, msgReset, 3), "00000000 0700 0000 03000000"},
		{"GRANT", appendGrant(nil, 3, 42, 1, 2), "10000000 0800 0000 03000000 2a00000000000000 01000000 02000000"},
		{"REVOKE", appendRevoke(nil, 3, 42), "08000000 0900 0000 03000000 2a00000000000000"},
		{"TERMINATE", appendEmpty(nil, msgTerminate, 3), "00000000 0a00 0000 03000000"},
		{"STATS", appendEmpty(nil, msgStats, 3), "00000000 0b00 0000 03000000"},
		{"CANCEL", appendCancel(nil, 0x2a), "08000000 0c00 0000 00000000 2a000000 00000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, hex.EncodeToString(unhex(t, tt.want)), hex.EncodeToString(tt.got))
		})
	}
}

func TestEncodeHelloNameTruncated(t *testing.T) {
	b := appendHello(nil, 1, helloMsg{Role: RoleDriver, Name: strings.Repeat("x", 100)})
	require.Len(t, b, headerSize+helloSize)
	name := b[headerSize+20:]
	assert.Equal(t, strings.Repeat("x", 31), string(name[:31]))
	assert.Equal(t, byte(0), name[31], "the name keeps a terminating NUL")
}

func TestEncodeWriteBatch(t *testing.T) {
	b := make([]byte, batchHead+2*writeEntrySize)
	putWriteEntry(b[batchHead:], 0x10, 4, 0xdeadbeef)
	putWriteEntry(b[batchHead+writeEntrySize:], 0x100, 8, 0x0102030405060708)
	finishWriteBatch(b, 2)
	want := "24000000 0400 0000 00000000 02000000" +
		"10000000 04 000000 efbeadde00000000" +
		"00010000 08 000000 0807060504030201"
	assert.Equal(t, hex.EncodeToString(unhex(t, want)), hex.EncodeToString(b))
	assert.LessOrEqual(t, 4+maxWriteEntries*writeEntrySize, maxPayload, "a full batch fits one message")
}

func frame(typ uint16, tag uint32, payload []byte) []byte {
	b, p := appendMsg(nil, typ, tag, len(payload))
	copy(p, payload)
	return b
}

func TestDecode(t *testing.T) {
	helloOK := unhex(t, "0100 0000 0200 0800 00001000 a00f0000 c55a92b9eb90dbc7 0500000000000000 01 000000 07000000 40000000 00000000")
	tests := []struct {
		name string
		in   []byte
		want msg
	}{
		{"HELLO_OK", frame(msgHelloOK, 1, helloOK), msg{Type: msgHelloOK, Tag: 1, Cycle: 5, Hello: Device{
			Major: 1, Minor: 0, Nodes: 2, IRQs: 8, BARBytes: 0x100000, ClockPS: 4000,
			MapHash: 0xc7db90ebb9925ac5, Cycle: 5, Mode: ModeLockstep, ClientID: 7, DataWidth: 64}}},
		{"ACK", frame(msgAck, 3, unhex(t, "0400 000000000000")), msg{Type: msgAck, Tag: 3, Status: 4}},
		{"READ_DATA", frame(msgReadData, 3, unhex(t, "0000 000000000000 4e414956 00000000 2a00000000000000")),
			msg{Type: msgReadData, Tag: 3, Value: 0x5649414e, Cycle: 42}},
		{"WAIT_DONE", frame(msgWaitDone, 4, append(unhex(t, "0200 000000000000 6400000000000000 0000000000000000"), "client 1 waits\n"...)),
			msg{Type: msgWaitDone, Tag: 4, Status: 2, Cycle: 100, Text: "client 1 waits"}},
		{"STATS_DATA", frame(msgStatsData, 5, []byte("cycles 10\nrefused 2\n")),
			msg{Type: msgStatsData, Tag: 5, Text: "cycles 10\nrefused 2"}},
		{"IRQ", frame(msgIRQ, 0, unhex(t, "01000000 00000000 0900000000000000")), msg{Type: msgIRQ, Value: 1, Cycle: 9}},
		{"ERROR", frame(msgError, 0, append(unhex(t, "0400 00 00 0400 0000 0000010000000000"), "not granted"...)),
			msg{Type: msgError, Err: &RemoteError{Code: CodeRefused, RefType: msgMMIOWrite, RefOffset: 0x10000, Text: "not granted"}}},
		{"ERROR invalid UTF-8", frame(msgError, 6, append(unhex(t, "0100 01 00 0300 0000 0000000000000000"), 0xff, 'x')),
			msg{Type: msgError, Tag: 6, Err: &RemoteError{Code: CodeMalformed, Fatal: true, RefType: msgMMIORead, Tag: 6, Text: "\uFFFDx"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOne(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// decodeOne decodes the one message in b.
func decodeOne(b []byte) (msg, error) {
	m, n, err := nextMsg(b)
	if err == nil && n != len(b) {
		err = io.ErrUnexpectedEOF
	}
	return m, err
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		reason string
	}{
		{"too long", frame(msgStatsData, 1, make([]byte, maxPayload+1)), "exceeds"},
		{"flags", func() []byte { b := frame(msgAck, 1, make([]byte, ackSize)); b[6] = 1; return b }(), "flags"},
		{"unknown type", frame(0x99, 1, nil), "unknown message type"},
		{"client type", frame(msgMMIORead, 1, make([]byte, mmioReadSize)), "unknown message type"},
		{"short ACK", frame(msgAck, 1, make([]byte, ackSize-1)), "want 8"},
		{"long READ_DATA", frame(msgReadData, 1, make([]byte, readDataSize+1)), "want 24"},
		{"short WAIT_DONE", frame(msgWaitDone, 1, make([]byte, 8)), "at least 24"},
		{"short ERROR", frame(msgError, 1, make([]byte, 15)), "at least 16"},
		{"IRQ with tag", frame(msgIRQ, 3, make([]byte, irqSize)), "non-zero tag"},
		{"answer without tag", frame(msgReadData, 0, make([]byte, readDataSize)), "tag 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeOne(tt.in)
			var me *MalformedError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, me.Reason, tt.reason)
		})
	}
	for _, b := range [][]byte{nil, {1, 2, 3}, frame(msgReadData, 1, make([]byte, readDataSize))[:headerSize+10]} {
		_, n, err := nextMsg(b)
		assert.NoError(t, err)
		assert.Zero(t, n, "%d bytes are not a whole message yet", len(b))
	}
}

func TestErrors(t *testing.T) {
	refused := &RemoteError{Code: CodeRefused, RefType: msgMMIOWrite, RefOffset: 0x11000, Text: "page not granted"}
	assert.ErrorIs(t, refused, ErrRefused)
	assert.NotErrorIs(t, refused, ErrBusError)
	assert.Equal(t, "cosim: simulator: REFUSED on MMIO_WRITE at 0x11000: page not granted", refused.Error())
	assert.ErrorIs(t, &RemoteError{Code: CodeBusy}, ErrBusy)
	assert.ErrorIs(t, &BusError{Offset: 4, Resp: 3}, ErrBusError)
	dl := &DeadlockError{Cycle: 7, Text: "client 1: irq mask 0x1"}
	assert.ErrorIs(t, dl, ErrDeadlock)
	assert.Contains(t, dl.Error(), "client 1: irq mask 0x1")
	ce := &closedError{cause: refused}
	assert.ErrorIs(t, ce, ErrClosed)
	assert.ErrorIs(t, ce, ErrRefused)
	assert.Equal(t, "INTERNAL", CodeInternal.String())
	assert.Equal(t, "code 99", ErrorCode(99).String())
	assert.True(t, errors.Is(&closedError{}, ErrClosed))
}

func TestParseStats(t *testing.T) {
	got := parseStats("cycles 100\nrefused 3\n\n  name  two words \nflag\n")
	assert.Equal(t, map[string]string{"cycles": "100", "refused": "3", "name": "two words", "flag": ""}, got)
}

// FuzzNextMsg feeds arbitrary bytes to the decoder: it must never panic and
// must decode messages of known types, ask for more bytes or return an
// error.
func FuzzNextMsg(f *testing.F) {
	f.Add(frame(msgReadData, 3, make([]byte, readDataSize)))
	f.Add(frame(msgHelloOK, 1, make([]byte, helloOKSize)))
	f.Add(frame(msgWaitDone, 2, append(make([]byte, waitDoneSize), "deadlock"...)))
	f.Add(frame(msgError, 0, append(make([]byte, errorSize), 0xff, 0xfe)))
	f.Add(frame(msgIRQ, 0, make([]byte, irqSize)))
	f.Add(frame(msgStatsData, 9, []byte("a 1\nb 2\n")))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x83, 0, 0, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for len(data) > 0 {
			m, n, err := nextMsg(data)
			if err != nil || n == 0 {
				return
			}
			if n > len(data) {
				t.Fatalf("used %d of %d bytes", n, len(data))
			}
			data = data[n:]
			switch m.Type {
			case msgHelloOK, msgAck, msgReadData, msgWaitDone, msgStatsData, msgIRQ:
			case msgError:
				if m.Err == nil {
					t.Fatal("ERROR without error")
				}
				_ = m.Err.Error()
			default:
				t.Fatalf("decoded unknown type 0x%x", m.Type)
			}
		}
	})
}
