package vcd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxWidth is the widest vector, in bits, that Writer declares and Reader
// accepts. It bounds the memory a malformed dump can make Reader allocate.
const MaxWidth = 1 << 20

// Handle names a variable declared on a Writer. The zero Handle names no
// variable.
type Handle int32

// Writer writes a VCD stream. Declare the hierarchy first with Scope, Up,
// Wire, Reg and Real; then call Time and the Set methods. The first call to
// Time or to a Set method ends the declarations; the values set during the
// first time step are written as the $dumpvars block (variables never set
// start as x, reals as 0). After that, Writer writes a value only when it
// differs from the variable's previous value, and a time step only when some
// value changed in it.
//
// Output is buffered: call Close (or Flush) when done. After a write to the
// underlying writer fails, every method returns that error. The methods of a
// Writer must not be called concurrently.
type Writer struct {
	// Date is written as the $date of the header when it is not empty. It
	// is empty by default so that two runs of a deterministic simulation
	// give byte-identical dumps. Set it before the first declaration.
	Date string
	// Version is written as the $version of the header. NewWriter sets it
	// to "vianic vcd"; set it before the first declaration.
	Version string

	bw        *bufio.Writer
	timescale string
	path      []string            // open scopes
	names     map[string]struct{} // full names declared, to refuse duplicates
	state     int
	depth     int
	vars      []wvar
	time      uint64
	timeOut   bool // the current time step's #time is written
	err       error
	buf       []byte
}

// wvar is the state of one declared variable.
type wvar struct {
	code  string
	width int
	real  bool
	last  []byte // current value, width bytes of 0/1/x/z; unused for reals
	lastR float64
}

const (
	wHeader = iota // nothing written yet
	wDefs          // inside the declarations
	wFirst         // first time step: values collected for $dumpvars
	wValues        // value changes
	wClosed
)

var errClosed = errors.New("vcd: writer is closed")

// NewWriter returns a Writer that writes a dump to w with the given
// timescale, such as "1ns", "10 ps" or "1s": 1, 10 or 100 followed by s, ms,
// us, ns, ps or fs. Time values passed to Time count in that unit. It returns
// an error if the timescale is malformed.
func NewWriter(w io.Writer, timescale string) (*Writer, error) {
	ts, err := normTimescale(timescale)
	if err != nil {
		return nil, err
	}
	return &Writer{Version: "vianic vcd", bw: bufio.NewWriterSize(w, 64<<10), timescale: ts}, nil
}

// normTimescale checks a timescale and returns it without inner spaces.
func normTimescale(s string) (string, error) {
	t := strings.Join(strings.Fields(s), "")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], t[i:]
	if num == "" {
		num = "1" // "ns" alone is accepted by some tools
	}
	switch num {
	case "1", "10", "100":
	default:
		return "", fmt.Errorf("vcd: bad timescale %q: magnitude must be 1, 10 or 100", s)
	}
	switch unit {
	case "s", "ms", "us", "ns", "ps", "fs":
	default:
		return "", fmt.Errorf("vcd: bad timescale %q: unit must be s, ms, us, ns, ps or fs", s)
	}
	return num + unit, nil
}

// code returns the identifier code of the variable with index n: printable
// ASCII from '!' to '~' as digits of a bijective base-94 number, least
// significant first, so the first 94 codes have one character.
func code(n int) string {
	var b [8]byte
	i := 0
	for {
		b[i] = byte('!' + n%94)
		i++
		n = n/94 - 1
		if n < 0 {
			break
		}
	}
	return string(b[:i])
}

// validName reports whether s can be a scope or variable name in a dump.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return s[0] != '$'
}

func (w *Writer) write(s string) {
	if w.err == nil {
		_, w.err = w.bw.WriteString(s)
	}
}

func (w *Writer) writeBytes(b []byte) {
	if w.err == nil {
		_, w.err = w.bw.Write(b)
	}
}

// declare prepares for a declaration and reports any reason it cannot be
// made.
func (w *Writer) declare() error {
	if w.err != nil {
		return w.err
	}
	switch w.state {
	case wHeader:
		w.writeHeader()
		w.state = wDefs
	case wDefs:
	case wClosed:
		return errClosed
	default:
		return errors.New("vcd: declaration after the first value")
	}
	return w.err
}

func (w *Writer) writeHeader() {
	if w.Date != "" {
		w.write("$date\n\t" + w.Date + "\n$end\n")
	}
	if w.Version != "" {
		w.write("$version\n\t" + w.Version + "\n$end\n")
	}
	w.write("$timescale " + w.timescale + " $end\n")
}

// Scope opens a module scope named name inside the current scope. Variables
// declared until the matching Up belong to it.
func (w *Writer) Scope(name string) error {
	if !validName(name) {
		return fmt.Errorf("vcd: bad scope name %q", name)
	}
	if err := w.declare(); err != nil {
		return err
	}
	w.write("$scope module " + name + " $end\n")
	w.depth++
	w.path = append(w.path, name)
	return w.err
}

// Up closes the scope opened by the last unmatched Scope.
func (w *Writer) Up() error {
	if err := w.declare(); err != nil {
		return err
	}
	if w.depth == 0 {
		return errors.New("vcd: Up without an open scope")
	}
	w.write("$upscope $end\n")
	w.depth--
	w.path = w.path[:len(w.path)-1]
	return w.err
}

// Wire declares a wire of width bits named name in the current scope.
func (w *Writer) Wire(name string, width int) (Handle, error) {
	return w.declareVar("wire", name, width)
}

// Reg declares a reg of width bits named name in the current scope.
func (w *Writer) Reg(name string, width int) (Handle, error) {
	return w.declareVar("reg", name, width)
}

// Real declares a real variable named name in the current scope.
func (w *Writer) Real(name string) (Handle, error) {
	return w.declareVar("real", name, 64)
}

func (w *Writer) declareVar(typ, name string, width int) (Handle, error) {
	if !validName(name) {
		return 0, fmt.Errorf("vcd: bad variable name %q", name)
	}
	if width < 1 || width > MaxWidth {
		return 0, fmt.Errorf("vcd: variable %s: width %d out of range 1..%d", name, width, MaxWidth)
	}
	if err := w.declare(); err != nil {
		return 0, err
	}
	full := strings.Join(append(w.path, name), ".")
	if _, dup := w.names[full]; dup {
		return 0, fmt.Errorf("vcd: variable %s declared twice", full)
	}
	if w.names == nil {
		w.names = make(map[string]struct{})
	}
	w.names[full] = struct{}{}
	v := wvar{code: code(len(w.vars)), width: width, real: typ == "real"}
	b := append(w.buf[:0], "$var "...)
	b = append(b, typ...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(width), 10)
	b = append(b, ' ')
	b = append(b, v.code...)
	b = append(b, ' ')
	b = append(b, name...)
	if width > 1 && !v.real {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(width-1), 10)
		b = append(b, ":0]"...)
	}
	b = append(b, " $end\n"...)
	w.buf = b
	w.writeBytes(b)
	if !v.real {
		v.last = make([]byte, width)
		for i := range v.last {
			v.last[i] = 'x'
		}
	}
	w.vars = append(w.vars, v)
	return Handle(len(w.vars)), w.err
}

// endDefs ends the declarations if they are still open.
func (w *Writer) endDefs() {
	switch w.state {
	case wHeader:
		w.writeHeader()
		fallthrough
	case wDefs:
		for ; w.depth > 0; w.depth-- {
			w.write("$upscope $end\n")
		}
		w.write("$enddefinitions $end\n")
		w.state = wFirst
	}
}

// Time advances the simulation time to t, in units of the timescale.
// Values set after it belong to time t. Time may not go backwards.
func (w *Writer) Time(t uint64) error {
	if w.err != nil {
		return w.err
	}
	switch w.state {
	case wClosed:
		return errClosed
	case wHeader, wDefs:
		w.endDefs()
		w.time = t
		return w.err
	}
	if t < w.time {
		return fmt.Errorf("vcd: time %d is before the current time %d", t, w.time)
	}
	if t == w.time {
		return nil
	}
	if w.state == wFirst {
		w.writeDumpvars()
		w.state = wValues
	}
	w.time = t
	w.timeOut = false
	return w.err
}

// writeDumpvars writes the first time step: every variable's value.
func (w *Writer) writeDumpvars() {
	if len(w.vars) == 0 {
		return
	}
	w.buf = strconv.AppendUint(append(w.buf[:0], '#'), w.time, 10)
	w.buf = append(w.buf, "\n$dumpvars\n"...)
	w.writeBytes(w.buf)
	for i := range w.vars {
		w.writeValue(&w.vars[i])
	}
	w.write("$end\n")
	w.timeOut = true
}

// writeValue writes the current value of v as one value change.
func (w *Writer) writeValue(v *wvar) {
	b := w.buf[:0]
	switch {
	case v.real:
		b = append(b, 'r')
		b = strconv.AppendFloat(b, v.lastR, 'g', -1, 64)
		b = append(b, ' ')
	case v.width == 1:
		b = append(b, v.last[0])
	default:
		b = append(b, 'b')
		b = append(b, compress(v.last)...)
		b = append(b, ' ')
	}
	b = append(b, v.code...)
	b = append(b, '\n')
	w.buf = b
	w.writeBytes(b)
}

// compress returns the shortest suffix of bits (a full-width value) that
// extends back to bits under the VCD rules.
func compress(bits []byte) []byte {
	c := bits[0]
	if c == '1' {
		return bits
	}
	i := 1
	for i < len(bits) && bits[i] == c {
		i++
	}
	switch {
	case i == len(bits):
		return bits[i-1:]
	case c == '0' && bits[i] == '1':
		return bits[i:]
	}
	return bits[i-1:]
}

// lookup returns the variable h names, starting the values if needed.
func (w *Writer) lookup(h Handle) (*wvar, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.state == wClosed {
		return nil, errClosed
	}
	if h <= 0 || int(h) > len(w.vars) {
		return nil, fmt.Errorf("vcd: unknown handle %d", h)
	}
	w.endDefs()
	return &w.vars[h-1], nil
}

// changed records that v has a new value and writes it unless it belongs
// to the $dumpvars block.
func (w *Writer) changed(v *wvar) error {
	if w.state != wValues {
		return w.err
	}
	if !w.timeOut {
		w.buf = strconv.AppendUint(append(w.buf[:0], '#'), w.time, 10)
		w.buf = append(w.buf, '\n')
		w.writeBytes(w.buf)
		w.timeOut = true
	}
	w.writeValue(v)
	return w.err
}

// Set sets a scalar or vector variable to x. Bits of x above the variable's
// width are ignored; bits of the variable above 64 become 0.
func (w *Writer) Set(h Handle, x uint64) error {
	v, err := w.lookup(h)
	if err != nil {
		return err
	}
	if v.real {
		return fmt.Errorf("vcd: Set on real variable %s", v.code)
	}
	diff := false
	for i := range v.last {
		bit := v.width - 1 - i
		c := byte('0')
		if bit < 64 && x>>uint(bit)&1 != 0 {
			c = '1'
		}
		if v.last[i] != c {
			v.last[i] = c
			diff = true
		}
	}
	if !diff {
		return nil
	}
	return w.changed(v)
}

// SetWords sets a vector variable of any width from 64-bit words, least
// significant word first: words[0] holds bits 63..0. Missing words are 0;
// bits beyond the width are ignored.
func (w *Writer) SetWords(h Handle, words []uint64) error {
	v, err := w.lookup(h)
	if err != nil {
		return err
	}
	if v.real {
		return fmt.Errorf("vcd: SetWords on real variable %s", v.code)
	}
	diff := false
	for i := range v.last {
		bit := v.width - 1 - i
		c := byte('0')
		if bit/64 < len(words) && words[bit/64]>>uint(bit%64)&1 != 0 {
			c = '1'
		}
		if v.last[i] != c {
			v.last[i] = c
			diff = true
		}
	}
	if !diff {
		return nil
	}
	return w.changed(v)
}

// SetBits sets a scalar or vector variable from a string of '0', '1', 'x'
// and 'z' (upper case accepted), most significant bit first. A string
// shorter than the width is extended as in a dump: a leading 0, x or z
// fills the high bits with itself, a leading 1 with 0; so SetBits(h, "x")
// makes every bit x.
func (w *Writer) SetBits(h Handle, bits string) error {
	v, err := w.lookup(h)
	if err != nil {
		return err
	}
	if v.real {
		return fmt.Errorf("vcd: SetBits on real variable %s", v.code)
	}
	if len(bits) == 0 || len(bits) > v.width {
		return fmt.Errorf("vcd: SetBits: %d bits for a variable of width %d", len(bits), v.width)
	}
	pad := v.width - len(bits)
	fill := byte('0')
	if c := normBit(bits[0]); c != '1' {
		fill = c
	}
	diff := false
	for i := range v.last {
		c := fill
		if i >= pad {
			c = normBit(bits[i-pad])
		}
		if c == 0 {
			return fmt.Errorf("vcd: SetBits: bad bit %q in %q", bits[i-pad], bits)
		}
		if v.last[i] != c {
			diff = true
		}
	}
	if !diff {
		return nil
	}
	for i := range v.last {
		c := fill
		if i >= pad {
			c = normBit(bits[i-pad])
		}
		v.last[i] = c
	}
	return w.changed(v)
}

// SetReal sets a real variable to f.
func (w *Writer) SetReal(h Handle, f float64) error {
	v, err := w.lookup(h)
	if err != nil {
		return err
	}
	if !v.real {
		return fmt.Errorf("vcd: SetReal on vector variable %s", v.code)
	}
	if math.Float64bits(f) == math.Float64bits(v.lastR) {
		return nil
	}
	v.lastR = f
	return w.changed(v)
}

// Flush writes buffered data to the underlying writer. Values of the first
// time step stay buffered until the step ends, since any of them may still
// change.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// Close ends the dump (writing the declarations and the first time step if
// they are still pending) and flushes it. It does not close the underlying
// writer. Later calls to the Writer's methods return an error.
func (w *Writer) Close() error {
	if w.state == wClosed {
		return w.err
	}
	w.endDefs()
	if w.state == wFirst {
		w.writeDumpvars()
	}
	w.state = wClosed
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}
