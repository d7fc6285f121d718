package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"sim", "start a simulator (options are vianic-sim's; -h lists them)", runSim})
}

// runSim builds the simulator if it is missing or stale, then replaces this
// process with it, so that signals (SIGUSR1 for a status line, SIGINT) reach
// it directly.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	format := "vcd"
	for i, a := range args {
		if (a == "--trace" || a == "-trace") && i+1 < len(args) {
			format = simulator.TraceFormat(args[i+1])
		}
		if v, ok := strings.CutPrefix(a, "--trace="); ok {
			format = simulator.TraceFormat(v)
		}
	}
	if format == "" {
		format = "vcd"
	}
	if err := simulator.BuildSimulator(ctx, root, stderr, format); err != nil {
		return err
	}
	bin := simulator.SimBinary(root, format)
	argv := append([]string{bin}, args...)
	return syscall.Exec(bin, argv, os.Environ())
}

// dialFlags are the options of commands that connect to a running simulator.
type dialFlags struct {
	socket *string
	node   *int
}

func addDialFlags(fs interface {
	String(string, string, string) *string
	Int(string, int, string) *int
}) dialFlags {
	def := os.Getenv("VIANIC_SOCKET")
	return dialFlags{
		socket: fs.String("socket", def, "simulator socket: a Unix socket path, or tcp:HOST:PORT (default $VIANIC_SOCKET)"),
		node:   fs.Int("node", 0, "node index"),
	}
}

func (d dialFlags) dial(ctx context.Context, opts cosim.Options) (*cosim.Conn, error) {
	if *d.socket == "" {
		return nil, fmt.Errorf("no simulator given: use -socket PATH (vianic-sim prints it when it starts) or set VIANIC_SOCKET")
	}
	network, addr := "unix", *d.socket
	if v, ok := strings.CutPrefix(addr, "tcp:"); ok {
		network, addr = "tcp", v
	} else if v, ok := strings.CutPrefix(addr, "unix:"); ok {
		addr = v
	}
	opts.Node = *d.node
	return cosim.Dial(ctx, network, addr, opts)
}

// openNIC opens the NIC behind conn, a driver connection, with the driver.
func openNIC(ctx context.Context, conn *cosim.Conn, opts driver.Options) (*driver.NIC, error) {
	bus, err := simbus.New(conn)
	if err != nil {
		return nil, err
	}
	return driver.Open(ctx, bus, opts)
}
