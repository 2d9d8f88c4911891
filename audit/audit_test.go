package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audit"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

type bundle struct {
	pool      *pgxpool.Pool
	clock     *vibesell.ManualClock
	approvals *approvals.Service
	chains    *audit.Chains
	ws, other uuid.UUID
}

func setup(t *testing.T) bundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(start)
	svc := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "https://vibesell.test", RelayWait: -1, Logger: slog.New(slog.DiscardHandler)})
	svc.Register("send_gift", approvals.ExecutorFuncs{ExecuteFunc: func(context.Context, approvals.Execution) (string, error) {
		return "Sent.", nil
	}})
	two := workspacetest.Two(t, pool)
	return bundle{pool: pool, clock: clock, approvals: svc, chains: audit.New(audit.Deps{DB: pool}), ws: two.Acme.ID, other: two.Globex.ID}
}

// open asks for an approval of a gift to whom.
func (b bundle) open(t *testing.T, ws uuid.UUID, whom string) approvals.Approval {
	t.Helper()
	zero := vibesell.NewMoney(0, "EUR")
	a, _, err := b.approvals.Open(t.Context(), approvals.Request{WorkspaceID: ws, Action: "send_gift", Arguments: map[string]string{"to": whom},
		Summary: "Send a gift to " + whom, DecideHere: true,
		Impact: approvals.Impact{What: "Sends a gift.", Items: []string{whom}, Who: whom, When: "Now.", CostOnce: zero, CostMonthly: zero,
			Renewal: "Nothing renews.", Undo: "It cannot be taken back."}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// history makes a few approvals' events: opened and shown, approved
// (with the version decided on), carried out, rejected, refused twice.
func (b bundle) history(t *testing.T, ws uuid.UUID) {
	t.Helper()
	ctx := t.Context()
	for i := range 3 {
		a := b.open(t, ws, fmt.Sprintf("person%d@example.test", i))
		b.clock.Advance(time.Minute)
		if _, _, err := b.approvals.Decide(ctx, ws, a.ID, approvals.Decision{Approve: i != 1, By: "ada@acme.test", Via: approvals.ViaWeb, Shown: a.ShownHash(), Reason: "Because “gifts” <matter>"}); err != nil {
			t.Fatal(err)
		}
		if i != 1 {
			if err := b.approvals.Execute(ctx, ws, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (b bundle) export(t *testing.T, ws uuid.UUID, since time.Time) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := b.chains.Export(t.Context(), ws, since, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// tamper runs SQL as someone with the database's keys would, past the
// trigger that refuses changes to the records.
func (b bundle) tamper(t *testing.T, sql string, args ...any) {
	t.Helper()
	err := store.InTx(t.Context(), b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(t.Context(), `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		tag, err := tx.Exec(t.Context(), sql, args...)
		if err == nil && tag.RowsAffected() == 0 {
			err = fmt.Errorf("%s changed nothing", sql)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestChainRecordsEveryApprovalEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	b.history(t, b.ws)
	b.history(t, b.other)

	var kinds []string
	rows, err := b.pool.Query(ctx, `SELECT kind FROM audit_events WHERE workspace_id = $1 ORDER BY seq`, b.ws)
	if err != nil {
		t.Fatal(err)
	}
	kinds, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	one := []string{"opened", "shown", "approved", "executing", "done"}
	want := append(append(append([]string{}, one...), "opened", "shown", "rejected"), one...)
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("kinds (-want +got):\n%s", d)
	}
	var shown string
	if err := b.pool.QueryRow(ctx, `SELECT body->>'shown' FROM audit_events WHERE workspace_id = $1 AND kind = 'approved' ORDER BY seq LIMIT 1`, b.ws).Scan(&shown); err != nil || len(shown) != 64 {
		t.Errorf("the approval's record names no version shown: %q, %v", shown, err)
	}

	for _, ws := range []uuid.UUID{b.ws, b.other} {
		rep, err := b.chains.VerifyDB(ctx, ws)
		if err != nil || rep.Problem != nil || rep.Records != int64(len(want)) || rep.From != audit.Genesis {
			t.Errorf("verify the database: %+v, %v", rep, err)
		}
		head, err := b.chains.Head(ctx, ws)
		if err != nil || head != rep.Last {
			t.Errorf("head %+v, %v; want the last record %+v", head, err, rep.Last)
		}
		file, err := audit.Verify(bytes.NewReader(b.export(t, ws, time.Time{})))
		if err != nil || file.Problem != nil || file.Records != rep.Records || file.Last != head {
			t.Errorf("verify the export: %+v, %v", file, err)
		}
	}

	t.Run("records are never changed or removed", func(t *testing.T) {
		for _, sql := range []string{`UPDATE audit_events SET kind = 'x' WHERE workspace_id = $1`, `DELETE FROM audit_events WHERE workspace_id = $1`} {
			if _, err := b.pool.Exec(ctx, sql, b.ws); err == nil || !strings.Contains(err.Error(), "never changed or removed") {
				t.Errorf("%s: %v; want refused", sql, err)
			}
		}
	})

	t.Run("an export since a date starts mid-chain and verifies from there", func(t *testing.T) {
		since := start.Add(90 * time.Second) // after the first approval's decision
		out := b.export(t, b.ws, since)
		rep, err := audit.Verify(bytes.NewReader(out))
		if err != nil || rep.Problem != nil {
			t.Fatalf("verify: %+v, %v", rep, err)
		}
		if rep.First <= 1 || rep.From == audit.Genesis {
			t.Errorf("starts at record %d after %s; want mid-chain", rep.First, rep.From)
		}
	})
}

// TestVerifyNamesTheRecordChanged changes the chain in the database, as
// someone with its keys could, and in an exported file: each change is
// named by the record it touched.
func TestVerifyNamesTheRecordChanged(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(t *testing.T, b bundle)
		want   string
	}{
		{"a record updated", func(t *testing.T, b bundle) {
			b.tamper(t, `UPDATE audit_events SET body = jsonb_set(body, '{actor}', '"eve@acme.test"') WHERE workspace_id = $1 AND seq = 3`, b.ws)
		}, "Record 3 was altered: what it holds does not hash to its hash."},
		{"a record updated and its hash made again", func(t *testing.T, b bundle) {
			var r audit.Record
			if err := b.pool.QueryRow(t.Context(), `SELECT seq, kind, subject, prev_hash FROM audit_events WHERE workspace_id = $1 AND seq = 4`, b.ws).Scan(&r.Seq, &r.Kind, &r.Subject, &r.PrevHash); err != nil {
				t.Fatal(err)
			}
			body := `{"actor": "eve@acme.test"}`
			at := start.Add(time.Hour)
			b.tamper(t, `UPDATE audit_events SET body = $3, at = $4, hash = $5 WHERE workspace_id = $1 AND seq = $2`,
				b.ws, r.Seq, body, at, audit.Hash(r.PrevHash, r.Seq, audit.FormatAt(at), r.Kind, r.Subject, []byte(body)))
		}, "Record 4 was altered: record 5 does not follow from it (its prev_hash is not record 4's hash)."},
		{"a record removed", func(t *testing.T, b bundle) {
			b.tamper(t, `DELETE FROM audit_events WHERE workspace_id = $1 AND seq = 5`, b.ws)
		}, "Record 5 was removed: record 6 comes right after record 4."},
		{"the first record removed", func(t *testing.T, b bundle) {
			b.tamper(t, `DELETE FROM audit_events WHERE workspace_id = $1 AND seq = 1`, b.ws)
		}, "Record 1 was removed: the chain starts at record 2."},
		{"the last records removed", func(t *testing.T, b bundle) {
			b.tamper(t, `DELETE FROM audit_events WHERE workspace_id = $1 AND seq > 11`, b.ws)
		}, "Record 12 was removed: the chain ends at record 11, but its head is record 13."},
		{"two records swapped", func(t *testing.T, b bundle) {
			b.tamper(t, `UPDATE audit_events SET seq = 1000006 WHERE workspace_id = $1 AND seq = 6`, b.ws)
			b.tamper(t, `UPDATE audit_events SET seq = 6 WHERE workspace_id = $1 AND seq = 7`, b.ws)
			b.tamper(t, `UPDATE audit_events SET seq = 7 WHERE workspace_id = $1 AND seq = 1000006`, b.ws)
		}, "Records 6 and 7 were reordered: what stands as record 6 follows what stands as record 7."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.history(t, b.ws)
			b.history(t, b.other)
			c.tamper(t, b)
			rep, err := b.chains.VerifyDB(t.Context(), b.ws)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Problem == nil || rep.Problem.What != c.want {
				t.Errorf("verify the database: %+v; want %q", rep.Problem, c.want)
			}
			if rep, err := b.chains.VerifyDB(t.Context(), b.other); err != nil || rep.Problem != nil {
				t.Errorf("the other workspace's chain: %+v, %v", rep.Problem, err)
			}
		})
	}

	t.Run("in a file", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.history(t, b.ws)
		lines := strings.SplitAfter(string(b.export(t, b.ws, time.Time{})), "\n")
		edit := func(f func(l []string) []string) string {
			return strings.Join(f(append([]string{}, lines...)), "")
		}
		files := []struct {
			name, file, want string
		}{
			{"a line altered", edit(func(l []string) []string {
				l[7] = strings.Replace(l[7], "ada@acme.test", "eve@acme.test", 1)
				return l
			}), "Record 8 was altered: what it holds does not hash to its hash."},
			{"a line removed", edit(func(l []string) []string { return append(l[:4], l[5:]...) }), "Record 5 was removed: record 6 comes right after record 4."},
			{"two lines swapped", edit(func(l []string) []string {
				l[4], l[5] = l[5], l[4]
				return l
			}), "Record 5 is out of order: it comes after record 6 instead of right after record 4."},
		}
		for _, f := range files {
			rep, err := audit.Verify(strings.NewReader(f.file))
			if err != nil || rep.Problem == nil || rep.Problem.What != f.want {
				t.Errorf("%s: %+v, %v; want %q", f.name, rep.Problem, err, f.want)
			}
		}
	})
}

// TestChainUnderConcurrency appends 64 events at once in one workspace:
// one record each, numbered without gaps, each following exactly one
// other.
func TestChainUnderConcurrency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			zero := vibesell.NewMoney(0, "EUR")
			_, _, err := b.approvals.Open(context.Background(), approvals.Request{WorkspaceID: b.ws, Action: "send_gift",
				Arguments: map[string]int{"n": i}, Summary: "Send a gift", DecideHere: true,
				Impact: approvals.Impact{What: "Sends a gift.", Who: "Someone.", When: "Now.", CostOnce: zero, CostMonthly: zero,
					Renewal: "Nothing renews.", Undo: "It cannot be taken back."}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var count, maxSeq, distinctPrev int64
	if err := b.pool.QueryRow(t.Context(), `SELECT count(*), max(seq), count(DISTINCT prev_hash) FROM audit_events WHERE workspace_id = $1`, b.ws).
		Scan(&count, &maxSeq, &distinctPrev); err != nil {
		t.Fatal(err)
	}
	if count != 2*n || maxSeq != 2*n || distinctPrev != 2*n {
		t.Errorf("%d records, last seq %d, %d distinct predecessors; want %d of each", count, maxSeq, distinctPrev, 2*n)
	}
	if rep, err := b.chains.VerifyDB(t.Context(), b.ws); err != nil || rep.Problem != nil || rep.Records != 2*n {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}
