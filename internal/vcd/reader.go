package vcd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SyntaxError reports malformed input and the line where it was found.
type SyntaxError struct {
	Line int    // 1-based line number
	Msg  string // description of the problem
}

// Error returns the message in the form "vcd: line N: msg".
func (e *SyntaxError) Error() string { return fmt.Sprintf("vcd: line %d: %s", e.Line, e.Msg) }

// Header holds the header commands of a dump.
type Header struct {
	Date      string   // text of $date, or ""
	Version   string   // text of $version, or ""
	Timescale string   // text of $timescale without spaces, such as "1ps", or ""
	Comments  []string // texts of the $comment commands before $enddefinitions
}

// Scope is one level of the dump's hierarchy: a module, task, function,
// begin or fork block, or any other kind a tool declares.
type Scope struct {
	Kind   string   // "module", "task", "function", "begin", "fork", ...
	Name   string   // local name, such as "dut"
	Path   string   // full hierarchical name, such as "tb_x.dut"; "" for the root
	Parent *Scope   // enclosing scope; nil for the root
	Scopes []*Scope // nested scopes in declaration order
	Vars   []*Var   // variables in declaration order
}

// Var returns the variable of s whose local name is name, or nil.
func (s *Scope) Var(name string) *Var {
	for _, v := range s.Vars {
		if v.Ref == name {
			return v
		}
	}
	return nil
}

// Var is one declared variable: a name in a scope. Several variables
// (aliases, such as a port and the net connected to it) may share one
// Signal.
type Var struct {
	Name     string  // full hierarchical name, such as "tb_x.dut.m_axi_awvalid"
	Ref      string  // local name as declared, such as "m_axi_awvalid"
	Type     string  // declared type: "wire", "reg", "integer", "parameter", "real", ...
	Width    int     // declared width in bits
	Range    string  // bit range as declared, such as "[63:0]" or "[0]"; "" if none
	MSB, LSB int     // bounds of Range; Width-1 and 0 when there is none
	Scope    *Scope  // enclosing scope
	Signal   *Signal // the signal that carries this variable's values
}

// Signal is the unit of value changes: one identifier code, shared by all
// the variables in Vars.
type Signal struct {
	Code  string // identifier code, such as "!" or "#a"
	Width int    // width in bits of every variable in Vars
	Index int    // position among Reader.Signals, from 0; handy for indexing state
	Vars  []*Var // the variables that carry this signal, in declaration order
	skip  bool   // not selected
}

// Kind says what an Event is.
type Kind uint8

// The kinds of Event.
const (
	TimeStep    Kind = iota + 1 // the simulation time advanced to Event.Time
	ValueChange                 // Event.Signal took a new value
	DumpOff                     // $dumpoff: the following changes set every signal to x until DumpOn
	DumpOn                      // $dumpon: dumping resumes
)

// String returns the name of k.
func (k Kind) String() string {
	switch k {
	case TimeStep:
		return "TimeStep"
	case ValueChange:
		return "ValueChange"
	case DumpOff:
		return "DumpOff"
	case DumpOn:
		return "DumpOn"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one step of a dump's value section.
type Event struct {
	Kind   Kind
	Time   uint64  // current simulation time, in timescale units
	Signal *Signal // for ValueChange: the signal that changed
	// Value is the new value of a scalar or vector signal, extended to the
	// signal's width. It is only valid until the next call to Next. It is
	// nil for a real.
	Value Value
	Real  float64 // new value of a real signal
}

// Reader reads a dump as a stream of events. NewReader parses the
// declarations; Next then returns the value section one event at a time.
// Memory use depends on the declarations and on the widest value, not on
// the length of the dump.
type Reader struct {
	src  io.Reader
	buf  []byte
	pos  int
	end  int
	eof  bool
	rerr error
	line int // line of buf[pos]
	tokL int // line of the last token

	hdr    Header
	root   *Scope
	vars   []*Var
	sigs   []*Signal
	byName map[string]*Var
	byCode map[string]*Signal
	code1  [128]*Signal

	time    uint64
	started bool   // a #time was seen
	raw     []byte // bits of the last vector value
	one     [1]byte
	val     []byte // extended value
	err     error
}

// maxToken bounds the length of one token: the widest vector plus slack.
const maxToken = MaxWidth + 64

// NewReader reads the header and declarations of a dump from r, up to and
// including $enddefinitions. It returns a *SyntaxError for malformed input
// and the error of r if reading fails.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{
		src:    r,
		buf:    make([]byte, 64<<10),
		line:   1,
		root:   &Scope{},
		byName: make(map[string]*Var),
		byCode: make(map[string]*Signal),
	}
	if err := rd.readDefs(); err != nil {
		return nil, err
	}
	return rd, nil
}

func (r *Reader) errorf(format string, args ...any) error {
	return &SyntaxError{Line: r.tokL, Msg: fmt.Sprintf(format, args...)}
}

// fill reads more input into buf after end. It reports false when nothing
// more can be read.
func (r *Reader) fill() bool {
	if r.eof {
		return false
	}
	if r.pos == r.end {
		r.pos, r.end = 0, 0
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if err != io.EOF {
				r.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.eof = true
	r.rerr = io.ErrNoProgress
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// token returns the next whitespace-separated token, valid until the next
// call. At the end of input it returns io.EOF, or the read error.
func (r *Reader) token() ([]byte, error) {
	nl := false // the last byte skipped was a newline
	for {
		for r.pos < r.end {
			c := r.buf[r.pos]
			if c == '\n' {
				r.line++
			} else if !isSpace(c) {
				goto start
			}
			nl = c == '\n'
			r.pos++
		}
		if !r.fill() {
			// Errors at the end refer to the last line.
			r.tokL = r.line
			if nl && r.line > 1 {
				r.tokL--
			}
			if r.rerr != nil {
				return nil, r.rerr
			}
			return nil, io.EOF
		}
	}
start:
	r.tokL = r.line
	i := r.pos
	for {
		for i < r.end && !isSpace(r.buf[i]) {
			i++
		}
		if i < r.end || r.eof {
			tok := r.buf[r.pos:i]
			r.pos = i
			return tok, nil
		}
		// The token runs past the buffered data: move it to the front,
		// grow the buffer if it is full, and read more.
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.pos, r.end, i = 0, n, n
		if r.end == len(r.buf) {
			if len(r.buf) >= maxToken {
				return nil, r.errorf("token longer than %d bytes", maxToken)
			}
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		if !r.fill() && r.rerr != nil {
			return nil, r.rerr
		}
	}
}

// body returns the tokens of a command up to its $end, as strings.
func (r *Reader) body(cmd string) ([]string, error) {
	var out []string
	line := r.tokL
	for {
		t, err := r.token()
		if err == io.EOF {
			r.tokL = line
			return nil, r.errorf("%s without $end", cmd)
		}
		if err != nil {
			return nil, err
		}
		if string(t) == "$end" {
			return out, nil
		}
		if len(out) > 1<<16 {
			return nil, r.errorf("%s too long", cmd)
		}
		out = append(out, string(t))
	}
}

func (r *Reader) readDefs() error {
	cur := r.root
	for {
		t, err := r.token()
		if err == io.EOF {
			return r.errorf("end of input before $enddefinitions")
		}
		if err != nil {
			return err
		}
		if len(t) == 0 || t[0] != '$' {
			return r.errorf("unexpected %q in the declarations", clip(t))
		}
		cmd := string(t)
		if cmd == "$end" {
			return r.errorf("$end without a command")
		}
		args, err := r.body(cmd)
		if err != nil {
			return err
		}
		switch cmd {
		case "$date":
			r.hdr.Date = strings.Join(args, " ")
		case "$version":
			r.hdr.Version = strings.Join(args, " ")
		case "$timescale":
			r.hdr.Timescale = strings.Join(args, "")
		case "$comment":
			r.hdr.Comments = append(r.hdr.Comments, strings.Join(args, " "))
		case "$scope":
			if len(args) < 2 {
				return r.errorf("$scope needs a kind and a name")
			}
			s := &Scope{Kind: args[0], Name: strings.Join(args[1:], " "), Parent: cur}
			s.Path = s.Name
			if cur != r.root {
				s.Path = cur.Path + "." + s.Name
			}
			cur.Scopes = append(cur.Scopes, s)
			cur = s
		case "$upscope":
			if cur == r.root {
				return r.errorf("$upscope without $scope")
			}
			cur = cur.Parent
		case "$var":
			if err := r.addVar(cur, args); err != nil {
				return err
			}
		case "$enddefinitions":
			if cur != r.root {
				return r.errorf("$enddefinitions inside scope %s", cur.Path)
			}
			return nil
		default:
			// Other commands ($attrbegin, vendor extensions) carry nothing
			// this package uses.
		}
	}
}

func (r *Reader) addVar(s *Scope, args []string) error {
	if len(args) < 4 {
		return r.errorf("$var needs a type, a width, a code and a name")
	}
	width, err := strconv.Atoi(args[1])
	if err != nil || width < 1 || width > MaxWidth {
		return r.errorf("$var %s: bad width %q", args[3], args[1])
	}
	v := &Var{Type: args[0], Width: width, Scope: s, MSB: width - 1}
	names := args[3:]
	if len(names) > 1 && strings.HasPrefix(names[len(names)-1], "[") {
		v.Range = names[len(names)-1]
		names = names[:len(names)-1]
		if msb, lsb, ok := parseRange(v.Range); ok {
			v.MSB, v.LSB = msb, lsb
		}
	}
	v.Ref = strings.Join(names, " ")
	v.Name = v.Ref
	if s != r.root {
		v.Name = s.Path + "." + v.Ref
	}
	code := args[2]
	sig := r.byCode[code]
	if sig == nil {
		sig = &Signal{Code: code, Width: width, Index: len(r.sigs)}
		r.sigs = append(r.sigs, sig)
		r.byCode[code] = sig
		if len(code) == 1 && code[0] < 128 {
			r.code1[code[0]] = sig
		}
	} else if sig.Width != width {
		return r.errorf("$var %s: width %d differs from width %d of %s, which shares code %q",
			v.Name, width, sig.Width, sig.Vars[0].Name, code)
	}
	v.Signal = sig
	sig.Vars = append(sig.Vars, v)
	s.Vars = append(s.Vars, v)
	r.vars = append(r.vars, v)
	if _, dup := r.byName[v.Name]; !dup {
		r.byName[v.Name] = v
	}
	return nil
}

// parseRange parses "[msb:lsb]" or "[bit]".
func parseRange(s string) (msb, lsb int, ok bool) {
	if len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return 0, 0, false
	}
	in := s[1 : len(s)-1]
	a, b, two := strings.Cut(in, ":")
	msb, err1 := strconv.Atoi(a)
	if !two {
		return msb, msb, err1 == nil
	}
	lsb, err2 := strconv.Atoi(b)
	return msb, lsb, err1 == nil && err2 == nil
}

// clip shortens a token for an error message.
func clip(t []byte) string {
	if len(t) > 40 {
		return string(t[:40]) + "..."
	}
	return string(t)
}

// Header returns the header commands of the dump.
func (r *Reader) Header() Header { return r.hdr }

// Root returns the root of the scope tree. Its Path is "" and it holds the
// top-level scopes (and any variables declared outside all scopes).
func (r *Reader) Root() *Scope { return r.root }

// Vars returns every declared variable in declaration order. The caller
// must not modify the slice.
func (r *Reader) Vars() []*Var { return r.vars }

// Signals returns every signal, indexed by Signal.Index. The caller must
// not modify the slice.
func (r *Reader) Signals() []*Signal { return r.sigs }

// Lookup returns the variable with the full hierarchical name name, such
// as "tb_x.dut.m_axi_awvalid", or nil if there is none. If the dump's only
// top-level scope is Verilator's "TOP", a name without that prefix is
// found too.
func (r *Reader) Lookup(name string) *Var {
	if v := r.byName[name]; v != nil {
		return v
	}
	if len(r.root.Scopes) == 1 && r.root.Scopes[0].Name == "TOP" && len(r.root.Vars) == 0 {
		return r.byName["TOP."+name]
	}
	return nil
}

// Select makes Next report value changes of the given signals only and
// skip the others without decoding them (malformed values of skipped
// signals may go unnoticed). Select with no signals reports all signals
// again.
func (r *Reader) Select(sigs ...*Signal) {
	for _, s := range r.sigs {
		s.skip = len(sigs) > 0
	}
	for _, s := range sigs {
		if s != nil {
			s.skip = false
		}
	}
}

// signal returns the signal with identifier code c.
func (r *Reader) signal(c []byte) (*Signal, error) {
	if len(c) == 1 && c[0] < 128 {
		if s := r.code1[c[0]]; s != nil {
			return s, nil
		}
	} else if s := r.byCode[string(c)]; s != nil {
		return s, nil
	}
	if len(c) == 0 {
		return nil, r.errorf("missing identifier code")
	}
	return nil, r.errorf("unknown identifier code %q", clip(c))
}

// codeToken reads the identifier code that follows a vector, real or
// string value.
func (r *Reader) codeToken() ([]byte, error) {
	c, err := r.token()
	if err == io.EOF {
		return nil, r.errorf("missing identifier code at end of input")
	}
	return c, err
}

// Next returns the next event of the value section. At the end of the dump
// it returns io.EOF. Malformed input gives a *SyntaxError; after any error
// Next keeps returning it.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	ev, err := r.next()
	if err != nil {
		r.err = err
	}
	return ev, err
}

func (r *Reader) next() (Event, error) {
	for {
		t, err := r.token()
		if err != nil {
			return Event{}, err
		}
		switch t[0] {
		case '#':
			tm, ok := parseUint(t[1:])
			if !ok {
				return Event{}, r.errorf("bad time %q", clip(t))
			}
			if r.started && tm < r.time {
				return Event{}, r.errorf("time %d goes back from %d", tm, r.time)
			}
			r.time, r.started = tm, true
			return Event{Kind: TimeStep, Time: tm}, nil
		case '0', '1', 'x', 'X', 'z', 'Z':
			s, err := r.signal(t[1:])
			if err != nil {
				return Event{}, err
			}
			if s.skip {
				continue
			}
			r.one[0] = normBit(t[0])
			return Event{Kind: ValueChange, Time: r.time, Signal: s, Value: r.extended(r.one[:], s)}, nil
		case 'b', 'B':
			raw := append(r.raw[:0], t[1:]...)
			r.raw = raw
			c, err := r.codeToken()
			if err != nil {
				return Event{}, err
			}
			s, err := r.signal(c)
			if err != nil {
				return Event{}, err
			}
			if s.skip {
				continue
			}
			if len(raw) == 0 {
				return Event{}, r.errorf("empty vector value for %s", s.Vars[0].Name)
			}
			for i, b := range raw {
				n := normBit(b)
				if n == 0 {
					return Event{}, r.errorf("bad bit %q in vector value for %s", b, s.Vars[0].Name)
				}
				raw[i] = n
			}
			if len(raw) > s.Width {
				// Accept extra high bits that extension would restore.
				cut := raw[len(raw)-s.Width:]
				fill := byte('0')
				if cut[0] != '1' {
					fill = cut[0]
				}
				for _, b := range raw[:len(raw)-s.Width] {
					if b != fill {
						return Event{}, r.errorf("value of %d bits for %s of width %d", len(raw), s.Vars[0].Name, s.Width)
					}
				}
				raw = cut
			}
			return Event{Kind: ValueChange, Time: r.time, Signal: s, Value: r.extended(raw, s)}, nil
		case 'r', 'R':
			f, perr := strconv.ParseFloat(string(t[1:]), 64)
			c, err := r.codeToken()
			if err != nil {
				return Event{}, err
			}
			s, err := r.signal(c)
			if err != nil {
				return Event{}, err
			}
			if s.skip {
				continue
			}
			if perr != nil {
				return Event{}, r.errorf("bad real value %q for %s", clip(t), s.Vars[0].Name)
			}
			return Event{Kind: ValueChange, Time: r.time, Signal: s, Real: f}, nil
		case 's', 'S':
			// String values (a GTKWave extension) are checked and skipped.
			c, err := r.codeToken()
			if err != nil {
				return Event{}, err
			}
			if _, err := r.signal(c); err != nil {
				return Event{}, err
			}
		case '$':
			switch string(t) {
			case "$dumpvars", "$dumpall", "$end":
				// The changes inside these blocks are ordinary changes.
			case "$dumpoff":
				return Event{Kind: DumpOff, Time: r.time}, nil
			case "$dumpon":
				return Event{Kind: DumpOn, Time: r.time}, nil
			default:
				// $comment and other commands: skip to their $end.
				if _, err := r.body(string(t)); err != nil {
					return Event{}, err
				}
			}
		default:
			return Event{}, r.errorf("unexpected %q in the value changes", clip(t))
		}
	}
}

// extended returns raw (normalized bits, at most s.Width long, owned by
// r) extended to the width of s.
func (r *Reader) extended(raw []byte, s *Signal) Value {
	if len(raw) == s.Width {
		return raw
	}
	if cap(r.val) < s.Width {
		r.val = make([]byte, s.Width)
	}
	v := r.val[:s.Width]
	extend(v, raw)
	return v
}

// parseUint parses a decimal number without allocating.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
