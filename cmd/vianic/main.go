// Command vianic is the front door of the vianic tool: it starts the
// simulator, inspects a running NIC, opens waveforms and runs benchmarks.
//
//	vianic demo                   two simulated NICs copy buffers through the bridge
//	vianic sim [options]          start a simulator
//	vianic regs [options]         dump a node's registers by name
//	vianic wave FILE              open a waveform in GTKWave with the project's save file
//	vianic bench bridge [--json]  measure the co-simulation bridge
//	vianic bench mem|vi [--json]  memory registration; the data path through vipl
//	vianic fw build|disasm|log|bench  the control processor's firmware
//	vianic map                    print the BAR0 register map
//
// Run `vianic COMMAND -h` for a command's options.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: vianic COMMAND [options]")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `vianic COMMAND -h` for a command's options.")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			default:
				fmt.Fprintf(stderr, "vianic %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "vianic: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("vianic "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: vianic %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, mapping a bad command line to errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
