package driver

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"sort"
)

// Doorbell grants (docs/vi.md, "Doorbell pages and grants"). Each session
// has a random nonzero token; CreateVI grants the new VI's doorbell page to
// it on the bridge, DestroyVI (and so Close) takes it back. A user-role
// bridge connection that presents the token (the process's mapping of its
// doorbell pages) can then write those pages and no other: the bridge
// refuses the rest. Buses that cannot grant (the unit tests' model, real
// hardware without an IOMMU-style page map) are left alone: Granter is
// optional.

// Granter is implemented by a Bus that controls which doorbell pages user
// connections may write (driver/simbus's Bus: the bridge's GRANT and
// REVOKE).
type Granter interface {
	// Grant lets connections presenting token write the doorbell pages
	// of VIs firstVI .. firstVI+count-1.
	Grant(ctx context.Context, token uint64, firstVI, count int) error
	// Revoke withdraws every grant of token.
	Revoke(ctx context.Context, token uint64) error
}

// grantState is a session's token and the VIs granted to it on the bus
// (granted is guarded by the session's mu).
type grantState struct {
	token   uint64
	granted map[VI]struct{}
}

func newToken() uint64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("driver: no randomness for a session token: " + err.Error())
		}
		if t := binary.LittleEndian.Uint64(b[:]); t != 0 {
			return t
		}
	}
}

func (s *Session) grantState() *grantState {
	s.grantOnce.Do(func() {
		s.grant = &grantState{token: newToken(), granted: map[VI]struct{}{}}
	})
	return s.grant
}

// Token returns the session's doorbell token: random, nonzero, the same
// for the session's life. A user connection that presents it to the bridge
// (HELLO role USER) may write the doorbell pages of the session's VIs, and
// only those.
func (s *Session) Token() uint64 { return s.grantState().token }

// GrantedVIs returns the VIs whose doorbell pages are granted to the
// session's token on the bus, in increasing order (none on a bus that is
// not a Granter).
func (s *Session) GrantedVIs() []VI {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grantState()
	vs := make([]VI, 0, len(g.granted))
	for v := range g.granted {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}

// grantVI grants vi's page to the session's token (CreateVI). If the
// granted set is not the session's other VIs (a NIC reset dropped some),
// it rebuilds the grants from s.vis instead. Call with s.mu held, vi in
// s.vis.
func (s *Session) grantVI(ctx context.Context, vi VI) error {
	gr, ok := s.n.b.(Granter)
	if !ok {
		return nil
	}
	g := s.grantState()
	same := len(g.granted) == len(s.vis)-1
	for v := range g.granted {
		if _, ok := s.vis[v]; !ok || v == vi {
			same = false
		}
	}
	if !same {
		return s.regrant(ctx)
	}
	if err := gr.Grant(ctx, g.token, int(vi), 1); err != nil {
		return err
	}
	g.granted[vi] = struct{}{}
	return nil
}

// regrant makes the token's grants the session's VIs: the bridge revokes
// per token, so it revokes all and grants the VIs left again, in runs of
// consecutive VIs. Call with s.mu held.
func (s *Session) regrant(ctx context.Context) error {
	gr, ok := s.n.b.(Granter)
	if !ok {
		return nil
	}
	g := s.grantState()
	if len(g.granted) == 0 && len(s.vis) == 0 {
		return nil
	}
	clear(g.granted)
	if err := gr.Revoke(ctx, g.token); err != nil {
		return err
	}
	vs := make([]VI, 0, len(s.vis))
	for v := range s.vis {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	var errs []error
	for i := 0; i < len(vs); {
		j := i + 1
		for j < len(vs) && vs[j] == vs[j-1]+1 {
			j++
		}
		if err := gr.Grant(ctx, g.token, int(vs[i]), j-i); err != nil {
			errs = append(errs, err)
		} else {
			for _, v := range vs[i:j] {
				g.granted[v] = struct{}{}
			}
		}
		i = j
	}
	return errors.Join(errs...)
}
