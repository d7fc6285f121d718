package main

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
)

// layout.
func (l *Layout) Go(pkg string) ([]byte, error) {
	var b bytes.Buffer
	G := l.gpre()
	fmt.Fprintf(&b, "// "+banner+"\n\npackage %s\n\n", l.File, pkg)
	var imports []string
	if len(l.Structs) > 0 {
		imports = append(imports, "\"encoding/binary\"")
	}
	if len(l.Enums) > 0 {
		imports = append(imports, "\"strconv\"")
	}
	if len(imports) > 0 {
		b.WriteString("import (\n\t" + strings.Join(imports, "\n\t") + "\n)\n\n")
	}
	mapVar := goName(l.Name)
	fmt.Fprintf(&b, "// %sHash is the hash of the %s layout.\nconst %sHash uint64 = 0x%016x\n\n", mapVar, l.Name, mapVar, l.Hash)
	if len(l.Consts) > 0 {
		b.WriteString("// Constants of the layout.\nconst (\n")
		for _, c := range l.Consts {
			fmt.Fprintf(&b, "\t// %s%s: %s\n\t%s%s = 0x%x\n", G, goName(c.Name), c.Doc, G, goName(c.Name), c.Value)
		}
		b.WriteString(")\n\n")
	}
	l.goEnums(&b)
	if len(l.Params) > 0 {
		b.WriteString("// Defaults of the NIC's build parameters; the NIC reports its actual values in the CAP_* registers.\nconst (\n")
		for _, c := range l.Params {
			fmt.Fprintf(&b, "\t// %sDefault%s: %s\n\t%sDefault%s = %d\n", G, goName(c.Name), c.Doc, G, goName(c.Name), c.Value)
		}
		b.WriteString(")\n\n")
	}
	if len(l.Regions)+len(l.Arrays) > 0 {
		b.WriteString("// Address windows.\nconst (\n")
		for _, g := range l.Regions {
			n := G + goName(g.Name)
			fmt.Fprintf(&b, "\t// %sBase is the start of: %s\n\t%sBase = 0x%x\n\t// %sBytes is the size of the %s region.\n\t%sBytes = 0x%x\n", n, g.Doc, n, g.Base, n, g.Name, n, g.Size)
		}
		for _, a := range l.Arrays {
			n := G + goName(a.Name)
			fmt.Fprintf(&b, "\t// %sBase is the start of: %s\n\t%sBase = 0x%x\n\t// %sStride is the distance between %s elements.\n\t%sStride = 0x%x\n", n, a.Doc, n, a.Base, n, a.Name, n, a.Stride)
		}
		b.WriteString(")\n\n")
	}
	if len(l.Regs) > 0 {
		b.WriteString("// Register offsets in bytes.\nconst (\n")
		for _, r := range l.Regs {
			fmt.Fprintf(&b, "\t// %sReg%s (%s): %s\n\t%sReg%s uint32 = 0x%03x\n", G, goName(r.Name), r.Access, r.Doc, G, goName(r.Name), r.Offset)
		}
		b.WriteString(")\n\n")
	}
	l.goFieldMasks(&b)
	var fieldVars []string
	for _, r := range l.Regs {
		for _, f := range r.Fields {
			fieldVars = append(fieldVars, fmt.Sprintf("\t// %s%s%s is %s[%d:%d] (%s): %s\n\t%s%s%s = Field{Reg: %sReg%s, Name: %q, LSB: %d, Width: %d, Access: %s}\n",
				G, goName(r.Name), goName(f.Name), r.Name, f.MSB, f.LSB, f.Access, f.Doc,
				G, goName(r.Name), goName(f.Name), G, goName(r.Name), f.Name, f.LSB, f.Width(), goAccess(f.Access)))
		}
	}
	for _, s := range l.Structs {
		for _, m := range s.Members {
			for _, f := range m.Fields {
				n := G + goName(s.Name) + goName(m.Name) + goName(f.Name)
				fieldVars = append(fieldVars, fmt.Sprintf("\t// %s is %s.%s[%d:%d]: %s\n\t%s = Field{Reg: %d, Name: %q, LSB: %d, Width: %d, Access: %s}\n",
					n, s.Name, m.Name, f.MSB, f.LSB, f.Doc, n, m.Offset, f.Name, f.LSB, f.Width(), goAccess(f.Access)))
			}
		}
	}
	if len(fieldVars) > 0 {
		b.WriteString("// Fields, as typed accessors.\nvar (\n" + strings.Join(fieldVars, "") + ")\n\n")
	}
	if l.Kind == "regmap" {
		fmt.Fprintf(&b, "// %s describes the %s layout: every register and field, for tools that work by name.\nvar %s = Map{\n\tName: %q,\n\tHash: %sHash,\n\tRegs: []Reg{\n", mapVar, l.Name, mapVar, l.Name, mapVar)
		for _, r := range l.Regs {
			fmt.Fprintf(&b, "\t\t{Name: %q, Offset: %sReg%s, Access: %s, Doc: %q, Fields: []Field{\n", r.Name, G, goName(r.Name), goAccess(r.Access), r.Doc)
			for _, f := range r.Fields {
				fmt.Fprintf(&b, "\t\t\t%s%s%s,\n", G, goName(r.Name), goName(f.Name))
			}
			b.WriteString("\t\t}},\n")
		}
		b.WriteString("\t},\n}\n")
	}
	for _, s := range l.Structs {
		t := G + goName(s.Name)
		fmt.Fprintf(&b, "\n// %sBytes is the size of %s in bytes.\nconst %sBytes = %d\n\n", t, t, t, s.Bytes)
		fmt.Fprintf(&b, "// %s is %s: %s\ntype %s struct {\n", t, s.Name, s.Doc, t)
		for _, m := range s.Members {
			typ := goInt[m.Size]
			if !m.IsInt() {
				typ = fmt.Sprintf("[%d]byte", m.Size)
			}
			fmt.Fprintf(&b, "\t%s %s // %s\n", goName(m.Name), typ, m.Doc)
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "// Marshal writes v to b[:%sBytes] in the wire layout (little endian), leaving reserved bytes zero.\nfunc (v *%s) Marshal(b []byte) {\n\tb = b[:%sBytes]\n\tclear(b)\n", t, t, t)
		for _, m := range s.Members {
			switch {
			case m.Size == 1:
				fmt.Fprintf(&b, "\tb[%d] = v.%s\n", m.Offset, goName(m.Name))
			case m.IsInt():
				fmt.Fprintf(&b, "\tbinary.LittleEndian.%s(b[%d:], v.%s)\n", goPut[m.Size], m.Offset, goName(m.Name))
			default:
				fmt.Fprintf(&b, "\tcopy(b[%d:%d], v.%s[:])\n", m.Offset, m.Offset+m.Size, goName(m.Name))
			}
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "// Unmarshal reads v from b[:%sBytes].\nfunc (v *%s) Unmarshal(b []byte) {\n\tb = b[:%sBytes]\n", t, t, t)
		for _, m := range s.Members {
			switch {
			case m.Size == 1:
				fmt.Fprintf(&b, "\tv.%s = b[%d]\n", goName(m.Name), m.Offset)
			case m.IsInt():
				fmt.Fprintf(&b, "\tv.%s = binary.LittleEndian.%s(b[%d:])\n", goName(m.Name), goGet[m.Size], m.Offset)
			default:
				fmt.Fprintf(&b, "\tcopy(v.%s[:], b[%d:%d])\n", goName(m.Name), m.Offset, m.Offset+m.Size)
			}
		}
		b.WriteString("}\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: generated Go does not format: %v", l.File, err)
	}
	return src, nil
}

func goAccess(a Access) string { return "Access" + strings.ToUpper(string(a)) }
