package vcd_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/vianic/vianic/internal/vcd"
)

// edgeSampler follows the signals selected on a Reader and, at every rising
// edge of a clock, reports the values the signals had just before the edge
// (at the end of the previous time step), which is what flip-flops sample.
type edgeSampler struct {
	r       *vcd.Reader
	cur     [][]byte // by signal index; nil if not followed
	pre     [][]byte // value at the start of the time step, if dirty
	dirty   []bool
	changed []int
	clocks  []*vcd.Signal
	time    uint64 // time of the step being read
	// onEdge is called at each rising edge of clk in the step at time t;
	// before(s) returns the value of s just before the edge.
	onEdge func(clk *vcd.Signal, t uint64, before func(*vcd.Signal) vcd.Value)
	// onGap, if not nil, is called at $dumpoff: edges may go unseen.
	onGap func()
}

func newEdgeSampler(r *vcd.Reader, clocks []*vcd.Signal, follow []*vcd.Signal) *edgeSampler {
	n := len(r.Signals())
	e := &edgeSampler{r: r, cur: make([][]byte, n), pre: make([][]byte, n), dirty: make([]bool, n), clocks: clocks}
	sel := append(append([]*vcd.Signal(nil), clocks...), follow...)
	for _, s := range sel {
		e.cur[s.Index] = []byte(strings.Repeat("x", s.Width))
		e.pre[s.Index] = make([]byte, s.Width)
	}
	r.Select(sel...)
	return e
}

func (e *edgeSampler) before(s *vcd.Signal) vcd.Value {
	if e.dirty[s.Index] {
		return e.pre[s.Index]
	}
	return e.cur[s.Index]
}

func (e *edgeSampler) endStep() {
	for _, c := range e.clocks {
		if e.before(c)[0] == '0' && e.cur[c.Index][0] == '1' {
			e.onEdge(c, e.time, e.before)
		}
	}
	for _, i := range e.changed {
		e.dirty[i] = false
	}
	e.changed = e.changed[:0]
}

// run reads the rest of the dump.
func (e *edgeSampler) run() error {
	for {
		ev, err := e.r.Next()
		if err == io.EOF {
			e.endStep()
			return nil
		}
		if err != nil {
			return err
		}
		switch ev.Kind {
		case vcd.TimeStep:
			e.endStep()
			e.time = ev.Time
		case vcd.DumpOff:
			if e.onGap != nil {
				e.onGap()
			}
		case vcd.ValueChange:
			i := ev.Signal.Index
			if ev.Value == nil || e.cur[i] == nil {
				continue
			}
			if !e.dirty[i] {
				copy(e.pre[i], e.cur[i])
				e.dirty[i] = true
				e.changed = append(e.changed, i)
			}
			copy(e.cur[i], ev.Value)
		}
	}
}

// handshake is a valid/ready pair found in one scope of a dump.
type handshake struct {
	scope        string
	valid, ready *vcd.Var
	clk, rst     *vcd.Signal
	rstLow       bool       // reset is active low
	payload      []*vcd.Var // signals of the same channel, e.g. m_axi_araddr
	// checking state
	stalled  bool     // valid && !ready at the previous edge
	held     []string // payload at that edge
	stalls   int
	beats    int
	problems int
}

func (h *handshake) String() string {
	return fmt.Sprintf("%s.%s/%s", h.scope, h.valid.Ref, h.ready.Ref)
}

// findHandshakes finds, in every scope, the 1-bit signals named *valid
// that have a *ready partner and a clock named clk (or aclk) in the same
// scope. Pairs that alias others (a port and the net it connects to) are
// reported once.
func findHandshakes(root *vcd.Scope) []*handshake {
	var out []*handshake
	seen := make(map[[3]*vcd.Signal]bool)
	var walk func(s *vcd.Scope)
	walk = func(s *vcd.Scope) {
		clk := firstVar(s, "clk", "aclk", "clk_i")
		for _, v := range s.Vars {
			prefix, ok := strings.CutSuffix(v.Ref, "valid")
			if !ok || v.Width != 1 || clk == nil {
				continue
			}
			ready := s.Var(prefix + "ready")
			if ready == nil || ready.Width != 1 {
				continue
			}
			key := [3]*vcd.Signal{v.Signal, ready.Signal, clk.Signal}
			if seen[key] {
				continue
			}
			seen[key] = true
			h := &handshake{scope: s.Path, valid: v, ready: ready, clk: clk.Signal}
			if rst := firstVar(s, "rst", "reset", "arst", "rst_i"); rst != nil {
				h.rst = rst.Signal
			} else if rst := firstVar(s, "rst_n", "aresetn", "resetn", "rst_ni"); rst != nil {
				h.rst, h.rstLow = rst.Signal, true
			}
			if prefix != "" {
				for _, p := range s.Vars {
					if p != v && p != ready && strings.HasPrefix(p.Ref, prefix) &&
						!strings.HasSuffix(p.Ref, "valid") && !strings.HasSuffix(p.Ref, "ready") {
						h.payload = append(h.payload, p)
					}
				}
			}
			out = append(out, h)
		}
		for _, c := range s.Scopes {
			walk(c)
		}
	}
	walk(root)
	return out
}

func firstVar(s *vcd.Scope, names ...string) *vcd.Var {
	for _, n := range names {
		if v := s.Var(n); v != nil && v.Width == 1 {
			return v
		}
	}
	return nil
}

// handshakeReport is the result of checkHandshakes.
type handshakeReport struct {
	pairs    []*handshake
	edges    int      // rising clock edges seen, over all clocks
	stalls   int      // edges where some valid was high and its ready low
	problems []string // violations, the first few
	nproblem int
}

// checkHandshakes reads the rest of r and checks the AXI rule at every
// rising edge outside reset: once valid is 1 with ready 0, valid stays 1
// and the channel's payload stays the same until the edge where ready is 1.
// A valid that is x or z outside reset is also a violation.
func checkHandshakes(r *vcd.Reader) (*handshakeReport, error) {
	rep := &handshakeReport{pairs: findHandshakes(r.Root())}
	var clocks, follow []*vcd.Signal
	byClock := make(map[*vcd.Signal][]*handshake)
	for _, h := range rep.pairs {
		if len(byClock[h.clk]) == 0 {
			clocks = append(clocks, h.clk)
		}
		byClock[h.clk] = append(byClock[h.clk], h)
		follow = append(follow, h.valid.Signal, h.ready.Signal)
		if h.rst != nil {
			follow = append(follow, h.rst)
		}
		for _, p := range h.payload {
			follow = append(follow, p.Signal)
		}
	}
	problem := func(h *handshake, t uint64, format string, args ...any) {
		h.problems++
		rep.nproblem++
		if len(rep.problems) < 20 {
			rep.problems = append(rep.problems, fmt.Sprintf("time %d: %s: %s", t, h, fmt.Sprintf(format, args...)))
		}
	}
	e := newEdgeSampler(r, clocks, follow)
	e.onEdge = func(clk *vcd.Signal, t uint64, before func(*vcd.Signal) vcd.Value) {
		rep.edges++
		for _, h := range byClock[clk] {
			if h.rst != nil {
				rst := before(h.rst)[0]
				if rst == 'x' || rst == 'z' || (rst == '1') != h.rstLow {
					h.stalled = false // in reset
					continue
				}
			}
			valid, ready := before(h.valid.Signal)[0], before(h.ready.Signal)[0]
			if valid != '0' && valid != '1' {
				problem(h, t, "valid is %c outside reset", valid)
				h.stalled = false
				continue
			}
			if h.stalled {
				if valid != '1' {
					problem(h, t, "valid dropped before ready")
				} else {
					for i, p := range h.payload {
						if now := string(before(p.Signal)); now != h.held[i] {
							problem(h, t, "%s changed from %s to %s during a stall", p.Ref, h.held[i], now)
						}
					}
				}
			}
			h.stalled = valid == '1' && ready == '0'
			if h.stalled {
				h.stalls++
				rep.stalls++
				h.held = h.held[:0]
				for _, p := range h.payload {
					h.held = append(h.held, string(before(p.Signal)))
				}
			} else if valid == '1' && ready == '1' {
				h.beats++
			}
		}
	}
	e.onGap = func() {
		for _, h := range rep.pairs {
			h.stalled = false
		}
	}
	return rep, e.run()
}
