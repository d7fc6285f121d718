package vipl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fakeNic(t *testing.T) *Nic {
	t.Helper()
	n, err := NewNic(context.Background(), newFakeAgent())
	require.NoError(t, err)
	return n
}

func requireCodeIn(t *testing.T, want Return, err error, msg string) {
	t.Helper()
	require.Error(t, err, msg)
	assert.Equal(t, want, Code(err), "%s: %v", msg, err)
	assert.ErrorIs(t, err, want.Err(), msg)
}

func TestNSDefaults(t *testing.T) {
	t.Setenv("VIANIC_HOSTS", "")
	n := fakeNic(t)
	_, err := n.NSGetHostByName("node0", 0)
	requireCodeIn(t, ErrorNameService, err, "before NSInit")
	requireCodeIn(t, ErrorNameService, n.NSShutdown(), "shutdown before NSInit")

	require.NoError(t, n.NSInit(NSInfo{Nodes: 4}))
	for i := range 4 {
		a, err := n.NSGetHostByName("node"+string(rune('0'+i)), 0)
		require.NoError(t, err)
		assert.Equal(t, NodeAddress(i), a)
		name, err := n.NSGetHostByAddr(a)
		require.NoError(t, err)
		assert.Equal(t, "node"+string(rune('0'+i)), name)
	}
	a, err := n.NSGetHostByName("NODE2", 0)
	require.NoError(t, err, "names are case-insensitive")
	assert.Equal(t, NodeAddress(2), a)
	_, err = n.NSGetHostByName("node4", 0)
	requireCodeIn(t, ErrorNameService, err, "node4 of 4")
	_, err = n.NSGetHostByName("node1", 1)
	requireCodeIn(t, InvalidParameter, err, "a second address node1 does not have")
	_, err = n.NSGetHostByName("node1", -1)
	requireCodeIn(t, InvalidParameter, err, "negative index")
	_, err = n.NSGetHostByAddr(NodeAddress(9))
	requireCodeIn(t, ErrorNameService, err, "no host at node 9")
	_, err = n.NSGetHostByAddr(NetAddress{Host: []byte{1, 2}})
	requireCodeIn(t, InvalidParameter, err, "a two-byte host address")
	// the discriminator does not matter to a reverse lookup
	name, err := n.NSGetHostByAddr(NetAddress{Host: []byte{3}, Discriminator: []byte("svc")})
	require.NoError(t, err)
	assert.Equal(t, "node3", name)

	require.NoError(t, n.NSShutdown())
	_, err = n.NSGetHostByName("node0", 0)
	requireCodeIn(t, ErrorNameService, err, "after NSShutdown")
	requireCodeIn(t, InvalidParameter, n.NSInit(NSInfo{Nodes: 300}), "more nodes than node numbers")

	// 16 without a count and without an agent that knows the fabric
	require.NoError(t, n.NSInit(NSInfo{}))
	_, err = n.NSGetHostByName("node15", 0)
	require.NoError(t, err)
	_, err = n.NSGetHostByName("node16", 0)
	requireCodeIn(t, ErrorNameService, err, "node16")

	require.NoError(t, n.Close(context.Background()))
	requireCodeIn(t, InvalidParameter, n.NSInit(NSInfo{}), "after Close")
}

func TestNSHostsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hosts")
	require.NoError(t, os.WriteFile(path, []byte("# test cluster\n\nalpha 0\n  beta\t1   # comment\ngamma 2 3\n"), 0o644))
	n := fakeNic(t)
	require.NoError(t, n.NSInit(NSInfo{HostsFile: path}))
	for _, c := range []struct {
		name  string
		index int
		node  int
	}{{"alpha", 0, 0}, {"beta", 0, 1}, {"gamma", 0, 2}, {"gamma", 1, 3}, {"GAMMA", 1, 3}} {
		a, err := n.NSGetHostByName(c.name, c.index)
		require.NoError(t, err, c.name)
		assert.Equal(t, NodeAddress(c.node), a, c.name)
	}
	name, err := n.NSGetHostByAddr(NodeAddress(3))
	require.NoError(t, err)
	assert.Equal(t, "gamma", name)
	_, err = n.NSGetHostByName("node0", 0)
	requireCodeIn(t, ErrorNameService, err, "a hosts file replaces the defaults")

	// $VIANIC_HOSTS names the file when NSInfo does not
	t.Setenv("VIANIC_HOSTS", path)
	require.NoError(t, n.NSInit(NSInfo{}))
	_, err = n.NSGetHostByName("beta", 0)
	require.NoError(t, err)

	bad := []struct{ text, want string }{
		{"alpha\n", ":1: host \"alpha\" has no address"},
		{"alpha 0\nalpha 1\n", ":2: host \"alpha\" is listed twice"},
		{"alpha 0\nbeta 0\n", ":2: node 0 is \"alpha\" already"},
		{"alpha 256\n", "not a node number 0..255"},
		{"alpha -1\n", "not a node number"},
		{"al/pha 1\n", "has the character '/'"},
	}
	for _, b := range bad {
		p := filepath.Join(dir, "bad")
		require.NoError(t, os.WriteFile(p, []byte(b.text), 0o644))
		err := n.NSInit(NSInfo{HostsFile: p})
		requireCodeIn(t, ErrorNameService, err, b.text)
		assert.Contains(t, err.Error(), b.want, b.text)
		assert.Contains(t, err.Error(), p, "the error names the file")
	}
	err = n.NSInit(NSInfo{HostsFile: filepath.Join(dir, "missing")})
	requireCodeIn(t, ErrorNameService, err, "missing file")
	// a failed NSInit keeps the table it had
	_, err = n.NSGetHostByName("beta", 0)
	require.NoError(t, err)

	m, err := ParseHosts(strings.NewReader("x 1 2\ny 3\n"), "inline")
	require.NoError(t, err)
	assert.Equal(t, map[string][]int{"x": {1, 2}, "y": {3}}, m)
}

func TestNetAddressBytes(t *testing.T) {
	a := NetAddress{Host: []byte{5}, Discriminator: []byte("abc")}
	b := a.Bytes()
	assert.Equal(t, []byte{1, 0, 3, 0, 5, 'a', 'b', 'c'}, b)
	got, err := ParseNetAddress(b)
	require.NoError(t, err)
	assert.Equal(t, a, got)
	assert.Equal(t, "node 5/616263", a.String())
	for _, bad := range [][]byte{nil, {1, 0, 3}, {1, 0, 3, 0, 5}, {1, 0, 0, 0, 5, 6}} {
		_, err := ParseNetAddress(bad)
		requireCodeIn(t, InvalidParameter, err, "bad bytes")
	}
}
