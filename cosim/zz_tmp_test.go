package cosim

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"

	"github.com/vianic/vianic/cosim/hw"
)

func BenchmarkTmpPeerRead(b *testing.B) {
	addr := filepath.Join(b.TempDir(), "p.sock")
	ln, _ := net.Listen("unix", addr)
	defer ln.Close()
	go func() {
		nc, _ := ln.Accept()
		br := bufio.NewReader(nc)
		var hb [12]byte
		pl := make([]byte, 65536)
		out := make([]byte, 36)
		for {
			if _, err := io.ReadFull(br, hb[:]); err != nil {
				return
			}
			h := parseHeader(hb[:])
			io.ReadFull(br, pl[:h.Len])
			switch h.Type {
			case msgHello:
				nc.Write(frame(msgHelloOK, h.Tag, helloOKPayload(1, hw.Bar0Hash)))
			case msgMMIORead:
				putHeader(out, msgReadData, h.Tag, 24)
				nc.Write(out)
			}
		}
	}()
	c, err := Dial(context.Background(), "unix", addr, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if b.N > 0 {
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Read32(ctx, 0)
	}
}

func BenchmarkTmpPeerEcho(b *testing.B) {
	addr := filepath.Join(b.TempDir(), "p.sock")
	ln, _ := net.Listen("unix", addr)
	defer ln.Close()
	go func() {
		nc, _ := ln.Accept()
		buf := make([]byte, 20)
		for {
			if _, err := io.ReadFull(nc, buf); err != nil {
				return
			}
			nc.Write(buf)
		}
	}()
	nc, _ := net.Dial("unix", addr)
	defer nc.Close()
	buf := make([]byte, 20)
	for b.Loop() {
		nc.Write(buf)
		io.ReadFull(nc, buf)
	}
}
