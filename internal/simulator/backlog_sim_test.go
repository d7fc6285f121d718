package simulator_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
	"github.com/vianic/vianic/internal/simulator/simtest"
)

// TestSimConnectBurst: 200 clients dial at once while the simulator is not
// accepting (stopped with SIGSTOP), so every connect waits in the listen
// backlog. With a backlog of 64 most of them failed with EAGAIN (Go's Dial
// does not retry a Unix socket connect); with the system's maximum all are
// queued, and once the simulator runs again all 200 complete the handshake.
func TestSimConnectBurst(t *testing.T) {
	const n = 200
	s := simtest.StartSim(t, simulator.SimOptions{Nodes: 1})
	require.NoError(t, s.Signal(syscall.SIGSTOP))
	stopped := true
	defer func() {
		if stopped {
			s.Signal(syscall.SIGCONT)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conns := make([]*cosim.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i], errs[i] = s.Dial(ctx, cosim.Options{Role: cosim.RoleMonitor, Name: fmt.Sprintf("burst%d", i)})
		}()
	}
	// let every connect reach the backlog before the simulator accepts
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, s.Signal(syscall.SIGCONT))
	stopped = false
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			if failed < 5 {
				t.Errorf("client %d: %v", i, err)
			}
			failed++
			continue
		}
		defer conns[i].Close()
	}
	require.Zero(t, failed, "%d of %d simultaneous connects failed", failed, n)
	v, err := conns[n-1].Read32(ctx, hw.RegMagic)
	require.NoError(t, err)
	require.Equal(t, uint32(hw.Magic), v)
}
