package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Access says how software may use a register or field.
type Access string

// The access kinds a layout may name.
const (
	RO  Access = "ro"  // read-only; the hardware drives the value
	RW  Access = "rw"  // read/write storage
	WO  Access = "wo"  // write-only (commands); reads as zero
	W1C Access = "w1c" // write 1 to clear
	W1S Access = "w1s" // write 1 to set; reads as zero
)

// directiveKinds lists, for every directive but layout, the layout kinds
// it may appear in.
var directiveKinds = map[string]string{
	"const": "regmap struct", "field": "regmap struct",
	"param": "regmap", "region": "regmap", "array": "regmap", "reg": "regmap",
	"struct": "struct", "member": "struct",
	"enum": "regmap struct", "value": "regmap struct",
	"block": "regmap",
}

var accesses = map[string]Access{"ro": RO, "rw": RW, "wo": WO, "w1c": W1C, "w1s": W1S}

// Layout is one parsed layout file.
type Layout struct {
	File     string
	Name     string
	Kind     string // "regmap" or "struct"
	Prefix   string // prepended to generated names ("" or e.g. "FW_")
	Doc      string
	Structs  []*Struct
	Consts   []*Const
	Params   []*Const
	Regions  []*Region
	Arrays   []*Array
	Regs     []*Reg
	Enums    []*Enum
	Blocks   []*Block // register blocks, in file order (see layout_block.go)
	curBlock *Block   // the block reg lines go to while parsing
	Hash     uint64
}

// Const is a named number: a constant or a build-parameter default.
type Const struct {
	Name  string
	Value uint64
	Doc   string
	Line  int
}

// Region is a fixed window of the address space.
type Region struct {
	Name       string
	Base, Size uint64
	Doc        string
	Line       int
}

// Array is a window repeated Count times at Stride bytes; Count names a
// parameter or is a number.
type Array struct {
	Name         string
	Base, Stride uint64
	Count        string
	Doc          string
	Line         int
}

// Reg is one 32-bit register.
type Reg struct {
	Name   string
	Offset uint64
	Access Access
	Doc    string
	Fields []*Field
	Line   int
	Block  *Block   // the block that owns the register, nil when the layout has none
	HW     []string // hardware attributes (hwext, hwre, hwconst), see layout_block.go
}

// Struct is a fixed-size little-endian record shared by hardware, firmware
// and software (a descriptor, a command, a completion entry).
type Struct struct {
	Name    string
	Bytes   int
	Doc     string
	Members []*Member
	Line    int
}

// Member is one field of a Struct at a byte offset. Sizes 1, 2, 4 and 8 are
// little-endian integers (naturally aligned); any other size is a byte array.
type Member struct {
	Name   string
	Offset int
	Size   int
	Doc    string
	Fields []*Field // bit fields of an integer member of at most 4 bytes
	Enum   string   // enum=NAME: the member holds values of that enum
	Line   int
}

// IsInt reports whether the member is an integer rather than a byte array.
func (m *Member) IsInt() bool { return m.Size == 1 || m.Size == 2 || m.Size == 4 || m.Size == 8 }

// Field is a bit range of a register.
type Field struct {
	Name     string
	MSB, LSB int
	Access   Access
	Reset    *uint64 // nil: no fixed reset value given
	ResetSym string  // const name the reset value came from, if any
	Enum     string  // enum=NAME: the field holds values of that enum
	Doc      string
	Line     int
}

// Width is the field's width in bits.
func (f *Field) Width() int { return f.MSB - f.LSB + 1 }

// ParseError is a malformed layout: file, line and reason.
type ParseError struct {
	File   string
	Line   int
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

var nameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// tokenize splits a line into words and double-quoted strings; '#' outside a
// string starts a comment.
func tokenize(line string) ([]string, []bool, error) {
	if !utf8.ValidString(line) {
		return nil, nil, fmt.Errorf("line is not valid UTF-8")
	}
	for _, r := range line {
		if r < 0x20 && r != '\t' && r != '\r' || r == 0x7f {
			return nil, nil, fmt.Errorf("control character %U", r)
		}
	}
	var toks []string
	var quoted []bool
	i := 0
	for i < len(line) {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			return toks, quoted, nil
		case c == '"':
			j := i + 1
			var sb strings.Builder
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
				sb.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, nil, fmt.Errorf("unterminated string")
			}
			if strings.Contains(sb.String(), "*/") {
				return nil, nil, fmt.Errorf("a string may not contain */ (it ends a C comment)")
			}
			toks = append(toks, sb.String())
			quoted = append(quoted, true)
			i = j + 1
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '"' && line[j] != '#' && line[j] != '\r' {
				j++
			}
			toks = append(toks, line[i:j])
			quoted = append(quoted, false)
			i = j
		}
	}
	return toks, quoted, nil
}

func parseNum(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

// Parse reads a layout file and checks it; the first problem is returned as a
// *ParseError.
func Parse(file string, r io.Reader) (*Layout, error) {
	l := &Layout{File: file}
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: file, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	// names -> line, for duplicates; consts and params share one space,
	// regions and arrays another, registers a third
	spaces := map[string]map[string]int{}
	space := map[string]string{"const": "const", "param": "const", "region": "window", "array": "window", "reg": "reg", "struct": "reg", "enum": "enum"}
	declare := func(line int, what, name string) error {
		if !nameRE.MatchString(name) {
			return fail(line, "%s name %q must be UPPER_SNAKE_CASE", what, name)
		}
		names := spaces[space[what]]
		if names == nil {
			names = map[string]int{}
			spaces[space[what]] = names
		}
		if prev, ok := names[name]; ok {
			return fail(line, "%s %s already defined on line %d", what, name, prev)
		}
		names[name] = line
		return nil
	}
	var cur *Reg
	var curMember *Member
	var curStruct *Struct
	var curEnum *Enum
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		toks, quoted, err := tokenize(sc.Text())
		if err != nil {
			return nil, fail(lineNo, "%v", err)
		}
		if len(toks) == 0 {
			continue
		}
		// The doc string, when present, is the last token and quoted.
		doc := ""
		args := toks[1:]
		if quoted[len(toks)-1] && len(toks) > 1 {
			doc = toks[len(toks)-1]
			args = toks[1 : len(toks)-1]
		}
		for i, q := range quoted[1 : 1+len(args)] {
			if q {
				return nil, fail(lineNo, "unexpected string in argument %d of %s", i+1, toks[0])
			}
		}
		need := func(n int, usage string) error {
			if len(args) != n {
				return fail(lineNo, "%s takes %s", toks[0], usage)
			}
			if doc == "" {
				return fail(lineNo, "%s %s needs a doc string", toks[0], args[0])
			}
			return nil
		}
		if toks[0] != "field" {
			cur = nil
			curMember = nil
		}
		if toks[0] != "field" && toks[0] != "member" {
			curStruct = nil
		}
		if toks[0] != "value" {
			curEnum = nil
		}
		if l.Name != "" {
			if kinds, known := directiveKinds[toks[0]]; known && !strings.Contains(kinds, l.Kind) {
				return nil, fail(lineNo, "%s is not allowed in a %s layout", toks[0], l.Kind)
			}
		} else if toks[0] != "layout" {
			return nil, fail(lineNo, "the first directive must be layout")
		}
		switch toks[0] {
		case "layout":
			if l.Name != "" {
				return nil, fail(lineNo, "layout already declared")
			}
			if len(args) == 3 {
				p, ok := strings.CutPrefix(args[2], "prefix=")
				if !ok || !nameRE.MatchString(p) {
					return nil, fail(lineNo, "layout: third argument must be prefix=UPPER_NAME")
				}
				l.Prefix = p + "_"
				args = args[:2]
			}
			if err := need(2, `NAME KIND [prefix=NAME] "doc"`); err != nil {
				return nil, err
			}
			if args[1] != "regmap" && args[1] != "struct" {
				return nil, fail(lineNo, "unknown layout kind %q (known: regmap struct)", args[1])
			}
			if !regexp.MustCompile(`^[a-z][a-z0-9_]*$`).MatchString(args[0]) {
				return nil, fail(lineNo, "layout name %q must be lower_snake_case", args[0])
			}
			l.Name, l.Kind, l.Doc = args[0], args[1], doc
		case "const", "param":
			if err := need(2, `NAME VALUE "doc"`); err != nil {
				return nil, err
			}
			if err := declare(lineNo, toks[0], args[0]); err != nil {
				return nil, err
			}
			v, err := parseNum(args[1])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			c := &Const{Name: args[0], Value: v, Doc: doc, Line: lineNo}
			if toks[0] == "const" {
				l.Consts = append(l.Consts, c)
			} else {
				l.Params = append(l.Params, c)
			}
		case "region":
			if err := need(3, `NAME BASE SIZE "doc"`); err != nil {
				return nil, err
			}
			if err := declare(lineNo, "region", args[0]); err != nil {
				return nil, err
			}
			base, err := parseNum(args[1])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			size, err := parseNum(args[2])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			if size == 0 {
				return nil, fail(lineNo, "region %s has size 0", args[0])
			}
			l.Regions = append(l.Regions, &Region{Name: args[0], Base: base, Size: size, Doc: doc, Line: lineNo})
		case "array":
			if err := need(4, `NAME BASE STRIDE COUNT "doc"`); err != nil {
				return nil, err
			}
			if err := declare(lineNo, "array", args[0]); err != nil {
				return nil, err
			}
			base, err := parseNum(args[1])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			stride, err := parseNum(args[2])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			if stride == 0 {
				return nil, fail(lineNo, "array %s has stride 0", args[0])
			}
			l.Arrays = append(l.Arrays, &Array{Name: args[0], Base: base, Stride: stride, Count: args[3], Doc: doc, Line: lineNo})
		case "block":
			if err := l.parseBlock(args, doc, lineNo, fail); err != nil {
				return nil, err
			}
		case "reg":
			var hw []string
			args, hw = splitRegHW(args)
			if err := need(3, `NAME OFFSET ACCESS "doc"`); err != nil {
				return nil, err
			}
			if err := declare(lineNo, "reg", args[0]); err != nil {
				return nil, err
			}
			off, err := parseNum(args[1])
			if err != nil {
				return nil, fail(lineNo, "%v", err)
			}
			acc, ok := accesses[args[2]]
			if !ok {
				return nil, fail(lineNo, "unknown access %q (known: ro rw wo w1c w1s)", args[2])
			}
			cur = &Reg{Name: args[0], Offset: off, Access: acc, Doc: doc, Line: lineNo, HW: hw}
			l.Regs = append(l.Regs, cur)
			l.addToBlock(cur)
		case "struct":
			if err := need(2, `NAME BYTES "doc"`); err != nil {
				return nil, err
			}
			if err := declare(lineNo, "struct", args[0]); err != nil {
				return nil, err
			}
			n, err := parseNum(args[1])
			if err != nil || n == 0 || n > 1<<16 {
				return nil, fail(lineNo, "struct %s: size %q must be 1..65536 bytes", args[0], args[1])
			}
			curStruct = &Struct{Name: args[0], Bytes: int(n), Doc: doc, Line: lineNo}
			l.Structs = append(l.Structs, curStruct)
		case "enum", "value":
			e, err := l.parseEnumLine(toks[0], args, doc, curEnum, lineNo, fail, declare)
			if err != nil {
				return nil, err
			}
			curEnum = e
		case "member":
			if curStruct == nil {
				return nil, fail(lineNo, "member outside a struct")
			}
			var memberEnum string
			args, memberEnum = cutEnumAttr(args)
			if err := need(3, `NAME OFFSET SIZE "doc"`); err != nil {
				return nil, err
			}
			if !nameRE.MatchString(args[0]) {
				return nil, fail(lineNo, "member name %q must be UPPER_SNAKE_CASE", args[0])
			}
			off, err1 := parseNum(args[1])
			size, err2 := parseNum(args[2])
			if err1 != nil || err2 != nil || size == 0 {
				return nil, fail(lineNo, "member %s: offset and size must be numbers, size > 0", args[0])
			}
			m := &Member{Name: args[0], Offset: int(off), Size: int(size), Doc: doc, Enum: memberEnum, Line: lineNo}
			if off+size > uint64(curStruct.Bytes) {
				return nil, fail(lineNo, "member %s.%s: bytes %d..%d lie outside the %d-byte struct", curStruct.Name, m.Name, off, off+size-1, curStruct.Bytes)
			}
			if m.IsInt() && m.Offset%m.Size != 0 {
				return nil, fail(lineNo, "member %s.%s: a %d-byte integer must be %d-byte aligned", curStruct.Name, m.Name, m.Size, m.Size)
			}
			for _, o := range curStruct.Members {
				if o.Name == m.Name {
					return nil, fail(lineNo, "member %s.%s already defined on line %d", curStruct.Name, m.Name, o.Line)
				}
				if m.Offset < o.Offset+o.Size && o.Offset < m.Offset+m.Size {
					return nil, fail(lineNo, "member %s.%s overlaps %s (line %d)", curStruct.Name, m.Name, o.Name, o.Line)
				}
			}
			curStruct.Members = append(curStruct.Members, m)
			curMember = m
		case "field":
			if curMember != nil {
				f, err := parseField(args, doc, RW, curMember.Size*8, lineNo, fail)
				if err != nil {
					return nil, err
				}
				if curMember.Size > 4 {
					return nil, fail(lineNo, "fields are allowed only in members of at most 4 bytes")
				}
				if err := addField(&curMember.Fields, curStruct.Name+"."+curMember.Name, f, lineNo, fail); err != nil {
					return nil, err
				}
				continue
			}
			if cur == nil {
				return nil, fail(lineNo, "field outside a reg or member (a field line must follow its reg or member line or another field)")
			}
			f, err := parseField(args, doc, cur.Access, 32, lineNo, fail)
			if err != nil {
				return nil, err
			}
			if err := addField(&cur.Fields, cur.Name, f, lineNo, fail); err != nil {
				return nil, err
			}
		default:
			return nil, fail(lineNo, "unknown directive %q (known: layout const param region array reg struct member field enum value)", toks[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail(lineNo+1, "%v", err)
	}
	if l.Name == "" {
		return nil, fail(0, "no layout line (layout NAME KIND \"doc\")")
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	if err := l.checkBlocks(); err != nil {
		return nil, err
	}
	l.Hash = l.hash()
	return l, nil
}

type failFunc func(line int, format string, args ...any) error

// parseField parses `field NAME MSB:LSB [ACCESS] [reset=VALUE|CONST] "doc"`
// for a container of bits bits whose access is acc.
func parseField(args []string, doc string, acc Access, bits, lineNo int, fail failFunc) (*Field, error) {
	if len(args) < 2 || doc == "" {
		return nil, fail(lineNo, `field takes NAME MSB:LSB [ACCESS] [reset=VALUE] "doc"`)
	}
	if !nameRE.MatchString(args[0]) {
		return nil, fail(lineNo, "field name %q must be UPPER_SNAKE_CASE", args[0])
	}
	f := &Field{Name: args[0], Access: acc, Doc: doc, Line: lineNo}
	msb, lsb, ok := strings.Cut(args[1], ":")
	if !ok {
		return nil, fail(lineNo, "bit range %q must be MSB:LSB", args[1])
	}
	m, err1 := strconv.Atoi(msb)
	n, err2 := strconv.Atoi(lsb)
	if err1 != nil || err2 != nil || n < 0 || m > bits-1 || m < n {
		return nil, fail(lineNo, "bit range %q must be MSB:LSB with %d >= MSB >= LSB >= 0", args[1], bits-1)
	}
	f.MSB, f.LSB = m, n
	for _, a := range args[2:] {
		if acc, ok := accesses[a]; ok {
			f.Access = acc
			continue
		}
		if v, ok := strings.CutPrefix(a, "enum="); ok {
			f.Enum = v
			continue
		}
		if v, ok := strings.CutPrefix(a, "reset="); ok {
			f.ResetSym = v
			if nameRE.MatchString(v) {
				continue // resolved once every const is known
			}
			n, err := parseNum(v)
			if err != nil {
				return nil, fail(lineNo, "reset value: %v", err)
			}
			f.ResetSym = ""
			f.Reset = &n
			continue
		}
		return nil, fail(lineNo, "unknown field attribute %q", a)
	}
	return f, nil
}

// addField appends f to fields unless its name or bits clash.
func addField(fields *[]*Field, owner string, f *Field, lineNo int, fail failFunc) error {
	for _, g := range *fields {
		if g.Name == f.Name {
			return fail(lineNo, "field %s.%s already defined on line %d", owner, f.Name, g.Line)
		}
		if f.LSB <= g.MSB && g.LSB <= f.MSB {
			return fail(lineNo, "field %s.%s overlaps %s (line %d)", owner, f.Name, g.Name, g.Line)
		}
	}
	*fields = append(*fields, f)
	return nil
}

func (l *Layout) constByName(name string) *Const {
	for _, c := range l.Consts {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (l *Layout) paramByName(name string) *Const {
	for _, c := range l.Params {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// check validates what needs the whole file: references, placement, overlaps.
func (l *Layout) check() error {
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: l.File, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	for _, a := range l.Arrays {
		if l.paramByName(a.Count) == nil {
			if _, err := parseNum(a.Count); err != nil {
				return fail(a.Line, "array %s: count %q is neither a number nor a param", a.Name, a.Count)
			}
		}
	}
	// windows may not overlap (arrays at their default count)
	type window struct {
		name       string
		base, size uint64
		line       int
	}
	var wins []window
	for _, r := range l.Regions {
		wins = append(wins, window{r.Name, r.Base, r.Size, r.Line})
	}
	for _, a := range l.Arrays {
		wins = append(wins, window{a.Name, a.Base, a.Stride * l.count(a), a.Line})
	}
	sort.Slice(wins, func(i, j int) bool { return wins[i].base < wins[j].base })
	for i := 1; i < len(wins); i++ {
		if p := wins[i-1]; p.base+p.size > wins[i].base {
			return fail(wins[i].line, "%s overlaps %s (line %d)", wins[i].name, p.name, p.line)
		}
	}
	byOff := map[uint64]*Reg{}
	for _, r := range l.Regs {
		if r.Offset%4 != 0 {
			return fail(r.Line, "reg %s: offset 0x%x is not 32-bit aligned", r.Name, r.Offset)
		}
		if r.Offset >= 1<<16 {
			return fail(r.Line, "reg %s: offset 0x%x does not fit 16 bits", r.Name, r.Offset)
		}
		if p, ok := byOff[r.Offset]; ok {
			return fail(r.Line, "reg %s: offset 0x%x already used by %s (line %d)", r.Name, r.Offset, p.Name, p.Line)
		}
		byOff[r.Offset] = r
		in := false
		for _, g := range l.Regions {
			in = in || (r.Offset >= g.Base && r.Offset+4 <= g.Base+g.Size)
		}
		if !in {
			return fail(r.Line, "reg %s: offset 0x%x lies in no region", r.Name, r.Offset)
		}
		for _, f := range r.Fields {
			if f.ResetSym != "" {
				c := l.constByName(f.ResetSym)
				if c == nil {
					return fail(f.Line, "field %s.%s: reset %s is not a const", r.Name, f.Name, f.ResetSym)
				}
				v := c.Value
				f.Reset = &v
			}
			if f.Reset != nil && f.Width() < 64 && *f.Reset>>uint(f.Width()) != 0 {
				return fail(f.Line, "field %s.%s: reset value 0x%x does not fit %d bits", r.Name, f.Name, *f.Reset, f.Width())
			}
			if r.Access != RO && f.Access == RO && r.Access != RW {
				return fail(f.Line, "field %s.%s: ro field in a %s register", r.Name, f.Name, r.Access)
			}
		}
	}
	if err := l.checkEnums(); err != nil {
		return err
	}
	// every emitted name must be unique (fields expand to REG_FIELD)
	emitted := map[string]int{}
	add := func(name string, line int) error {
		if prev, ok := emitted[name]; ok {
			return fail(line, "generated name %s collides with one from line %d", name, prev)
		}
		emitted[name] = line
		return nil
	}
	for _, c := range l.Consts {
		if err := add(c.Name, c.Line); err != nil {
			return err
		}
	}
	for _, c := range l.Params {
		if err := add("DEFAULT_"+c.Name, c.Line); err != nil {
			return err
		}
	}
	for _, g := range l.Regions {
		if err := add(g.Name+"_BASE", g.Line); err != nil {
			return err
		}
		if err := add(g.Name+"_BYTES", g.Line); err != nil {
			return err
		}
	}
	for _, a := range l.Arrays {
		if err := add(a.Name+"_BASE", a.Line); err != nil {
			return err
		}
		if err := add(a.Name+"_STRIDE", a.Line); err != nil {
			return err
		}
	}
	for _, st := range l.Structs {
		if err := add(st.Name+"_BYTES", st.Line); err != nil {
			return err
		}
		if err := add(st.Name, st.Line); err != nil {
			return err
		}
		for _, m := range st.Members {
			if err := add(st.Name+"_"+m.Name, m.Line); err != nil {
				return err
			}
			for _, f := range m.Fields {
				if err := add(st.Name+"_"+m.Name+"_"+f.Name, f.Line); err != nil {
					return err
				}
			}
		}
	}
	for _, r := range l.Regs {
		if err := add("REG_"+r.Name, r.Line); err != nil {
			return err
		}
		for _, f := range r.Fields {
			if err := add(r.Name+"_"+f.Name, f.Line); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *Layout) count(a *Array) uint64 {
	if p := l.paramByName(a.Count); p != nil {
		return p.Value
	}
	n, _ := parseNum(a.Count)
	return n
}

// hash is a digest of everything that affects hardware or software (not the
// doc strings), so that both sides can check they were built from one map.
func (l *Layout) hash() uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "layout %s %s %s\n", l.Name, l.Kind, l.Prefix)
	for _, c := range l.Consts {
		fmt.Fprintf(h, "const %s %d\n", c.Name, c.Value)
	}
	for _, c := range l.Params {
		fmt.Fprintf(h, "param %s %d\n", c.Name, c.Value)
	}
	for _, g := range l.Regions {
		fmt.Fprintf(h, "region %s %d %d\n", g.Name, g.Base, g.Size)
	}
	for _, a := range l.Arrays {
		fmt.Fprintf(h, "array %s %d %d %s\n", a.Name, a.Base, a.Stride, a.Count)
	}
	for _, r := range l.Regs {
		fmt.Fprintf(h, "reg %s %d %s\n", r.Name, r.Offset, r.Access)
		for _, f := range r.Fields {
			reset := "-"
			if f.Reset != nil {
				reset = strconv.FormatUint(*f.Reset, 10)
			}
			fmt.Fprintf(h, "field %s %d %d %s %s\n", f.Name, f.MSB, f.LSB, f.Access, reset)
		}
	}
	for _, st := range l.Structs {
		fmt.Fprintf(h, "struct %s %d\n", st.Name, st.Bytes)
		for _, m := range st.Members {
			fmt.Fprintf(h, "member %s %d %d\n", m.Name, m.Offset, m.Size)
			for _, f := range m.Fields {
				fmt.Fprintf(h, "field %s %d %d %s\n", f.Name, f.MSB, f.LSB, f.Access)
			}
		}
	}
	return binary.BigEndian.Uint64(h.Sum(nil)[:8])
}

// fields returns r's fields, or one field VALUE covering the register when
// the layout names none; sorted from the low bit up.
func (r *Reg) fields() []*Field {
	if len(r.Fields) == 0 {
		return []*Field{{Name: "VALUE", MSB: 31, LSB: 0, Access: r.Access, Doc: r.Doc, Line: r.Line}}
	}
	fs := append([]*Field(nil), r.Fields...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].LSB < fs[j].LSB })
	return fs
}
