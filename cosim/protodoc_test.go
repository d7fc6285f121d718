package cosim

// The worked example of docs/cosim-protocol.md against this package's
// encoder and decoder, byte for byte (internal/simulator/protodoc_sim_test.go replays it
// against a real simulator).

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var docBlock = regexp.MustCompile("(?s)```hex ([A-Z_]+)\n(.*?)```")

// protocolDocExample returns the hex blocks of the protocol document's
// worked example, by message name, as bytes.
func protocolDocExample(t testing.TB, root string) map[string][]byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "cosim-protocol.md"))
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, m := range docBlock.FindAllSubmatch(doc, -1) {
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

func TestProtocolDocExample(t *testing.T) {
	ex := protocolDocExample(t, "..")
	for _, name := range []string{"HELLO", "HELLO_OK", "MMIO_READ", "READ_DATA"} {
		require.Contains(t, ex, name, "docs/cosim-protocol.md has no ```hex %s block", name)
	}
	assert.Equal(t, hex.EncodeToString(appendHello(nil, 1, helloMsg{Role: RoleDriver, Node: 0, Name: "example"})),
		hex.EncodeToString(ex["HELLO"]), "HELLO")
	assert.Equal(t, hex.EncodeToString(appendMMIORead(nil, 2, 0, 4)), hex.EncodeToString(ex["MMIO_READ"]), "MMIO_READ")

	m, n, err := nextMsg(ex["HELLO_OK"])
	require.NoError(t, err)
	require.Equal(t, len(ex["HELLO_OK"]), n, "HELLO_OK is one whole message")
	assert.Equal(t, msgHelloOK, m.Type)
	assert.Equal(t, uint32(1), m.Tag)
	assert.Equal(t, Device{Major: 1, Minor: ProtocolMinor, Nodes: 2, IRQs: 16, BARBytes: 0x100000, ClockPS: 4000,
		MapHash: 0xb02fb9f28ffe9a00, Cycle: 12, Mode: ModeLockstep, ClientID: 1, DataWidth: 64}, m.Hello)
	// Every byte, pads included: rebuilt field by field.
	p := make([]byte, helloOKSize)
	le.PutUint16(p[0:], 1)
	le.PutUint16(p[2:], ProtocolMinor)
	le.PutUint16(p[4:], 2)
	le.PutUint16(p[6:], 16)
	le.PutUint32(p[8:], 0x100000)
	le.PutUint32(p[12:], 4000)
	le.PutUint64(p[16:], 0xb02fb9f28ffe9a00)
	le.PutUint64(p[24:], 12)
	p[32] = byte(ModeLockstep)
	le.PutUint32(p[36:], 1)
	le.PutUint32(p[40:], 64)
	assert.True(t, bytes.Equal(frame(msgHelloOK, 1, p), ex["HELLO_OK"]), "HELLO_OK bytes")

	m, n, err = nextMsg(ex["READ_DATA"])
	require.NoError(t, err)
	require.Equal(t, len(ex["READ_DATA"]), n, "READ_DATA is one whole message")
	assert.Equal(t, msg{Type: msgReadData, Tag: 2, Status: readOK, Value: 0x5649414e, Cycle: 15}, m)
	p = make([]byte, readDataSize)
	le.PutUint64(p[8:], 0x5649414e)
	le.PutUint64(p[16:], 15)
	assert.True(t, bytes.Equal(frame(msgReadData, 2, p), ex["READ_DATA"]), "READ_DATA bytes")
}
