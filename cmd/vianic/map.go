package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/vianic/vianic/internal/hw"
)

func runMap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("map", stderr, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "BAR0 register map %s, hash %#016x\n", hw.Bar0.Name, hw.Bar0.Hash)
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for _, r := range hw.Bar0.Regs {
		fmt.Fprintf(tw, "%#05x\t%s\t%s\t%s\n", r.Offset, r.Name, r.Access, r.Doc)
		for _, f := range r.Fields {
			bits := fmt.Sprintf("[%d:%d]", int(f.LSB)+int(f.Width)-1, f.LSB)
			fmt.Fprintf(tw, "\t  %s\t%s\t%s\n", f.Name, bits, f.Access)
		}
	}
	fmt.Fprintf(tw, "%#05x\tDOORBELL[vi]\t\tone %#x-byte page per VI\n", hw.DoorbellBase, hw.DoorbellStride)
	return tw.Flush()
}
