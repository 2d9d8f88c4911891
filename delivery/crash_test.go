package delivery_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/store"
)

// batch is what the worker process is told to send: step 1 of a campaign
// to each lead, over one SMTP session, as a sending job works its batch.
type batch struct {
	DatabaseURL string
	Workspace   uuid.UUID
	Campaign    string
	Leads       []int64
	Emails      []string
	SMTPAddr    string
	Username    string
	Password    string
	CertPEM     []byte
	Now         time.Time
}

const batchEnv = "VIBESELL_MAIL_TEST_BATCH"

// TestWorkerProcess is the sending worker the crash test runs, and kills,
// in a process of its own. It does nothing in an ordinary test run.
func TestWorkerProcess(t *testing.T) {
	spec := os.Getenv(batchEnv)
	if spec == "" {
		t.Skip("run by TestAWorkerKilledMidBatch")
	}
	var job batch
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.Connect(ctx, job.DatabaseURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := mail.NewSecret(deliverytest.SecretKey)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(job.CertPEM)
	mailbox := mail.Account{
		Address: mail.Address{Name: "Dana Reyes", Email: job.Username},
		SMTP:    mail.Endpoint{Addr: job.SMTPAddr, Username: job.Username, Password: job.Password, RootCAs: roots},
	}
	clock := vibesell.NewManualClock(job.Now)
	sender := delivery.NewDispatcher(delivery.DispatcherDeps{DB: db, Keys: mail.NewKeys(mail.KeysDeps{DB: db, Secret: secret, Clock: clock}), Suppressor: deliverytest.ExistingSuppressor(db), Clock: clock})
	var outs []delivery.Outgoing
	for i, lead := range job.Leads {
		outs = append(outs, delivery.Outgoing{
			Step:    delivery.Step{WorkspaceID: job.Workspace, CampaignID: job.Campaign, LeadID: lead, Step: 1},
			Mailbox: mailbox,
			Message: mail.Message{
				To:             mail.Address{Email: job.Emails[i]},
				Subject:        "Quick question",
				Body:           "Hi,\n\nA short question.\n\nDana",
				UnsubscribeURL: secret.UnsubscribeURL("https://vibesell.example.com", job.Workspace, job.Emails[i]),
				PostalAddress:  "Acme Sales, 1 Market St, San Francisco, CA 94105",
			},
		})
	}
	if _, err := sender.SendBatch(ctx, outs); err != nil {
		t.Fatal(err)
	}
}

// A worker is killed while the server accepts the third message of its
// batch (after DATA, before the ledger write), once the steps after it
// that it may mark ahead are marked. The batch is then run again by a new
// worker, as River retries the job, and again once the dead worker's
// claims are released. No lead gets two emails; those marked ahead and
// never handed over get none.
func TestAWorkerKilledMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a worker process")
	}
	b := deliverytest.Setup(t)
	if _, err := b.Keys.Record(b.Ctx, b.Workspace, "getacme.com"); err != nil {
		t.Fatal(err)
	}
	job := batch{
		DatabaseURL: b.DBURL, Workspace: b.Workspace, Campaign: deliverytest.NewCampaignID(),
		SMTPAddr: b.Mailbox.SMTP.Addr, Username: b.Mailbox.SMTP.Username, Password: b.Mailbox.SMTP.Password,
		CertPEM: b.Sandbox.CertificatePEM(), Now: b.Clock.Now(),
	}
	// Three sent (the third killed in DATA), [delivery.MarkAhead]-1 marked
	// ahead of it, two claimed and not begun.
	lost := delivery.MarkAhead - 1
	for i := range 3 + lost + 2 {
		job.Leads = append(job.Leads, deliverytest.NewLeadID())
		job.Emails = append(job.Emails, fmt.Sprintf("lead%d@prospect.example", i+1))
	}
	spec, _ := json.Marshal(job)

	worker := exec.Command(os.Args[0], "-test.run", "^TestWorkerProcess$", "-test.count=1")
	worker.Env = append(os.Environ(), batchEnv+"="+string(spec))
	var process atomic.Pointer[os.Process]
	var waitErr error
	exited := make(chan struct{})
	kill := func(a sandboxmail.Accepted) {
		if len(b.Sandbox.Accepted()) != 3 {
			return
		}
		// Killed and gone before the server answers the end of DATA, once
		// the steps it may mark ahead of this one are marked.
		for range 1000 {
			var sending int
			if err := b.DB.QueryRow(b.Ctx, `SELECT count(*) FROM mail_sends WHERE status = 'sending'`).Scan(&sending); err != nil || sending == 3+lost {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		process.Load().Kill()
		<-exited
	}
	b.OnAccept.Store(&kill)
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	process.Store(worker.Process)
	go func() { waitErr = worker.Wait(); close(exited) }()

	select {
	case <-exited:
	case <-time.After(2 * time.Minute):
		worker.Process.Kill()
		t.Fatalf("the worker neither finished nor was killed; %d accepted", len(b.Sandbox.Accepted()))
	}
	b.OnAccept.Store(nil)
	if waitErr == nil {
		t.Fatal("the worker finished its batch: it was never killed")
	}

	// The retry: a fresh worker runs the same batch at once. The steps
	// marked sending (two settled only with their chunk, the third killed
	// in DATA, and those marked ahead of it) are never sent again; the two
	// the dead worker had claimed and not begun wait for their lease to
	// end.
	var outs []delivery.Outgoing
	for i, lead := range job.Leads {
		out := b.Outgoing(job.Campaign, lead, 1)
		out.Message.To = mail.Address{Email: job.Emails[i]}
		outs = append(outs, out)
	}
	statuses := func(results []delivery.SendResult) map[string]string {
		out := map[string]string{}
		for i, res := range results {
			out[job.Emails[i]] = fmt.Sprintf("%s duplicate=%v", res.Status, res.Duplicate)
		}
		return out
	}
	results, err := b.Dispatcher.SendBatch(b.Ctx, outs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, email := range job.Emails {
		want[email] = "sending duplicate=true"
		if i >= 3+lost {
			want[email] = "claimed duplicate=true"
		}
	}
	if diff := cmp.Diff(want, statuses(results)); diff != "" {
		t.Errorf("the retried batch (-want +got):\n%s", diff)
	}

	// Once the lease is over, the claims the dead worker never began are
	// released, and the next run sends them, once.
	b.Clock.Advance(delivery.ClaimLease + time.Minute)
	if n, err := b.Dispatcher.ReleaseStale(b.Ctx); err != nil || n != 2 {
		t.Fatalf("released %d stale claims (%v), want 2", n, err)
	}
	if results, err = b.Dispatcher.SendBatch(b.Ctx, outs); err != nil {
		t.Fatal(err)
	}
	begun, notBegun := job.Emails[:3+lost], job.Emails[3+lost:]
	for _, email := range notBegun {
		want[email] = "sent duplicate=false"
	}
	if diff := cmp.Diff(want, statuses(results)); diff != "" {
		t.Errorf("after the lease (-want +got):\n%s", diff)
	}
	var got []string
	for _, a := range b.Sandbox.Accepted() {
		got = append(got, a.Recipients...)
	}
	sort.Strings(got)
	wantGot := append(slices.Clone(begun[:3]), notBegun...)
	sort.Strings(wantGot)
	if diff := cmp.Diff(wantGot, got); diff != "" {
		t.Errorf("recipients of every accepted message, each once (-want +got):\n%s", diff)
	}

	// What the dead worker left sending is not known to have left: it is
	// never counted as sent or delivered, and once its lease is over it is
	// settled as lost ("not sent (unknown)"), counted as such, and still
	// never sent again.
	tallies := delivery.NewTallies(delivery.TalliesDeps{DB: b.DB})
	count := func(when string, want campaigns.Tally) {
		t.Helper()
		total, _, err := tallies.CampaignTallies(b.Ctx, b.Workspace, job.Campaign, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, total); diff != "" {
			t.Errorf("%s: the campaign's tally (-want +got):\n%s", when, diff)
		}
	}
	count("before the lease", campaigns.Tally{Sent: len(notBegun), Delivered: len(notBegun)})
	if n, err := b.Dispatcher.SettleLost(b.Ctx); err != nil || n != 0 {
		t.Fatalf("settled %d steps as lost within their lease (%v), want none", n, err)
	}
	b.Clock.Advance(delivery.SendingLease)
	if n, err := b.Dispatcher.SettleLost(b.Ctx); err != nil || n != len(begun) {
		t.Fatalf("settled %d steps as lost (%v), want the %d the dead worker marked", n, err, len(begun))
	}
	count("after the lease", campaigns.Tally{Sent: len(notBegun), Delivered: len(notBegun), Lost: len(begun)})
	if results, err = b.Dispatcher.SendBatch(b.Ctx, outs); err != nil {
		t.Fatal(err)
	}
	for _, email := range begun {
		want[email] = "lost duplicate=true"
	}
	for _, email := range notBegun {
		want[email] = "sent duplicate=true"
	}
	if diff := cmp.Diff(want, statuses(results)); diff != "" {
		t.Errorf("the batch run once more (-want +got):\n%s", diff)
	}
	if n := len(b.Sandbox.Accepted()); n != len(wantGot) {
		t.Errorf("%d messages accepted in all, want %d: a lost step was sent again", n, len(wantGot))
	}
}
