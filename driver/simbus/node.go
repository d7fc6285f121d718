package simbus

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
)

// Node is one simulated NIC opened with the driver, as a program that is
// not a test wires it: a driver connection to the simulator, host memory
// shared with it and managed by the driver, and the driver's NIC over
// both. It is what the VI Provider Library (vipl) opens for OpenNic.
type Node struct {
	NIC  *driver.NIC
	conn *cosim.Conn
	mem  *cosim.Memory
}

// NodeOptions configure OpenNode.
type NodeOptions struct {
	// Name is shown in the simulator's logs.
	Name string
	// MemoryBytes is the size of the node's host memory (0: 64 MiB).
	MemoryBytes int
	// Driver configures driver.Open (firmware, logger, deadlines).
	Driver driver.Options
	// Memory configures driver.NIC.ManageMemory.
	Memory driver.MemoryOptions
}

// DefaultNodeMemory is the host memory OpenNode attaches when
// NodeOptions.MemoryBytes is 0.
const DefaultNodeMemory = 64 << 20

// SplitAddress turns a simulator address as the command line takes it (a
// Unix socket path, unix:PATH or tcp:HOST:PORT) into a network and an
// address for cosim.Dial.
func SplitAddress(address string) (network, addr string) {
	if v, ok := strings.CutPrefix(address, "tcp:"); ok {
		return "tcp", v
	}
	if v, ok := strings.CutPrefix(address, "unix:"); ok {
		return "unix", v
	}
	return "unix", address
}

// OpenNode connects to the simulator at address (see SplitAddress) as the
// driver of node, opens the NIC with the driver (booting its firmware
// unless opts.Driver.NoBoot), attaches host memory and lets the driver
// manage it. Close releases all of it.
func OpenNode(ctx context.Context, address string, node int, opts NodeOptions) (*Node, error) {
	if address == "" {
		return nil, errors.New("simbus: OpenNode: no simulator address")
	}
	size := opts.MemoryBytes
	if size == 0 {
		size = DefaultNodeMemory
	}
	network, addr := SplitAddress(address)
	c, err := cosim.Dial(ctx, network, addr, cosim.Options{Role: cosim.RoleDriver, Node: node, Name: opts.Name, Interrupts: true})
	if err != nil {
		return nil, err
	}
	n := &Node{conn: c}
	fail := func(err error) (*Node, error) {
		n.Close()
		return nil, fmt.Errorf("simbus: OpenNode %d: %w", node, err)
	}
	bus, err := New(c)
	if err != nil {
		return fail(err)
	}
	if n.NIC, err = driver.Open(ctx, bus, opts.Driver); err != nil {
		return fail(err)
	}
	if n.mem, err = cosim.NewMemory(size); err != nil {
		return fail(err)
	}
	if err := n.NIC.AttachMemory(ctx, n.mem); err != nil {
		return fail(err)
	}
	if err := n.NIC.ManageMemory(n.mem, opts.Memory); err != nil {
		return fail(err)
	}
	return n, nil
}

// Conn returns the node's bridge connection (for tools that also want the
// simulator's time control).
func (n *Node) Conn() *cosim.Conn { return n.conn }

// Close closes the NIC, the connection and the host memory, in that order;
// the driver's sessions should be closed first.
func (n *Node) Close() error {
	var errs []error
	if n.NIC != nil {
		errs = append(errs, n.NIC.Close())
	}
	if n.conn != nil {
		errs = append(errs, n.conn.Close())
	}
	if n.mem != nil {
		errs = append(errs, n.mem.Close())
	}
	return errors.Join(errs...)
}
