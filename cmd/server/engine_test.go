package main

import (
	"context"
	"testing"
	"time"

	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// A launched campaign from warm sandbox mailboxes is sent by the server
// itself: its job ticks the engine, which submits to the in-process
// sandbox mail server and records each send, one lead per mailbox (the
// next email from a mailbox waits its gap of minutes), and finishes the
// campaign once every lead has had its step.
func TestServeSendsALaunchedCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the server until its engine has sent")
	}
	t.Parallel()
	url := storetest.NewURL(t)
	ctx := context.Background()
	db, err := store.Connect(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, err := workspace.Create(ctx, db, "Acme Sales")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, sql := range []string{
		`INSERT INTO workspace_senders (workspace_id, postal_address, sender_name, time_zone, updated_at) VALUES ($1, 'Acme Sales, 1 Market St, San Francisco', 'Sam Lee', 'UTC', $2)`,
		`INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at, provider, ordered_at, ready_at)
		 VALUES ($1, 'getacme.test', 'new', 'ordered', 'USD', 1500, 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days')`,
		`INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, provider, ordered_at, ready_at, warmup_started_at)
		 SELECT $1, a, 'getacme.test', 'Sam Lee', 'warming', false, 'USD', 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days', $2::timestamptz - interval '59 days'
		   FROM unnest('{sam@getacme.test,kai@getacme.test}'::text[]) AS a`,
		`INSERT INTO sequence_versions (workspace_id, sequence_id, version, name, steps, created_at, approved_at, approved_by)
		 VALUES ($1, 'sq_00000000000000a1', 1, 'Lists', '[{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nA short question.\n\nSam", "waitBusinessDays": 0, "sameThread": false}]', $2, $2, 'ada')`,
		`INSERT INTO campaigns (workspace_id, id, name, sequence_id, sequence_version, mailboxes, window_start, window_end, days, daily_cap, stop_for_company, status, created_at, launched_at, first_send_at)
		 VALUES ($1, 'cp_00000000000000a1', 'Heads of sales', 'sq_00000000000000a1', 1, '{sam@getacme.test,kai@getacme.test}', 0, 1440, '{1,2,3,4,5,6,7}', 10, false, 'scheduled', $2, $2, $2::timestamptz - interval '1 minute')`,
		`INSERT INTO campaign_leads (workspace_id, campaign_id, lead_id, email, fields, time_zone)
		 SELECT $1, 'cp_00000000000000a1', n, e, f::jsonb, '' FROM (VALUES (1, 'ana@alpha.test', '{"first_name": "Ana", "company": "Alpha"}', $2::timestamptz),
		        (2, 'ben@beta.test', '{"first_name": "Ben", "company": "Beta"}', $2::timestamptz)) AS v (n, e, f, at)`,
	} {
		if _, err := db.Exec(ctx, sql, ws.ID, now); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	s := startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "warn", "MAIL_SECRET_KEY", "6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b")
	s.waitReady(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var sent, mailboxes int
		var status string
		err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM mail_sends WHERE workspace_id = $1 AND status = 'sent'),
			(SELECT count(DISTINCT mailbox) FROM mail_sends WHERE workspace_id = $1),
			(SELECT status FROM campaigns WHERE workspace_id = $1)`, ws.ID).Scan(&sent, &mailboxes, &status)
		if err != nil {
			t.Fatal(err)
		}
		if sent == 2 && mailboxes == 2 && status == "finished" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 seconds: %d sent, campaign %s\n%s", sent, status, s.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
