package mail

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
)

// DKIMSelector is the selector every sending domain publishes its key
// under; the sending setup already expects the record at
// vs1._domainkey.<domain>.
const DKIMSelector = "vs1"

// DKIMRecord is the TXT record that publishes a domain's public key.
type DKIMRecord struct {
	Host  string // vs1._domainkey.<domain>
	Value string // v=DKIM1; k=rsa; p=… (or k=ed25519)
}

// The DKIM key algorithms a new domain's key can use.
const (
	// RSA is RSA-2048 (RFC 6376): every receiver verifies it.
	RSA = "rsa"
	// Ed25519 is Ed25519-SHA256 (RFC 8463): about thirty times cheaper to
	// sign with, but a receiver that does not verify it yet treats the
	// mail as unsigned.
	Ed25519 = "ed25519"
)

// Keys keeps one DKIM key pair per sending domain of a workspace. The
// private key is made here, sealed with the configured secret before it is
// stored, and opened only to sign.
type Keys struct {
	db     *pgxpool.Pool
	secret Secret
	clock  vibesell.Clock
	// algorithm is what a new domain's key uses: RSA or Ed25519.
	algorithm string
	// opened keeps the keys already opened, by workspace and domain: a
	// domain's key never changes once made, and opening it (a read, a
	// decryption, a parse) would otherwise cost every send.
	opened sync.Map
}

type keyName struct {
	workspaceID uuid.UUID
	domain      string
}

// KeysDeps is what the DKIM key store needs.
type KeysDeps struct {
	DB *pgxpool.Pool
	// Secret seals the private keys at rest.
	Secret Secret
	// Clock dates new keys; nil means the system's.
	Clock vibesell.Clock
}

// NewKeys returns the DKIM key store.
func NewKeys(d KeysDeps) *Keys {
	clock := d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Keys{db: d.DB, secret: d.Secret, clock: clock, algorithm: RSA}
}

// MakeWith makes the keys of domains that have none yet with algorithm
// (RSA, the default, or Ed25519); a domain's key, once made, stays.
func (k *Keys) MakeWith(algorithm string) error {
	if algorithm != RSA && algorithm != Ed25519 {
		return fmt.Errorf("dkim: unknown key algorithm %q (rsa or ed25519)", algorithm)
	}
	k.algorithm = algorithm
	return nil
}

// Record returns the DKIM record the domain must publish, making the key
// pair the first time it is asked for: the sending setup calls it when it
// orders a domain, so what it publishes is the key the engine signs with.
func (k *Keys) Record(ctx context.Context, workspaceID uuid.UUID, domain string) (DKIMRecord, error) {
	_, public, algorithm, err := k.ensure(ctx, workspaceID, domain)
	if err != nil {
		return DKIMRecord{}, err
	}
	return DKIMRecord{Host: DKIMSelector + "._domainkey." + domain, Value: "v=DKIM1; k=" + algorithm + "; p=" + public}, nil
}

// Signer returns the key that signs the domain's mail.
func (k *Keys) Signer(ctx context.Context, workspaceID uuid.UUID, domain string) (DKIMKey, error) {
	if key, ok := k.opened.Load(keyName{workspaceID, domain}); ok {
		return key.(DKIMKey), nil
	}
	sealed, _, algorithm, err := k.ensure(ctx, workspaceID, domain)
	if err != nil {
		return DKIMKey{}, err
	}
	der, err := k.secret.opened(sealed, keyAAD(workspaceID, domain))
	if err != nil {
		return DKIMKey{}, fmt.Errorf("dkim key of %s: %w", domain, err)
	}
	var key crypto.Signer
	if algorithm == Ed25519 {
		key, err = parseEd25519(der)
	} else {
		key, err = x509.ParsePKCS1PrivateKey(der)
	}
	if err != nil {
		return DKIMKey{}, fmt.Errorf("dkim key of %s: %w", domain, err)
	}
	opened := DKIMKey{Domain: domain, Selector: DKIMSelector, Signer: key}
	k.opened.Store(keyName{workspaceID, domain}, opened)
	return opened, nil
}

// ensure reads the domain's key, making it when there is none. Two callers
// racing both generate a key, and the first insert wins for both.
func (k *Keys) ensure(ctx context.Context, workspaceID uuid.UUID, domain string) (sealed []byte, public, algorithm string, err error) {
	const read = `SELECT private_key, public_key, algorithm FROM mail_dkim_keys WHERE workspace_id = $1 AND domain = $2`
	err = k.db.QueryRow(ctx, read, workspaceID, domain).Scan(&sealed, &public, &algorithm)
	if err == nil {
		return sealed, public, algorithm, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, "", "", fmt.Errorf("read dkim key: %w", err)
	}
	private, public, err := newKeyPair(k.algorithm)
	if err != nil {
		return nil, "", "", err
	}
	sealed, err = k.secret.sealed(private, keyAAD(workspaceID, domain))
	if err != nil {
		return nil, "", "", fmt.Errorf("seal dkim key: %w", err)
	}
	_, err = k.db.Exec(ctx, `INSERT INTO mail_dkim_keys (workspace_id, domain, selector, private_key, public_key, algorithm, created_at)
	                        VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
		workspaceID, domain, DKIMSelector, sealed, public, k.algorithm, k.clock.Now())
	if err != nil {
		return nil, "", "", fmt.Errorf("store dkim key: %w", err)
	}
	if err := k.db.QueryRow(ctx, read, workspaceID, domain).Scan(&sealed, &public, &algorithm); err != nil {
		return nil, "", "", fmt.Errorf("read dkim key: %w", err)
	}
	return sealed, public, algorithm, nil
}

// newKeyPair makes a key pair: the private key's bytes to seal, and the
// p= value of its record.
func newKeyPair(algorithm string) (private []byte, public string, err error) {
	if algorithm == Ed25519 {
		pub, key, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, "", fmt.Errorf("generate dkim key: %w", err)
		}
		// RFC 8463: p= is the raw 32-byte public key.
		return key.Seed(), base64.StdEncoding.EncodeToString(pub), nil
	}
	// RSA by default: not every receiver verifies Ed25519 signatures yet
	// (RFC 8463), and 2048 bits is what they all accept.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, "", fmt.Errorf("generate dkim key: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, "", fmt.Errorf("generate dkim key: %w", err)
	}
	return x509.MarshalPKCS1PrivateKey(key), base64.StdEncoding.EncodeToString(spki), nil
}

func parseEd25519(seed []byte) (ed25519.PrivateKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("not an Ed25519 key")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

func keyAAD(workspaceID uuid.UUID, domain string) []byte {
	return append(workspaceID[:], domain...)
}
