package vcd_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeSynthetic writes a dump of at least size bytes to w: a few hundred
// signals, among them 512-bit buses, with random changes. It returns the
// number of value changes written.
func writeSynthetic(w io.Writer, size int64) (int64, error) {
	cw := &countingWriter{w: w}
	vw, err := vcd.NewWriter(cw, "1ps")
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var hs []vcd.Handle
	var widths []int
	for s := 0; s < 8; s++ {
		vw.Scope(fmt.Sprintf("blk%d", s))
		for i := 0; i < 40; i++ {
			width := []int{1, 1, 1, 8, 32, 64, 512}[i%7]
			h, err := vw.Wire(fmt.Sprintf("sig%d", i), width)
			if err != nil {
				return 0, err
			}
			hs, widths = append(hs, h), append(widths, width)
		}
		vw.Up()
	}
	words := make([]uint64, 8)
	var changes int64
	for t := uint64(0); cw.n < size; t += 5 {
		if err := vw.Time(t); err != nil {
			return changes, err
		}
		for k := 0; k < 20; k++ {
			i := rng.IntN(len(hs))
			if widths[i] == 512 {
				for j := range words {
					words[j] = rng.Uint64()
				}
				err = vw.SetWords(hs[i], words)
			} else {
				err = vw.Set(hs[i], rng.Uint64())
			}
			if err != nil {
				return changes, err
			}
			changes++
		}
	}
	return changes, vw.Close()
}

// TestReaderMemoryBounded streams a 50 MB dump, generated on the fly and
// never stored, through the Reader and checks that the live heap does not
// grow with the length of the dump.
func TestReaderMemoryBounded(t *testing.T) {
	const size = 50 << 20
	pr, pw := io.Pipe()
	go func() {
		_, err := writeSynthetic(pw, size)
		pw.CloseWithError(err)
	}()
	r, err := vcd.NewReader(pr)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	var events, bits int64
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		events++
		bits += int64(len(ev.Value))
		if events%(1<<18) == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if events < 400_000 {
		t.Fatalf("only %d events: the dump is too small for the test to mean anything", events)
	}
	growth := int64(peak) - int64(base)
	t.Logf("%d events, %d value bits; live heap %.2f MB after the declarations, peak growth %+.2f MB",
		events, bits, float64(base)/(1<<20), float64(growth)/(1<<20))
	if growth > 4<<20 {
		t.Errorf("live heap grew by %.1f MB while streaming a %d MB dump", float64(growth)/(1<<20), size>>20)
	}
}
