package vcd_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

// The hot paths, setting values and reading events, must not allocate.
func TestHotPathsDoNotAllocate(t *testing.T) {
	w, _ := vcd.NewWriter(io.Discard, "1ns")
	a, _ := w.Wire("a", 1)
	b, _ := w.Wire("b", 64)
	c, _ := w.Wire("c", 300)
	words := []uint64{1, 2, 3, 4, 5}
	now := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now++
		w.Time(now)
		w.Set(a, now&1)
		w.Set(b, now)
		words[0] = now
		w.SetWords(c, words)
		w.SetBits(c, "x1z")
	})
	if allocs != 0 {
		t.Errorf("Writer: %v allocations per time step", allocs)
	}

	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 4<<20); err != nil {
		t.Fatal(err)
	}
	r, err := vcd.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		for i := 0; i < 100; i++ {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Reader: %v allocations per 100 events", allocs)
	}
}

func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 16<<20); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		r, err := vcd.NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReaderSelectOne(b *testing.B) {
	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 16<<20); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		r, err := vcd.NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		r.Select(r.Lookup("blk3.sig6").Signal)
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkWriter(b *testing.B) {
	var n countingWriter
	n.w = io.Discard
	b.ReportAllocs()
	for b.Loop() {
		n.n = 0
		if _, err := writeSynthetic(&n, 16<<20); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(n.n)
}
