package delivery_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/delivery/deliverytest"
	"vibesell/store/storetest"
)

// The engine's hot queries keep their index plans on a busy
// installation's ledger: the claim, the mark and the settle, what a tick
// reads to work out the due steps (the ledgers, the replies, the day's
// sends, the health), the campaign's metrics, and the sweeps of lost and
// stale steps. The test runs them for real on a ledger filled to
// deliverytest.LedgerSize (CI's size by default; the README's command
// fills 10,000,000 sends and 1,000,000 replies) and explains every
// statement they ran, with its arguments: none may read the ledger or the
// replies with a sequential scan.
func TestHotQueriesKeepIndexPlans(t *testing.T) {
	rec := &storetest.Statements{}
	b := engineSetup(t, engineOptions{noGap: true, tracer: rec})
	var leads []vibesell.Lead
	for i := range 6 {
		leads = append(leads, vibesell.Lead{Email: fmt.Sprintf("lead%d@prospect%d.test", i, i), FirstName: "Pat", Company: fmt.Sprintf("Prospect %d", i)})
	}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 20})
	sends, replies := deliverytest.LedgerSize(t)
	deliverytest.FillLedger(t, b.Pool, b.ws, sends, replies)
	rec.Take()

	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != len(leads) {
		t.Fatalf("the tick sent %d, want every lead's first email (%d)", res.Sent, len(leads))
	}
	b.Clock.Set(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	b.tick(t) // the second steps: the ledger read back
	c := b.campaign(t, id)
	if _, err := b.Campaigns.MetricsOf(b.ctx, b.ws, c.Campaign, c.Sequence); err != nil {
		t.Fatal(err)
	}
	if _, err := b.sender.SettleLost(b.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.sender.ReleaseStale(b.ctx); err != nil {
		t.Fatal(err)
	}

	ran := rec.Take()
	claims := 0
	for _, st := range ran {
		if strings.Contains(st.SQL, "INSERT INTO mail_sends") {
			claims++
		}
	}
	n := storetest.Explained(ran, "mail_sends", "mail_replies")
	t.Logf("explained %d statements over the ledger and the replies (%d sends, %d replies)", n, sends, replies)
	if claims == 0 || n < 8 {
		t.Fatalf("the engine ran %d claims and %d statements over the ledger: the test no longer sees its hot queries", claims, n)
	}
	for _, s := range storetest.SeqScans(t, b.Pool, ran, "mail_sends", "mail_replies") {
		t.Error(s)
	}
}
