package main

import (
	"bytes"
	"fmt"
	"strings"
)

// Markdown writes the reference page.
func (l *Layout) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- "+banner+" -->\n\n# %s\n\n", l.File, l.Doc)
	fmt.Fprintf(&b, "Generated from `%s`; edit that file and run `make generate`. Layout hash: `0x%016x`.\n\n", l.File, l.Hash)
	if l.Kind == "regmap" {
		b.WriteString("All registers are 32 bits wide, little endian, at 32-bit aligned byte offsets. ")
		b.WriteString("Access: `ro` read-only, `rw` read/write, `wo` write-only (reads as zero), `w1c` write 1 to clear, `w1s` write 1 to set (reads as zero).\n\n")
	} else {
		b.WriteString("All integers are little endian. Bytes no member covers are reserved: written as zero, ignored when read.\n\n")
	}
	if len(l.Regions)+len(l.Arrays) > 0 {
		b.WriteString("## Address windows\n\n| window | base | size | description |\n|---|---|---|---|\n")
		for _, g := range l.Regions {
			fmt.Fprintf(&b, "| %s | 0x%05x | 0x%x | %s |\n", g.Name, g.Base, g.Size, md(g.Doc))
		}
		for _, a := range l.Arrays {
			fmt.Fprintf(&b, "| %s[%s] | 0x%05x | %s × 0x%x | %s |\n", a.Name, a.Count, a.Base, a.Count, a.Stride, md(a.Doc))
		}
		b.WriteString("\n")
	}
	if len(l.Params) > 0 {
		b.WriteString("## Build parameters\n\n| parameter | default | description |\n|---|---|---|\n")
		for _, c := range l.Params {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", c.Name, c.Value, md(c.Doc))
		}
		b.WriteString("\n")
	}
	if len(l.Consts) > 0 {
		b.WriteString("## Constants\n\n| constant | value | description |\n|---|---|---|\n")
		for _, c := range l.Consts {
			fmt.Fprintf(&b, "| %s | 0x%x | %s |\n", c.Name, c.Value, md(c.Doc))
		}
		b.WriteString("\n")
	}
	l.mdEnums(&b)
	fieldTable := func(fs []*Field) {
		b.WriteString("| bits | field | access | reset | description |\n|---|---|---|---|---|\n")
		for _, f := range fs {
			reset := "-"
			if f.Reset != nil {
				reset = fmt.Sprintf("0x%x", *f.Reset)
				if f.ResetSym != "" {
					reset += " (" + f.ResetSym + ")"
				}
			}
			bits := fmt.Sprintf("%d:%d", f.MSB, f.LSB)
			if f.MSB == f.LSB {
				bits = fmt.Sprint(f.LSB)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", bits, f.Name, f.Access, reset, md(f.Doc))
		}
	}
	if len(l.Regs) > 0 {
		b.WriteString("## Register summary\n\n| offset | register | access | description |\n|---|---|---|---|\n")
		for _, r := range l.Regs {
			fmt.Fprintf(&b, "| 0x%03x | [%s](#%s) | %s | %s |\n", r.Offset, r.Name, strings.ToLower(r.Name), r.Access, md(r.Doc))
		}
		b.WriteString("\n## Registers\n")
		for _, r := range l.Regs {
			fmt.Fprintf(&b, "\n### %s\n\nOffset 0x%03x, %s. %s\n\n", r.Name, r.Offset, r.Access, md(r.Doc))
			fieldTable(r.fields())
		}
	}
	for _, s := range l.Structs {
		fmt.Fprintf(&b, "## %s\n\n%s %d bytes.\n\n| offset | size | member | description |\n|---|---|---|---|\n", s.Name, md(s.Doc), s.Bytes)
		for _, m := range s.sorted() {
			fmt.Fprintf(&b, "| %d | %d | %s | %s |\n", m.Offset, m.Size, m.Name, md(m.Doc))
		}
		b.WriteString("\n")
		for _, m := range s.sorted() {
			if len(m.Fields) > 0 {
				fmt.Fprintf(&b, "### %s.%s\n\n", s.Name, m.Name)
				fieldTable(m.Fields)
				b.WriteString("\n")
			}
		}
	}
	return b.Bytes()
}

func md(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
