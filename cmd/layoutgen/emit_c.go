package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// cType is the C type of an integer member.
func cType(size int) string { return fmt.Sprintf("uint%d_t", size*8) }

// C writes the firmware's header: offsets, shifts, masks, inline accessors
// and packed structs.
func (l *Layout) C() []byte {
	var b bytes.Buffer
	P := l.cpre()
	guard := "VIA_" + strings.ToUpper(l.Name) + "_H"
	fmt.Fprintf(&b, "/* "+banner+" */\n/* %s */\n\n", l.File, l.Doc)
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n", guard, guard)
	if len(l.Structs) > 0 {
		b.WriteString("#include <stddef.h>\n")
	}
	fmt.Fprintf(&b, "\n#define VIA_%s_HASH 0x%016xull\n\n", strings.ToUpper(l.Name), l.Hash)
	for _, c := range l.Consts {
		fmt.Fprintf(&b, "#define %s%s 0x%xu /* %s */\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Params) > 0 {
		b.WriteString("\n")
	}
	for _, c := range l.Params {
		fmt.Fprintf(&b, "#define %sDEFAULT_%s %du /* %s */\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Regions)+len(l.Arrays) > 0 {
		b.WriteString("\n")
	}
	for _, g := range l.Regions {
		fmt.Fprintf(&b, "#define %s%s_BASE 0x%xu\n#define %s%s_BYTES 0x%xu\n", P, g.Name, g.Base, P, g.Name, g.Size)
	}
	for _, a := range l.Arrays {
		fmt.Fprintf(&b, "#define %s%s_BASE 0x%xu\n#define %s%s_STRIDE 0x%xu\n", P, a.Name, a.Base, P, a.Name, a.Stride)
	}
	cfields := func(p, fn, typ string, fs []*Field) {
		for _, f := range fs {
			q := p + "_" + f.Name
			fq := strings.ToLower(fn + "_" + f.Name)
			fmt.Fprintf(&b, "#define %s_SHIFT %du\n#define %s_MASK 0x%08xu\n", q, f.LSB, q, mask(f))
			if f.Reset != nil {
				fmt.Fprintf(&b, "#define %s_RESET 0x%xu\n", q, *f.Reset)
			}
			fmt.Fprintf(&b, "static inline %s via_%s_get(%s v) { return (%s)((v & %s_MASK) >> %s_SHIFT); }\n", typ, fq, typ, typ, q, q)
			fmt.Fprintf(&b, "static inline %s via_%s_set(%s v, uint32_t x) { return (%s)((v & ~%s_MASK) | ((x << %s_SHIFT) & %s_MASK)); }\n", typ, fq, typ, typ, q, q, q)
		}
	}
	for _, r := range l.Regs {
		fmt.Fprintf(&b, "\n/* %s (%s): %s */\n#define %sREG_%s 0x%03xu\n", r.Name, r.Access, r.Doc, P, r.Name, r.Offset)
		cfields(P+r.Name, l.Prefix+r.Name, "uint32_t", r.Fields)
	}
	for _, s := range l.Structs {
		tname := "via_" + strings.ToLower(l.Prefix+s.Name) + "_t"
		fmt.Fprintf(&b, "\n/* %s: %s */\n#define %s%s_BYTES %du\ntypedef struct __attribute__((packed, aligned(4))) {\n", s.Name, s.Doc, P, s.Name, s.Bytes)
		pos, pad := 0, 0
		for _, m := range s.sorted() {
			if m.Offset > pos {
				fmt.Fprintf(&b, "    uint8_t reserved%d[%d];\n", pad, m.Offset-pos)
				pad++
			}
			if m.IsInt() {
				fmt.Fprintf(&b, "    %s %s; /* %s */\n", cType(m.Size), strings.ToLower(m.Name), m.Doc)
			} else {
				fmt.Fprintf(&b, "    uint8_t %s[%d]; /* %s */\n", strings.ToLower(m.Name), m.Size, m.Doc)
			}
			pos = m.Offset + m.Size
		}
		if pos < s.Bytes {
			fmt.Fprintf(&b, "    uint8_t reserved%d[%d];\n", pad, s.Bytes-pos)
		}
		fmt.Fprintf(&b, "} %s;\n_Static_assert(sizeof(%s) == %d, \"%s size\");\n", tname, tname, s.Bytes, s.Name)
		for _, m := range s.Members {
			fmt.Fprintf(&b, "_Static_assert(offsetof(%s, %s) == %d, \"%s.%s offset\");\n", tname, strings.ToLower(m.Name), m.Offset, s.Name, m.Name)
		}
		for _, m := range s.Members {
			p := P + s.Name + "_" + m.Name
			fmt.Fprintf(&b, "#define %s_OFFSET %du\n", p, m.Offset)
			if len(m.Fields) > 0 {
				cfields(p, l.Prefix+s.Name+"_"+m.Name, cType(m.Size), m.Fields)
			}
		}
	}
	fmt.Fprintf(&b, "\n#endif /* %s */\n", guard)
	return b.Bytes()
}

// sorted returns the members by offset.
func (s *Struct) sorted() []*Member {
	ms := append([]*Member(nil), s.Members...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Offset < ms[j].Offset })
	return ms
}

var goInt = map[int]string{1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}
var goPut = map[int]string{2: "PutUint16", 4: "PutUint32", 8: "PutUint64"}
var goGet = map[int]string{2: "Uint16", 4: "Uint32", 8: "Uint64"}

// Go writes package hw's tables, constants and struct codecs for this
