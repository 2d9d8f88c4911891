package approvals_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const publicURL = "https://vibesell.example.test"

// env is one test's bundle: its database, service, test executor and two
// workspaces (workspacetest.Two: a acts, b must see nothing of a's).
type env struct {
	url   string
	pool  *pgxpool.Pool
	svc   *approvals.Service
	clock *vibesell.ManualClock
	exec  *testExecutor
	a, b  workspace.Workspace
}

// testAction is the action the engine's tests approve: it "orders" an item
// from a provider that is idempotent by key (the test_effects table).
const testAction = "test_order"

type orderArgs struct {
	Item     string `json:"item"`
	Quantity int    `json:"quantity"`
}

func setup(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	url := storetest.NewURL(t)
	pool, err := store.Connect(ctx, url, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := createTestTables(ctx, pool); err != nil {
		t.Fatal(err)
	}
	clock := vibesell.NewManualClock(time.Now())
	svc := newService(t, pool, clock)
	exec := &testExecutor{db: pool}
	svc.Register(testAction, exec)
	two := workspacetest.Two(t, pool)
	return &env{url: url, pool: pool, svc: svc, clock: clock, exec: exec, a: two.Acme, b: two.Globex}
}

func newService(t testing.TB, pool *pgxpool.Pool, clock vibesell.Clock) *approvals.Service {
	t.Helper()
	svc := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: publicURL + "/", Logger: slog.New(slog.DiscardHandler)})
	return svc
}

// createTestTables makes the fake provider's ledger (one row per
// idempotency key; calls counts how often it was asked) and the list of
// items that became unavailable.
func createTestTables(ctx context.Context, db *pgxpool.Pool) error {
	_, err := db.Exec(ctx, `
		CREATE TABLE IF NOT EXISTS test_effects (key text PRIMARY KEY, item text NOT NULL, calls int NOT NULL DEFAULT 1);
		CREATE TABLE IF NOT EXISTS test_unavailable (item text PRIMARY KEY)`)
	return err
}

// testExecutor orders through the fake provider. hold, when set, is called
// after the provider call and before Execute returns: a test stops or kills
// the worker there.
type testExecutor struct {
	db       *pgxpool.Pool
	hold     func(ctx context.Context) error
	executes atomic.Int32
	resumed  atomic.Int32
}

func (x *testExecutor) Check(ctx context.Context, ex approvals.Execution) error {
	var args orderArgs
	if err := json.Unmarshal(ex.Approval.Arguments, &args); err != nil {
		return err
	}
	var gone bool
	if err := x.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM test_unavailable WHERE item = $1)`, args.Item).Scan(&gone); err != nil {
		return err
	}
	if gone {
		return vibesell.Errorf(vibesell.ECONFLICT, "The %s is no longer available.", args.Item)
	}
	return nil
}

func (x *testExecutor) Execute(ctx context.Context, ex approvals.Execution) (string, error) {
	x.executes.Add(1)
	if ex.Resumed {
		x.resumed.Add(1)
	}
	var args orderArgs
	if err := json.Unmarshal(ex.Approval.Arguments, &args); err != nil {
		return "", err
	}
	if _, err := x.db.Exec(ctx, `INSERT INTO test_effects (key, item) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET calls = test_effects.calls + 1`, ex.IdempotencyKey, args.Item); err != nil {
		return "", err
	}
	if x.hold != nil {
		if err := x.hold(ctx); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("Ordered %d %s.", args.Quantity, args.Item), nil
}

func orderRequest(ws uuid.UUID, item string, decideHere bool) approvals.Request {
	usd := func(s string) vibesell.Money {
		m, err := vibesell.ParseMoney(s, "USD")
		if err != nil {
			panic(err)
		}
		return m
	}
	return approvals.Request{
		WorkspaceID: ws,
		Action:      testAction,
		Arguments:   map[string]any{"item": item, "quantity": 2},
		Summary:     "Order 2 " + item,
		Impact: approvals.Impact{
			What:        "Orders 2 " + item + " from the test provider.",
			Items:       []string{item, item},
			Who:         "No one is contacted.",
			When:        "At once; ready in a minute.",
			CostOnce:    usd("30.00"),
			CostMonthly: usd("10.00"),
			Renewal:     "Renews every month until cancelled.",
			Undo:        "Cannot be undone.",
		},
		Irreversible: !decideHere,
		DecideHere:   decideHere,
		TTL:          time.Hour,
	}
}

func (e *env) open(t *testing.T, ws uuid.UUID, item string, decideHere bool) approvals.Approval {
	t.Helper()
	a, created, err := e.svc.Open(context.Background(), orderRequest(ws, item, decideHere))
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatalf("Open(%s) returned an existing approval %s", item, a.ID)
	}
	return a
}

// workerOptions tune a River client started by startWorkers.
type workerOptions struct {
	executeTimeout time.Duration // ExecuteWorker.JobTimeout
	jobTimeout     time.Duration // river.Config.JobTimeout
	rescueAfter    time.Duration // river.Config.RescueStuckJobsAfter
	queues         map[string]river.QueueConfig
	periodic       bool
}

// startWorkers starts a River client working the approvals jobs on the
// test's database, stopped when the test ends.
func startWorkers(t *testing.T, pool *pgxpool.Pool, svc *approvals.Service, o workerOptions) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &approvals.ExecuteWorker{Service: svc, JobTimeout: o.executeTimeout})
	river.AddWorker(workers, &approvals.ExpireWorker{Service: svc})
	river.AddWorker(workers, &approvals.RemindWorker{Service: svc})
	var periodic []*river.PeriodicJob
	if o.periodic {
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(approvals.ExpireEvery),
			func() (river.JobArgs, *river.InsertOpts) { return approvals.ExpireArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	queues := o.queues
	if queues == nil {
		queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}}
	}
	return storetest.StartRiver(t, pool, &river.Config{
		Queues:               queues,
		Workers:              workers,
		PeriodicJobs:         periodic,
		FetchPollInterval:    50 * time.Millisecond,
		FetchCooldown:        10 * time.Millisecond,
		JobTimeout:           o.jobTimeout,
		RescueStuckJobsAfter: o.rescueAfter,
	})
}

// events lists an approval's audit trail as "event:from>to@via".
func (e *env) events(t *testing.T, ws uuid.UUID, id string) []string {
	t.Helper()
	evs, err := e.svc.Events(context.Background(), ws, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		from := ""
		if ev.From != nil {
			from = string(*ev.From)
		}
		out = append(out, fmt.Sprintf("%s:%s>%s@%s", ev.Event, from, ev.To, ev.Via))
	}
	return out
}

// jobCount counts the River execution jobs of an approval.
func (e *env) jobCount(t *testing.T, id string) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'approvals.execute' AND args->>'approval_id' = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// effects returns how many effects the fake provider recorded for an
// approval, and how often it was called for it.
func (e *env) effects(t *testing.T, id string) (rows, calls int) {
	t.Helper()
	if err := e.pool.QueryRow(context.Background(),
		`SELECT count(*), coalesce(sum(calls), 0) FROM test_effects WHERE key = $1`, "approval:"+id).Scan(&rows, &calls); err != nil {
		t.Fatal(err)
	}
	return rows, calls
}

// execute works the execution job of an approved approval now, as a River
// worker would, and returns the approval afterwards.
func (e *env) execute(t *testing.T, id string) approvals.Approval {
	t.Helper()
	return approvalstest.Execute(t, e.pool, e.svc, id)
}

// wait waits for an execution run by a real River client (the tests of
// stopped and killed workers), at most 30 s.
func (e *env) wait(t *testing.T, ws uuid.UUID, id string) approvals.Approval {
	t.Helper()
	a, err := e.svc.Wait(context.Background(), ws, id, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Final() {
		t.Fatalf("approval %s still %s after 30 s", id, a.Status)
	}
	return a
}

// decision is what a test reads of a decision: whether it was taken, who
// and where it is recorded as, and how the approval stands.
type decision struct {
	Taken      bool
	Status     approvals.Status
	DecidedBy  string
	DecidedVia string
	Reason     string
	Outcome    string
}

func decisionOf(a approvals.Approval, taken bool) decision {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return decision{Taken: taken, Status: a.Status, DecidedBy: deref(a.DecidedBy), DecidedVia: deref(a.DecidedVia), Reason: deref(a.Reason), Outcome: deref(a.Outcome)}
}

var conversation = approvals.Decision{By: approvals.ActorPerson, Via: approvals.ViaConversation}

// token is a card's one-time decision token for the approval.
func (e *env) token(t *testing.T, ap approvals.Approval) string {
	t.Helper()
	tokens, err := e.svc.Tokens(context.Background(), ap.WorkspaceID, ap)
	if err != nil || tokens[ap.ID] == "" {
		t.Fatalf("tokens for %s: %v, %v", ap.ID, tokens, err)
	}
	return tokens[ap.ID]
}
