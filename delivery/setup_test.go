package delivery_test

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

// bundle is what a test of the engine works with: a database, a workspace,
// the sandbox mail server with one mailbox, and the engine's parts.
type bundle struct {
	ctx        context.Context
	dbURL      string
	db         *pgxpool.Pool
	clock      *vibesell.ManualClock
	workspace  uuid.UUID
	secret     mail.Secret
	sandbox    *sandboxmail.Sandbox
	mailbox    mail.Account
	keys       *mail.Keys
	suppressor *tableSuppressor
	sender     *delivery.Dispatcher
	// onAccept, when set, runs as the sandbox accepts each message.
	onAccept atomic.Pointer[func(sandboxmail.Accepted)]
}

// testSecretKey is the MAIL_SECRET_KEY of the tests.
var testSecretKey = bytes.Repeat([]byte("k"), 32)

func setup(t testing.TB) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{ctx: ctx, dbURL: storetest.NewURL(t)}
	db, err := store.Connect(ctx, b.dbURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ws, err := workspace.Create(ctx, db, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	secret, err := mail.NewSecret(testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := sandboxmail.Start(sandboxmail.Config{
		SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0", Clock: clock,
		OnAccept: func(a sandboxmail.Accepted) {
			if f := b.onAccept.Load(); f != nil {
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
	suppressor := newTableSuppressor(t, db)
	keys := mail.NewKeys(db, secret, clock)
	b.db, b.clock, b.workspace, b.secret = db, clock, ws.ID, secret
	b.sandbox, b.mailbox, b.keys, b.suppressor = sandbox, mailbox, keys, suppressor
	b.sender = delivery.NewDispatcher(db, keys, suppressor, clock)
	return b
}

// tableSuppressor is a real suppression list in a table of the test's own:
// the audience feature's list is wired in at the merge.
type tableSuppressor struct{ db *pgxpool.Pool }

func newTableSuppressor(t testing.TB, db *pgxpool.Pool) *tableSuppressor {
	t.Helper()
	_, err := db.Exec(context.Background(), `CREATE TABLE test_suppressions (
		workspace_id uuid NOT NULL, address text NOT NULL, reason text NOT NULL,
		PRIMARY KEY (workspace_id, address))`)
	if err != nil {
		t.Fatal(err)
	}
	return &tableSuppressor{db: db}
}

func (s *tableSuppressor) Suppress(ctx context.Context, workspaceID uuid.UUID, address, reason string) error {
	_, err := s.db.Exec(ctx, `INSERT INTO test_suppressions VALUES ($1, lower($2), $3) ON CONFLICT DO NOTHING`, workspaceID, address, reason)
	return err
}

func (s *tableSuppressor) Suppressed(ctx context.Context, workspaceID uuid.UUID, address string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM test_suppressions WHERE workspace_id = $1 AND address = lower($2)`, workspaceID, address).Scan(&n)
	return n > 0, err
}

func (s *tableSuppressor) list(t *testing.T, workspaceID uuid.UUID) []string {
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

// dnsFor answers DKIM lookups with the workspace's published records, as
// the sending domain's DNS would.
func (b *bundle) dnsFor(t testing.TB, domains ...string) func(string) ([]string, error) {
	t.Helper()
	records := map[string]string{}
	for _, d := range domains {
		rec, err := b.keys.Record(b.ctx, b.workspace, d)
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

// verify returns the DKIM verdicts of a received message.
func verify(t *testing.T, raw []byte, lookup func(string) ([]string, error)) []*dkim.Verification {
	t.Helper()
	v, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: lookup})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// outgoing is step n of a campaign to a lead at acme-corp.example.
func (b *bundle) outgoing(campaign string, lead int64, step int) delivery.Outgoing {
	return delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: b.workspace, CampaignID: campaign, LeadID: lead, Step: step},
		Mailbox: b.mailbox,
		Message: mail.Message{
			To:             mail.Address{Name: "Sam Okafor", Email: "sam@acme-corp.example"},
			Subject:        "Quick question about Acme's onboarding",
			Body:           "Hi Sam,\n\nWould a shorter onboarding help your team this quarter?\n\nDana",
			UnsubscribeURL: b.secret.UnsubscribeURL("https://vibesell.example.com", b.workspace, "sam@acme-corp.example"),
			PostalAddress:  "Acme Sales, 1 Market St, San Francisco, CA 94105",
		},
	}
}

var leadIDs atomic.Int64

// newLeadID is a lead number no other test uses.
func newLeadID() int64 { return leadIDs.Add(1) }

// newCampaignID is a campaign id as campaigns makes them.
func newCampaignID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "cp_" + hex.EncodeToString(b)
}
