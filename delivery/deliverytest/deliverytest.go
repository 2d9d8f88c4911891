// Package deliverytest is what tests of sending and reading mail work
// with: a database, a workspace, the sandbox mail server with one mailbox,
// the DKIM keys, a suppression list of the test's own and the
// [delivery.Dispatcher] over them.
package deliverytest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// Bundle is what a test of the engine works with: a database, a workspace,
// the sandbox mail server with one mailbox, and the engine's parts.
type Bundle struct {
	Ctx        context.Context
	DBURL      string
	DB         *pgxpool.Pool
	Clock      *vibesell.ManualClock
	Workspace  uuid.UUID
	Secret     mail.Secret
	Sandbox    *sandboxmail.Sandbox
	Mailbox    mail.Account
	Keys       *mail.Keys
	Suppressor *TableSuppressor
	Dispatcher *delivery.Dispatcher
	// OnAccept, when set, runs as the sandbox accepts each message.
	OnAccept atomic.Pointer[func(sandboxmail.Accepted)]
}

// SecretKey is the MAIL_SECRET_KEY of the tests.
var SecretKey = bytes.Repeat([]byte("k"), 32)

// Setup starts the bundle for the test, and stops it when the test ends.
func Setup(t testing.TB) *Bundle {
	t.Helper()
	ctx := context.Background()
	b := &Bundle{Ctx: ctx, DBURL: storetest.NewURL(t)}
	db, err := store.Connect(ctx, b.DBURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ws, err := workspace.Create(ctx, db, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	secret, err := mail.NewSecret(SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := sandboxmail.Start(sandboxmail.Config{
		SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0", Clock: clock,
		OnAccept: func(a sandboxmail.Accepted) {
			if f := b.OnAccept.Load(); f != nil {
				(*f)(a)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.Close() })
	mailbox, err := sandbox.AddMailbox(mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"})
	if err != nil {
		t.Fatal(err)
	}
	suppressor := NewTableSuppressor(t, db)
	keys := mail.NewKeys(mail.KeysDeps{DB: db, Secret: secret, Clock: clock})
	b.DB, b.Clock, b.Workspace, b.Secret = db, clock, ws.ID, secret
	b.Sandbox, b.Mailbox, b.Keys, b.Suppressor = sandbox, mailbox, keys, suppressor
	b.Dispatcher = delivery.NewDispatcher(delivery.DispatcherDeps{DB: db, Keys: keys, Suppressor: suppressor, Clock: clock})
	return b
}

// TableSuppressor is a real suppression list in a table of the test's own:
// the audience feature's list is wired in at the merge.
type TableSuppressor struct{ db *pgxpool.Pool }

// ExistingSuppressor is the list on db, whose table a [Setup] made (a
// worker process of the test's, say).
func ExistingSuppressor(db *pgxpool.Pool) *TableSuppressor { return &TableSuppressor{db: db} }

// NewTableSuppressor makes the list's table on db.
func NewTableSuppressor(t testing.TB, db *pgxpool.Pool) *TableSuppressor {
	t.Helper()
	_, err := db.Exec(context.Background(), `CREATE TABLE test_suppressions (
		workspace_id uuid NOT NULL, address text NOT NULL, reason text NOT NULL,
		PRIMARY KEY (workspace_id, address))`)
	if err != nil {
		t.Fatal(err)
	}
	return &TableSuppressor{db: db}
}

func (s *TableSuppressor) Suppress(ctx context.Context, workspaceID uuid.UUID, address, reason string) error {
	_, err := s.db.Exec(ctx, `INSERT INTO test_suppressions VALUES ($1, lower($2), $3) ON CONFLICT DO NOTHING`, workspaceID, address, reason)
	return err
}

func (s *TableSuppressor) Suppressed(ctx context.Context, workspaceID uuid.UUID, address string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM test_suppressions WHERE workspace_id = $1 AND address = lower($2)`, workspaceID, address).Scan(&n)
	return n > 0, err
}

// List is the workspace's suppressed addresses, each with its reason.
func (s *TableSuppressor) List(t *testing.T, workspaceID uuid.UUID) []string {
	t.Helper()
	rows, err := s.db.Query(context.Background(), `SELECT address || ' ' || reason FROM test_suppressions WHERE workspace_id = $1 ORDER BY 1`, workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// DNSFor answers DKIM lookups with the workspace's published records, as
// the sending domain's DNS would.
func (b *Bundle) DNSFor(t testing.TB, domains ...string) func(string) ([]string, error) {
	t.Helper()
	records := map[string]string{}
	for _, d := range domains {
		rec, err := b.Keys.Record(b.Ctx, b.Workspace, d)
		if err != nil {
			t.Fatal(err)
		}
		records[rec.Host] = rec.Value
	}
	return func(name string) ([]string, error) {
		if v, ok := records[strings.TrimSuffix(name, ".")]; ok {
			return []string{v}, nil
		}
		return nil, &dnsNotFound{name}
	}
}

type dnsNotFound struct{ name string }

func (e *dnsNotFound) Error() string { return "no such record: " + e.name }

// Verify returns the DKIM verdicts of a received message.
func Verify(t *testing.T, raw []byte, lookup func(string) ([]string, error)) []*dkim.Verification {
	t.Helper()
	v, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: lookup})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Outgoing is step n of a campaign to a lead at acme-corp.example.
func (b *Bundle) Outgoing(campaign string, lead int64, step int) delivery.Outgoing {
	return delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: b.Workspace, CampaignID: campaign, LeadID: lead, Step: step},
		Mailbox: b.Mailbox,
		Message: mail.Message{
			To:             mail.Address{Name: "Sam Okafor", Email: "sam@acme-corp.example"},
			Subject:        "Quick question about Acme's onboarding",
			Body:           "Hi Sam,\n\nWould a shorter onboarding help your team this quarter?\n\nDana",
			UnsubscribeURL: b.Secret.UnsubscribeURL("https://vibesell.example.com", b.Workspace, "sam@acme-corp.example"),
			PostalAddress:  "Acme Sales, 1 Market St, San Francisco, CA 94105",
		},
	}
}

var leadIDs atomic.Int64

// NewLeadID is a lead number no other test uses.
func NewLeadID() int64 { return leadIDs.Add(1) }

// NewCampaignID is a campaign id as campaigns makes them.
func NewCampaignID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "cp_" + hex.EncodeToString(b)
}

// SendTo sends step 1 of campaign to a lead and returns its Message-ID.
func (b *Bundle) SendTo(t *testing.T, campaign string, lead int64, name, email string) string {
	t.Helper()
	out := b.Outgoing(campaign, lead, 1)
	out.Message.To = mail.Address{Name: name, Email: email}
	out.Message.UnsubscribeURL = b.Secret.UnsubscribeURL("https://vibesell.example.com", b.Workspace, email)
	res, err := b.Dispatcher.Send(b.Ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	return res.MessageID
}

// KeyRecords publishes each workspace's DKIM keys as its sending setup
// does once a domain is ready: the DNS seam of the outbox's verdict.
type KeyRecords struct {
	Keys    *mail.Keys
	Domains map[uuid.UUID][]string
}

// PublishedTXT answers name from the records of ws's domains.
func (k KeyRecords) PublishedTXT(ctx context.Context, ws uuid.UUID, name string) ([]string, error) {
	for _, d := range k.Domains[ws] {
		rec, err := k.Keys.Record(ctx, ws, d)
		if err != nil {
			return nil, err
		}
		if rec.Host == name {
			return []string{rec.Value}, nil
		}
	}
	return nil, nil
}

// CRLF turns a message written with \n into the wire form.
func CRLF(s string) []byte {
	return []byte(strings.ReplaceAll(strings.TrimLeft(s, "\n"), "\n", "\r\n"))
}
