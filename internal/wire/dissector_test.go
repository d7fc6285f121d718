package wire

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/pcap"
)

// requireTshark fails the test when tshark is missing (make deps installs
// it), unless VIANIC_NO_HDL=1 says this machine does Go work only.
func requireTshark(t *testing.T) string {
	t.Helper()
	if os.Getenv("VIANIC_NO_HDL") == "1" {
		t.Skip("VIANIC_NO_HDL=1: skipping a test that needs tshark")
	}
	p, err := exec.LookPath("tshark")
	if err != nil {
		t.Fatal("tshark is not installed: run `make deps` (or set VIANIC_NO_HDL=1 to skip the tool tests)")
	}
	return p
}

// dissectorFields are the fields the test reads back, in tshark's -e order.
var dissectorFields = []string{
	"frame.time_epoch", "eth.type",
	"vianic.hdr.dst_node", "vianic.hdr.src_node", "vianic.hdr.dst_vi", "vianic.hdr.src_vi",
	"vianic.hdr.kind", "vianic.hdr.flags", "vianic.hdr.seq", "vianic.hdr.msg_len", "vianic.hdr.offset",
	"vianic.hdr.seg_len", "vianic.hdr.immediate", "vianic.trl.crc", "vianic.trl.status", "vianic.trl.crc_good",
	"vianic.cm.op", "vianic.cm.discriminator", "vianic.cm.max_transfer", "vianic.cm.reliability", "vianic.cm.conn_id",
	"vianic.rdma.remote_va", "vianic.rdma.remote_handle", "vianic.rdma.tag", "vianic.payload", "_ws.col.Info",
}

// A capture of every kind of frame, decoded by tshark with the generated
// dissector: every field of every frame matches what was written.
func TestDissectorDecodesCapture(t *testing.T) {
	tshark := requireTshark(t)
	lua, err := filepath.Abs(filepath.Join("..", "..", "sim-scripts", "wireshark", "vianic.lua"))
	require.NoError(t, err)
	require.FileExists(t, lua)

	msg := make([]byte, 10000)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	var frames []*Frame
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 1, SrcNode: 0, DstVi: 3, SrcVi: 2, Kind: hw.WireKindSend,
		Flags: 7, Seq: 5, MsgLen: 8, SegLen: 8, Immediate: 0xfeedbeef}, Payload: []byte("8 bytes!")})
	for off := 0; off < len(msg); off += hw.WireMtu {
		n := min(hw.WireMtu, len(msg)-off)
		var fl uint8
		if off == 0 {
			fl |= 1
		}
		if off+n == len(msg) {
			fl |= 2
		}
		frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 2, SrcNode: 3, DstVi: 60, SrcVi: 61, Kind: hw.WireKindSend,
			Flags: fl, Seq: 9, MsgLen: uint32(len(msg)), Offset: uint32(off), SegLen: uint16(n)}, Payload: msg[off : off+n]})
	}
	cm := hw.WireCm{Op: hw.WireCmOpRequest, DiscLen: 4, Reliability: 2, MaxTransfer: 65536, Discriminator: 0x64636261, ConnId: 77}
	cmb := make([]byte, hw.WireCmBytes)
	cm.Marshal(cmb)
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 0, SrcNode: 1, DstVi: 0xffff, SrcVi: 0xffff, Kind: hw.WireKindConnect,
		Flags: 3, MsgLen: hw.WireCmBytes, SegLen: hw.WireCmBytes}, Payload: cmb})
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 1, SrcNode: 0, DstVi: 4, SrcVi: 4, Kind: hw.WireKindRdmaWrite,
		Flags: 3, Seq: 1, MsgLen: 16, SegLen: 16}, Rdma: &hw.WireRdma{RemoteVa: 0x7f0012345000, RemoteHandle: 0x30005},
		Payload: bytes.Repeat([]byte{0xaa}, 16)})
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 1, SrcNode: 0, DstVi: 3, SrcVi: 2, Kind: hw.WireKindSend,
		Flags: 3, Seq: 6, MsgLen: 4, SegLen: 4}, Payload: []byte{1, 2, 3, 4}})
	const corrupt = 6 // index of the frame whose payload is hit after its CRC
	// RDMA read: a request (no payload, the read's length as immediate data)
	// and a response segment, both with the extension and the tag
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 2, SrcNode: 1, DstVi: 5, SrcVi: 6, Kind: hw.WireKindRdmaReadReq,
		Flags: 7, Seq: 2, Immediate: 8192}, Rdma: &hw.WireRdma{RemoteVa: 0x7f00abcd0000, RemoteHandle: 0x40007, Tag: 0x1234}})
	frames = append(frames, &Frame{Hdr: hw.WireHdr{DstNode: 1, SrcNode: 2, DstVi: 6, SrcVi: 5, Kind: hw.WireKindRdmaReadResp,
		Flags: 2, Seq: 3, MsgLen: 4096 + 24, Offset: 4096, SegLen: 24}, Rdma: &hw.WireRdma{RemoteVa: 4096, Tag: 0x1234},
		Payload: bytes.Repeat([]byte{0x5c}, 24)})

	path := filepath.Join(t.TempDir(), "wire.pcap")
	fh, err := os.Create(path)
	require.NoError(t, err)
	w, err := pcap.NewWriter(fh)
	require.NoError(t, err)
	var raw [][]byte
	for i, f := range frames {
		b := f.Bytes()
		if i == corrupt {
			b[hw.WireHdrBytes+1] ^= 0xff
		}
		raw = append(raw, b)
		require.NoError(t, w.Write(pcap.Packet{Nanos: uint64(1000 + 4*i), Data: EthernetBytes(b)}))
	}
	require.NoError(t, fh.Close())

	args := []string{"-r", path, "-X", "lua_script:" + lua, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"}
	for _, f := range dissectorFields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(tshark, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no personal Wireshark settings
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "tshark: %s", stderr.String())
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Len(t, lines, len(frames), "one line per frame:\n%s\n%s", out, stderr.String())

	for i, line := range lines {
		col := strings.Split(line, "|")
		require.Len(t, col, len(dissectorFields), "frame %d: %q", i, line)
		get := func(name string) string {
			for k, f := range dissectorFields {
				if f == name {
					return col[k]
				}
			}
			t.Fatalf("no field %s", name)
			return ""
		}
		num := func(name string) uint64 {
			v, err := strconv.ParseUint(get(name), 0, 64)
			require.NoError(t, err, "frame %d field %s = %q", i, name, get(name))
			return v
		}
		f := frames[i]
		h := f.Hdr
		ctx := fmt.Sprintf("frame %d", i)
		assert.Equal(t, "0x88b5", get("eth.type"), ctx)
		assert.Equal(t, fmt.Sprintf("0.%09d", 1000+4*i), get("frame.time_epoch"), ctx+": simulated timestamp")
		assert.Equal(t, uint64(h.DstNode), num("vianic.hdr.dst_node"), ctx)
		assert.Equal(t, uint64(h.SrcNode), num("vianic.hdr.src_node"), ctx)
		assert.Equal(t, uint64(h.DstVi), num("vianic.hdr.dst_vi"), ctx)
		assert.Equal(t, uint64(h.SrcVi), num("vianic.hdr.src_vi"), ctx)
		assert.Equal(t, uint64(h.Kind), num("vianic.hdr.kind"), ctx)
		assert.Equal(t, uint64(h.Flags), num("vianic.hdr.flags"), ctx)
		assert.Equal(t, uint64(h.Seq), num("vianic.hdr.seq"), ctx)
		assert.Equal(t, uint64(h.MsgLen), num("vianic.hdr.msg_len"), ctx)
		assert.Equal(t, uint64(h.Offset), num("vianic.hdr.offset"), ctx)
		assert.Equal(t, uint64(h.SegLen), num("vianic.hdr.seg_len"), ctx)
		assert.Equal(t, uint64(h.Immediate), num("vianic.hdr.immediate"), ctx)
		b := raw[i]
		crc := uint64(b[len(b)-8]) | uint64(b[len(b)-7])<<8 | uint64(b[len(b)-6])<<16 | uint64(b[len(b)-5])<<24
		assert.Equal(t, crc, num("vianic.trl.crc"), ctx)
		assert.Equal(t, uint64(0), num("vianic.trl.status"), ctx)
		good := get("vianic.trl.crc_good")
		if i == corrupt {
			assert.Contains(t, []string{"0", "False"}, good, ctx+": a corrupted frame's CRC is bad")
			assert.Contains(t, get("_ws.col.Info"), "[bad CRC]", ctx)
		} else {
			assert.Contains(t, []string{"1", "True"}, good, ctx+": CRC good")
		}
		switch h.Kind {
		case hw.WireKindConnect:
			assert.Equal(t, uint64(cm.Op), num("vianic.cm.op"), ctx)
			assert.Equal(t, cm.Discriminator, num("vianic.cm.discriminator"), ctx)
			assert.Equal(t, uint64(cm.MaxTransfer), num("vianic.cm.max_transfer"), ctx)
			assert.Equal(t, uint64(cm.Reliability), num("vianic.cm.reliability"), ctx)
			assert.Equal(t, uint64(cm.ConnId), num("vianic.cm.conn_id"), ctx)
			assert.Empty(t, get("vianic.payload"), ctx+": a CONNECT payload is decoded, not shown as bytes")
			assert.Contains(t, get("_ws.col.Info"), "CONNECT REQUEST", ctx, "the operation in the Info column")
		case hw.WireKindRdmaWrite, hw.WireKindRdmaReadReq, hw.WireKindRdmaReadResp:
			assert.Equal(t, f.Rdma.RemoteVa, num("vianic.rdma.remote_va"), ctx)
			assert.Equal(t, uint64(f.Rdma.RemoteHandle), num("vianic.rdma.remote_handle"), ctx)
			assert.Equal(t, uint64(f.Rdma.Tag), num("vianic.rdma.tag"), ctx)
			assert.Contains(t, get("_ws.col.Info"), hw.WireKind(h.Kind).String()+" ", ctx)
		default:
			assert.Empty(t, get("vianic.rdma.remote_va"), ctx)
			assert.Contains(t, get("_ws.col.Info"), "SEND", ctx)
		}
		if h.Kind != hw.WireKindConnect {
			want := f.Payload
			if i == corrupt {
				want = append([]byte{}, want...)
				want[1] ^= 0xff
			}
			assert.Equal(t, fmt.Sprintf("%x", want), strings.ReplaceAll(get("vianic.payload"), ":", ""), ctx+": payload bytes")
		}
	}
}
