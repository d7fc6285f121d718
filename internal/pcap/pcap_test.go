package pcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	require.NoError(t, err)
	in := []Packet{{Nanos: 4, Data: []byte{1, 2, 3}}, {Nanos: 3_000_000_007, Data: bytes.Repeat([]byte{9}, 1500)}, {Nanos: 5_000_000_000}}
	for _, p := range in {
		require.NoError(t, w.Write(p))
	}
	out, err := Read(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	require.Len(t, out, len(in))
	for i := range in {
		assert.Equal(t, in[i].Nanos, out[i].Nanos)
		assert.Equal(t, len(in[i].Data), len(out[i].Data))
		assert.True(t, bytes.Equal(in[i].Data, out[i].Data))
	}
	assert.Equal(t, uint32(MagicNanos), binary.LittleEndian.Uint32(buf.Bytes()))
}

func TestBadInput(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	require.NoError(t, err)
	assert.Error(t, w.Write(Packet{Data: make([]byte, SnapLen+1)}), "longer than the snap length")

	_, err = Read(bytes.NewReader([]byte{1, 2, 3}))
	assert.True(t, errors.Is(err, ErrFormat), "short file: %v", err)
	bad := append([]byte{}, buf.Bytes()...)
	binary.LittleEndian.PutUint32(bad, 0x12345678)
	_, err = Read(bytes.NewReader(bad))
	assert.True(t, errors.Is(err, ErrFormat), "bad magic: %v", err)

	// a truncated packet: the packets before it come back with an error
	buf.Reset()
	w, _ = NewWriter(&buf)
	require.NoError(t, w.Write(Packet{Nanos: 1, Data: []byte{1, 2}}))
	require.NoError(t, w.Write(Packet{Nanos: 2, Data: []byte{3, 4, 5, 6}}))
	out, err := Read(bytes.NewReader(buf.Bytes()[:buf.Len()-2]))
	assert.Error(t, err)
	assert.Len(t, out, 1)
}
