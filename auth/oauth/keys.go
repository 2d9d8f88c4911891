package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

// keyLockID serialises key generation across replicas starting together.
const keyLockID = 0x6f61757468 // "oauth"

// retiredKeyKept is how long a retired key is still published and
// accepted: longer than any access token it signed can live.
const retiredKeyKept = 2 * accessTokenLifetime

// signingKey is one ECDSA P-256 key with its id.
type signingKey struct {
	kid     string
	private *ecdsa.PrivateKey
	retired *time.Time
}

// Keys holds the signing keys, all in PostgreSQL so that every replica
// signs with the same key and verifies every other replica's tokens.
type Keys struct {
	db    *pgxpool.Pool
	clock vibesell.Clock

	mu    sync.Mutex
	byKID map[string]*ecdsa.PublicKey
}

// newKeys returns the Keys on db ([Server.Keys]); a nil clock is the
// system clock.
func newKeys(db *pgxpool.Pool, clock vibesell.Clock) *Keys {
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Keys{db: db, clock: clock, byKID: map[string]*ecdsa.PublicKey{}}
}

// Ensure creates the first signing key when there is none. Replicas
// starting together create one key between them.
func (k *Keys) Ensure(ctx context.Context) error {
	return store.InTx(ctx, k.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, keyLockID); err != nil {
			return fmt.Errorf("lock signing keys: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM oauth_signing_keys WHERE retired_at IS NULL`).Scan(&n); err != nil {
			return fmt.Errorf("count signing keys: %w", err)
		}
		if n > 0 {
			return nil
		}
		_, err := insertKey(ctx, tx, k.clock.Now())
		return err
	})
}

// Rotate makes a new key the signing key and retires the others; they
// keep verifying the tokens they signed until those have expired. It
// returns the new key's id.
func (k *Keys) Rotate(ctx context.Context) (string, error) {
	var kid string
	err := store.InTx(ctx, k.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, keyLockID); err != nil {
			return fmt.Errorf("lock signing keys: %w", err)
		}
		now := k.clock.Now()
		if _, err := tx.Exec(ctx, `UPDATE oauth_signing_keys SET retired_at = $1 WHERE retired_at IS NULL`, now); err != nil {
			return fmt.Errorf("retire signing keys: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_signing_keys WHERE retired_at < $1`, now.Add(-retiredKeyKept)); err != nil {
			return fmt.Errorf("delete old signing keys: %w", err)
		}
		var err error
		kid, err = insertKey(ctx, tx, now)
		return err
	})
	return kid, err
}

func insertKey(ctx context.Context, tx pgx.Tx, now time.Time) (string, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", fmt.Errorf("encode signing key: %w", err)
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	kid := now.UTC().Format("20060102") + "-" + base64.RawURLEncoding.EncodeToString(b)
	if _, err := tx.Exec(ctx, `INSERT INTO oauth_signing_keys (kid, private_key, created_at) VALUES ($1, $2, $3)`,
		kid, der, now); err != nil {
		return "", fmt.Errorf("store signing key: %w", err)
	}
	return kid, nil
}

// all reads every key still published, newest first.
func (k *Keys) all(ctx context.Context) ([]signingKey, error) {
	rows, err := k.db.Query(ctx, `SELECT kid, private_key, retired_at FROM oauth_signing_keys
		WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC, kid`, k.clock.Now().Add(-retiredKeyKept))
	if err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	defer rows.Close()
	var keys []signingKey
	for rows.Next() {
		var sk signingKey
		var der []byte
		if err := rows.Scan(&sk.kid, &der, &sk.retired); err != nil {
			return nil, fmt.Errorf("read signing key: %w", err)
		}
		parsed, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return nil, fmt.Errorf("decode signing key %s: %w", sk.kid, err)
		}
		priv, ok := parsed.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("signing key %s is not ECDSA", sk.kid)
		}
		sk.private = priv
		keys = append(keys, sk)
	}
	return keys, rows.Err()
}

// errNoSigningKey means the server started without [Keys.Ensure].
var errNoSigningKey = errors.New("no signing key: run Keys.Ensure at start")

// signer returns a signer with the current key, read from the database
// each time: tokens are issued rarely, and a rotation on any replica then
// takes effect on all of them at their next token.
func (k *Keys) signer(ctx context.Context) (jose.Signer, error) {
	keys, err := k.all(ctx)
	if err != nil {
		return nil, err
	}
	for _, sk := range keys {
		if sk.retired != nil {
			continue
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: sk.private, KeyID: sk.kid}},
			(&jose.SignerOptions{}).WithType("at+jwt"))
		if err != nil {
			return nil, fmt.Errorf("signer: %w", err)
		}
		return s, nil
	}
	return nil, errNoSigningKey
}

// public returns the public key with the given id, or nil. Keys are
// cached once seen; an id not seen yet is looked up, so a key made by a
// rotation on another replica verifies here from its first token.
func (k *Keys) public(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	k.mu.Lock()
	pub, ok := k.byKID[kid]
	k.mu.Unlock()
	if ok {
		return pub, nil
	}
	var der []byte
	err := k.db.QueryRow(ctx, `SELECT private_key FROM oauth_signing_keys WHERE kid = $1 AND (retired_at IS NULL OR retired_at > $2)`,
		kid, k.clock.Now().Add(-retiredKeyKept)).Scan(&der)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", kid, err)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("decode signing key %s: %w", kid, err)
	}
	priv, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s is not ECDSA", kid)
	}
	k.mu.Lock()
	k.byKID[kid] = &priv.PublicKey
	k.mu.Unlock()
	return &priv.PublicKey, nil
}

// JWKS is the published key set (RFC 7517), for anyone verifying tokens.
func (k *Keys) JWKS(ctx context.Context) (jose.JSONWebKeySet, error) {
	keys, err := k.all(ctx)
	if err != nil {
		return jose.JSONWebKeySet{}, err
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	for _, sk := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &sk.private.PublicKey, KeyID: sk.kid, Algorithm: string(jose.ES256), Use: "sig"})
	}
	return set, nil
}
