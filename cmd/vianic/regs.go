package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/internal/hw"
)

func init() {
	register(command{"regs", "dump a node's registers by name from a running simulator", runRegs})
}

type regValue struct {
	Name   string            `json:"name"`
	Offset uint32            `json:"offset"`
	Value  uint32            `json:"value"`
	Fields map[string]uint32 `json:"fields,omitempty"`
	reg    hw.Reg
}

// runRegs reads every readable register over a monitor connection, which
// never holds up lockstep time and cannot write.
func runRegs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("regs", stderr, "-socket PATH [-node N] [-json] [REG...]")
	df := addDialFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long")
	if err := parse(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	want := map[string]bool{}
	for _, n := range fs.Args() {
		n = strings.ToUpper(n)
		if _, ok := hw.Bar0.Lookup(n); !ok {
			return fmt.Errorf("no register %s (see `vianic map`)", n)
		}
		want[n] = true
	}
	c, err := df.dial(ctx, cosim.Options{Role: cosim.RoleMonitor, Name: "vianic regs"})
	if err != nil {
		return err
	}
	defer c.Close()
	if h := c.Device().MapHash; h != hw.Bar0Hash {
		fmt.Fprintf(stderr, "vianic regs: warning: the simulator's register map (hash %#x) differs from this tool's (%#x); names may be wrong\n", h, hw.Bar0Hash)
	}
	var vals []regValue
	for _, r := range hw.Bar0.Regs {
		if !r.Access.Readable() || len(want) > 0 && !want[r.Name] {
			continue
		}
		v, err := c.Read32(ctx, r.Offset)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		rv := regValue{Name: r.Name, Offset: r.Offset, Value: v, reg: r}
		if len(r.Fields) > 0 {
			rv.Fields = map[string]uint32{}
			for _, f := range r.Fields {
				rv.Fields[f.Name] = f.Get(v)
			}
		}
		vals = append(vals, rv)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"node": *df.node, "cycle": c.LastCycle(), "registers": vals})
	}
	fmt.Fprintf(stdout, "node %d, cycle %d\n", *df.node, c.LastCycle())
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for _, rv := range vals {
		var fields []string
		for _, f := range rv.reg.Fields {
			fields = append(fields, fmt.Sprintf("%s=%#x", f.Name, rv.Fields[f.Name]))
		}
		fmt.Fprintf(tw, "%#05x\t%s\t0x%08x\t%s\n", rv.Offset, rv.Name, rv.Value, strings.Join(fields, " "))
	}
	return tw.Flush()
}
