package cosim

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
	"os/exec"
	"os"

	"github.com/vianic/vianic/cosim/hw"
)

func TestTmpReadPath(t *testing.T) {
	s, err := StartSimulator(context.Background(), SimOptions{Nodes: 1})
	if err != nil { t.Fatal(err) }
	defer s.Stop()
	dir := t.TempDir()
	cmd := exec.Command(EchoBinary("/work/main"), "--socket", dir+"/e.sock")
	cmd.Stdout = os.Stderr
	cmd.Start()
	defer cmd.Process.Kill()
	time.Sleep(200*time.Millisecond)
	ec, err := net.Dial("unix", dir+"/e.sock")
	if err != nil { t.Fatal(err) }
	ctx := context.Background()
	buf := make([]byte, 128)
	req := appendMMIORead(nil, 5, hw.RegMagic, 4)
	const N = 5000
	for round := 0; round < 3; round++ {
		t0 := time.Now()
		for i := 0; i < N; i++ {
			ec.Write(req); io.ReadFull(ec, buf[:20])
		}
		te := time.Since(t0)
		nc, err := net.Dial("unix", s.Addr())
		if err != nil { t.Fatal(err) }
		nc.Write(appendHello(nil, 1, helloMsg{Role: RoleDriver}))
		io.ReadFull(nc, buf[:60])
		t0 = time.Now()
		for i := 0; i < N; i++ {
			nc.Write(req); io.ReadFull(nc, buf[:36])
		}
		tr := time.Since(t0)
		nc.Close()
		time.Sleep(10*time.Millisecond)
		c, err := s.Dial(context.Background(), Options{})
		if err != nil { t.Fatal(err) }
		t0 = time.Now()
		for i := 0; i < N; i++ {
			c.Read32(ctx, hw.RegMagic)
		}
		tc := time.Since(t0)
		c.Close()
		time.Sleep(10*time.Millisecond)
		t.Logf("echo %.2fus  raw %.2fus conn %.2fus", te.Seconds()*1e6/N, tr.Seconds()*1e6/N, tc.Seconds()*1e6/N)
	}
}
