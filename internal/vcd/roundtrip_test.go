package vcd_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

// model is what a test expects a variable to hold.
type model struct {
	name  string
	width int
	real  bool
	h     vcd.Handle
	bits  string
	r     float64
}

func (m *model) value() string {
	if m.real {
		return fmt.Sprintf("r%x", math.Float64bits(m.r))
	}
	return m.bits
}

// extendBits applies the VCD extension rule to s for width w.
func extendBits(s string, w int) string {
	s = strings.ToLower(s)
	fill := "0"
	if s[0] != '1' {
		fill = s[:1]
	}
	return strings.Repeat(fill, w-len(s)) + s
}

func uintBits(x uint64, w int) string {
	var b strings.Builder
	for i := w - 1; i >= 0; i-- {
		if i < 64 && x>>uint(i)&1 == 1 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func randBits(rng *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// TestRoundTrip writes random hierarchies and values and checks that the
// reader sees exactly the writer's state at every time step, with no
// redundant changes and no empty time steps.
func TestRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { roundTrip(t, seed) })
	}
}

func roundTrip(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	var buf bytes.Buffer
	w, err := vcd.NewWriter(&buf, "1ns")
	if err != nil {
		t.Fatal(err)
	}
	var vars []*model
	var path []string
	nvars := 1 + rng.IntN(300)
	for len(vars) < nvars {
		switch op := rng.IntN(10); {
		case op == 0:
			name := fmt.Sprintf("s%d", rng.IntN(1000))
			// Scope names must be unique among siblings; a suffix does it.
			name += fmt.Sprintf("_%d", len(vars))
			if err := w.Scope(name); err != nil {
				t.Fatal(err)
			}
			path = append(path, name)
		case op == 1 && len(path) > 0:
			if err := w.Up(); err != nil {
				t.Fatal(err)
			}
			path = path[:len(path)-1]
		default:
			m := &model{name: strings.Join(append(path[:len(path):len(path)], fmt.Sprintf("v%d", len(vars))), ".")}
			local := m.name[strings.LastIndex(m.name, ".")+1:]
			switch k := rng.IntN(10); {
			case k == 0:
				m.real = true
				m.h, err = w.Real(local)
			case k < 4:
				m.width = 1
				m.h, err = w.Wire(local, 1)
			default:
				widths := []int{2, 7, 8, 32, 63, 64, 65, 100, 128, 200, 512}
				m.width = widths[rng.IntN(len(widths))]
				m.h, err = w.Reg(local, m.width)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !m.real {
				m.bits = strings.Repeat("x", m.width)
			}
			vars = append(vars, m)
		}
	}

	// snapshots[i] is the state after time times[i].
	var times []uint64
	var snapshots [][]string
	snap := func() []string {
		s := make([]string, len(vars))
		for i, m := range vars {
			s[i] = m.value()
		}
		return s
	}
	now := uint64(rng.IntN(5))
	if err := w.Time(now); err != nil {
		t.Fatal(err)
	}
	steps := 50 + rng.IntN(200)
	for step := 0; step < steps; step++ {
		for n := rng.IntN(8); n > 0; n-- {
			m := vars[rng.IntN(len(vars))]
			if err := setRandom(w, rng, m); err != nil {
				t.Fatal(err)
			}
		}
		if len(times) > 0 && times[len(times)-1] == now {
			snapshots[len(snapshots)-1] = snap()
		} else {
			times = append(times, now)
			snapshots = append(snapshots, snap())
		}
		now += uint64(rng.IntN(4)) // 0: the same time step again
		if err := w.Time(now); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := vcd.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Vars()) != len(vars) {
		t.Fatalf("read %d vars, wrote %d", len(r.Vars()), len(vars))
	}
	idx := make([]int, len(r.Signals())) // signal index -> model index
	for i, m := range vars {
		v := r.Lookup(m.name)
		if v == nil {
			t.Fatalf("Lookup(%q) = nil", m.name)
		}
		wantW := m.width
		if m.real {
			wantW = 64
		}
		if v.Width != wantW {
			t.Fatalf("%s: width %d, want %d", m.name, v.Width, wantW)
		}
		idx[v.Signal.Index] = i
	}
	state := make([]string, len(vars))
	for i, m := range vars {
		if m.real {
			state[i] = fmt.Sprintf("r%x", math.Float64bits(0))
		} else {
			state[i] = strings.Repeat("x", m.width)
		}
	}
	// Steps the writer left out must not differ from the step before.
	prev := append([]string(nil), state...)
	si := 0       // next snapshot to match
	first := true // in the $dumpvars step
	changes := -1 // changes in the current step; -1 before the first step
	var cur uint64
	endStep := func(t *testing.T) {
		for ; si < len(times) && times[si] < cur; si++ {
			if !first && fmt.Sprint(snapshots[si]) != fmt.Sprint(prev) {
				t.Fatalf("time %d changed values but is not in the dump", times[si])
			}
		}
		if si == len(times) || times[si] != cur {
			t.Fatalf("dump has time %d, which the writer never used", cur)
		}
		for i := range vars {
			if state[i] != snapshots[si][i] {
				t.Fatalf("at time %d %s = %s, want %s", cur, vars[i].name, state[i], snapshots[si][i])
			}
		}
		si++
		first = false
		copy(prev, state)
	}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case vcd.TimeStep:
			if changes == 0 {
				t.Fatalf("empty time step before #%d", ev.Time)
			}
			if changes > 0 {
				endStep(t)
			}
			cur, changes = ev.Time, 0
		case vcd.ValueChange:
			i := idx[ev.Signal.Index]
			var v string
			if ev.Value == nil {
				v = fmt.Sprintf("r%x", math.Float64bits(ev.Real))
			} else {
				v = string(ev.Value)
			}
			if v == state[i] && !first {
				t.Fatalf("at time %d: redundant change of %s to %s", cur, vars[i].name, v)
			}
			state[i] = v
			changes++
		default:
			t.Fatalf("unexpected event %v", ev.Kind)
		}
	}
	if changes <= 0 {
		t.Fatal("dump ends with an empty time step")
	}
	endStep(t)
	for ; si < len(times); si++ {
		if fmt.Sprint(snapshots[si]) != fmt.Sprint(prev) {
			t.Fatalf("time %d changed values but is not in the dump", times[si])
		}
	}
}

func setRandom(w *vcd.Writer, rng *rand.Rand, m *model) error {
	if m.real {
		f := []float64{0, 1.5, -2.25e-9, math.Inf(1), math.MaxFloat64, rng.NormFloat64()}[rng.IntN(6)]
		m.r = f
		return w.SetReal(m.h, f)
	}
	switch rng.IntN(4) {
	case 0:
		x := rng.Uint64()
		if rng.IntN(2) == 0 {
			x &= 3 // small values repeat often, exercising elision
		}
		m.bits = uintBits(x, m.width)
		return w.Set(m.h, x)
	case 1:
		words := make([]uint64, rng.IntN(m.width/64+3))
		for i := range words {
			words[i] = rng.Uint64()
		}
		var b strings.Builder
		for i := m.width - 1; i >= 0; i-- {
			if i/64 < len(words) && words[i/64]>>uint(i%64)&1 == 1 {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		m.bits = b.String()
		return w.SetWords(m.h, words)
	default:
		s := randBits(rng, 1+rng.IntN(m.width), []string{"01", "01xz", "xXzZ01", "x", "z"}[rng.IntN(5)])
		m.bits = extendBits(s, m.width)
		return w.SetBits(m.h, s)
	}
}

// TestWideVectors checks vectors far wider than 64 bits, including one
// wider than the reader's initial buffer.
func TestWideVectors(t *testing.T) {
	widths := []int{64, 65, 127, 512, 4096, 200_000}
	var buf bytes.Buffer
	w, _ := vcd.NewWriter(&buf, "1ps")
	hs := make([]vcd.Handle, len(widths))
	for i, n := range widths {
		var err error
		if hs[i], err = w.Wire(fmt.Sprintf("bus%d", n), n); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	want := make([][][]uint64, len(widths)) // per var, per step: words
	for step := 0; step < 4; step++ {
		if err := w.Time(uint64(step)); err != nil {
			t.Fatal(err)
		}
		for i, n := range widths {
			words := make([]uint64, (n+63)/64)
			for j := range words {
				words[j] = rng.Uint64()
			}
			if n%64 != 0 {
				words[len(words)-1] &= 1<<uint(n%64) - 1
			}
			words[len(words)-1] |= 1 << uint((n-1)%64) // top bit set: no compression
			if step == 2 {
				// Top bit clear: the writer shortens the value and the
				// reader must extend it back.
				words[len(words)-1] &^= 1 << uint((n-1)%64)
			}
			want[i] = append(want[i], words)
			if err := w.SetWords(hs[i], words); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Time(4)
	for i := range widths {
		if err := w.SetBits(hs[i], "z"); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := vcd.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(widths))
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != vcd.ValueChange {
			continue
		}
		i := ev.Signal.Index
		if len(ev.Value) != widths[i] {
			t.Fatalf("bus%d: value of %d bits", widths[i], len(ev.Value))
		}
		if ev.Time == 4 {
			if strings.Trim(string(ev.Value), "z") != "" {
				t.Errorf("bus%d: not all z at time 4", widths[i])
			}
			seen[i]++
			continue
		}
		got, ok := ev.Value.AppendWords(nil)
		if !ok {
			t.Fatalf("bus%d: unknown bits", widths[i])
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i][ev.Time]) {
			t.Errorf("bus%d at %d: words differ", widths[i], ev.Time)
		}
		seen[i]++
	}
	for i, n := range seen {
		if n != 5 {
			t.Errorf("bus%d: %d changes, want 5", widths[i], n)
		}
	}
}
