package main

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
)

// The bridge protocol's layout (cosim/protocol.layout) is emitted for the
// Go client in its own package, with the package's naming, and as a C++
// header for the harness; neither view knows the VIA register map.

// goInitialisms stay upper case in package-local Go names (msgMMIORead).
var goInitialisms = map[string]bool{"MMIO": true, "IRQ": true, "OK": true, "SLVERR": true, "DECERR": true, "ID": true}

// goLocalName turns UPPER_SNAKE into a Go name in the style of a
// hand-written package: initialisms kept, the first word lower case unless
// exported.
func goLocalName(s string, exported bool) string {
	var b strings.Builder
	for i, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		switch {
		case i == 0 && !exported:
			b.WriteString(strings.ToLower(part))
		case goInitialisms[part]:
			b.WriteString(part)
		default:
			b.WriteString(part[:1] + strings.ToLower(part[1:]))
		}
	}
	return b.String()
}

// enumOf maps every enum value constant to its enum.
func (l *Layout) enumOf() map[*Const]*Enum {
	m := map[*Const]*Enum{}
	for _, e := range l.Enums {
		for _, c := range e.Values {
			m[c] = e
		}
	}
	return m
}

// GoLocal writes the layout's constants and enums as unexported Go
// constants of package pkg (an enum with type=T: the exported type T and
// its typed constants), each enum with a name table <enum>Names.
func (l *Layout) GoLocal(pkg string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// "+banner+"\n\npackage %s\n\n", l.File, pkg)
	inEnum := l.enumOf()
	b.WriteString("// Constants of the protocol.\nconst (\n")
	for _, c := range l.Consts {
		if inEnum[c] == nil {
			fmt.Fprintf(&b, "\t// %s: %s\n\t%s = %s\n", goLocalName(c.Name, false), c.Doc, goLocalName(c.Name, false), number(c.Value))
		}
	}
	b.WriteString(")\n")
	for _, e := range l.Enums {
		typ, exported := goEnumType(e.Bits), false
		if e.Type != "" {
			typ, exported = e.Type, true
			fmt.Fprintf(&b, "\n// %s is a value of %s: %s\ntype %s %s\n", e.Type, e.Name, e.Doc, e.Type, goEnumType(e.Bits))
		}
		fmt.Fprintf(&b, "\n// %s: %s\nconst (\n", e.Name, e.Doc)
		for _, c := range e.Values {
			fmt.Fprintf(&b, "\t%s %s = 0x%02x // %s\n", goLocalName(c.Name, exported), typ, c.Value, c.Doc)
		}
		tab := goLocalName(e.Name, false) + "Names"
		fmt.Fprintf(&b, ")\n\n// %s maps every %s value to its name in the protocol.\nvar %s = map[%s]string{\n", tab, e.Name, tab, typ)
		for _, c := range e.Values {
			fmt.Fprintf(&b, "\t%s: %q,\n", goLocalName(c.Name, exported), e.valueName(c))
		}
		b.WriteString("}\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: generated Go does not format: %v", l.File, err)
	}
	return src, nil
}

// cppInt is the C++ type of a value of bits bits.
func cppInt(bits int) string {
	switch {
	case bits <= 8:
		return "uint8_t"
	case bits <= 16:
		return "uint16_t"
	case bits <= 32:
		return "uint32_t"
	}
	return "uint64_t"
}

// Cpp writes the layout's constants and enums as a C++17 header in
// namespace ns (kCamelCase names), with a <enum>_value_name() function per enum
// that returns the value's name or nullptr.
func (l *Layout) Cpp(ns string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// "+banner+"\n// %s\n#pragma once\n\n#include <cstdint>\n\n", l.File, l.Doc)
	for _, n := range strings.Split(ns, "::") {
		fmt.Fprintf(&b, "namespace %s {\n", n)
	}
	inEnum := l.enumOf()
	b.WriteString("\n")
	for _, c := range l.Consts {
		if inEnum[c] == nil {
			bits := 32
			if c.Value>>32 != 0 {
				bits = 64
			}
			fmt.Fprintf(&b, "constexpr %s k%s = %s;  // %s\n", cppInt(bits), goName(c.Name), number(c.Value), c.Doc)
		}
	}
	for _, e := range l.Enums {
		fmt.Fprintf(&b, "\n// %s: %s\nenum : %s {\n", e.Name, e.Doc, cppInt(e.Bits))
		for _, c := range e.Values {
			fmt.Fprintf(&b, "    k%s = 0x%02x,  // %s\n", goName(c.Name), c.Value, c.Doc)
		}
		fmt.Fprintf(&b, "};\n\n// The name of a %s value (%q), or nullptr.\ninline const char* %s_value_name(%s v) {\n    switch (v) {\n",
			e.Name, e.valueName(e.Values[0]), strings.ToLower(e.Name), cppInt(e.Bits))
		for _, c := range e.Values {
			fmt.Fprintf(&b, "        case k%s: return %q;\n", goName(c.Name), e.valueName(c))
		}
		b.WriteString("        default: return nullptr;\n    }\n}\n")
	}
	b.WriteString("\n")
	parts := strings.Split(ns, "::")
	for i := len(parts) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "}  // namespace %s\n", parts[i])
	}
	return b.Bytes()
}

// number writes sizes and counts in decimal, magic numbers in hex.
func number(v uint64) string {
	if v > 0x10000 {
		return fmt.Sprintf("0x%X", v)
	}
	return fmt.Sprint(v)
}
