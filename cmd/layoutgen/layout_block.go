package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is a group of registers that one RTL block owns. The generator turns
// every block into a register module (address decode, storage of the plain
// rw registers, read multiplexer, write strobes and pulses; see
// emit_regblock.go) that the owning block instantiates, so that adding a
// register touches the layout and that block only.
//
// In a layout:
//
//	block NAME "doc"                        registers after it, up to the next block, belong to it
//	block NAME                              reopens block NAME
//	reg NAME OFFSET ACCESS [HW...] "doc"    HW: hardware attributes of the register
//
// The hardware attributes say what the register module does not do itself:
//
//	hwext    (rw) the owning block stores the value: the module gives a write
//	         strobe NAME_we and reads the value from the block's inputs
//	hwre     (ro, rw hwext) the read has a side effect: the module gives a
//	         read strobe NAME_re when the host's read is consumed
//	hwconst  (ro) every field reads its reset value; no input
//
// Blocks and attributes are hardware organization: they are not part of the
// layout hash, so regrouping registers does not change the map software sees.
type Block struct {
	Name string // lower_snake_case
	Doc  string
	Line int
	Regs []*Reg
}

var blockNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// hwAttrs lists the hardware attributes and the register accesses each
// is allowed with.
var hwAttrs = map[string][]Access{
	"hwext":   {RW},
	"hwre":    {RO, RW},
	"hwconst": {RO},
}

func (l *Layout) parseBlock(args []string, doc string, lineNo int, fail failFunc) error {
	if len(args) != 1 {
		return fail(lineNo, `block takes NAME "doc" (or NAME alone to reopen a block)`)
	}
	if !blockNameRE.MatchString(args[0]) {
		return fail(lineNo, "block name %q must be lower_snake_case", args[0])
	}
	for _, b := range l.Blocks {
		if b.Name == args[0] {
			if doc != "" {
				return fail(lineNo, "block %s already defined on line %d (reopen it without a doc string)", b.Name, b.Line)
			}
			l.curBlock = b
			return nil
		}
	}
	if doc == "" {
		return fail(lineNo, "block %s needs a doc string where it is first defined", args[0])
	}
	l.curBlock = &Block{Name: args[0], Doc: doc, Line: lineNo}
	l.Blocks = append(l.Blocks, l.curBlock)
	return nil
}

// splitRegHW takes the hardware attributes (lower-case words starting with
// "hw") off the end of a reg line's arguments.
func splitRegHW(args []string) ([]string, []string) {
	n := len(args)
	for n > 0 && strings.HasPrefix(args[n-1], "hw") {
		n--
	}
	return args[:n], args[n:]
}

func (l *Layout) addToBlock(r *Reg) {
	b := l.curBlock
	if b == nil {
		return
	}
	r.Block = b
	b.Regs = append(b.Regs, r)
}

// HasHW reports whether r carries hardware attribute a.
func (r *Reg) HasHW(a string) bool {
	for _, h := range r.HW {
		if h == a {
			return true
		}
	}
	return false
}

// checkBlocks validates blocks and hardware attributes: once a layout has
// blocks, every register belongs to one; attributes fit the access.
func (l *Layout) checkBlocks() error {
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: l.File, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	for _, r := range l.Regs {
		if len(l.Blocks) > 0 && r.Block == nil {
			return fail(r.Line, "reg %s is in no block (the layout has blocks: put a block line before it)", r.Name)
		}
		seen := map[string]bool{}
		for _, a := range r.HW {
			accs, ok := hwAttrs[a]
			if !ok {
				return fail(r.Line, "reg %s: unknown hardware attribute %q (known: hwext hwre hwconst)", r.Name, a)
			}
			if seen[a] {
				return fail(r.Line, "reg %s: attribute %s given twice", r.Name, a)
			}
			seen[a] = true
			okAcc := false
			for _, acc := range accs {
				okAcc = okAcc || acc == r.Access
			}
			if !okAcc {
				return fail(r.Line, "reg %s: attribute %s does not apply to a %s register", r.Name, a, r.Access)
			}
		}
		if r.HasHW("hwre") && r.Access == RW && !r.HasHW("hwext") {
			return fail(r.Line, "reg %s: hwre on a rw register needs hwext", r.Name)
		}
		if r.HasHW("hwconst") {
			if r.HasHW("hwre") {
				return fail(r.Line, "reg %s: hwconst and hwre exclude each other", r.Name)
			}
			for _, f := range r.fields() {
				if f.Reset == nil {
					return fail(r.Line, "reg %s: hwconst needs a reset value on every field (%s has none)", r.Name, f.Name)
				}
			}
		}
		for _, f := range r.Fields {
			if f.Access != r.Access && len(l.Blocks) > 0 {
				return fail(f.Line, "field %s.%s: a field access other than the register's is not supported in a register block", r.Name, f.Name)
			}
		}
	}
	for _, b := range l.Blocks {
		if len(b.Regs) == 0 {
			return fail(b.Line, "block %s has no registers", b.Name)
		}
	}
	return nil
}
