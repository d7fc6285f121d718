package main

import (
	"bytes"
	"fmt"
	"strings"
)

// Verilog writes `define macros: macros, unlike localparams, cost nothing
// where they are unused, so `verilator -Wall` stays quiet in every module
// that includes the file.
func (l *Layout) Verilog() []byte {
	var b bytes.Buffer
	P := l.cpre()
	guard := "VIA_" + strings.ToUpper(l.Name) + "_VH"
	fmt.Fprintf(&b, "// "+banner+"\n// %s\n\n", l.File, l.Doc)
	fmt.Fprintf(&b, "`ifndef %s\n`define %s\n\n", guard, guard)
	fmt.Fprintf(&b, "// hash of the layout\n`define VIA_%s_HASH 64'h%016x\n", strings.ToUpper(l.Name), l.Hash)
	if len(l.Consts) > 0 {
		b.WriteString("\n// constants\n")
	}
	for _, c := range l.Consts {
		fmt.Fprintf(&b, "`define %s%s 32'h%08x // %s\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Params) > 0 {
		b.WriteString("\n// build parameter defaults\n")
	}
	for _, c := range l.Params {
		fmt.Fprintf(&b, "`define %sDEFAULT_%s %d // %s\n", P, c.Name, c.Value, c.Doc)
	}
	if len(l.Regions)+len(l.Arrays) > 0 {
		b.WriteString("\n// address windows\n")
	}
	for _, g := range l.Regions {
		fmt.Fprintf(&b, "`define %s%s_BASE 32'h%08x\n`define %s%s_BYTES 32'h%08x\n", P, g.Name, g.Base, P, g.Name, g.Size)
	}
	for _, a := range l.Arrays {
		fmt.Fprintf(&b, "`define %s%s_BASE 32'h%08x\n`define %s%s_STRIDE 32'h%08x\n", P, a.Name, a.Base, P, a.Name, a.Stride)
	}
	if len(l.Regs) > 0 {
		b.WriteString("\n// registers: byte offsets (16 bits) and fields\n")
	}
	vfields := func(p string, fs []*Field) {
		for _, f := range fs {
			q := p + "_" + f.Name
			fmt.Fprintf(&b, "`define %s_LSB %d\n`define %s_MSB %d\n`define %s_WIDTH %d\n`define %s_RANGE %d:%d\n",
				q, f.LSB, q, f.MSB, q, f.Width(), q, f.MSB, f.LSB)
			if f.Reset != nil {
				fmt.Fprintf(&b, "`define %s_RESET %d'h%x\n", q, f.Width(), *f.Reset)
			}
		}
	}
	for _, r := range l.Regs {
		fmt.Fprintf(&b, "`define %sREG_%s 16'h%04x // %s %s\n", P, r.Name, r.Offset, r.Access, r.Doc)
		vfields(P+r.Name, r.Fields)
	}
	for _, s := range l.Structs {
		fmt.Fprintf(&b, "\n// %s: %s\n`define %s%s_BYTES %d\n", s.Name, s.Doc, P, s.Name, s.Bytes)
		for _, m := range s.Members {
			p := P + s.Name + "_" + m.Name
			fmt.Fprintf(&b, "`define %s_OFFSET %d // %s\n`define %s_SIZE %d\n", p, m.Offset, m.Doc, p, m.Size)
			vfields(p, m.Fields)
		}
	}
	fmt.Fprintf(&b, "\n`endif // %s\n", guard)
	return b.Bytes()
}
