package main

import (
	"bytes"
	"fmt"
	"strings"
)

// RegTableOutput is a Verilog include for benches: every register of a
// regmap layout with blocks as a table of functions (index -> offset,
// access, stored bits, reset value and the bits it fixes, hardware
// attributes), so that a bench can check every register's decode, reset
// value, access kind and read-back without a hand-written list
// (testbench/via_bar0_regs). Empty when the layout has no blocks.
func (l *Layout) RegTableOutput() []Output {
	if len(l.Blocks) == 0 {
		return nil
	}
	var w bytes.Buffer
	fn := "via_" + l.Name + "_reg"
	fmt.Fprintf(&w, "// "+banner+"\n", l.File)
	fmt.Fprintf(&w, "//\n// The registers of %s as a table, for benches: include it inside a\n", l.Doc)
	w.WriteString("// module. Index i runs from 0 to " + strings.ToUpper(fn) + "S - 1, in layout order.\n")
	w.WriteString("//\n")
	fmt.Fprintf(&w, "//   %s_offset(i)      byte offset\n", fn)
	fmt.Fprintf(&w, "//   %s_access(i)      0 ro, 1 rw, 2 wo, 3 w1c, 4 w1s\n", fn)
	fmt.Fprintf(&w, "//   %s_hw(i)          hardware attributes: bit 0 hwext, 1 hwre, 2 hwconst\n", fn)
	fmt.Fprintf(&w, "//   %s_stored(i)      bits the register module stores (plain rw fields)\n", fn)
	fmt.Fprintf(&w, "//   %s_reset(i)       reset value of the bits in %s_known(i)\n", fn, fn)
	fmt.Fprintf(&w, "//   %s_known(i)       bits whose value after reset the layout fixes\n", fn)
	fmt.Fprintf(&w, "//   %s_block(i)       index of the owning block, in layout order\n", fn)
	w.WriteString("\n")
	fmt.Fprintf(&w, "localparam %sS = %d;\n\n", strings.ToUpper(fn), len(l.Regs))

	accCode := map[Access]int{RO: 0, RW: 1, WO: 2, W1C: 3, W1S: 4}
	blockIdx := map[*Block]int{}
	for i, b := range l.Blocks {
		blockIdx[b] = i
	}
	type col struct {
		name, typ string
		val       func(r *Reg) string
	}
	cols := []col{
		{"offset", "[15:0]", func(r *Reg) string { return fmt.Sprintf("16'h%04x", r.Offset) }},
		{"access", "[2:0]", func(r *Reg) string { return fmt.Sprintf("3'd%d", accCode[r.Access]) }},
		{"hw", "[2:0]", func(r *Reg) string {
			v := 0
			for i, a := range []string{"hwext", "hwre", "hwconst"} {
				if r.HasHW(a) {
					v |= 1 << i
				}
			}
			return fmt.Sprintf("3'd%d", v)
		}},
		{"stored", "[31:0]", func(r *Reg) string {
			var m uint64
			if r.Access == RW && !r.HasHW("hwext") {
				for _, f := range r.fields() {
					m |= mask(f)
				}
			}
			return fmt.Sprintf("32'h%08x", m)
		}},
		{"reset", "[31:0]", func(r *Reg) string {
			var v uint64
			for _, f := range r.fields() {
				if f.Reset != nil && (r.HasHW("hwconst") || (r.Access == RW && !r.HasHW("hwext"))) {
					v |= *f.Reset << uint(f.LSB)
				}
			}
			return fmt.Sprintf("32'h%08x", v)
		}},
		{"known", "[31:0]", func(r *Reg) string {
			var m uint64
			switch {
			case r.Access == WO || r.Access == W1S || r.HasHW("hwconst"):
				m = 0xffffffff
			case r.Access == RW && !r.HasHW("hwext"):
				// stored fields reset to their value (0 when none is
				// given), the other bits read as zero
				m = 0xffffffff
			default:
				// hardware-driven: only the bits outside every field
				m = 0xffffffff
				for _, f := range r.fields() {
					m &^= mask(f)
				}
			}
			return fmt.Sprintf("32'h%08x", m)
		}},
		{"block", "[7:0]", func(r *Reg) string { return fmt.Sprintf("8'd%d", blockIdx[r.Block]) }},
	}
	for _, c := range cols {
		fmt.Fprintf(&w, "function %s %s_%s;\n    input integer i;\n    begin\n        case (i)\n", c.typ, fn, c.name)
		for i, r := range l.Regs {
			fmt.Fprintf(&w, "            %d: %s_%s = %s; // %s\n", i, fn, c.name, c.val(r), r.Name)
		}
		fmt.Fprintf(&w, "            default: %s_%s = 0;\n        endcase\n    end\nendfunction\n\n", fn, c.name)
	}
	// names, for messages
	fmt.Fprintf(&w, "function [8*24-1:0] %s_name;\n    input integer i;\n    begin\n        case (i)\n", fn)
	for i, r := range l.Regs {
		fmt.Fprintf(&w, "            %d: %s_name = %q;\n", i, fn, r.Name)
	}
	fmt.Fprintf(&w, "            default: %s_name = \"?\";\n        endcase\n    end\nendfunction\n", fn)
	return []Output{{"testbench/common/via_" + l.Name + "_reg_table.vh", w.Bytes()}}
}
