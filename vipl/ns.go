package vipl

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// NetAddress is a VIA network address (VIP_NET_ADDRESS): a host address,
// which on vianic is the NIC's address (its node number, one byte, as
// QueryNic's LocalNicAddress), and a discriminator that tells the
// connections to one host apart (at most MaxDiscriminatorLen bytes).
type NetAddress struct {
	Host          []byte
	Discriminator []byte
}

// NodeAddress is the host address of node n.
func NodeAddress(n int) NetAddress { return NetAddress{Host: []byte{byte(n)}} }

// Node returns the node number of a vianic host address, false when the
// address is not one (not exactly one byte).
func (a NetAddress) Node() (int, bool) {
	if len(a.Host) != 1 {
		return 0, false
	}
	return int(a.Host[0]), true
}

// String shows the address as "node N", with "/" and the discriminator in
// hex when there is one.
func (a NetAddress) String() string {
	var s string
	if n, ok := a.Node(); ok {
		s = "node " + strconv.Itoa(n)
	} else {
		s = fmt.Sprintf("host %x", a.Host)
	}
	if len(a.Discriminator) > 0 {
		s += fmt.Sprintf("/%x", a.Discriminator)
	}
	return s
}

// Bytes encodes the address as VIP_NET_ADDRESS lays it out:
// HostAddressLen and DiscriminatorLen (16 bits each, little endian), then
// the host address bytes followed by the discriminator bytes.
func (a NetAddress) Bytes() []byte {
	b := make([]byte, 4, 4+len(a.Host)+len(a.Discriminator))
	binary.LittleEndian.PutUint16(b[0:], uint16(len(a.Host)))
	binary.LittleEndian.PutUint16(b[2:], uint16(len(a.Discriminator)))
	b = append(b, a.Host...)
	return append(b, a.Discriminator...)
}

// ParseNetAddress decodes the layout of Bytes.
func ParseNetAddress(b []byte) (NetAddress, error) {
	if len(b) < 4 {
		return NetAddress{}, newErr("ParseNetAddress", InvalidParameter, nil, "%d bytes, shorter than the two lengths", len(b))
	}
	h := int(binary.LittleEndian.Uint16(b[0:]))
	d := int(binary.LittleEndian.Uint16(b[2:]))
	if len(b) != 4+h+d {
		return NetAddress{}, newErr("ParseNetAddress", InvalidParameter, nil, "%d bytes for a %d-byte host address and a %d-byte discriminator", len(b), h, d)
	}
	return NetAddress{Host: bytes.Clone(b[4 : 4+h]), Discriminator: bytes.Clone(b[4+h:])}, nil
}

// NSInfo configures the name service (VipNSInit's NSInitInfo).
type NSInfo struct {
	// HostsFile is the hosts file to read (format below). "" reads the
	// file named by $VIANIC_HOSTS if that is set, else uses the defaults:
	// node0 .. nodeN-1 for the N nodes of the simulation.
	HostsFile string
	// Nodes is N for the default names (0: the simulation's node count
	// when the kernel agent knows it, else 16, the simulator's maximum).
	Nodes int
}

// The hosts file: one host per line, `NAME ADDRESS...`: a name (letters,
// digits, '.', '-', '_'; names are case-insensitive) and one or more node
// numbers 0..255 (a host with several NICs has several; NSGetHostByName's
// index picks one). `#` starts a comment; blank lines are ignored. A name
// or an address may appear on one line only. Example:
//
//	# cluster of four
//	alpha  0
//	beta   1
//	gamma  2 3   # two NICs
const hostsDoc = "NAME NODE [NODE...] per line"

type nsHost struct {
	name  string // as written
	nodes []int
}

// nameService is a Nic's name-service state.
type nameService struct {
	hosts  map[string]*nsHost // by lower-case name
	byNode map[int]*nsHost
	source string // the file, or "defaults"
}

// ParseHosts reads a hosts file (the format of NSInfo.HostsFile). Errors
// name the line.
func ParseHosts(r io.Reader, source string) (map[string][]int, error) {
	ns, err := parseHosts(r, source)
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, h := range ns.hosts {
		out[h.name] = append([]int(nil), h.nodes...)
	}
	return out, nil
}

func parseHosts(r io.Reader, source string) (*nameService, error) {
	ns := &nameService{hosts: map[string]*nsHost{}, byNode: map[int]*nsHost{}, source: source}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s (the format is %s)", source, line, fmt.Sprintf(format, args...), hostsDoc)
		}
		name := f[0]
		for _, c := range name {
			if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '.' || c == '-' || c == '_') || c > unicode.MaxASCII {
				return nil, bad("host name %q has the character %q", name, c)
			}
		}
		if len(f) < 2 {
			return nil, bad("host %q has no address", name)
		}
		key := strings.ToLower(name)
		if _, dup := ns.hosts[key]; dup {
			return nil, bad("host %q is listed twice", name)
		}
		h := &nsHost{name: name}
		for _, a := range f[1:] {
			n, err := strconv.ParseUint(a, 10, 8)
			if err != nil {
				return nil, bad("address %q of %q is not a node number 0..255", a, name)
			}
			if other, dup := ns.byNode[int(n)]; dup {
				return nil, bad("node %d is %q already", n, other.name)
			}
			ns.byNode[int(n)] = h
			h.nodes = append(h.nodes, int(n))
		}
		ns.hosts[key] = h
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return ns, nil
}

func defaultHosts(n int) *nameService {
	ns := &nameService{hosts: map[string]*nsHost{}, byNode: map[int]*nsHost{}, source: fmt.Sprintf("defaults (node0..node%d)", n-1)}
	for i := range n {
		h := &nsHost{name: "node" + strconv.Itoa(i), nodes: []int{i}}
		ns.hosts[h.name] = h
		ns.byNode[i] = h
	}
	return ns
}

// fabricAgent is a kernel agent that knows how many nodes the fabric has.
type fabricAgent interface{ FabricNodes() int }

// NSInit starts the name service (VipNSInit): reads the hosts file or sets
// up the defaults. A bad file is VIP_ERROR_NAMESERVICE (the error names the
// line); calling it again replaces the table.
func (n *Nic) NSInit(info NSInfo) error {
	const op = "NSInit"
	if err := n.check(op); err != nil {
		return err
	}
	path := info.HostsFile
	if path == "" {
		path = os.Getenv("VIANIC_HOSTS")
	}
	var ns *nameService
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return newErr(op, ErrorNameService, err, "hosts file")
		}
		ns, err = parseHosts(f, path)
		f.Close()
		if err != nil {
			return newErr(op, ErrorNameService, err, "")
		}
	} else {
		nodes := info.Nodes
		if nodes <= 0 {
			nodes = 16
			if fa, ok := n.agent.(fabricAgent); ok && fa.FabricNodes() > 0 {
				nodes = fa.FabricNodes()
			}
		}
		if nodes > 256 {
			return newErr(op, InvalidParameter, nil, "NSInfo.Nodes %d: node numbers are one byte", nodes)
		}
		ns = defaultHosts(nodes)
	}
	n.mu.Lock()
	n.ns = ns
	n.mu.Unlock()
	return nil
}

func (n *Nic) nameService(op string) (*nameService, error) {
	if err := n.check(op); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ns == nil {
		return nil, newErr(op, ErrorNameService, nil, "the name service is not started (NSInit)")
	}
	return n.ns, nil
}

// NSGetHostByName returns the index-th address (0 first) of host name
// (VipNSGetHostByName), with no discriminator. An unknown name is
// VIP_ERROR_NAMESERVICE; an index past the host's addresses, or a negative
// one, VIP_INVALID_PARAMETER.
func (n *Nic) NSGetHostByName(name string, index int) (NetAddress, error) {
	const op = "NSGetHostByName"
	ns, err := n.nameService(op)
	if err != nil {
		return NetAddress{}, err
	}
	h, ok := ns.hosts[strings.ToLower(name)]
	if !ok {
		return NetAddress{}, newErr(op, ErrorNameService, nil, "no host %q in %s", name, ns.source)
	}
	if index < 0 || index >= len(h.nodes) {
		return NetAddress{}, newErr(op, InvalidParameter, nil, "host %q has %d address(es), index %d", name, len(h.nodes), index)
	}
	return NodeAddress(h.nodes[index]), nil
}

// NSGetHostByAddr returns the name of the host at addr
// (VipNSGetHostByAddr); the discriminator is ignored. An address that is
// not a vianic node address is VIP_INVALID_PARAMETER; one no host has,
// VIP_ERROR_NAMESERVICE.
func (n *Nic) NSGetHostByAddr(addr NetAddress) (string, error) {
	const op = "NSGetHostByAddr"
	ns, err := n.nameService(op)
	if err != nil {
		return "", err
	}
	node, ok := addr.Node()
	if !ok {
		return "", newErr(op, InvalidParameter, nil, "%v is not a node address (one byte)", addr)
	}
	h, ok := ns.byNode[node]
	if !ok {
		return "", newErr(op, ErrorNameService, nil, "no host has node %d in %s", node, ns.source)
	}
	return h.name, nil
}

// NSShutdown stops the name service (VipNSShutdown); the lookups then fail
// until NSInit runs again. Stopping a service that is not started is
// VIP_ERROR_NAMESERVICE.
func (n *Nic) NSShutdown() error {
	const op = "NSShutdown"
	if _, err := n.nameService(op); err != nil {
		return err
	}
	n.mu.Lock()
	n.ns = nil
	n.mu.Unlock()
	return nil
}
