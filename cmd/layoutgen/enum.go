package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Enum is a named set of values of a field or member (opcodes, statuses,
// event codes, message types). Its values are also constants of the layout
// (NAME_VALUE), so every view that has the constants has them; the enum adds
// a type, a name table and String() in Go, a section in the Markdown and
// GTKWave translate filters.
//
//	enum OP 16 "Admin command codes."
//	  value NOP 0x00 "Does nothing."
//
// declares the constant OP_NOP; BITS (1..64) is the width of the values.
type Enum struct {
	Name   string
	Type   string // type=NAME: the Go type of a package-local emitter (GoLocal), exported
	Bits   int
	Doc    string
	Values []*Const // the constants, named ENUM_VALUE, in layout order
	Line   int
}

// valueName is the value's own name (NOP for OP_NOP).
func (e *Enum) valueName(c *Const) string { return strings.TrimPrefix(c.Name, e.Name+"_") }

// enumByName returns the enum with the given name, or nil.
func (l *Layout) enumByName(name string) *Enum {
	for _, e := range l.Enums {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// cutEnumAttr removes an enum=NAME argument from args.
func cutEnumAttr(args []string) ([]string, string) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "enum="); ok {
			return append(append([]string(nil), args[:i]...), args[i+1:]...), v
		}
	}
	return args, ""
}

var goTypeRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// parseEnumLine handles the enum and value directives; cur is the enum the
// previous line opened (nil if none). It returns the enum value lines may
// continue.
func (l *Layout) parseEnumLine(dir string, args []string, doc string, cur *Enum, lineNo int, fail failFunc, declare func(int, string, string) error) (*Enum, error) {
	var goType string
	if dir == "enum" && len(args) == 3 {
		t, ok := strings.CutPrefix(args[2], "type=")
		if !ok || !goTypeRE.MatchString(t) {
			return nil, fail(lineNo, "enum: third argument must be type=GoTypeName")
		}
		goType, args = t, args[:2]
	}
	if len(args) != 2 {
		if dir == "enum" {
			return nil, fail(lineNo, `enum takes NAME BITS [type=GoType] "doc"`)
		}
		return nil, fail(lineNo, `value takes NAME VALUE "doc"`)
	}
	if doc == "" {
		return nil, fail(lineNo, "%s %s needs a doc string", dir, args[0])
	}
	if dir == "enum" {
		if err := declare(lineNo, "enum", args[0]); err != nil {
			return nil, err
		}
		bits, err := parseNum(args[1])
		if err != nil || bits == 0 || bits > 64 {
			return nil, fail(lineNo, "enum %s: width %q must be 1..64 bits", args[0], args[1])
		}
		e := &Enum{Name: args[0], Type: goType, Bits: int(bits), Doc: doc, Line: lineNo}
		l.Enums = append(l.Enums, e)
		return e, nil
	}
	if cur == nil {
		return nil, fail(lineNo, "value outside an enum (a value line must follow its enum line or another value)")
	}
	if !nameRE.MatchString(args[0]) {
		return nil, fail(lineNo, "value name %q must be UPPER_SNAKE_CASE", args[0])
	}
	name := cur.Name + "_" + args[0]
	if err := declare(lineNo, "const", name); err != nil {
		return nil, err
	}
	v, err := parseNum(args[1])
	if err != nil {
		return nil, fail(lineNo, "%v", err)
	}
	if cur.Bits < 64 && v>>uint(cur.Bits) != 0 {
		return nil, fail(lineNo, "value %s: 0x%x does not fit the %d bits of enum %s", name, v, cur.Bits, cur.Name)
	}
	for _, o := range cur.Values {
		if o.Value == v {
			return nil, fail(lineNo, "value %s: 0x%x is already %s (line %d)", name, v, o.Name, o.Line)
		}
	}
	c := &Const{Name: name, Value: v, Doc: doc, Line: lineNo}
	cur.Values = append(cur.Values, c)
	l.Consts = append(l.Consts, c)
	return cur, nil
}

// checkEnums checks that every enum has values and every enum= names one.
func (l *Layout) checkEnums() error {
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: l.File, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	for _, e := range l.Enums {
		if len(e.Values) == 0 {
			return fail(e.Line, "enum %s has no values", e.Name)
		}
	}
	checkField := func(owner string, f *Field) error {
		if f.Enum == "" {
			return nil
		}
		e := l.enumByName(f.Enum)
		if e == nil {
			return fail(f.Line, "field %s.%s: enum %s is not declared", owner, f.Name, f.Enum)
		}
		if e.Bits > f.Width() {
			return fail(f.Line, "field %s.%s: enum %s has %d bits, the field %d", owner, f.Name, e.Name, e.Bits, f.Width())
		}
		return nil
	}
	for _, r := range l.Regs {
		for _, f := range r.Fields {
			if err := checkField(r.Name, f); err != nil {
				return err
			}
		}
	}
	for _, s := range l.Structs {
		for _, m := range s.Members {
			if m.Enum != "" {
				e := l.enumByName(m.Enum)
				if e == nil {
					return fail(m.Line, "member %s.%s: enum %s is not declared", s.Name, m.Name, m.Enum)
				}
				if !m.IsInt() || e.Bits > m.Size*8 {
					return fail(m.Line, "member %s.%s: enum %s (%d bits) needs an integer member that wide", s.Name, m.Name, e.Name, e.Bits)
				}
			}
			for _, f := range m.Fields {
				if err := checkField(s.Name+"."+m.Name, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// goEnumType is the Go type of an enum's values.
func goEnumType(bits int) string {
	switch {
	case bits <= 8:
		return "uint8"
	case bits <= 16:
		return "uint16"
	case bits <= 32:
		return "uint32"
	}
	return "uint64"
}

// goEnums writes every enum as a Go type with a name table and String().
// The value constants stay untyped (the constants block declares them) so
// that they still fit the integer fields of registers and wire structs;
// converting a number to the type names it.
func (l *Layout) goEnums(b *bytes.Buffer) {
	G := l.gpre()
	for _, e := range l.Enums {
		t := G + goName(e.Name)
		fmt.Fprintf(b, "// %s is a value of enum %s: %s\n// The constants %s* are untyped so that they fit integer fields; %s(v).String() names a value.\ntype %s %s\n\n",
			t, e.Name, e.Doc, t, t, t, goEnumType(e.Bits))
		fmt.Fprintf(b, "// %sNames maps every value of %s to its name in the layout.\nvar %sNames = map[%s]string{\n", t, e.Name, t, t)
		for _, c := range e.Values {
			fmt.Fprintf(b, "\t%s%s: %q,\n", G, goName(c.Name), e.valueName(c))
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(b, "// String returns the value's name in the layout (%q), or %s(N) for a value the layout does not name.\n", e.valueName(e.Values[0]), e.Name)
		fmt.Fprintf(b, "func (v %s) String() string {\n\tif s, ok := %sNames[v]; ok {\n\t\treturn s\n\t}\n\treturn %q + strconv.FormatUint(uint64(v), 10) + \")\"\n}\n\n", t, t, e.Name+"(")
	}
}

// mdEnums writes the enums' value tables.
func (l *Layout) mdEnums(b *bytes.Buffer) {
	if len(l.Enums) == 0 {
		return
	}
	b.WriteString("## Enumerations\n\n")
	for _, e := range l.Enums {
		fmt.Fprintf(b, "### %s\n\n%s %d bits; the constants are named %s_*.\n\n| value | name | description |\n|---|---|---|\n", e.Name, md(e.Doc), e.Bits, e.Name)
		for _, c := range e.Values {
			fmt.Fprintf(b, "| 0x%x | %s | %s |\n", c.Value, e.valueName(c), md(c.Doc))
		}
		b.WriteString("\n")
	}
}

// goFieldMasks writes each register field's bits in place as an untyped
// constant (the Field variables' Mask(), usable in constant expressions),
// and likewise each bit field of a struct member.
func (l *Layout) goFieldMasks(b *bytes.Buffer) {
	var n, m int
	for _, r := range l.Regs {
		n += len(r.Fields)
	}
	for _, s := range l.Structs {
		for _, mb := range s.Members {
			m += len(mb.Fields)
		}
	}
	G := l.gpre()
	if n > 0 {
		b.WriteString("// Register fields' bits in place, as constants.\nconst (\n")
		for _, r := range l.Regs {
			for _, f := range r.Fields {
				fmt.Fprintf(b, "\t%s%s%sMask = 0x%x // %s[%d:%d]\n", G, goName(r.Name), goName(f.Name), mask(f), r.Name, f.MSB, f.LSB)
			}
		}
		b.WriteString(")\n\n")
	}
	if m > 0 {
		b.WriteString("// Struct members' bit fields in place, as constants.\nconst (\n")
		for _, s := range l.Structs {
			for _, mb := range s.Members {
				for _, f := range mb.Fields {
					fmt.Fprintf(b, "\t%s%s%s%sMask = 0x%x // %s.%s[%d:%d]\n", G, goName(s.Name), goName(mb.Name), goName(f.Name), mask(f), s.Name, mb.Name, f.MSB, f.LSB)
				}
			}
		}
		b.WriteString(")\n\n")
	}
}
