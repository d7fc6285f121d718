package vipl_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/vipl"
)

// Reliable Delivery breaks the connection on an error at either end (VIA's
// reliable levels; docs/vi.md, "RDMA read"): each case below, on the
// RELIABLE_DELIVERY pair ra -> rb, leaves both VIs in ERROR with CONN_LOST
// for both owners; a Disconnect and a new connection make the pair work
// again. The same errors on the UNRELIABLE pair a -> b keep its connection
// (the message is dropped or the descriptor completes with the error).
func TestCosimReliableDeliveryBreak(t *testing.T) {
	e := newReadEnv(t)
	ctx := ctxT(t)
	got := make(chan vipl.ErrorDescriptor, 64)
	require.NoError(t, e.n.ErrorCallback(func(d vipl.ErrorDescriptor) { got <- d }))
	const dst = badGuardFirst*4096 + 100
	src := e.seg(badSrcPage*4096+3, 500)

	// works reports that the pair carries a message (and the VIs are CONNECTED).
	works := func(t *testing.T, from, to *vipl.Vi, what string) {
		t.Helper()
		recv := e.desc(t, 10, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(dst, 1000)}})
		require.NoError(t, to.PostRecv(ctx, recv))
		send := e.desc(t, 11, &vipl.Descriptor{Segments: []vipl.DataSegment{src}})
		require.NoError(t, from.PostSend(ctx, send))
		_, err := from.SendWait(ctx, 1)
		require.NoError(t, err, what)
		_, err = to.RecvWait(ctx, 1)
		require.NoError(t, err, what)
		assertStatus(t, recvOK, recv, what)
		assert.Equal(t, e.buf.Bytes[badSrcPage*4096+3:badSrcPage*4096+503], e.buf.Bytes[dst:dst+500], what)
	}
	// sendDone posts d on v and waits for its completion
	sendDone := func(t *testing.T, v *vipl.Vi, d *vipl.Desc) {
		require.NoError(t, v.PostSend(ctx, d))
		_, err := v.SendWait(ctx, 1)
		require.NoError(t, err)
	}
	type errCase struct {
		name string
		// run makes the error on from -> to and returns the descriptors
		// with the statuses they must complete with
		run func(t *testing.T, from, to *vipl.Vi) map[*vipl.Desc]vipl.Status
	}
	cases := []errCase{
		{"send without a receive posted", func(t *testing.T, from, to *vipl.Vi) map[*vipl.Desc]vipl.Status {
			send := e.desc(t, 1, &vipl.Descriptor{Segments: []vipl.DataSegment{src}})
			sendDone(t, from, send)
			return map[*vipl.Desc]vipl.Status{send: sendOK}
		}},
		{"receive too short", func(t *testing.T, from, to *vipl.Vi) map[*vipl.Desc]vipl.Status {
			recv := e.desc(t, 2, &vipl.Descriptor{Segments: []vipl.DataSegment{e.seg(dst, 100)}})
			require.NoError(t, to.PostRecv(ctx, recv))
			send := e.desc(t, 3, &vipl.Descriptor{Segments: []vipl.DataSegment{src}})
			sendDone(t, from, send)
			_, err := to.RecvWait(ctx, 1)
			require.NoError(t, err)
			return map[*vipl.Desc]vipl.Status{send: sendOK, recv: recvLength}
		}},
		{"a local segment the TPT refuses (the sender's error)", func(t *testing.T, from, to *vipl.Vi) map[*vipl.Desc]vipl.Status {
			bad := src
			bad.Handle ^= 0x00ABC000
			send := e.desc(t, 4, &vipl.Descriptor{Segments: []vipl.DataSegment{bad}})
			sendDone(t, from, send)
			return map[*vipl.Desc]vipl.Status{send: sendProtection}
		}},
		{"a plain RDMA write the target refuses", func(t *testing.T, from, to *vipl.Vi) map[*vipl.Desc]vipl.Status {
			w := e.desc(t, 5, &vipl.Descriptor{Op: vipl.OpRdmaWrite, Segments: []vipl.DataSegment{src},
				Remote: vipl.AddressSegment{Addr: e.buf.VA + badGuardFirst*4096, Handle: e.h}}) // the region has no RDMA write
			sendDone(t, from, w)
			return map[*vipl.Desc]vipl.Status{w: want(0, vipl.CompletedRdmaWrite)}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// reliable: broken
			for d, st := range c.run(t, e.ra, e.rb) {
				assertStatus(t, st, d, c.name)
			}
			connLost(t, e.a, got, e.ra.ID(), e.rb.ID())
			reconnect(t, e.ra, e.rb)
			works(t, e.ra, e.rb, c.name+": reliable pair after a new connection")
			e.fill()
			// unreliable: the connection stays
			for d, st := range c.run(t, e.a, e.b) {
				assertStatus(t, st, d, c.name+" (unreliable)")
			}
			for _, v := range []*vipl.Vi{e.a, e.b} {
				info, err := v.Query(ctx)
				require.NoError(t, err)
				assert.Equal(t, vipl.ViConnected, info.State, "%s: the unreliable VI %d stays connected", c.name, v.ID())
			}
			select {
			case d := <-got:
				if d.ErrorCode == vipl.ErrorConnLost {
					t.Errorf("%s: CONN_LOST on the unreliable pair: %+v", c.name, d)
				}
			default:
			}
			works(t, e.a, e.b, c.name+": unreliable pair")
			e.fill()
		})
	}
	e.pairWorks(t)
}
