package simulator

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/vianic/vianic/cosim"
)

// Together runs fn(i) for every connection at once and returns when all
// are done. In lockstep mode time runs only while every client is blocked,
// so a connection whose fn is done keeps blocking on the simulator (one long
// Run) until the last fn is done, which cancels those Runs (the simulator
// withdraws a canceled Run, so the connection stops counting as blocked).
// Polling with short Runs instead races: a connection can stop blocking
// while another has just sent a Run that then waits for it forever.
func Together(ctx context.Context, conns []*cosim.Conn, fn func(i int)) {
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var left atomic.Int32
	left.Store(int32(len(conns)))
	for i := range conns {
		wg.Go(func() {
			fn(i)
			if left.Add(-1) == 0 {
				stop()
				return
			}
			conns[i].Run(rctx, 1<<40) //nolint:errcheck // ends canceled by the last fn
		})
	}
	wg.Wait()
}
