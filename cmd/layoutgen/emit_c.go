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
// and packed structs. The numbers are plain #defines that assembly (.S
// files, which define __ASSEMBLER__) can use too: VIA_U() adds C's unsigned
// suffix only in C, and the C-only parts (stdint.h, inline functions,
// structs) are inside #ifndef __ASSEMBLER__.
func (l *Layout) C() []byte {
	var b, c bytes.Buffer // b: every language; c: C only
	P := l.cpre()
	guard := "VIA_" + strings.ToUpper(l.Name) + "_H"
	fmt.Fprintf(&b, "/* "+banner+" */\n/* %s */\n\n", l.File, l.Doc)
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\n", guard, guard)
	b.WriteString(cSuffixMacros)
	fmt.Fprintf(&b, "\n#define VIA_%s_HASH VIA_ULL(0x%016x)\n\n", strings.ToUpper(l.Name), l.Hash)
	for _, c := range l.Consts {
		fmt.Fprintf(&b, "#define %s%s VIA_U(0x%x) /* %s */\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Params) > 0 {
		b.WriteString("\n")
	}
	for _, c := range l.Params {
		fmt.Fprintf(&b, "#define %sDEFAULT_%s VIA_U(%d) /* %s */\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Regions)+len(l.Arrays) > 0 {
		b.WriteString("\n")
	}
	for _, g := range l.Regions {
		fmt.Fprintf(&b, "#define %s%s_BASE VIA_U(0x%x)\n#define %s%s_BYTES VIA_U(0x%x)\n", P, g.Name, g.Base, P, g.Name, g.Size)
	}
	for _, a := range l.Arrays {
		fmt.Fprintf(&b, "#define %s%s_BASE VIA_U(0x%x)\n#define %s%s_STRIDE VIA_U(0x%x)\n", P, a.Name, a.Base, P, a.Name, a.Stride)
	}
	cfields := func(p, fn, typ string, fs []*Field) {
		for _, f := range fs {
			q := p + "_" + f.Name
			fq := strings.ToLower(fn + "_" + f.Name)
			fmt.Fprintf(&b, "#define %s_SHIFT VIA_U(%d)\n#define %s_MASK VIA_U(0x%08x)\n", q, f.LSB, q, mask(f))
			if f.Reset != nil {
				fmt.Fprintf(&b, "#define %s_RESET VIA_U(0x%x)\n", q, *f.Reset)
			}
			fmt.Fprintf(&c, "static inline %s via_%s_get(%s v) { return (%s)((v & %s_MASK) >> %s_SHIFT); }\n", typ, fq, typ, typ, q, q)
			fmt.Fprintf(&c, "static inline %s via_%s_set(%s v, uint32_t x) { return (%s)((v & ~%s_MASK) | ((x << %s_SHIFT) & %s_MASK)); }\n", typ, fq, typ, typ, q, q, q)
		}
	}
	for _, r := range l.Regs {
		fmt.Fprintf(&b, "\n/* %s (%s): %s */\n#define %sREG_%s VIA_U(0x%03x)\n", r.Name, r.Access, r.Doc, P, r.Name, r.Offset)
		cfields(P+r.Name, l.Prefix+r.Name, "uint32_t", r.Fields)
	}
	for _, s := range l.Structs {
		tname := "via_" + strings.ToLower(l.Prefix+s.Name) + "_t"
		fmt.Fprintf(&b, "\n/* %s: %s */\n#define %s%s_BYTES VIA_U(%d)\n", s.Name, s.Doc, P, s.Name, s.Bytes)
		for _, m := range s.Members {
			p := P + s.Name + "_" + m.Name
			fmt.Fprintf(&b, "#define %s_OFFSET VIA_U(%d)\n", p, m.Offset)
			if len(m.Fields) > 0 {
				cfields(p, l.Prefix+s.Name+"_"+m.Name, cType(m.Size), m.Fields)
			}
		}
		fmt.Fprintf(&c, "\n/* %s: %s */\ntypedef struct __attribute__((packed, aligned(4))) {\n", s.Name, s.Doc)
		pos, pad := 0, 0
		for _, m := range s.sorted() {
			if m.Offset > pos {
				fmt.Fprintf(&c, "    uint8_t reserved%d[%d];\n", pad, m.Offset-pos)
				pad++
			}
			if m.IsInt() {
				fmt.Fprintf(&c, "    %s %s; /* %s */\n", cType(m.Size), strings.ToLower(m.Name), m.Doc)
			} else {
				fmt.Fprintf(&c, "    uint8_t %s[%d]; /* %s */\n", strings.ToLower(m.Name), m.Size, m.Doc)
			}
			pos = m.Offset + m.Size
		}
		if pos < s.Bytes {
			fmt.Fprintf(&c, "    uint8_t reserved%d[%d];\n", pad, s.Bytes-pos)
		}
		fmt.Fprintf(&c, "} %s;\n_Static_assert(sizeof(%s) == %d, \"%s size\");\n", tname, tname, s.Bytes, s.Name)
		for _, m := range s.Members {
			fmt.Fprintf(&c, "_Static_assert(offsetof(%s, %s) == %d, \"%s.%s offset\");\n", tname, strings.ToLower(m.Name), m.Offset, s.Name, m.Name)
		}
	}
	b.WriteString("\n#ifndef __ASSEMBLER__\n\n#include <stdint.h>\n")
	if len(l.Structs) > 0 {
		// C11's _Static_assert is static_assert in C++ (the simulator's
		// harness includes these headers too)
		b.WriteString("#include <stddef.h>\n#if defined(__cplusplus) && !defined(_Static_assert)\n#define _Static_assert static_assert\n#endif\n")
	}
	if c.Len() > 0 {
		b.WriteString("\n")
		b.Write(c.Bytes())
	}
	b.WriteString("\n#endif /* __ASSEMBLER__ */\n")
	fmt.Fprintf(&b, "\n#endif /* %s */\n", guard)
	return b.Bytes()
}

// cSuffixMacros lets one #define serve C and assembly: the assembler does
// not know C's integer suffixes.
const cSuffixMacros = `#ifndef VIA_U
#ifdef __ASSEMBLER__
#define VIA_U(x) x
#define VIA_ULL(x) x
#else
#define VIA_U(x) x##u
#define VIA_ULL(x) x##ull
#endif
#endif
`

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
