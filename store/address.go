package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RecordPublicURL saves the address people reach the server at, so that
// every other process on this database builds the same links. The server
// started last wins: replicas of one installation share one address.
func RecordPublicURL(ctx context.Context, db *pgxpool.Pool, url string) error {
	_, err := db.Exec(ctx, `
		INSERT INTO server_address (public_url) VALUES ($1)
		ON CONFLICT (only_row) DO UPDATE SET public_url = excluded.public_url, updated_at = now()`, url)
	if err != nil {
		return fmt.Errorf("record the public URL: %w", err)
	}
	return nil
}

// PublicURL returns the address the last server to start recorded, or ""
// when no server has run on this database yet.
func PublicURL(ctx context.Context, db *pgxpool.Pool) (string, error) {
	var url string
	err := db.QueryRow(ctx, `SELECT public_url FROM server_address`).Scan(&url)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the public URL: %w", err)
	}
	return url, nil
}
