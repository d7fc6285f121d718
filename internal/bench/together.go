package bench

import (
	"context"
	"errors"
	"sync"

	"github.com/vianic/vianic/vipl"
)

// together runs fn(i) for i in [0, n) at once and returns when all are
// done. In lockstep a NIC that is open and not blocked on the simulator
// stops time for every client, so a goroutine whose fn is done parks its
// NIC (nic(i), asked for once fn(i) has returned; nil: nothing to park,
// such as an open that failed) until the last fn is done.
func together(ctx context.Context, n int, nic func(i int) *vipl.Nic, fn func(i int) error) error {
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make([]error, n)
	var mu sync.Mutex
	left := n
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = fn(i)
			mu.Lock()
			left--
			last := left == 0
			mu.Unlock()
			if last {
				stop()
				return
			}
			if c := nic(i); c != nil {
				if err := c.Park(pctx); err != nil && errs[i] == nil {
					errs[i] = err
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
