package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
)

// Doorbell grants end to end (driver/session_grant.go): CreateVI grants the
// VI's doorbell page to the session's token on the bridge, DestroyVI and
// Close take it back, and a user connection presenting the token is
// refused every other page.
func TestCosimVIGrants(t *testing.T) {
	s := startSim(t, 1)
	n, _, _, err := openNode(t, s, 0, driver.Options{})
	require.NoError(t, err)
	mem, err := cosim.NewMemory(memTestBytes)
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	ctx := ctxT(t)
	require.NoError(t, n.AttachMemory(ctx, mem))
	require.NoError(t, n.ManageMemory(mem, driver.MemoryOptions{}))

	sa, sb := session(t, n, "A"), session(t, n, "B")
	require.NotZero(t, sa.Token())
	require.NotZero(t, sb.Token())
	require.NotEqual(t, sa.Token(), sb.Token())
	assert.Equal(t, sa.Token(), sa.Token(), "the token stays")
	assert.Empty(t, sa.GrantedVIs())

	pa, err := sa.CreatePtag(ctx)
	require.NoError(t, err)
	var vs []driver.VI
	for range 3 {
		v, err := sa.CreateVI(ctx, goodVI(pa))
		require.NoError(t, err)
		vs = append(vs, v)
	}
	assert.Equal(t, vs, sa.GrantedVIs(), "each CreateVI grants its page")
	require.NoError(t, sa.DestroyVI(ctx, vs[1]))
	assert.Equal(t, []driver.VI{vs[0], vs[2]}, sa.GrantedVIs(), "DestroyVI revokes its page, the others are granted again")

	pb, err := sb.CreatePtag(ctx)
	require.NoError(t, err)
	vb, err := sb.CreateVI(ctx, goodVI(pb))
	require.NoError(t, err)
	assert.Equal(t, []driver.VI{vb}, sb.GrantedVIs())

	page := func(v driver.VI) uint32 { return hw.DoorbellBase + uint32(v)*hw.DoorbellStride + driver.HandleOffset }
	ua, err := simbus.DialUser(ctx, s.Addr(), 0, sa.Token(), "A's doorbells")
	require.NoError(t, err)
	t.Cleanup(func() { ua.Close() })
	// HANDLE writes: harmless on a VI that is not connected
	try := func(u *simbus.User, v driver.VI) error {
		require.NoError(t, u.Write32(ctx, page(v), 1))
		return u.Sync(ctx)
	}
	assert.NoError(t, try(ua, vs[0]), "A's page")
	assert.NoError(t, try(ua, vs[2]), "A's page")
	assert.ErrorIs(t, try(ua, vs[1]), simbus.ErrRefused, "a page A destroyed")
	assert.ErrorIs(t, try(ua, vb), simbus.ErrRefused, "B's page")
	assert.ErrorIs(t, try(ua, driver.VI(63)), simbus.ErrRefused, "a page nobody has")

	// Close revokes every page of the token.
	require.NoError(t, sa.Close(ctx))
	assert.Empty(t, sa.GrantedVIs())
	assert.ErrorIs(t, try(ua, vs[0]), simbus.ErrRefused, "A's page after A's Close")
	assert.ErrorIs(t, try(ua, vs[2]), simbus.ErrRefused, "A's page after A's Close")
	// B is untouched
	ub, err := simbus.DialUser(ctx, s.Addr(), 0, sb.Token(), "B's doorbells")
	require.NoError(t, err)
	t.Cleanup(func() { ub.Close() })
	assert.NoError(t, try(ub, vb), "B's page after A's Close")
	require.NoError(t, sb.Close(ctx))
	assert.ErrorIs(t, try(ub, vb), simbus.ErrRefused, "B's page after B's Close")
}
