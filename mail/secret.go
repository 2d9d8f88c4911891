package mail

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Secret is the key from configuration (MAIL_SECRET_KEY). It is never used
// directly: each use gets its own key derived with HKDF, so the key sealing
// DKIM private keys, the key signing unsubscribe links and the key sealing
// connected mailboxes' passwords are unrelated.
type Secret struct {
	seal    []byte
	links   []byte
	creds   []byte
	sandbox []byte
}

// ParseSecret reads a key of at least 32 bytes given in hex or base64.
func ParseSecret(s string) (Secret, error) {
	s = strings.TrimSpace(s)
	var raw []byte
	if b, err := hex.DecodeString(s); err == nil {
		raw = b
	} else if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		raw = b
	} else if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		raw = b
	}
	if len(raw) < 32 {
		return Secret{}, errors.New("expected at least 32 random bytes in hex or base64, for example the output of `openssl rand -hex 32`")
	}
	return NewSecret(raw)
}

// NewSecret derives the keys from raw key material.
func NewSecret(raw []byte) (Secret, error) {
	seal, err := hkdf.Key(sha256.New, raw, nil, "vibesell mail: dkim private keys", 32)
	if err != nil {
		return Secret{}, fmt.Errorf("derive sealing key: %w", err)
	}
	links, err := hkdf.Key(sha256.New, raw, nil, "vibesell mail: unsubscribe links", 32)
	if err != nil {
		return Secret{}, fmt.Errorf("derive link key: %w", err)
	}
	creds, err := hkdf.Key(sha256.New, raw, nil, "vibesell mail: mailbox credentials", 32)
	if err != nil {
		return Secret{}, fmt.Errorf("derive credentials key: %w", err)
	}
	sandbox, err := hkdf.Key(sha256.New, raw, nil, "vibesell mail: sandbox mailboxes", 32)
	if err != nil {
		return Secret{}, fmt.Errorf("derive sandbox key: %w", err)
	}
	return Secret{seal: seal, links: links, creds: creds, sandbox: sandbox}, nil
}

// SandboxPassword is the password of the sandbox mail server's mailbox
// email when several replicas share one server: each replica, holding the
// same key, logs in with it, and nothing else knows it.
func (s Secret) SandboxPassword(email string) string {
	h := hmac.New(sha256.New, s.sandbox)
	h.Write([]byte(strings.ToLower(email)))
	return hex.EncodeToString(h.Sum(nil))
}

// NewRandomSecret returns a fresh key, hex-encoded, for a first start.
func NewRandomSecret() string {
	raw := make([]byte, 32)
	rand.Read(raw)
	return hex.EncodeToString(raw)
}

// sealed encrypts plain with AES-256-GCM; the nonce goes first. aad binds
// the ciphertext to its row, so a sealed key copied to another domain does
// not open.
func (s Secret) sealed(plain, aad []byte) ([]byte, error) { return sealWith(s.seal, plain, aad) }

func (s Secret) opened(sealed, aad []byte) ([]byte, error) { return openWith(s.seal, sealed, aad) }

// SealCredentials encrypts a connected mailbox's passwords with the
// credentials key; aad binds them to their row.
func (s Secret) SealCredentials(plain, aad []byte) ([]byte, error) {
	return sealWith(s.creds, plain, aad)
}

// OpenCredentials opens what [Secret.SealCredentials] sealed.
func (s Secret) OpenCredentials(sealed, aad []byte) ([]byte, error) {
	return openWith(s.creds, sealed, aad)
}

func sealWith(key, plain, aad []byte) ([]byte, error) {
	gcm, err := gcmOf(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return gcm.Seal(nonce, nonce, plain, aad), nil
}

func openWith(key, sealed, aad []byte) ([]byte, error) {
	gcm, err := gcmOf(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize() {
		return nil, errors.New("sealed value too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], aad)
	if err != nil {
		return nil, errors.New("cannot open a sealed value: MAIL_SECRET_KEY is not the key it was sealed with")
	}
	return plain, nil
}

func gcmOf(key []byte) (cipher.AEAD, error) {
	if len(key) == 0 {
		return nil, errors.New("mail secret not configured")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
