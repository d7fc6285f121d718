package main

import (
	"bytes"
	"fmt"
	"strings"
)

// Register modules: one synthesizable Verilog module per block of a regmap
// layout (see layout_block.go), rtl/generated/via_LAYOUT_BLOCK_regs.v. The
// module is the mechanical part of a register block, in the manner of
// OpenTitan's reggen (own code): it decodes the register bus, stores the
// plain rw registers with their reset values, multiplexes the read data, and
// turns writes of wo, w1c and w1s registers into strobes and pulses. What a
// register means stays in the owning block.
//
// Ports (all blocks have the same bus, so the glue that routes BAR0 treats
// them alike):
//
//	clk, rst                 clock, synchronous active-high reset
//	wr_en, wr_addr, wr_data, wr_strb
//	                         a write (already qualified: it takes effect)
//	wr_hit                   wr_addr holds a register of this block
//	rd_en, rd_addr           the read multiplexer's address is valid
//	rd_fire                  the read at rd_addr is consumed this cycle (read
//	                         side effects, hwre)
//	rd_hit, rd_data          rd_addr holds a register of this block; its value
//	                         (zero when !rd_hit)
//
// and for every register NAME (lower case), field F (registers without
// fields: no _F):
//
//	rw          output NAME_F_q        stored value (byte strobes honoured)
//	rw hwext    output NAME_we, input NAME_F_i
//	ro          input  NAME_F_i        (none with hwconst); hwre: output NAME_re
//	wo          output NAME_we (no fields) or NAME_F_pulse (registered: the
//	            written ones, for one cycle after the write)
//	w1c         output NAME_w1 (the written ones, in the write's cycle),
//	            input NAME_F_i
//	w1s         output NAME_w1; reads as zero

// regBlockModule is the module name of block b.
func (l *Layout) regBlockModule(b *Block) string {
	return "via_" + l.Name + "_" + b.Name + "_regs"
}

// RegBlockOutputs returns the register modules of every block.
func (l *Layout) RegBlockOutputs() []Output {
	var outs []Output
	for _, b := range l.Blocks {
		outs = append(outs, Output{"rtl/generated/" + l.regBlockModule(b) + ".v", l.regBlockVerilog(b)})
	}
	return outs
}

// port names of a register's field
func rbName(r *Reg, f *Field, suffix string) string {
	n := strings.ToLower(r.Name)
	if len(r.Fields) > 0 {
		n += "_" + strings.ToLower(f.Name)
	}
	return n + "_" + suffix
}

func rbRange(w int) string {
	if w == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0]", w-1)
}

// rbFieldRange is the Verilog range of f in a 32-bit word.
func rbFieldRange(f *Field) string {
	if f.MSB == f.LSB {
		return fmt.Sprintf("[%d]", f.LSB)
	}
	return fmt.Sprintf("[%d:%d]", f.MSB, f.LSB)
}

func (l *Layout) regBlockVerilog(b *Block) []byte {
	var w bytes.Buffer
	P := l.cpre()
	mod := l.regBlockModule(b)
	fmt.Fprintf(&w, "// "+banner+"\n", l.File)
	fmt.Fprintf(&w, "//\n// %s: register block %q of %s.\n// %s\n//\n", mod, b.Name, l.Doc, b.Doc)
	w.WriteString("// Registers (offsets in BAR0):\n")
	for _, r := range b.Regs {
		attrs := ""
		if len(r.HW) > 0 {
			attrs = " " + strings.Join(r.HW, " ")
		}
		fmt.Fprintf(&w, "//   0x%04x %-18s %s%s\n", r.Offset, r.Name, r.Access, attrs)
	}
	w.WriteString("//\n// Ports and conventions: docs/rtl.md (\"Register blocks\").\n\n")
	w.WriteString("`timescale 1ns / 1ps\n`default_nettype none\n\n")
	fmt.Fprintf(&w, "`include \"via_%s.vh\"\n\n", l.Name)

	needClk := false
	needMask := false
	for _, r := range b.Regs {
		switch {
		case r.Access == RW && !r.HasHW("hwext"):
			needClk, needMask = true, true
		case r.Access == WO && len(r.Fields) > 0:
			needClk, needMask = true, true
		case r.Access == W1C || r.Access == W1S:
			needMask = true
		}
	}

	// ports
	var ports []string
	add := func(format string, args ...any) { ports = append(ports, fmt.Sprintf(format, args...)) }
	w.WriteString("module " + mod + " (\n")
	w.WriteString("    /* verilator lint_off UNUSEDSIGNAL */\n")
	w.WriteString("    // every block has the same bus; a block uses what its registers need\n")
	w.WriteString("    // (address bits 1:0 select a byte: registers are word-wide)\n")
	for _, p := range []string{
		"input  wire        clk",
		"input  wire        rst",
		"input  wire        wr_en",
		"input  wire [15:0] wr_addr",
		"input  wire [31:0] wr_data",
		"input  wire [3:0]  wr_strb",
		"input  wire        rd_en",
		"input  wire [15:0] rd_addr",
		"input  wire        rd_fire",
	} {
		w.WriteString("    " + p + ",\n")
	}
	w.WriteString("    /* verilator lint_on UNUSEDSIGNAL */\n")
	add("output wire        wr_hit")
	add("output wire        rd_hit")
	add("output wire [31:0] rd_data")
	for _, r := range b.Regs {
		add("// %s (%s): %s", r.Name, r.Access, oneLine(r.Doc))
		switch r.Access {
		case RW:
			if r.HasHW("hwext") {
				add("output wire        %s_we", strings.ToLower(r.Name))
				for _, f := range r.fields() {
					add("input  wire %-6s %s", rbRange(f.Width()), rbName(r, f, "i"))
				}
			} else {
				for _, f := range r.fields() {
					add("output wire %-6s %s", rbRange(f.Width()), rbName(r, f, "q"))
				}
			}
		case RO:
			if !r.HasHW("hwconst") {
				for _, f := range r.fields() {
					add("input  wire %-6s %s", rbRange(f.Width()), rbName(r, f, "i"))
				}
			}
		case WO:
			if len(r.Fields) == 0 {
				add("output wire        %s_we", strings.ToLower(r.Name))
			}
			for _, f := range r.Fields {
				add("output wire %-6s %s", rbRange(f.Width()), rbName(r, f, "pulse"))
			}
		case W1C:
			add("output wire [31:0] %s_w1", strings.ToLower(r.Name))
			for _, f := range r.fields() {
				add("input  wire %-6s %s", rbRange(f.Width()), rbName(r, f, "i"))
			}
		case W1S:
			add("output wire [31:0] %s_w1", strings.ToLower(r.Name))
		}
		if r.HasHW("hwre") {
			add("output wire        %s_re", strings.ToLower(r.Name))
		}
	}
	// commas: after every port but the last; comments carry none
	last := -1
	for i, p := range ports {
		if !strings.HasPrefix(p, "//") {
			last = i
		}
	}
	for i, p := range ports {
		sep := ","
		if strings.HasPrefix(p, "//") || i == last {
			sep = ""
		}
		if strings.HasPrefix(p, "//") {
			w.WriteString("\n")
		}
		w.WriteString("    " + strings.TrimRight(p, " ") + sep + "\n")
	}
	w.WriteString(");\n\n")

	// decode
	w.WriteString("wire [15:0] wr_off = {wr_addr[15:2], 2'b00};\n")
	w.WriteString("wire [15:0] rd_off = {rd_addr[15:2], 2'b00};\n\n")
	if needMask {
		w.WriteString("/* verilator lint_off UNUSEDSIGNAL */\n// bits no field of a written register covers are ignored\n")
		w.WriteString("wire [31:0] wr_mask = {{8{wr_strb[3]}}, {8{wr_strb[2]}}, {8{wr_strb[1]}}, {8{wr_strb[0]}}};\n")
		w.WriteString("wire [31:0] wr_ones = wr_data & wr_mask;\n")
		w.WriteString("/* verilator lint_on UNUSEDSIGNAL */\n\n")
	}
	var hits []string
	for _, r := range b.Regs {
		hits = append(hits, fmt.Sprintf("wr_off == `%sREG_%s", P, r.Name))
	}
	fmt.Fprintf(&w, "assign wr_hit = %s;\n\n", strings.Join(hits, "\n             || "))
	for _, r := range b.Regs {
		if r.Access == RO {
			continue
		}
		n := strings.ToLower(r.Name)
		fmt.Fprintf(&w, "wire wr_%s = wr_en && wr_off == `%sREG_%s;\n", n, P, r.Name)
	}
	for _, r := range b.Regs {
		if r.HasHW("hwre") {
			n := strings.ToLower(r.Name)
			fmt.Fprintf(&w, "assign %s_re = rd_fire && rd_en && rd_off == `%sREG_%s;\n", n, P, r.Name)
		}
	}
	w.WriteString("\n")

	// storage, strobes, pulses
	_ = needClk
	for _, r := range b.Regs {
		n := strings.ToLower(r.Name)
		switch r.Access {
		case RW:
			if r.HasHW("hwext") {
				fmt.Fprintf(&w, "assign %s_we = wr_%s;\n\n", n, n)
				continue
			}
			for _, f := range r.fields() {
				q := rbName(r, f, "q")
				rs := uint64(0)
				if f.Reset != nil {
					rs = *f.Reset
				}
				rg := rbFieldRange(f)
				fmt.Fprintf(&w, "reg %-6s %s_reg;\n\n", rbRange(f.Width()), q)
				w.WriteString("always @(posedge clk) begin\n    if (rst) begin\n")
				fmt.Fprintf(&w, "        %s_reg <= %d'h%x;\n", q, f.Width(), rs)
				fmt.Fprintf(&w, "    end else if (wr_%s) begin\n", n)
				fmt.Fprintf(&w, "        %s_reg <= (%s_reg & ~wr_mask%s) | (wr_data%s & wr_mask%s);\n", q, q, rg, rg, rg)
				w.WriteString("    end\nend\n\n")
				fmt.Fprintf(&w, "assign %s = %s_reg;\n\n", q, q)
			}
		case WO:
			if len(r.Fields) == 0 {
				fmt.Fprintf(&w, "assign %s_we = wr_%s;\n\n", n, n)
			}
			for _, f := range r.Fields {
				p := rbName(r, f, "pulse")
				fmt.Fprintf(&w, "reg %-6s %s_reg;\n\n", rbRange(f.Width()), p)
				w.WriteString("always @(posedge clk) begin\n    if (rst) begin\n")
				fmt.Fprintf(&w, "        %s_reg <= %d'h0;\n", p, f.Width())
				w.WriteString("    end else begin\n")
				fmt.Fprintf(&w, "        %s_reg <= wr_%s ? wr_ones%s : %d'h0;\n", p, n, rbFieldRange(f), f.Width())
				w.WriteString("    end\nend\n\n")
				fmt.Fprintf(&w, "assign %s = %s_reg;\n\n", p, p)
			}
		case W1C, W1S:
			fmt.Fprintf(&w, "assign %s_w1 = wr_%s ? wr_ones : 32'd0;\n\n", n, n)
		}
	}

	// read multiplexer
	w.WriteString("reg [31:0] rd_word;\nreg        rd_match;\n\n")
	w.WriteString("always @* begin\n    rd_word  = 32'd0;\n    rd_match = 1'b0;\n    case (rd_off)\n")
	for _, r := range b.Regs {
		fmt.Fprintf(&w, "        `%sREG_%s: begin\n            rd_match = 1'b1;\n", P, r.Name)
		for _, f := range r.fields() {
			var v string
			switch {
			case r.Access == WO || r.Access == W1S:
				v = ""
			case r.Access == RW && !r.HasHW("hwext"):
				v = rbName(r, f, "q") + "_reg"
			case r.HasHW("hwconst"):
				v = fmt.Sprintf("%d'h%x", f.Width(), *f.Reset)
			default:
				v = rbName(r, f, "i")
			}
			if v != "" {
				fmt.Fprintf(&w, "            rd_word%s = %s;\n", rbFieldRange(f), v)
			}
		}
		w.WriteString("        end\n")
	}
	w.WriteString("        default: begin\n            // not a register of this block\n        end\n    endcase\nend\n\n")
	w.WriteString("assign rd_hit  = rd_en && rd_match;\nassign rd_data = rd_hit ? rd_word : 32'd0;\n\n")
	w.WriteString("endmodule\n\n`default_nettype wire\n")
	return w.Bytes()
}

func oneLine(s string) string {
	if i := strings.Index(s, ". "); i > 0 && i < 100 {
		s = s[:i+1]
	}
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}
