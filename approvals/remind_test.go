package approvals_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/approvals"
	"vibesell/store"
)

// mailbox is the mail path at its outside seam: what was sent, to whom.
type mailbox struct {
	mu     sync.Mutex
	people map[uuid.UUID][]string
	sent   []sentMail
}

type sentMail struct {
	To            []string
	Subject, Body string
}

func (m *mailbox) People(_ context.Context, ws uuid.UUID) ([]string, error) {
	return m.people[ws], nil
}

func (m *mailbox) Send(_ context.Context, _ uuid.UUID, to []string, subject, body string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, sentMail{To: to, Subject: subject, Body: body})
	return nil
}

func (m *mailbox) subjects() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, s := range m.sent {
		out = append(out, s.Subject)
	}
	return out
}

// An approval only the web app may approve emails the workspace's people
// once when it opens and once before it expires: never twice, whatever
// number of jobs and replicas work at it, and never once it is decided.
func TestRemindersAreSentOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	box := &mailbox{people: map[uuid.UUID][]string{e.a.ID: {"ada@acme.test", "sam@acme.test"}}}
	// Two replicas: each its own pool, service and River client.
	second, err := store.Connect(ctx, e.url, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	replica := func(pool *pgxpool.Pool) *approvals.Service {
		svc := approvals.New(approvals.Deps{DB: pool, Clock: e.clock, PublicURL: publicURL, Logger: slog.New(slog.DiscardHandler),
			Mailer: box, RemindBefore: 30 * time.Minute})
		svc.Register(testAction, e.exec)
		return svc
	}
	one, two := replica(e.pool), replica(second)

	ap, _, err := one.Open(ctx, orderRequest(e.a.ID, "anvil", false))
	if err != nil {
		t.Fatal(err)
	}
	var scheduled []time.Time
	rows, err := e.pool.Query(ctx, `SELECT scheduled_at FROM river_job WHERE kind = 'approvals.remind' AND args->>'approval_id' = $1 ORDER BY scheduled_at`, ap.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(&at); err != nil {
			t.Fatal(err)
		}
		scheduled = append(scheduled, at)
	}
	if len(scheduled) != 2 || !scheduled[1].Equal(ap.ExpiresAt.Add(-30*time.Minute)) {
		t.Fatalf("reminder jobs scheduled at %v, want now and %v", scheduled, ap.ExpiresAt.Add(-30*time.Minute))
	}

	// The jobs run on both replicas while both also send by hand, many
	// times at once: each reminder goes out once.
	startWorkers(t, e.pool, one, workerOptions{})
	startWorkers(t, second, two, workerOptions{})
	var wg sync.WaitGroup
	for i := range 16 {
		svc := one
		if i%2 == 1 {
			svc = two
		}
		reminder := approvals.ReminderOpened
		if i%4 >= 2 {
			reminder = approvals.ReminderExpiring
		}
		wg.Go(func() {
			if _, err := svc.Remind(ctx, e.a.ID, ap.ID, reminder); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var working int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'approvals.remind' AND state IN ('available', 'running', 'retryable')
			AND args->>'approval_id' = $1`, ap.ID).Scan(&working); err != nil {
			t.Fatal(err)
		}
		if working == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := box.subjects()
	want := []string{"Waiting for your approval: " + ap.Summary, "Reminder"}
	if len(got) != 2 || !slicesHavePrefixes(got, want) {
		t.Fatalf("emails sent: %q, want one of each of %q", got, want)
	}
	mail := box.sent[0]
	if diff := cmp.Diff([]string{"ada@acme.test", "sam@acme.test"}, mail.To); diff != "" {
		t.Errorf("recipients (-want +got):\n%s", diff)
	}
	for _, must := range []string{ap.Summary, ap.Impact.What, ap.AppURL} {
		if !strings.Contains(mail.Body, must) {
			t.Errorf("the email does not say %q:\n%s", must, mail.Body)
		}
	}

	t.Run("none once decided", func(t *testing.T) {
		decided, _, err := one.Open(ctx, orderRequest(e.a.ID, "rocket", false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := one.Relay(ctx, e.a.ID, decided.ID, approvals.Relayed{Approve: false}); err != nil {
			t.Fatal(err)
		}
		for _, r := range []string{approvals.ReminderOpened, approvals.ReminderExpiring} {
			if sent, err := two.Remind(ctx, e.a.ID, decided.ID, r); sent || err != nil {
				t.Errorf("%s email of a rejected approval: sent %v, %v", r, sent, err)
			}
		}
	})
	t.Run("none for what the conversation may approve", func(t *testing.T) {
		here, _, err := one.Open(ctx, orderRequest(e.a.ID, "kite", true))
		if err != nil {
			t.Fatal(err)
		}
		var jobs int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'approvals.remind' AND args->>'approval_id' = $1`, here.ID).Scan(&jobs); err != nil || jobs != 0 {
			t.Errorf("%d reminder jobs, %v", jobs, err)
		}
	})
}

// slicesHavePrefixes reports whether got holds exactly one string starting
// with each of prefixes, in any order.
func slicesHavePrefixes(got, prefixes []string) bool {
	used := make([]bool, len(got))
	for _, p := range prefixes {
		found := false
		for i, g := range got {
			if !used[i] && strings.HasPrefix(g, p) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
