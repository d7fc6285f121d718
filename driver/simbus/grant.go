package simbus

import (
	"context"

	"github.com/vianic/vianic/driver"
)

var _ driver.Granter = (*Bus)(nil)

// Grant implements driver.Granter: the bridge's GRANT of the doorbell
// pages of VIs firstVI .. firstVI+count-1 to token.
func (b *Bus) Grant(ctx context.Context, token uint64, firstVI, count int) error {
	return wrap(b.c.Grant(ctx, token, firstVI, count))
}

// Revoke implements driver.Granter: the bridge's REVOKE of every grant of
// token.
func (b *Bus) Revoke(ctx context.Context, token uint64) error {
	return wrap(b.c.Revoke(ctx, token))
}
