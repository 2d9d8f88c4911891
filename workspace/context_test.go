package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// contextTables are the tables get_workspace_context reads (the workspace
// snapshot and the sending setup's rows): a write to any of them must move
// the workspace's context stamp, or a kept context would be shown stale.
var contextTables = []string{
	"workspaces", "offers", "playbooks", "memories", "support_tickets",
	"sending_setups", "sending_sizings", "sending_domains", "sending_dns_records", "sending_mailboxes",
	"approvals", "approval_policies",
	"audience_targets", "lead_imports",
	"billing_accounts",
	"sequence_versions", "campaigns",
	"workspace_senders",
	// the replies waiting for an answer, and the answers proposed
	"mail_replies", "mail_answers",
}

// notContextTables hold a workspace's rows that get_workspace_context does
// not show. A new table with a workspace_id must be put in one list or the
// other (TestEveryWorkspaceTableIsClassified).
var notContextTables = []string{
	"api_tokens", "installation", "mcp_sessions", "choice_cards", "approval_events", "users", "web_sessions", "oauth_grants",
	"workspace_context_stamps", // the stamps themselves
	// the sending engine's keys and ledger: the context shows none of
	// them yet (an answer sent ends its approval, which moves the stamp)
	"mail_dkim_keys", "mail_sends", "mail_poll_marks", "mail_mailboxes", "mail_campaign_health",
	"memberships",
	// The context counts leads from lead_imports (see audience.ContextRows):
	// an import batch of a thousand leads moves the stamp once, through its
	// import's row.
	"leads", "suppressions", "lead_uploads", "lead_upload_rows",
	// A campaign's leads are written only with its campaigns row, which
	// moves the stamp.
	"campaign_leads",
	"billing_checkouts", "stripe_events", "billing_usage",
	// Decision tokens, the approval policies (read when deciding; the
	// context names where to decide without them) and the reminders sent.
	"decision_tokens", "approval_reminders",
	// an approval's votes (each also counts on its approvals row, which
	// moves the stamp), the steps of its escalation, and the people away
	// and their delegates: the context names none of them
	"approval_votes", "approval_escalations", "approval_delegations",
	// the sandbox mail server's outbox: the web app shows it, the context does not
	"mail_outbox",
	// VibeSell's own emails to a workspace's people, by Message-ID, for the outbox
	"mail_notices",
	// connected mailboxes: the sending setup lists them, the context does not
	"mail_connected_mailboxes",
	// a correction's record: the correction itself rewrites the reply's
	// classification in mail_replies, which moves the stamp
	"mail_reply_corrections",
	// webhooks: the web app shows the endpoints and their log, the context
	// does not
	"webhook_endpoints", "webhook_events", "webhook_deliveries",
	// what each approval showed (its versions) and the audit chain: the
	// web app shows them, the context does not
	"approval_shown", "audit_events", "audit_heads",
}

func stampOf(t *testing.T, pool *pgxpool.Pool, ws uuid.UUID) int64 {
	t.Helper()
	var stamp int64
	err := pool.QueryRow(context.Background(),
		`SELECT coalesce((SELECT stamp FROM workspace_context_stamps WHERE workspace_id = $1), 0)`, ws).Scan(&stamp)
	if err != nil {
		t.Fatal(err)
	}
	return stamp
}

// Each table of the context moves the stamp of the workspace written to,
// on insert, update and delete, and not the stamp of another workspace; a
// transaction that writes many rows moves it once.
func TestEveryContextTableMovesTheStamp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pool, a, b := e.pool, e.a, e.b
	if stampOf(t, pool, a.ID) == 0 {
		t.Fatal("creating a workspace did not move its stamp")
	}

	// Per table: a row of workspace $1 (inserted), a change to it, its
	// deletion. Rows other tables need come first, the way the writes of
	// the product make them.
	writes := []struct {
		table                  string
		insert, update, delete string
	}{
		{"workspaces", ``, `UPDATE workspaces SET name = 'Acme Corp' WHERE id = $1`, ``},
		{"offers",
			`INSERT INTO offers (workspace_id, company_name, product, audience, value, call_to_action) VALUES ($1, 'Acme', 'p', 'a', 'v', 'c')`,
			`UPDATE offers SET product = 'q' WHERE workspace_id = $1`, `DELETE FROM offers WHERE workspace_id = $1`},
		{"playbooks",
			`INSERT INTO playbooks (workspace_id, tone) VALUES ($1, 'plain')`,
			`UPDATE playbooks SET tone = 'warm' WHERE workspace_id = $1`, `DELETE FROM playbooks WHERE workspace_id = $1`},
		{"memories",
			`INSERT INTO memories (workspace_id, id, about, fact) VALUES ($1, gen_random_uuid(), 'person', 'Sam')`,
			`UPDATE memories SET fact = 'Samantha' WHERE workspace_id = $1`, `DELETE FROM memories WHERE workspace_id = $1`},
		{"support_tickets",
			`INSERT INTO support_tickets (workspace_id, id, topic, message) VALUES ($1, gen_random_uuid(), 'billing', 'help')`,
			`UPDATE support_tickets SET status = 'closed' WHERE workspace_id = $1`, `DELETE FROM support_tickets WHERE workspace_id = $1`},
		{"sending_setups",
			`INSERT INTO sending_setups (workspace_id) VALUES ($1)`,
			`UPDATE sending_setups SET source = 'own_names', source_chosen_at = now() WHERE workspace_id = $1`, ``},
		{"sending_sizings",
			`INSERT INTO sending_sizings (workspace_id, source, daily_volume, emails_per_mailbox, mailboxes_per_domain, mailboxes, domains, currency, monthly_cents, yearly_cents, ready_on, full_volume_on, confirmed_at)
			 VALUES ($1, 'own_names', 90, 30, 3, 3, 1, 'USD', 0, 0, current_date, current_date, now())`,
			`UPDATE sending_sizings SET daily_volume = 60 WHERE workspace_id = $1`, `DELETE FROM sending_sizings WHERE workspace_id = $1`},
		{"sending_domains",
			`INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at) VALUES ($1, 'getacme.com', 'new', 'chosen', 'USD', 1200, 300, 'card', now())`,
			`UPDATE sending_domains SET position = 1 WHERE workspace_id = $1`, ``},
		{"sending_dns_records",
			`INSERT INTO sending_dns_records (workspace_id, domain, type, host, value) VALUES ($1, 'getacme.com', 'MX', '@', 'mx.example.com')`,
			`UPDATE sending_dns_records SET value = 'mx2.example.com' WHERE workspace_id = $1`, `DELETE FROM sending_dns_records WHERE workspace_id = $1`},
		{"sending_mailboxes",
			`INSERT INTO sending_mailboxes (workspace_id, address, domain, status, prewarmed, currency, monthly_cents, card, planned_at) VALUES ($1, 'sam@getacme.com', 'getacme.com', 'planned', false, 'USD', 300, 'card', now())`,
			`UPDATE sending_mailboxes SET sender_name = 'Sam' WHERE workspace_id = $1`, `DELETE FROM sending_mailboxes WHERE workspace_id = $1`},
		{"approvals",
			`INSERT INTO approvals (workspace_id, id, action, arguments, arguments_hash, summary, impact, irreversible, decide_here, created_at, expires_at)
			 VALUES ($1, 'ap_00000000000000a1', 'order_sending_setup', '{}', '\x00', 'Order', '{}', false, false, now(), now() + interval '1 day')`,
			`UPDATE approvals SET summary = 'Order again' WHERE workspace_id = $1`, `DELETE FROM approvals WHERE workspace_id = $1`},
		{"approval_policies",
			`INSERT INTO approval_policies (workspace_id, action, set_by, set_at) VALUES ($1, 'launch_campaign', 'ada@acme.test', now())`,
			`UPDATE approval_policies SET set_by = 'sam@acme.test' WHERE workspace_id = $1`, `DELETE FROM approval_policies WHERE workspace_id = $1`},
		{"audience_targets",
			`INSERT INTO audience_targets (workspace_id, who, problem, described_at) VALUES ($1, 'Heads of sales', 'lists by hand', now())`,
			`UPDATE audience_targets SET filters = '{}', filters_version = 1 WHERE workspace_id = $1`, `DELETE FROM audience_targets WHERE workspace_id = $1`},
		{"lead_imports",
			`INSERT INTO lead_imports (workspace_id, approval_id, requested, sample, started_at) VALUES ($1, 'ap_0123456789abcdef', 10, true, now())`,
			`UPDATE lead_imports SET imported = 10, finished_at = now() WHERE workspace_id = $1`, `DELETE FROM lead_imports WHERE workspace_id = $1`},
		{"billing_accounts",
			`INSERT INTO billing_accounts (workspace_id) VALUES ($1)`,
			`UPDATE billing_accounts SET payment_failed_at = now() WHERE workspace_id = $1`, `DELETE FROM billing_accounts WHERE workspace_id = $1`},
		{"sequence_versions",
			`INSERT INTO sequence_versions (workspace_id, sequence_id, version, name, steps, created_at) VALUES ($1, 'sq_00000000000000a1', 1, 'Intro', '[]', now())`,
			`UPDATE sequence_versions SET approved_at = now(), approved_by = 'ada' WHERE workspace_id = $1`, ``},
		{"campaigns",
			`INSERT INTO campaigns (workspace_id, id, name, sequence_id, sequence_version, mailboxes, window_start, window_end, days, daily_cap, stop_for_company, status, created_at)
			 VALUES ($1, 'cp_00000000000000a1', 'Heads of sales', 'sq_00000000000000a1', 1, '{sam@getacme.com}', 540, 1020, '{1,2,3,4,5}', 20, false, 'staged', now())`,
			`UPDATE campaigns SET status = 'scheduled', launched_at = now(), first_send_at = now() WHERE workspace_id = $1`, `DELETE FROM campaigns WHERE workspace_id = $1`},
		{"workspace_senders",
			`INSERT INTO workspace_senders (workspace_id, time_zone, updated_at) VALUES ($1, 'Europe/Paris', now())`,
			`UPDATE workspace_senders SET time_zone = 'America/Los_Angeles' WHERE workspace_id = $1`, `DELETE FROM workspace_senders WHERE workspace_id = $1`},
		{"mail_replies",
			`INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step, matched_by, classification, rule, excerpt)
			 VALUES ($1, 'sam@getacme.com', '<r1@example.test>', 'ana@alpha.test', 'Re: Hi', now(), 'cp_00000000000000a1', 1, 1, 'thread', 'interested', 'a rule', 'Yes')`,
			`UPDATE mail_replies SET classification = 'other' WHERE workspace_id = $1`, ``},
		{"mail_answers",
			`INSERT INTO mail_answers (workspace_id, approval_id, reply_mailbox, reply_message_id, reply_received_at, campaign_id, lead_id, mailbox, recipient, subject, body, in_reply_to, "references", created_at)
			 VALUES ($1, 'ap_00000000000000b1', 'sam@getacme.com', '<r1@example.test>', now(), 'cp_00000000000000a1', 1, 'sam@getacme.com', 'ana@alpha.test', 'Re: Hi', 'Thursday', '<r1@example.test>', '{<r1@example.test>}', now())`,
			`UPDATE mail_answers SET body = 'Friday' WHERE workspace_id = $1`, `DELETE FROM mail_answers WHERE workspace_id = $1`},
	}
	covered := []string{}
	for _, w := range writes {
		covered = append(covered, w.table)
		t.Run(w.table, func(t *testing.T) {
			for _, sql := range []string{w.insert, w.update, w.delete} {
				if sql == "" {
					continue
				}
				before, other := stampOf(t, pool, a.ID), stampOf(t, pool, b.ID)
				if _, err := pool.Exec(ctx, sql, a.ID); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				if after := stampOf(t, pool, a.ID); after == before {
					t.Errorf("%s: the stamp did not move", sql)
				}
				if stampOf(t, pool, b.ID) != other {
					t.Errorf("%s: another workspace's stamp moved", sql)
				}
			}
		})
	}
	if !slices.Equal(covered, contextTables) {
		t.Fatalf("the test writes to %v, the context reads %v", covered, contextTables)
	}

	// Many rows of two workspaces in one transaction: one move each; and
	// the next transaction moves them again.
	for range 2 {
		before, other := stampOf(t, pool, a.ID), stampOf(t, pool, b.ID)
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			for _, ws := range []uuid.UUID{a.ID, b.ID, a.ID, b.ID, a.ID} {
				if _, err := tx.Exec(ctx, `INSERT INTO memories (workspace_id, id, about, fact) VALUES ($1, gen_random_uuid(), 'company', 'x')`, ws); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, `UPDATE playbooks SET tone = 'brisk' WHERE workspace_id = $1`, a.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if after := stampOf(t, pool, a.ID); after != before+1 {
			t.Fatalf("a transaction of four writes moved the stamp from %d to %d, want one move", before, after)
		}
		if after := stampOf(t, pool, b.ID); after != other+1 {
			t.Fatalf("a transaction of two writes moved the other workspace's stamp from %d to %d, want one move", other, after)
		}
	}

	// A rolled-back write moves nothing.
	before := stampOf(t, pool, a.ID)
	rollback := errors.New("roll back")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE playbooks SET tone = 'loud' WHERE workspace_id = $1`, a.ID); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if after := stampOf(t, pool, a.ID); after != before {
		t.Fatalf("a rolled-back write moved the stamp from %d to %d", before, after)
	}
}

// Every table holding a workspace's rows is either read by the context
// (and carries the trigger that moves the stamp) or listed as not read.
func TestEveryWorkspaceTableIsClassified(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	rows, err := pool.Query(context.Background(), `
		SELECT c.table_name, EXISTS (
		           SELECT 1 FROM pg_trigger g
		           WHERE g.tgrelid = format('%I', c.table_name)::regclass AND g.tgname = 'touch_workspace_context')
		FROM information_schema.columns c
		WHERE c.table_schema = 'public' AND (c.column_name = 'workspace_id' OR (c.table_name = 'workspaces' AND c.column_name = 'id'))
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type table struct {
		Name    string
		Trigger bool
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[table])
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		inContext, notInContext := slices.Contains(contextTables, tb.Name), slices.Contains(notContextTables, tb.Name)
		switch {
		case inContext && !tb.Trigger:
			t.Errorf("%s feeds the workspace context but has no touch_workspace_context trigger: a kept context would go stale", tb.Name)
		case notInContext && tb.Trigger:
			t.Errorf("%s is listed as not in the context but moves the stamp", tb.Name)
		case !inContext && !notInContext:
			t.Errorf("%s holds workspace rows: add it to contextTables (and attach the trigger, see migration 00030) or to notContextTables", tb.Name)
		}
	}
}

// countingRead reads the workspace's offer, counting its reads.
func countingRead(reads *atomic.Int32) workspace.ContextRead[*workspace.Offer] {
	return func(b *pgx.Batch, ws uuid.UUID) func() (*workspace.Offer, error) {
		reads.Add(1)
		snapshot := workspace.QueueSnapshot(b, ws)
		return func() (*workspace.Offer, error) {
			snap, err := snapshot()
			return snap.Offer, err
		}
	}
}

// savedOffers compares an offer with the one saved, whenever it was saved
// (the cache tests' replicas use the system clock), lists not given read
// back empty.
var savedOffers = cmp.Options{cmpopts.IgnoreFields(workspace.Offer{}, "UpdatedAt"), cmpopts.EquateEmpty()}

// The cache answers from what it kept while nothing changed, and reads
// again after any write, including one made through another replica's
// service on the same database.
func TestContextCacheServesWhatTheDatabaseHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	replicaA, replicaB := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}), workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	ws, err := replicaA.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	cache := workspace.NewContextCache(replicaA, 8, countingRead(&reads))

	// read reads through the cache and checks it took roundTrips to the
	// database: one when nothing is kept (the stamp and the rows in one
	// batch) or when the kept context still holds (the stamp alone), two
	// when the stamp has moved.
	read := func(roundTrips int64) *workspace.Offer {
		t.Helper()
		before := trips.Count()
		o, err := cache.Read(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := trips.Count() - before; n != roundTrips {
			t.Fatalf("the read took %d round trips, want %d", n, roundTrips)
		}
		return o
	}
	if o := read(1); o != nil {
		t.Fatalf("no offer saved yet, read one for %q", o.Product)
	}
	if o := read(1); o != nil || reads.Load() != 1 {
		t.Fatalf("nothing changed: want the kept context, without an offer, after 1 read; got an offer %v after %d reads", o != nil, reads.Load())
	}

	offer := workspace.Offer{CompanyName: "Acme", Product: "Attribution", Audience: "CMOs", Value: "Know what pays", CallToAction: "A call"}
	if _, err := replicaB.SaveOffer(ctx, ws.ID, offer); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&offer, read(2), savedOffers); diff != "" {
		t.Fatalf("after another replica saved the offer mismatch (-want +got):\n%s", diff)
	}
	if reads.Load() != 2 {
		t.Fatalf("after another replica saved the offer: %d reads, want 2", reads.Load())
	}
	if diff := cmp.Diff(&offer, read(1), savedOffers); diff != "" {
		t.Fatalf("nothing changed since mismatch (-want +got):\n%s", diff)
	}
	if reads.Load() != 2 {
		t.Fatalf("nothing changed since: %d reads, want the kept context after 2", reads.Load())
	}

	// A write the context does not show (a token) keeps what is kept.
	if _, err := pool.Exec(ctx, `INSERT INTO api_tokens (workspace_id, id, token_hash) VALUES ($1, gen_random_uuid(), 'x')`, ws.ID); err != nil {
		t.Fatal(err)
	}
	read(1)
	if reads.Load() != 2 {
		t.Fatalf("a write outside the context made it read again (%d reads)", reads.Load())
	}

	offer.Product = "Attribution 2"
	if _, err := replicaB.SaveOffer(ctx, ws.ID, offer); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&offer, read(2), savedOffers); diff != "" {
		t.Fatalf("after the offer changed mismatch (-want +got):\n%s", diff)
	}
}

// A refusal is returned and nothing is kept; a cache of size 0 reads
// every time.
func TestContextCacheRefusalsAndNoCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	svc := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})

	var reads atomic.Int32
	cache := workspace.NewContextCache(svc, 8, countingRead(&reads))
	missing := uuid.New()
	for range 2 {
		if _, err := cache.Read(ctx, missing); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			t.Fatalf("missing workspace: %v", err)
		}
	}
	if reads.Load() != 2 {
		t.Fatalf("a refusal was kept: %d reads for 2 calls", reads.Load())
	}

	ws, err := svc.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	reads.Store(0)
	none := workspace.NewContextCache(svc, 0, countingRead(&reads))
	for range 3 {
		if _, err := none.Read(ctx, ws.ID); err != nil {
			t.Fatal(err)
		}
	}
	if reads.Load() != 3 {
		t.Fatalf("a cache of size 0 read %d times for 3 calls", reads.Load())
	}
}

// Reads racing writes never end up keeping an old context: once the
// writes are done, the next read shows the last one.
func TestContextCacheUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	svc, ws := e.svc, e.a
	var reads atomic.Int32
	cache := workspace.NewContextCache(svc, 8, countingRead(&reads))

	const writes = 20
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := cache.Read(ctx, ws.ID); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	offer := workspace.Offer{CompanyName: "Acme", Product: "p", Audience: "a", Value: "v", CallToAction: "c"}
	for i := range writes {
		offer.Product = fmt.Sprintf("Product %d", i)
		if _, err := svc.SaveOffer(ctx, ws.ID, offer); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	readers.Wait()
	got, err := cache.Read(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	// offer is the last one written.
	if diff := cmp.Diff(&offer, got, savedOffers); diff != "" {
		t.Fatalf("after the writes mismatch (-want +got):\n%s", diff)
	}
}

// With notifications, a kept context is served without reading even the
// stamp, and a write through another replica is seen within a second; a
// lost notification connection goes back to reading the stamp.
func TestContextCacheWithNotifications(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	replicaA := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}, Notes: storetest.StartNotifications(t, pool)})
	replicaB := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	ws, err := replicaA.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	cache := workspace.NewContextCache(replicaA, 8, countingRead(&reads))
	readTrips := func() (*workspace.Offer, int64) {
		t.Helper()
		before := trips.Count()
		o, err := cache.Read(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		return o, trips.Count() - before
	}
	// The workspace's creation is notified too, maybe during the first
	// read, which then keeps its context unconfirmed: a later read
	// confirms it with the stamp, and from then on none reads.
	storetest.WaitFor(t, "a kept context to cost no round trip", func() bool {
		_, n := readTrips()
		return n == 0
	})
	offer := workspace.Offer{CompanyName: "Acme", Product: "Attribution", Audience: "CMOs", Value: "Know what pays", CallToAction: "A call"}
	if _, err := replicaB.SaveOffer(ctx, ws.ID, offer); err != nil {
		t.Fatal(err)
	}
	storetest.WaitFor(t, "the write to be seen", func() bool {
		o, _ := readTrips()
		return o != nil && o.Product == "Attribution"
	})

	storetest.DropListeners(t, pool)
	offer.Product = "Attribution 2"
	if _, err := replicaB.SaveOffer(ctx, ws.ID, offer); err != nil {
		t.Fatal(err)
	}
	storetest.WaitFor(t, "the write made while notifications were lost to be seen", func() bool {
		o, _ := readTrips()
		return o.Product == "Attribution 2"
	})
}

// A replica's own write is read back at once, even when its notification
// has not reached the replica yet: the call that wrote says so
// ([workspace.Service.Wrote]), and the next read checks the stamp instead
// of trusting the notifications (CI saw a save_offer then
// get_workspace_context on one server answer the context before it).
func TestContextCacheReadsItsOwnWriteBeforeItsNotification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, trips := storetest.NewCounted(t)
	notes := storetest.StartNotifications(t, pool)
	// Subscribed before the cache, so while it holds the listener the
	// cache hears nothing.
	var hold atomic.Bool
	release := make(chan struct{})
	notes.Subscribe(store.ContextChannel, func(string) {
		if hold.Load() {
			<-release
		}
	}, func() {})
	t.Cleanup(func() { close(release) })
	replica := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}, Notes: notes})
	ws, err := replica.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	cache := workspace.NewContextCache(replica, 8, countingRead(&reads))
	storetest.WaitFor(t, "the context to be kept on the word of the notifications", func() bool {
		before := trips.Count()
		if _, err := cache.Read(ctx, ws.ID); err != nil {
			t.Fatal(err)
		}
		return trips.Count() == before
	})

	hold.Store(true)
	offer := workspace.Offer{CompanyName: "Acme", Product: "Attribution", Audience: "CMOs", Value: "Know what pays", CallToAction: "A call"}
	if _, err := replica.SaveOffer(ctx, ws.ID, offer); err != nil {
		t.Fatal(err)
	}
	replica.Wrote(ws.ID)
	o, err := cache.Read(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if o == nil || o.Product != "Attribution" {
		t.Fatalf("the context read right after this replica's own write is %+v, want the offer it saved", o)
	}
}
