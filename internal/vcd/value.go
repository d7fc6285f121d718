package vcd

// Value is the value of a scalar or vector variable: one byte per bit, most
// significant bit first, each '0', '1', 'x' or 'z'. Values that Reader
// returns always have exactly the width of their signal.
type Value []byte

// Bit returns bit i of v, counted from the least significant bit (0), as
// '0', '1', 'x' or 'z'. Bits beyond the width of v read as '0'.
func (v Value) Bit(i int) byte {
	if i < 0 || i >= len(v) {
		return '0'
	}
	return v[len(v)-1-i]
}

// Known reports whether every bit of v is 0 or 1.
func (v Value) Known() bool {
	for _, c := range v {
		if c != '0' && c != '1' {
			return false
		}
	}
	return true
}

// Uint64 returns the low 64 bits of v as an integer. The boolean is false
// if any bit of v, including bits above the low 64, is x or z; such bits
// count as 0 in the result.
func (v Value) Uint64() (uint64, bool) {
	var x uint64
	ok := true
	n := len(v)
	for i, c := range v {
		switch c {
		case '1':
			if n-1-i < 64 {
				x |= 1 << uint(n-1-i)
			}
		case '0':
		default:
			ok = false
		}
	}
	return x, ok
}

// AppendWords appends v to dst as 64-bit words, least significant word
// first, and returns the extended slice. The boolean is false if any bit is
// x or z; such bits count as 0.
func (v Value) AppendWords(dst []uint64) ([]uint64, bool) {
	ok := true
	n := len(v)
	words := (n + 63) / 64
	base := len(dst)
	for i := 0; i < words; i++ {
		dst = append(dst, 0)
	}
	for i, c := range v {
		bit := n - 1 - i
		switch c {
		case '1':
			dst[base+bit/64] |= 1 << uint(bit%64)
		case '0':
		default:
			ok = false
		}
	}
	return dst, ok
}

// String returns v as a string of '0', '1', 'x' and 'z', most significant
// bit first.
func (v Value) String() string { return string(v) }

// extend writes into dst (len(dst) == width) the value src left-extended as
// the VCD format defines: a leading 0, x or z fills the missing high bits
// with itself, a leading 1 with 0. src must not be longer than dst.
func extend(dst, src []byte) {
	pad := len(dst) - len(src)
	fill := byte('0')
	if len(src) > 0 && src[0] != '1' {
		fill = src[0]
	}
	for i := 0; i < pad; i++ {
		dst[i] = fill
	}
	copy(dst[pad:], src)
}

// normBit maps a 4-state character of a dump to its canonical lower-case
// form, or returns 0 if c is not one.
func normBit(c byte) byte {
	switch c {
	case '0', '1', 'x', 'z':
		return c
	case 'X':
		return 'x'
	case 'Z':
		return 'z'
	}
	return 0
}
