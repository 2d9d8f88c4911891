package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
)

// tokenPrefix makes a VibeSell token recognisable in a config file or a
// secret scanner.
const tokenPrefix = "vs_"

// Tokens issues and checks bearer tokens. Only a SHA-256 of each token is
// stored: the token itself is shown once, when created.
type Tokens struct {
	db *pgxpool.Pool
}

// NewTokens returns a Tokens on db.
func NewTokens(db *pgxpool.Pool) *Tokens { return &Tokens{db: db} }

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Create issues a new token for the workspace and returns it.
func (t *Tokens) Create(ctx context.Context, workspaceID uuid.UUID) (string, error) {
	return CreateToken(ctx, t.db, workspaceID)
}

// CreateToken is [Tokens.Create] on a given connection or transaction.
func CreateToken(ctx context.Context, db execer, workspaceID uuid.UUID) (string, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(token))
	if _, err := db.Exec(ctx,
		`INSERT INTO api_tokens (workspace_id, id, token_hash) VALUES ($1, $2, $3)`,
		workspaceID, uuid.New(), sum[:]); err != nil {
		return "", fmt.Errorf("store token: %w", err)
	}
	return token, nil
}

// ErrBadToken is returned for a token that is malformed, unknown or revoked.
var ErrBadToken = vibesell.Errorf(vibesell.EUNAUTHORIZED, "This token is not valid. Create a new one with `server token create --workspace SLUG`.")

// Authenticate returns who the token acts for. Errors: [ErrBadToken].
func (t *Tokens) Authenticate(ctx context.Context, token string) (Principal, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 200 {
		return Principal{}, ErrBadToken
	}
	sum := sha256.Sum256([]byte(token))
	var p Principal
	err := t.db.QueryRow(ctx,
		`SELECT w.id, w.slug FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id
		 WHERE t.token_hash = $1 AND t.revoked_at IS NULL`, sum[:]).Scan(&p.WorkspaceID, &p.WorkspaceSlug)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, ErrBadToken
	}
	if err != nil {
		return Principal{}, fmt.Errorf("check token: %w", err)
	}
	return p, nil
}
