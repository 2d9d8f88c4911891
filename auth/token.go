package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

// tokenPrefix makes a VibeSell token recognisable in a config file or a
// secret scanner.
const tokenPrefix = "vs_"

// Tokens issues and checks bearer tokens. Only a SHA-256 of each token is
// stored: the token itself is shown once, when created.
type Tokens struct {
	db *pgxpool.Pool
	// With notes, the tokens checked lately are kept in memory and
	// answered from there while notes are fresh; see [TokensDeps].Notes.
	notes *store.Notifications
	known *lru.Cache[[sha256.Size]byte, *knownToken]
}

type knownToken struct {
	principal Principal
	// usedAt is when last_used_at was last written, in Unix nanoseconds.
	usedAt atomic.Int64
}

// TokensDeps is what [NewTokens] needs.
type TokensDeps struct {
	DB *pgxpool.Pool
	// Notes, when set, make Authenticate answer the last Kept tokens it
	// checked from memory, without a database round trip, while notes are
	// fresh: a revoked token (on any replica) is refused everywhere within
	// a second, and while notifications are lost every check reads the
	// database. Nil: every check reads the database.
	Notes *store.Notifications
	Kept  int
}

// NewTokens returns the Tokens on d.DB.
func NewTokens(d TokensDeps) *Tokens {
	t := &Tokens{db: d.DB}
	if d.Notes != nil {
		t.known, _ = lru.New[[sha256.Size]byte, *knownToken](max(d.Kept, 1))
		t.notes = d.Notes
		d.Notes.Subscribe(store.TokensChannel, func(payload string) {
			var sum [sha256.Size]byte
			if n, err := hex.Decode(sum[:], []byte(payload)); err != nil || n != len(sum) {
				t.known.Purge() // "*", or a payload this version does not know: forget all
				return
			}
			t.known.Remove(sum)
		}, t.known.Purge)
	}
	return t
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Who makes tokens, as the connected apps page says it.
const (
	CreatedByCommandLine = "the server's command line"
	CreatedByFirstStart  = "the server's first start"
)

// Create issues a new token for the workspace and returns it.
func (t *Tokens) Create(ctx context.Context, workspaceID uuid.UUID) (string, error) {
	return CreateToken(ctx, t.db, workspaceID)
}

// CreateBy is [Tokens.Create] recording who made the token (a person's
// address, or one of CreatedByCommandLine and CreatedByFirstStart).
func (t *Tokens) CreateBy(ctx context.Context, workspaceID uuid.UUID, by string) (string, error) {
	return CreateTokenBy(ctx, t.db, workspaceID, by)
}

// CreateToken is [Tokens.Create] on a given connection or transaction.
func CreateToken(ctx context.Context, db execer, workspaceID uuid.UUID) (string, error) {
	return CreateTokenBy(ctx, db, workspaceID, "")
}

// CreateTokenBy is [Tokens.CreateBy] on a given connection or transaction.
func CreateTokenBy(ctx context.Context, db execer, workspaceID uuid.UUID, by string) (string, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(token))
	if _, err := db.Exec(ctx,
		`INSERT INTO api_tokens (workspace_id, id, token_hash, created_by) VALUES ($1, $2, $3, $4)`,
		workspaceID, uuid.New(), sum[:], by); err != nil {
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
	if t.known != nil && t.notes.Fresh() {
		if k, ok := t.known.Get(sum); ok {
			t.touch(ctx, sum, k)
			return k.principal, nil
		}
	}
	generation := t.notes.Generation(store.TokensChannel)
	k := &knownToken{}
	var usedAt *time.Time
	err := t.db.QueryRow(ctx,
		`SELECT w.id, w.slug, t.last_used_at FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id
		 WHERE t.token_hash = $1 AND t.revoked_at IS NULL`, sum[:]).Scan(&k.principal.WorkspaceID, &k.principal.WorkspaceSlug, &usedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, ErrBadToken
	}
	if err != nil {
		return Principal{}, fmt.Errorf("check token: %w", err)
	}
	if usedAt != nil {
		k.usedAt.Store(usedAt.UnixNano())
	}
	// Kept only if no notification came during the read: it may have
	// been of a revocation the read did not see.
	if t.known != nil && t.notes.Fresh() && t.notes.Generation(store.TokensChannel) == generation {
		t.known.Add(sum, k)
	}
	t.touch(ctx, sum, k)
	return k.principal, nil
}

// tokenTouchEvery bounds how often a busy token's last use is written
// (per replica): the connected apps page says when it was last used to
// the minute, and a token in constant use costs one write a minute.
const tokenTouchEvery = time.Minute

// touch records that the token was used, at most every tokenTouchEvery.
// It is bookkeeping for `server token list` and the connected apps
// page: a failed write does not
// fail the request, and is tried again tokenTouchEvery later.
func (t *Tokens) touch(ctx context.Context, sum [sha256.Size]byte, k *knownToken) {
	now := time.Now()
	last := k.usedAt.Load()
	if now.Sub(time.Unix(0, last)) < tokenTouchEvery || !k.usedAt.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	_, _ = t.db.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2 WHERE token_hash = $1`, sum[:], now)
}

// TokenInfo describes a token without the token itself.
type TokenInfo struct {
	ID         uuid.UUID
	CreatedAt  time.Time
	LastUsedAt *time.Time // to the minute
	RevokedAt  *time.Time
	// CreatedBy is who made it: a person's address, or one of
	// CreatedByCommandLine and CreatedByFirstStart; "" for a token made
	// before this was recorded.
	CreatedBy string
	RevokedBy string // who revoked it in the web app; "" otherwise
}

// List returns the workspace's tokens, oldest first, revoked ones
// included.
func (t *Tokens) List(ctx context.Context, workspaceID uuid.UUID) ([]TokenInfo, error) {
	rows, err := t.db.Query(ctx, `SELECT id, created_at, last_used_at, revoked_at, created_by, coalesce(revoked_by, '') FROM api_tokens
		WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	infos, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TokenInfo, error) {
		var i TokenInfo
		err := r.Scan(&i.ID, &i.CreatedAt, &i.LastUsedAt, &i.RevokedAt, &i.CreatedBy, &i.RevokedBy)
		return i, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return infos, nil
}

// Revoke revokes a token, named by its id (from [Tokens.List]) or by the
// token itself, and returns its id. Every replica refuses it within a
// second. Revoking a revoked token changes nothing. Refusals: ENOTFOUND.
func (t *Tokens) Revoke(ctx context.Context, idOrToken string) (uuid.UUID, error) {
	idOrToken = strings.TrimSpace(idOrToken)
	var hash []byte
	id, err := uuid.Parse(idOrToken)
	if err != nil {
		if !strings.HasPrefix(idOrToken, tokenPrefix) {
			return uuid.Nil, vibesell.Errorf(vibesell.ENOTFOUND, "%q is neither a token id (see `server token list --workspace SLUG`) nor a token.", idOrToken)
		}
		sum := sha256.Sum256([]byte(idOrToken))
		hash = sum[:]
	}
	var revoked uuid.UUID
	err = t.db.QueryRow(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now())
		WHERE ($1::bytea IS NOT NULL AND token_hash = $1) OR ($1::bytea IS NULL AND id = $2) RETURNING id`, hash, id).Scan(&revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such token.")
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("revoke token: %w", err)
	}
	return revoked, nil
}

// RevokeIn revokes the workspace's token id on behalf of by (a signed-in
// person of the workspace): every replica refuses it within a second.
// Revoking a revoked token changes nothing. Refusals: ENOTFOUND, for a
// token of another workspace too.
func (t *Tokens) RevokeIn(ctx context.Context, workspaceID, id uuid.UUID, by string) error {
	tag, err := t.db.Exec(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()), revoked_by = coalesce(revoked_by, $3)
		WHERE workspace_id = $1 AND id = $2`, workspaceID, id, by)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return vibesell.Errorf(vibesell.ENOTFOUND, "There is no such token in this workspace.")
	}
	return nil
}
