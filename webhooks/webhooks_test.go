package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"vibesell"
	"vibesell/mail"
	"vibesell/outbound"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// receiver is a workspace's tool receiving webhooks on 127.0.0.1: it
// verifies each request's signature with the endpoint's secret as the
// README tells, fails each event's first failFirst requests with a 500,
// and counts what it took.
type receiver struct {
	t         *testing.T
	srv       *httptest.Server
	secret    string
	failFirst int

	mu       sync.Mutex
	seen     map[string]int // requests per event id
	accepted map[string]int // 2xx answers per event id
	bad      []string       // requests whose signature did not verify
}

func newReceiver(t *testing.T, failFirst int) *receiver {
	r := &receiver{t: t, failFirst: failFirst, seen: map[string]int{}, accepted: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := webhooks.Verify(r.secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 0); err != nil {
		r.bad = append(r.bad, err.Error())
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID != req.Header.Get(webhooks.EventIDHeader) || ev.Type != req.Header.Get(webhooks.EventTypeHeader) {
		r.bad = append(r.bad, fmt.Sprintf("body %s does not match its headers", body))
	}
	r.seen[ev.ID]++
	if r.seen[ev.ID] <= r.failFirst {
		http.Error(w, "not yet", http.StatusInternalServerError)
		return
	}
	r.accepted[ev.ID]++
	w.WriteHeader(http.StatusNoContent)
}

func loopbackGuard() *outbound.Guard {
	return outbound.New(outbound.Deps{Ports: webhooks.Ports, PerMinute: -1,
		Allow: []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)}})
}

func testSecret(t *testing.T) mail.Secret {
	s, err := mail.NewSecret([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type env struct {
	pool *pgxpool.Pool
	ws   uuid.UUID
}

func setup(t *testing.T) env {
	pool := storetest.New(t)
	ws, err := workspace.Create(t.Context(), pool, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	return env{pool: pool, ws: ws.ID}
}

func emit(t *testing.T, e env, svc *webhooks.Service, events ...webhooks.Event) {
	t.Helper()
	if err := store.InTx(t.Context(), e.pool, func(tx pgx.Tx) error { return svc.Emit(t.Context(), tx, e.ws, events...) }); err != nil {
		t.Fatal(err)
	}
}

// Two replicas (two River clients on one database) work the deliveries
// of twenty events to two endpoints whose receivers fail each event twice:
// each receiver sees every event retried and accepts it exactly once, and
// every request carries a signature that verifies.
func TestDeliveriesRetryAndAreNotDuplicatedAcrossReplicas(t *testing.T) {
	e := setup(t)
	newService := func() *webhooks.Service {
		return webhooks.New(webhooks.Deps{DB: e.pool, Secret: testSecret(t), Guard: loopbackGuard(), Logger: slog.New(slog.DiscardHandler),
			Backoff: func(int) time.Duration { return 20 * time.Millisecond }})
	}
	first, second := newService(), newService()
	receivers := []*receiver{newReceiver(t, 2), newReceiver(t, 2)}
	for _, r := range receivers {
		ep, secret, err := first.Create(t.Context(), e.ws, r.srv.URL+"/hooks")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "whsec_") || ep.ID == "" {
			t.Fatalf("endpoint %+v, secret %q", ep, secret)
		}
		r.secret = secret
	}
	for _, svc := range []*webhooks.Service{first, second} {
		workers := river.NewWorkers()
		webhooks.AddWorkers(workers, svc)
		storetest.StartRiver(t, e.pool, &river.Config{Workers: workers, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}}})
	}
	const events = 20
	for i := range events {
		emit(t, e, first, webhooks.LeadBounced(webhooks.Lead{ID: int64(i + 1), Email: fmt.Sprintf("lead%d@acme.example", i)}))
	}
	storetest.WaitFor(t, "every event accepted by both receivers", func() bool {
		for _, r := range receivers {
			r.mu.Lock()
			n := len(r.accepted)
			r.mu.Unlock()
			if n < events {
				return false
			}
		}
		return true
	})
	// Time for a duplicate to arrive, were there one.
	time.Sleep(500 * time.Millisecond)
	endpoints, err := first.List(t.Context(), e.ws)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range receivers {
		r.mu.Lock()
		for id, n := range r.accepted {
			if n != 1 || r.seen[id] != 3 {
				t.Errorf("receiver %d: event %s accepted %d times after %d requests, want once after 3 (two failures)", i, id, n, r.seen[id])
			}
		}
		if len(r.bad) > 0 {
			t.Errorf("receiver %d: requests that did not verify: %q", i, r.bad)
		}
		r.mu.Unlock()
		log, err := first.Deliveries(t.Context(), e.ws, endpoints[i].ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != events {
			t.Fatalf("endpoint %d's log has %d deliveries, want %d", i, len(log), events)
		}
		for _, d := range log {
			if d.Status != webhooks.Delivered || d.Attempts != 3 || d.LastError != "" || d.EventType != webhooks.TypeLeadBounced {
				t.Errorf("delivery %+v, want delivered after 3 attempts", d)
			}
		}
	}
	// The same delivery enqueued again, by any replica, is no new job.
	client, err := river.NewClient(riverpgxv5.New(e.pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := first.Deliveries(t.Context(), e.ws, endpoints[0].ID, 1)
	res, err := client.Insert(t.Context(), webhooks.DeliverArgs{WorkspaceID: e.ws, EndpointID: endpoints[0].ID, EventID: log[0].EventID, Send: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.UniqueSkippedAsDuplicate {
		t.Error("a second job for the same endpoint, event and send was inserted")
	}
}

// A receiver verifying as the README says takes the signature of its
// secret within five minutes, and refuses another secret's, a changed
// body, and a stale timestamp (a replay).
func TestVerify(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	now := time.Now()
	header := webhooks.Sign("whsec_a", now, body)
	if !strings.HasPrefix(header, fmt.Sprintf("t=%d,v1=", now.Unix())) {
		t.Errorf("header %q", header)
	}
	if err := webhooks.Verify("whsec_a", header, body, now.Add(time.Minute), 0); err != nil {
		t.Errorf("a fresh signature: %v", err)
	}
	if err := webhooks.Verify("whsec_b", header, body, now, 0); err == nil {
		t.Error("another secret's signature verified")
	}
	if err := webhooks.Verify("whsec_a", header, []byte(`{"id":"evt_2"}`), now, 0); err == nil {
		t.Error("a changed body verified")
	}
	stale := webhooks.Sign("whsec_a", now.Add(-10*time.Minute), body)
	if err := webhooks.Verify("whsec_a", stale, body, now, 0); err == nil || !strings.Contains(err.Error(), "timestamp") {
		t.Errorf("a ten-minute-old signature: %v, want refused as stale", err)
	}
	if err := webhooks.Verify("whsec_a", "v1=abc", body, now, 0); err == nil {
		t.Error("a header without a timestamp verified")
	}
}

// An endpoint is checked by the guard's rules when it is added: an
// address on this machine or a private network, another scheme or port
// is refused with a sentence; the secret is kept sealed.
func TestCreateRefusesWhatTheGuardWouldNotReach(t *testing.T) {
	e := setup(t)
	svc := webhooks.New(webhooks.Deps{DB: e.pool, Secret: testSecret(t), Logger: slog.New(slog.DiscardHandler)})
	for raw, want := range map[string]string{
		"http://127.0.0.1/hooks":          "127.0.0.1 is a loopback address (this machine), not on the public internet",
		"https://10.1.2.3/hooks":          "10.1.2.3 is a private network address",
		"http://[::1]:80/":                "loopback",
		"https://93.184.215.14:8080/hook": "port 8080 is not one VibeSell connects to",
		"ftp://hooks.example.com/":        "is not a web address",
		"https://u:p@93.184.215.14/":      "without a user name or password",
	} {
		_, _, err := svc.Create(t.Context(), e.ws, raw)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), want) {
			t.Errorf("%s: %v, want EINVALID saying %q", raw, err, want)
		}
	}
	ep, secret, err := svc.Create(t.Context(), e.ws, "https://93.184.215.14/hooks")
	if err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	if err := e.pool.QueryRow(t.Context(), `SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, ep.ID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), secret) || strings.Contains(string(sealed), strings.TrimPrefix(secret, "whsec_")) {
		t.Error("the secret is kept in the clear")
	}
}

type mailer struct {
	mu   sync.Mutex
	sent []string
}

func (m *mailer) People(context.Context, uuid.UUID) ([]string, error) {
	return []string{"ada@acme.example"}, nil
}

func (m *mailer) Send(_ context.Context, _ uuid.UUID, to []string, subject, body string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, strings.Join(to, ",")+": "+subject+"\n"+body)
	return nil
}

// A delivery that fails for a day is given up and its endpoint disabled,
// with one email to the workspace's people; the log says why in our
// words, and once enabled again the event can be sent again.
func TestADayOfFailuresDisablesTheEndpoint(t *testing.T) {
	e := setup(t)
	clock := vibesell.NewManualClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	m := &mailer{}
	svc := webhooks.New(webhooks.Deps{DB: e.pool, Secret: testSecret(t), Guard: loopbackGuard(), Mailer: m, Clock: clock,
		PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler)})
	r := newReceiver(t, 1000)
	ep, secret, err := svc.Create(t.Context(), e.ws, r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.secret = secret
	emit(t, e, svc, webhooks.CampaignPaused("cmp_1", "VibeSell paused the campaign for its bounces: 6% of its sends bounced."))
	log, err := svc.Deliveries(t.Context(), e.ws, ep.ID, 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("log %+v, %v", log, err)
	}
	w := &webhooks.DeliverWorker{Service: svc}
	work := func(send, attempt int) error {
		return w.Work(t.Context(), &river.Job[webhooks.DeliverArgs]{JobRow: &rivertype.JobRow{Attempt: attempt},
			Args: webhooks.DeliverArgs{WorkspaceID: e.ws, EndpointID: ep.ID, EventID: log[0].EventID, Send: send}})
	}
	if err := work(1, 1); err == nil {
		t.Fatal("a failed delivery is not tried again")
	}
	clock.Advance(23 * time.Hour)
	if err := work(1, 2); err == nil {
		t.Fatal("a delivery failing for 23 hours is given up")
	}
	if got, _ := svc.Find(t.Context(), e.ws, ep.ID); !got.Enabled() {
		t.Fatal("disabled before a day of failures")
	}
	clock.Advance(time.Hour)
	var cancel *river.JobCancelError
	if err := work(1, 3); !errors.As(err, &cancel) {
		t.Fatalf("after a day: %v, want the job cancelled", err)
	}
	got, _ := svc.Find(t.Context(), e.ws, ep.ID)
	if got.Enabled() || !strings.Contains(got.DisabledReason, "answered 500") {
		t.Errorf("endpoint after a day of failures: %+v", got)
	}
	log, _ = svc.Deliveries(t.Context(), e.ws, ep.ID, 10)
	if log[0].Status != webhooks.Failed || log[0].Attempts != 3 || log[0].LastError != "The endpoint answered 500 (Internal Server Error) instead of a 2xx status." {
		t.Errorf("delivery %+v", log[0])
	}
	if len(m.sent) != 1 || !strings.Contains(m.sent[0], "ada@acme.example: Webhooks to 127.0.0.1") || !strings.Contains(m.sent[0], "https://vibesell.example.test/app/webhooks") {
		t.Errorf("emails %q", m.sent)
	}
	// Events meanwhile are not sent to the disabled endpoint.
	emit(t, e, svc, webhooks.LeadUnsubscribed(webhooks.Lead{Email: "sam@acme.example"}))
	if log, _ := svc.Deliveries(t.Context(), e.ws, ep.ID, 10); len(log) != 1 {
		t.Errorf("a disabled endpoint got %d deliveries", len(log))
	}
	if err := svc.SendAgain(t.Context(), e.ws, ep.ID, log[0].EventID); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("send again to a disabled endpoint: %v", err)
	}
	if err := svc.Enable(t.Context(), e.ws, ep.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.SendAgain(t.Context(), e.ws, ep.ID, log[0].EventID); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.failFirst = 0
	r.mu.Unlock()
	// The job of the first send, should River run it again, sends nothing.
	if err := work(1, 4); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	accepted := len(r.accepted)
	r.mu.Unlock()
	if log, _ := svc.Deliveries(t.Context(), e.ws, ep.ID, 10); log[0].Status != webhooks.Pending || accepted != 0 {
		t.Errorf("the superseded job sent the event: %+v", log[0])
	}
	if err := work(2, 1); err != nil {
		t.Fatal(err)
	}
	if log, _ := svc.Deliveries(t.Context(), e.ws, ep.ID, 10); log[0].Status != webhooks.Delivered || log[0].Attempts != 4 {
		t.Errorf("sent again: %+v", log[0])
	}
	if err := work(2, 2); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	if r.accepted[log[0].EventID] != 1 {
		t.Errorf("accepted %d times, want once", r.accepted[log[0].EventID])
	}
	r.mu.Unlock()
	// A month on, the events and their log are forgotten.
	clock.Advance(webhooks.Kept + time.Hour)
	if n, err := svc.Prune(t.Context()); err != nil || n != 2 {
		t.Errorf("pruned %d events (%v), want 2", n, err)
	}
	if log, _ := svc.Deliveries(t.Context(), e.ws, ep.ID, 10); len(log) != 0 {
		t.Errorf("the log keeps %d deliveries after the prune", len(log))
	}
}
