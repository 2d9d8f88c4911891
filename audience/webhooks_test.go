package audience_test

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/audience"
	"vibesell/mail"
	"vibesell/store/storetest"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// An address suppressed for an unsubscribe or a hard bounce is the
// workspace's lead.unsubscribed or lead.bounced event, naming its lead,
// once: suppressing it again, or for a complaint, is no event.
func TestMailSuppressionsEmitWebhookEvents(t *testing.T) {
	pool := storetest.New(t)
	ctx := t.Context()
	ws, err := workspace.Create(ctx, pool, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	var sam int64
	if err := pool.QueryRow(ctx, `INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at)
		VALUES ($1, 'sam@acme-corp.example', 'Sam', 'Okafor', 'CTO', 'Acme Corp', 'acme-corp.example', 'US', 'America/New_York', 'ap_0000000000000000', now()) RETURNING id`, ws.ID).Scan(&sam); err != nil {
		t.Fatal(err)
	}
	secret, err := mail.NewSecret([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	hooks := webhooks.New(webhooks.Deps{DB: pool, Secret: secret, Logger: slog.New(slog.DiscardHandler)})
	svc := audience.New(audience.Deps{DB: pool, Clock: vibesell.SystemClock{}, Webhooks: hooks})
	list := svc.MailSuppressions()
	for _, s := range []struct{ address, reason string }{
		{"Sam@Acme-Corp.example", "unsubscribed"},
		{"sam@acme-corp.example", "unsubscribed"},
		{"ghost@bolt.example", "hard_bounce"},
		{"angry@corvid.example", "complaint"},
	} {
		if err := list.Suppress(ctx, ws.ID, s.address, s.reason); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT type, body->'data'->'lead'->>'email', coalesce(body->'data'->'lead'->>'id', ''), coalesce(body->'data'->'lead'->>'company', '')
		FROM webhook_events WHERE workspace_id = $1 ORDER BY id`, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := [][4]string{
		{"lead.unsubscribed", "sam@acme-corp.example", strconv.FormatInt(sam, 10), "Acme Corp"},
		{"lead.bounced", "ghost@bolt.example", "", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("webhook events (type, email, lead id, company) mismatch (-want +got):\n%s", d)
	}
}
