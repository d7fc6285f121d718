package main

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
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
	flagSets := l.hasMemberFields()
	if len(l.Enums) > 0 || flagSets {
		imports = append(imports, "\"strconv\"")
	}
	if flagSets {
		imports = append(imports, "\"strings\"")
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
	l.goFlagSets(&b)
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

// hasMemberFields reports whether a struct member of l has bit fields.
func (l *Layout) hasMemberFields() bool {
	for _, s := range l.Structs {
		for _, m := range s.Members {
			if len(m.Fields) > 0 {
				return true
			}
		}
	}
	return false
}

// goFlagSets writes, for every struct member with bit fields, a type
// STRUCTMEMBERBits of the member's width whose String() names the fields
// that are set: a one-bit field by its name, a wider one as name=VALUE
// (the field's name in lower case; the value's name when the field holds an
// enum, else the number in hex), bits outside every field as one hex
// number, all from the low bit up and joined by "|". A zero value is "0".
func (l *Layout) goFlagSets(b *bytes.Buffer) {
	G := l.gpre()
	for _, s := range l.Structs {
		for _, m := range s.Members {
			if len(m.Fields) == 0 {
				continue
			}
			t := G + goName(s.Name) + goName(m.Name) + "Bits"
			fs := append([]*Field(nil), m.Fields...)
			sort.Slice(fs, func(i, j int) bool { return fs[i].LSB < fs[j].LSB })
			var all uint64
			for _, f := range fs {
				all |= mask(f)
			}
			fmt.Fprintf(b, "// %s is a value of %s.%s seen as its fields: %s\n", t, s.Name, m.Name, m.Doc)
			fmt.Fprintf(b, "// String names the fields that are set, from the low bit up, joined by \"|\".\ntype %s %s\n\n", t, goInt[m.Size])
			fmt.Fprintf(b, "// String names v's fields: a one-bit field by its name when set, a wider field as name=VALUE, other bits as one hex number; \"0\" when v is zero.\n")
			fmt.Fprintf(b, "func (v %s) String() string {\n\tif v == 0 {\n\t\treturn \"0\"\n\t}\n\tvar parts []string\n", t)
			for _, f := range fs {
				if f.Width() == 1 {
					fmt.Fprintf(b, "\tif v&0x%x != 0 {\n\t\tparts = append(parts, %q)\n\t}\n", mask(f), f.Name)
					continue
				}
				val := fmt.Sprintf("(uint64(v)>>%d)&0x%x", f.LSB, (uint64(1)<<uint(f.Width()))-1)
				if f.LSB == 0 {
					val = fmt.Sprintf("uint64(v)&0x%x", (uint64(1)<<uint(f.Width()))-1)
				}
				if f.Enum != "" {
					fmt.Fprintf(b, "\tparts = append(parts, %q+%s%s(%s).String())\n", strings.ToLower(f.Name)+"=", G, goName(f.Enum), val)
				} else {
					fmt.Fprintf(b, "\tparts = append(parts, %q+strconv.FormatUint(%s, 16))\n", strings.ToLower(f.Name)+"=0x", val)
				}
			}
			fmt.Fprintf(b, "\tif r := uint64(v) &^ 0x%x; r != 0 {\n\t\tparts = append(parts, \"0x\"+strconv.FormatUint(r, 16))\n\t}\n\treturn strings.Join(parts, \"|\")\n}\n\n", all)
		}
	}
}
