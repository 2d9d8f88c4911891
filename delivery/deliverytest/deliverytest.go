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
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
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

// LedgerSize is the size of the ledger a plan test fills: by default a
// size CI fills in seconds, at which the planner already weighs an index
// against a sequential scan as it does at full size; PLAN_TEST_SENDS and
// PLAN_TEST_REPLIES set it (the README's full size: 10,000,000 and
// 1,000,000).
func LedgerSize(t testing.TB) (sends, replies int) {
	t.Helper()
	sends, replies = 200_000, 20_000
	for name, n := range map[string]*int{"PLAN_TEST_SENDS": &sends, "PLAN_TEST_REPLIES": &replies} {
		if v := os.Getenv(name); v != "" {
			k, err := strconv.Atoi(v)
			if err != nil || k < 1000 {
				t.Fatalf("%s=%q: expected a number of rows, at least 1000", name, v)
			}
			*n = k
		}
	}
	return sends, replies
}

// FillLedger adds sends rows to the send ledger and replies to the
// replies, as a busy installation has them: a tenth of them ws's (the
// installation's biggest workspace: 500 campaigns, 20 mailboxes), the rest
// spread over 200 other workspaces, over the last 90 days; each reply
// answers a send. Triggers and foreign keys are off while it fills (the
// other workspaces have no rows of their own), then the tables are
// analyzed. The replies' classifications are spread as a busy inbox's are,
// bounces, unsubscribes and complaints among them (a tenth in all). It returns how long the fill took.
func FillLedger(t testing.TB, db *pgxpool.Pool, ws uuid.UUID, sends, replies int) time.Duration {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	start := time.Now()
	// The indexes that are not constraints are built again after the
	// fill: building one from the whole table is several times faster than
	// growing it row by row.
	rows, err := conn.Query(ctx, `
		SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
		 WHERE i.indrelid IN ('mail_sends'::regclass, 'mail_replies'::regclass)
		   AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = i.indexrelid)`)
	if err != nil {
		t.Fatal(err)
	}
	var names, defs []string
	var name, def string
	if _, err := pgx.ForEachRow(rows, []any{&name, &def}, func() error {
		names, defs = append(names, name), append(defs, def)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := conn.Exec(ctx, `DROP INDEX `+n); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []struct {
		q    string
		args []any
	}{
		{q: `SET session_replication_role = replica`},
		{q: `CREATE TEMP TABLE fill_workspaces AS
		   SELECT n, CASE WHEN n = 0 THEN $1::uuid ELSE md5('fill-workspace-' || n)::uuid END AS id FROM generate_series(0, 200) n`, args: []any{ws}},
		{q: `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at, settled_at)
		 SELECT w.id, 'cp_fill' || (g / 400 % 500), g, 1 + g % 3, '<fill-' || g || '@fill.example>',
		        'rep' || (g % 20) || '@fill' || w.n || '.example', 'lead' || g || '@company' || (g % 20000) || '.example',
		        s.status, c.at, c.at + interval '1 second'
		   FROM generate_series(1, $1::int) g
		   JOIN fill_workspaces w ON w.n = CASE WHEN g % 10 = 0 THEN 0 ELSE 1 + g % 200 END
		   CROSS JOIN LATERAL (SELECT CASE WHEN g % 97 = 0 THEN 'failed' ELSE 'sent' END AS status) s
		   CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (g::float8 * 7776000 / $1)) AS at) c`, args: []any{sends}},
		{q: `INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step,
		                           matched_by, classification, rule, bounce, excerpt)
		 SELECT m.workspace_id, m.mailbox, '<fill-reply-' || r || '@fill.example>', m.recipient, 'Re: hello',
		        m.claimed_at + interval '2 hours', m.campaign_id, m.lead_id, m.step, 'thread',
		        k.class, 'fill', CASE WHEN k.class = 'bounce' THEN 'hard' END, 'Thanks, not now.'
		   FROM generate_series(1, $2::int) r
		   CROSS JOIN LATERAL (SELECT (ARRAY['interested', 'not_now', 'not_interested', 'out_of_office', 'auto_reply', 'other',
		                                     'interested', 'not_now', 'other', 'other', 'bounce', 'bounce', 'unsubscribe', 'complaint',
		                                     'referral', 'objection', 'wrong_person', 'left_company', 'other', 'other'])[1 + r % 20] AS class) k
		   JOIN mail_sends m ON m.message_id = '<fill-' || (r * ($1::int / $2::int)) || '@fill.example>'`, args: []any{sends, replies}},
		{q: `RESET session_replication_role`},
		{q: `SET maintenance_work_mem = '256MB'`},
		{q: `DROP TABLE fill_workspaces`},
		{q: strings.Join(defs, "; ")},
		{q: `RESET maintenance_work_mem`},
		{q: `ANALYZE mail_sends`},
		{q: `ANALYZE mail_replies`},
	} {
		if _, err := conn.Exec(ctx, st.q, st.args...); err != nil {
			t.Fatalf("fill the ledger: %v\n%s", err, st.q)
		}
	}
	took := time.Since(start)
	t.Logf("filled the ledger with %d sends and %d replies in %s", sends, replies, took.Round(time.Millisecond))
	return took
}
