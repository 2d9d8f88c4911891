package billing_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"vibesell/billing"
)

// BenchmarkUse measures the limit check and use other features will put in
// their transactions, against the same transaction without it, in one run:
// go test -run '^$' -bench Use ./billing
func BenchmarkUse(b *testing.B) {
	ctx := context.Background()
	bundle := setup(b)
	ws := bundle.ws.Acme.ID
	// The feature's own write, which the transaction carries anyway: a
	// transaction id, so that its commit is flushed like a real write's
	// (locking the billing row takes one too).
	write := func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`)
		return err
	}
	b.Run("writing transaction", func(b *testing.B) {
		for b.Loop() {
			if err := pgx.BeginFunc(ctx, bundle.pool, write); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("with Use", func(b *testing.B) {
		for b.Loop() {
			err := pgx.BeginFunc(ctx, bundle.pool, func(tx pgx.Tx) error {
				if err := bundle.billing.Use(ctx, tx, ws, billing.Mailboxes, 1); err != nil {
					return err
				}
				return write(tx)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
