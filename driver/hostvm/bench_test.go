package hostvm

import (
	"fmt"
	"testing"
)

// BenchmarkAlloc: Alloc (scattered pages, one mmap per physically
// contiguous run) then Free, of buffers of 4 KiB, 1 MiB and 64 MiB in a
// 256 MiB memory. Pages are not touched.
func BenchmarkAlloc(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20, 64 << 20} {
		name := fmt.Sprintf("%dKiB", size>>10)
		if size >= 1<<20 {
			name = fmt.Sprintf("%dMiB", size>>20)
		}
		b.Run(name, func(b *testing.B) {
			p := newPhys(b, 256*MiB, PhysOptions{Seed: 1})
			s := newSpace(b, p, "bench", 512*MiB)
			b.SetBytes(int64(size))
			for b.Loop() {
				buf, err := s.Alloc(size)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Free(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTranslate: Translate of one page of a space holding 100
// buffers.
func BenchmarkTranslate(b *testing.B) {
	p := newPhys(b, 256*MiB, PhysOptions{Seed: 1})
	s := newSpace(b, p, "bench", 512*MiB)
	var bufs []*Buffer
	for i := 0; i < 100; i++ {
		bufs = append(bufs, mustAlloc(b, s, 64<<10))
	}
	i := 0
	for b.Loop() {
		if _, err := s.Translate(bufs[i%100].VA+100, 8); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
