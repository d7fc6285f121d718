package simulator_test

// The worked example of docs/cosim-protocol.md replayed against a real
// simulator over a raw socket, as a client in another language would.

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

var docHexBlock = regexp.MustCompile("(?s)```hex ([A-Z_]+)\n(.*?)```")

func docExample(t *testing.T) map[string][]byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(simtest.Root(t), "docs", "cosim-protocol.md"))
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, m := range docHexBlock.FindAllSubmatch(doc, -1) {
		var hx strings.Builder
		for _, line := range strings.Split(string(m[2]), "\n") {
			line, _, _ = strings.Cut(line, "#")
			hx.WriteString(strings.Join(strings.Fields(line), ""))
		}
		b, err := hex.DecodeString(hx.String())
		require.NoError(t, err, "block %s", m[1])
		out[string(m[1])] = b
	}
	return out
}

// readFrame reads one message (header and payload) from a raw connection.
func readFrame(t *testing.T, nc net.Conn) []byte {
	t.Helper()
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
	h := make([]byte, 12)
	_, err := io.ReadFull(nc, h)
	require.NoError(t, err)
	b := make([]byte, 12+binary.LittleEndian.Uint32(h))
	copy(b, h)
	_, err = io.ReadFull(nc, b[12:])
	require.NoError(t, err)
	return b
}

func TestSimProtocolDocExample(t *testing.T) {
	ex := docExample(t)
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 2})
	nc, err := net.Dial("unix", s.Addr())
	require.NoError(t, err)
	defer nc.Close()

	_, err = nc.Write(ex["HELLO"])
	require.NoError(t, err)
	got := readFrame(t, nc)
	want := append([]byte{}, ex["HELLO_OK"]...)
	require.Len(t, got, len(want), "HELLO_OK: %x", got)
	// map_hash (payload bytes 16..24) is the register map's; cycle (24..32)
	// follows the RTL's power-on reset.
	assert.Equal(t, hw.Bar0Hash, binary.LittleEndian.Uint64(got[12+16:]), "map_hash")
	helloCycle := binary.LittleEndian.Uint64(got[12+24:])
	if doc := binary.LittleEndian.Uint64(want[12+24:]); helloCycle != doc {
		t.Logf("note: HELLO_OK cycle %d, the document shows %d (the RTL's reset timing changed?)", helloCycle, doc)
	}
	copy(want[12+16:12+32], got[12+16:12+32])
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got), "HELLO_OK")

	_, err = nc.Write(ex["MMIO_READ"])
	require.NoError(t, err)
	got = readFrame(t, nc)
	want = append([]byte{}, ex["READ_DATA"]...)
	require.Len(t, got, len(want), "READ_DATA: %x", got)
	readCycle := binary.LittleEndian.Uint64(got[12+16:])
	assert.Greater(t, readCycle, helloCycle, "the read took time")
	if doc := binary.LittleEndian.Uint64(want[12+16:]); readCycle-helloCycle != doc-binary.LittleEndian.Uint64(ex["HELLO_OK"][12+24:]) {
		t.Logf("note: the read took %d cycles; the document shows %d", readCycle-helloCycle,
			doc-binary.LittleEndian.Uint64(ex["HELLO_OK"][12+24:]))
	}
	copy(want[12+16:], got[12+16:])
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got), "READ_DATA")

	// A WAIT mem at an address that is not a multiple of the word size is
	// answered aborted, and the connection stays open.
	w := make([]byte, 12+36)
	binary.LittleEndian.PutUint32(w[0:], 36)
	binary.LittleEndian.PutUint16(w[4:], 0x05)
	binary.LittleEndian.PutUint32(w[8:], 3)
	w[12], w[13] = 2, 4                             // mem, 4 bytes
	binary.LittleEndian.PutUint64(w[12+12:], 0x102) // addr
	binary.LittleEndian.PutUint64(w[12+20:], 0xffffffff)
	binary.LittleEndian.PutUint64(w[12+28:], 1)
	_, err = nc.Write(w)
	require.NoError(t, err)
	got = readFrame(t, nc)
	assert.Equal(t, uint16(0x85), binary.LittleEndian.Uint16(got[4:]), "WAIT_DONE")
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(got[8:]), "tag")
	assert.Equal(t, uint16(3), binary.LittleEndian.Uint16(got[12:]), "status aborted")
	assert.Contains(t, string(got[12+24:]), "not a multiple of its size")

	// CANCEL of a tag that is not outstanding: ignored, no answer; the next
	// request is answered.
	c := make([]byte, 12+8)
	binary.LittleEndian.PutUint32(c[0:], 8)
	binary.LittleEndian.PutUint16(c[4:], 0x0C)
	binary.LittleEndian.PutUint32(c[12:], 77)
	_, err = nc.Write(append(c, ex["MMIO_READ"]...))
	require.NoError(t, err)
	got = readFrame(t, nc)
	assert.Equal(t, uint16(0x83), binary.LittleEndian.Uint16(got[4:]), "READ_DATA, nothing before it")
}
