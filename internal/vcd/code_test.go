package vcd

import "testing"

func TestCode(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "!"}, {1, `"`}, {93, "~"}, {94, "!!"}, {95, `"!`}, {94 + 93, "~!"}, {94 + 94, `!"`},
		{94 + 94*94 - 1, "~~"}, {94 + 94*94, "!!!"},
	}
	for _, tt := range tests {
		if got := code(tt.n); got != tt.want {
			t.Errorf("code(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	seen := make(map[string]bool)
	for n := 0; n < 94+94*94+1000; n++ {
		c := code(n)
		if seen[c] {
			t.Fatalf("code(%d) = %q repeats", n, c)
		}
		seen[c] = true
		for i := 0; i < len(c); i++ {
			if c[i] < 33 || c[i] > 126 {
				t.Fatalf("code(%d) = %q has a byte outside 33..126", n, c)
			}
		}
	}
}

func TestCompress(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0", "0"}, {"1", "1"}, {"0000", "0"}, {"0001", "1"}, {"0010", "10"}, {"00x1", "0x1"},
		{"0z", "0z"}, {"xxxx", "x"}, {"xx01", "x01"}, {"zzz1", "z1"}, {"1000", "1000"}, {"x0", "x0"},
	} {
		got := string(compress([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("compress(%s) = %s, want %s", tt.in, got, tt.want)
		}
		back := make([]byte, len(tt.in))
		extend(back, []byte(got))
		if string(back) != tt.in {
			t.Errorf("extend(compress(%s)) = %s", tt.in, back)
		}
	}
}
