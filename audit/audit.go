// Package audit holds each workspace's audit chain: a record nobody can
// quietly change of every approval event (an approval opened, each
// version of what it shows, each decision and refused attempt, its
// execution, its end). PostgreSQL appends the records (migration 00351:
// a deferred trigger on approval_events and approval_shown, in the
// transaction that writes the event, serialized per workspace by the
// head's row lock, so seq has no gaps and no forks); this package reads
// them: the head a person notes from the web app, the export as JSON
// lines, and the verification of an export or of the database, which
// names the first record altered, removed or reordered.
//
// Each record's hash is the SHA-256 of six netstrings ("<byte length>:
// <bytes>,") of its prev_hash, seq, at, kind, subject and body ([Hash]);
// prev_hash is the hash of the record before it, 64 zeros for the first.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Genesis is the prev_hash of a workspace's first record.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// AtLayout is how a record's moment is written, in UTC, in the hash and
// in an export: what PostgreSQL's to_char writes in migration 00351.
const AtLayout = "2006-01-02T15:04:05.000000Z"

// Record is one record of a workspace's chain, as exported.
type Record struct {
	Seq     int64  `json:"seq"`
	At      string `json:"at"`      // in AtLayout
	Kind    string `json:"kind"`    // the event: opened, shown, approved, rejected, approve_refused, executing, done, not_done, expired, superseded…
	Subject string `json:"subject"` // the approval's id
	// Body is the event's other facts, as PostgreSQL writes the JSON
	// (its jsonb text): hashed byte for byte as it stands, so an export
	// writes it untouched ([Chains.Export]).
	Body     json.RawMessage `json:"body"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
}

// Hash is the hash a record must have: the SHA-256, in hex, of its
// prev_hash, seq, at, kind, subject and body, each as a netstring.
func Hash(prevHash string, seq int64, at, kind, subject string, body []byte) string {
	h := sha256.New()
	var buf []byte
	field := func(b []byte) {
		buf = strconv.AppendInt(buf[:0], int64(len(b)), 10)
		buf = append(buf, ':')
		h.Write(buf)
		h.Write(b)
		h.Write([]byte{','})
	}
	field([]byte(prevHash))
	field(strconv.AppendInt(nil, seq, 10))
	field([]byte(at))
	field([]byte(kind))
	field([]byte(subject))
	field(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Sum is the hash r must have ([Hash]).
func (r Record) Sum() string { return Hash(r.PrevHash, r.Seq, r.At, r.Kind, r.Subject, r.Body) }

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
}

// Chains reads the workspaces' audit chains.
type Chains struct {
	db *pgxpool.Pool
}

// New returns the chains on d.DB.
func New(d Deps) *Chains { return &Chains{db: d.DB} }

// Head is the last record of a workspace's chain: what a person notes to
// check later that nothing before it changed. Seq 0 (and the hash
// [Genesis]) when the chain has no record yet.
type Head struct {
	Seq  int64
	Hash string
}

// Head returns the workspace's head.
func (c *Chains) Head(ctx context.Context, ws uuid.UUID) (Head, error) {
	h := Head{Hash: Genesis}
	err := c.db.QueryRow(ctx, `SELECT seq, hash FROM audit_heads WHERE workspace_id = $1`, ws).Scan(&h.Seq, &h.Hash)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Head{}, fmt.Errorf("read the audit head: %w", err)
	}
	return h, nil
}

// FormatAt writes t as a record's moment.
func FormatAt(t time.Time) string { return t.UTC().Format(AtLayout) }
