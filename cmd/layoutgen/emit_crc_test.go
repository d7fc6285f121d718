package main

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// The generated parallel update, fed 1..8 bytes at a time, gives the
// standard CRC-32 of any byte string.
func TestCRCMasksMatchCRC32(t *testing.T) {
	const poly = 0xEDB88320
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		data := make([]byte, rng.IntN(100))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		c := uint32(0xFFFFFFFF)
		for off := 0; off < len(data); {
			n := min(1+rng.IntN(8), len(data)-off)
			var d uint64
			for k := 0; k < n; k++ {
				d |= uint64(data[off+k]) << (8 * k)
			}
			d |= rng.Uint64() << (8 * n) & ^(uint64(1)<<(8*n) - 1) // junk above n bytes is ignored
			if n == 8 {
				d = 0
				for k := 0; k < 8; k++ {
					d |= uint64(data[off+k]) << (8 * k)
				}
			}
			c = crcStep(poly, c, d, n)
			off += n
		}
		if got, want := ^c, crc32.ChecksumIEEE(data); got != want {
			t.Fatalf("trial %d (%d bytes): 0x%08x, want 0x%08x", trial, len(data), got, want)
		}
	}
	// the check value of CRC-32
	c := uint32(0xFFFFFFFF)
	c = crcStep(poly, c, 0x3837363534333231, 8) // "12345678"
	c = crcStep(poly, c, 0x39, 1)               // "9"
	if ^c != 0xCBF43926 {
		t.Fatalf("CRC-32(\"123456789\") = 0x%08x", ^c)
	}
}
