package replies_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/delivery"
	"vibesell/delivery/deliverytest"
	"vibesell/mail"
	"vibesell/replies"
	"vibesell/store"
	"vibesell/store/storetest"
)

// The busy day's size. By default a scaled-down day (10,000 emails, the
// long read held 15 s) that CI runs in about a minute; the whole day and
// the ten-minute long read are one command (README, "One PostgreSQL for a
// busy installation"):
//
//	go test ./replies -run '^$' -bench BusyDay -benchtime 1x -timeout 3h -day.emails 1000000 -day.longread 10m
var (
	dayEmails = flag.Int("day.emails", 10_000, "emails BenchmarkBusyDay sends (a day of the busy installation: 1000000)")
	// A burst a second is the day's own shape (200 emails a second); 0
	// sends as fast as the machine goes, which measures the most it can
	// carry but loads it so that every round trip's p99 grows with it.
	dayPace     = flag.Duration("day.pace", time.Second, "time between the starts of two bursts of BenchmarkBusyDay (0: as fast as it can)")
	dayLongRead = flag.Duration("day.longread", 15*time.Second, "how long BenchmarkBusyDay holds a read transaction open beside the sends")
	dayShape    = flag.String("day.shape", "paced", "how a burst's emails leave: paced (200 mailboxes, one email each, as every deployment's tick sends) or batched (4 mailboxes, 50 each, as a tick sends with no gaps)")
)

// The day's size: bursts of 200 emails; 2% of leads reply and 1% bounce.
const (
	burstEmails = 200
	replyEvery  = 50
	bounceEvery = 100
	pollEvery   = 10 // bursts between two polls of the inboxes
)

// burstShape is how a burst's emails leave: from how many mailboxes, each
// over one SMTP session that sends perSession of them, at most
// [delivery.DefaultParallel] sessions at once, as the engine's tick runs
// them.
type burstShape struct {
	name       string
	mailboxes  int
	perSession int
}

// shapeOf reads -day.shape. Paced is the engine as deployed: a mailbox
// waits 2 to 6 minutes between two emails (delivery.EngineConfig's gap,
// which every deployment keeps), so a tick sends one email from each
// mailbox that is due and each claim takes one step; a burst of 200 is
// 200 mailboxes. Batched is a tick without gaps (EngineConfig.NoGap, which
// only the tests set): each mailbox's due steps go over one session, 50
// to a claim.
func shapeOf(name string) (burstShape, error) {
	switch name {
	case "paced":
		return burstShape{name: name, mailboxes: burstEmails, perSession: 1}, nil
	case "batched":
		return burstShape{name: name, mailboxes: 4, perSession: burstEmails / 4}, nil
	}
	return burstShape{}, fmt.Errorf("-day.shape is paced or batched, not %q", name)
}

// BenchmarkBusyDay runs a busy installation's day of email through the
// engine's send ledger on one PostgreSQL, as fast as it goes (the day is
// compressed in time): River jobs (one per burst, as the send tick is one
// job, and one per poll of the inboxes) claim, mark and settle each email
// through [delivery.Dispatcher] into the sandbox mail server (the sink),
// and the replies and bounces come back through the inboxes and
// [replies.Poller]. Beside it, a REPEATABLE READ transaction (a report,
// pg_dump) stays open for -day.longread, which keeps every row that dies
// meanwhile from being vacuumed.
//
// It reports the p99 of the claim statement against the p99 of a SELECT 1
// round trip on the same pool in the same run (the goal: claim p99 under
// 10 ms), the mark's and the settle's p99, and the dead rows of the ledger
// (mail_sends), the replies and River's queue (river_job): the most seen
// while the long read was open, and at the end, once vacuum could act.
// Where the server runs with autovacuum off (the test machines' clusters
// do), the benchmark does autovacuum's work as it would have: once every
// autovacuum_naptime it vacuums a table past its dead rows' threshold and
// analyzes one past its changed rows' threshold, by the table's own
// settings (migrations/00335_ledger_autovacuum.sql, store.jobTableStorage),
// at autovacuum's pace.
func BenchmarkBusyDay(b *testing.B) {
	shape, err := shapeOf(*dayShape)
	if err != nil {
		b.Fatal(err)
	}
	bn := deliverytest.Setup(b)
	ctx := bn.Ctx
	if _, err := bn.Keys.Record(ctx, bn.Workspace, "getacme.com"); err != nil {
		b.Fatal(err)
	}
	boxes := []mail.Account{bn.Mailbox}
	for i := 1; i < shape.mailboxes; i++ {
		mb, err := bn.Sandbox.AddMailbox(mail.Address{Name: "Rep " + strconv.Itoa(i), Email: fmt.Sprintf("rep%d@getacme.com", i)})
		if err != nil {
			b.Fatal(err)
		}
		boxes = append(boxes, mb)
	}

	timings := &statementTimes{}
	cfg, err := pgxpool.ParseConfig(bn.DBURL)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 8
	cfg.ConnConfig.Tracer = timings
	store.Configure(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	// The real clock: the ledger's times move through the day as they do
	// in a deployment, and its indexes on them grow as they do there.
	dispatcher := delivery.NewDispatcher(delivery.DispatcherDeps{DB: pool, Keys: bn.Keys, Suppressor: bn.Suppressor, Clock: vibesell.SystemClock{}})
	poller := replies.NewPoller(replies.PollerDeps{DB: pool, Suppressor: bn.Suppressor, Clock: vibesell.SystemClock{}})

	campaign := deliverytest.NewCampaignID()
	bursts := (*dayEmails + burstEmails - 1) / burstEmails
	done := make(chan error, bursts+bursts/pollEvery+1)
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[burstArgs]) error {
		err := sendBurst(ctx, bn, dispatcher, boxes, shape, campaign, job.Args.Burst)
		done <- err
		return err
	}))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[pollArgs]) error {
		var err error
		for _, mb := range boxes {
			if _, perr := poller.Poll(ctx, bn.Workspace, mb); perr != nil {
				err = errors.Join(err, perr)
			}
		}
		done <- err
		return err
	}))
	jobs := storetest.StartRiver(b, bn.DB, &river.Config{
		Workers:                     workers,
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 3}},
		CompletedJobRetentionPeriod: store.CompletedJobRetention,
		FetchCooldown:               5 * time.Millisecond,
		FetchPollInterval:           20 * time.Millisecond,
	})

	var autovacuum string
	var naptime int
	if err := bn.DB.QueryRow(ctx, `SELECT current_setting('autovacuum'), (SELECT setting::int FROM pg_settings WHERE name = 'autovacuum_naptime')`).Scan(&autovacuum, &naptime); err != nil {
		b.Fatal(err)
	}
	watch := &deadRows{db: bn.DB, vacuum: autovacuum != "on", naptime: time.Duration(naptime) * time.Second}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { defer close(watched); watch.run(watchCtx, b) }()

	// The baseline: a SELECT 1 round trip on the same pool, every 20 ms
	// through the run.
	baseCtx, stopBase := context.WithCancel(ctx)
	var base []time.Duration
	based := make(chan struct{})
	go func() {
		defer close(based)
		for baseCtx.Err() == nil {
			start := time.Now()
			if _, err := pool.Exec(baseCtx, `SELECT 1`); err == nil {
				base = append(base, time.Since(start))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	// The long read: a snapshot held open beside the sends.
	reader, err := pgx.Connect(ctx, bn.DBURL)
	if err != nil {
		b.Fatal(err)
	}
	defer reader.Close(context.Background())
	tx, err := reader.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	var before int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM mail_sends`).Scan(&before); err != nil {
		b.Fatal(err)
	}
	watch.holding(true)
	readEnds := time.AfterFunc(*dayLongRead, func() {
		_ = tx.Commit(context.Background())
		watch.holding(false)
	})

	b.ResetTimer()
	start := time.Now()
	// Two bursts in flight at most: River takes the next while one sends.
	const inFlight = 2
	waiting := 0
	var pace <-chan time.Time
	if *dayPace > 0 {
		ticker := time.NewTicker(*dayPace)
		defer ticker.Stop()
		pace = ticker.C
	}
	for i := range bursts {
		if pace != nil && i > 0 {
			<-pace
		}
		if waiting == inFlight {
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			waiting--
		}
		if _, err := jobs.Insert(ctx, burstArgs{Burst: i}, nil); err != nil {
			b.Fatal(err)
		}
		waiting++
		if (i+1)%pollEvery == 0 {
			if _, err := jobs.Insert(ctx, pollArgs{Round: i}, nil); err != nil {
				b.Fatal(err)
			}
			waiting++
		}
	}
	for ; waiting > 0; waiting-- {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	for _, mb := range boxes {
		if _, err := poller.Poll(ctx, bn.Workspace, mb); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if readEnds.Stop() {
		_ = tx.Commit(context.Background())
		watch.holding(false)
	}
	stopBase()
	<-based

	// Vacuum's turn: the long read is over, dead rows may go.
	settled := watch.settle(ctx, b, 90*time.Second)
	stopWatch()
	<-watched

	var sent, bounced, replied int
	if err := bn.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM mail_sends WHERE workspace_id = $1 AND status = 'sent'),
	                                      count(*) FILTER (WHERE bounce IS NOT NULL), count(*)
	                                 FROM mail_replies WHERE workspace_id = $1`, bn.Workspace).Scan(&sent, &bounced, &replied); err != nil {
		b.Fatal(err)
	}
	emails := bursts * burstEmails
	wantBounced, wantReplied := 0, 0
	for lead := 1; lead <= emails; lead++ {
		switch {
		case lead%bounceEvery == 0:
			wantBounced++
		case lead%replyEvery == 0 || lead%replyEvery == 7:
			wantReplied++
		}
	}
	if sent != emails || bounced != wantBounced || replied != wantBounced+wantReplied {
		b.Fatalf("the ledger has %d sent (want %d), the replies %d bounces (want %d) and %d in all (want %d)",
			sent, emails, bounced, wantBounced, replied, wantBounced+wantReplied)
	}

	claim, mark, settle := timings.p99("claim"), timings.p99("mark"), timings.p99("settle")
	slices.Sort(base)
	baseline := percentile(base, 0.99)
	b.Logf("%d emails in %s (%.0f a second), %d replies kept, %d of them bounces; autovacuum %s",
		emails, elapsed.Round(time.Second), float64(emails)/elapsed.Seconds(), replied, bounced, autovacuum)
	b.Logf("p99 (%s): claim %s (%d claims of %d steps each; p50 %s), mark %s, settle %s, SELECT 1 %s (p50 %s)", shape.name, claim, timings.count("claim"), shape.perSession,
		timings.percentile("claim", 0.5), mark, settle, baseline, percentile(base, 0.5))
	for _, t := range watchedTables {
		b.Logf("%s: dead rows at most %d while the long read was open (%d live), %d after it (%d live); %d vacuums, %d analyzes",
			t, watch.peakHeld[t], watch.liveAtPeak[t], settled[t].dead, settled[t].live, watch.vacuums[t], watch.analyzes[t])
	}
	b.ReportMetric(float64(emails)/elapsed.Seconds(), "emails/s")
	b.ReportMetric(ms(claim), "claim-p99-ms")
	b.ReportMetric(ms(baseline), "select1-p99-ms")
	b.ReportMetric(ms(claim)/ms(baseline), "claim/select1")
	b.ReportMetric(ms(mark), "mark-p99-ms")
	b.ReportMetric(ms(settle), "settle-p99-ms")
	b.ReportMetric(float64(watch.peakHeld["mail_sends"]), "ledger-dead-held")
	b.ReportMetric(float64(settled["mail_sends"].dead), "ledger-dead-end")
	b.ReportMetric(float64(watch.peakHeld["river_job"]), "queue-dead-held")
	b.ReportMetric(float64(settled["river_job"].dead), "queue-dead-end")
	b.ReportMetric(0, "ns/op")
}

type burstArgs struct {
	Burst int `json:"burst"`
}

func (burstArgs) Kind() string { return "bench.send_burst" }

type pollArgs struct {
	Round int `json:"round"`
}

func (pollArgs) Kind() string { return "bench.poll_inboxes" }

// sendBurst sends burst n as the engine's tick would: each mailbox its
// share over one session, as many sessions at once as a tick runs; then
// the leads that answer do, into the inbox they were written from.
func sendBurst(ctx context.Context, bn *deliverytest.Bundle, d *delivery.Dispatcher, boxes []mail.Account, shape burstShape, campaign string, n int) error {
	var wg sync.WaitGroup
	errs := make([]error, len(boxes))
	slots := make(chan struct{}, delivery.DefaultParallel)
	for k, mb := range boxes {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			outs := make([]delivery.Outgoing, shape.perSession)
			for j := range outs {
				lead := int64((n*len(boxes)+k)*shape.perSession + j + 1)
				out := bn.Outgoing(campaign, lead, 1)
				out.Mailbox = mb
				out.Message.To = mail.Address{Name: "Pat", Email: leadAddress(lead)}
				outs[j] = out
			}
			results, err := d.SendBatch(ctx, outs)
			if err != nil {
				errs[k] = err
				return
			}
			for j, r := range results {
				lead := outs[j].LeadID
				var raw []byte
				switch {
				case lead%bounceEvery == 0:
					raw = bounceOf(mb.Address.Email, leadAddress(lead), r.MessageID)
				case lead%replyEvery == 0 || lead%replyEvery == 7:
					raw = replyOf(mb.Address.Email, leadAddress(lead), r.MessageID, lead)
				default:
					continue
				}
				if err := bn.Sandbox.DeliverReply(mb.Address.Email, raw); err != nil {
					errs[k] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func leadAddress(lead int64) string {
	return fmt.Sprintf("pat%d@prospect%d.example", lead, lead%97)
}

func replyOf(mailbox, from, messageID string, lead int64) []byte {
	return deliverytest.CRLF(fmt.Sprintf(`
From: Pat <%[1]s>
To: <%[2]s>
Subject: Re: Quick question about Acme's onboarding
Date: Tue, 1 Dec 2026 10:00:00 +0000
Message-ID: <answer-%[4]d@prospect.example>
In-Reply-To: %[3]s
References: %[3]s
Content-Type: text/plain; charset=utf-8

Thanks, not right now. Maybe next quarter.
`, from, mailbox, messageID, lead))
}

func bounceOf(mailbox, to, messageID string) []byte {
	return deliverytest.CRLF(fmt.Sprintf(`
From: MAILER-DAEMON@mx.prospect.example (Mail Delivery System)
To: %[1]s
Subject: Undelivered Mail Returned to Sender
Date: Tue, 1 Dec 2026 10:00:00 +0000
Message-ID: <bounce-%[3]s
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

Your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.prospect.example

Final-Recipient: rfc822; %[2]s
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 User unknown

--b1
Content-Type: text/rfc822-headers

From: <%[1]s>
To: <%[2]s>
Subject: Quick question about Acme's onboarding
Message-ID: %[4]s

--b1--
`, mailbox, to, strings.TrimPrefix(messageID, "<"), messageID))
}

// statementTimes times the engine's statements on the ledger, by what
// they do, as pgx runs them.
type statementTimes struct {
	mu    sync.Mutex
	times map[string][]time.Duration
}

type timedKey struct{}

type timed struct {
	what  string
	start time.Time
}

func (s *statementTimes) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	what := ""
	switch {
	case strings.Contains(d.SQL, "INSERT INTO mail_sends"):
		what = "claim"
	case strings.Contains(d.SQL, "SET status = 'sending'"):
		what = "mark"
	case strings.Contains(d.SQL, "SET status = u.status"):
		what = "settle"
	default:
		return ctx
	}
	return context.WithValue(ctx, timedKey{}, timed{what, time.Now()})
}

func (s *statementTimes) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	t, ok := ctx.Value(timedKey{}).(timed)
	if !ok || d.Err != nil {
		return
	}
	took := time.Since(t.start)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times == nil {
		s.times = map[string][]time.Duration{}
	}
	s.times[t.what] = append(s.times[t.what], took)
}

func (s *statementTimes) p99(what string) time.Duration { return s.percentile(what, 0.99) }

func (s *statementTimes) percentile(what string, p float64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := slices.Clone(s.times[what])
	slices.Sort(ts)
	return percentile(ts, p)
}

func (s *statementTimes) count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.times[what])
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var watchedTables = []string{"mail_sends", "mail_replies", "river_job"}

type tableRows struct{ dead, live, changed int64 }

// autovacuumLimits are the points past which autovacuum vacuums a table
// (its dead rows) and analyzes it (its rows changed since the last
// analyze).
type autovacuumLimits struct{ vacuum, analyze int64 }

// deadRows samples the watched tables' dead rows every second and, if
// autovacuum is off on the server, does its work when it would have.
type deadRows struct {
	db      *pgxpool.Pool
	vacuum  bool
	naptime time.Duration

	mu         sync.Mutex
	held       bool
	peakHeld   map[string]int64
	liveAtPeak map[string]int64
	vacuums    map[string]int
	analyzes   map[string]int
	lastRound  time.Time
}

func (w *deadRows) holding(on bool) {
	w.mu.Lock()
	w.held = on
	w.mu.Unlock()
}

func (w *deadRows) sample(ctx context.Context) (map[string]tableRows, map[string]autovacuumLimits, error) {
	rows, err := w.db.Query(ctx, `
		SELECT s.relname::text, s.n_dead_tup, s.n_live_tup,
		       coalesce((SELECT split_part(o, '=', 2)::float FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_vacuum_threshold=%'),
		                current_setting('autovacuum_vacuum_threshold')::float)
		     + coalesce((SELECT split_part(o, '=', 2)::float FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_vacuum_scale_factor=%'),
		                current_setting('autovacuum_vacuum_scale_factor')::float) * s.n_live_tup,
		       s.n_mod_since_analyze,
		       coalesce((SELECT split_part(o, '=', 2)::float FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_analyze_threshold=%'),
		                current_setting('autovacuum_analyze_threshold')::float)
		     + coalesce((SELECT split_part(o, '=', 2)::float FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_analyze_scale_factor=%'),
		                current_setting('autovacuum_analyze_scale_factor')::float) * greatest(c.reltuples, 0)
		  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		 WHERE s.relname = ANY($1)`, watchedTables)
	if err != nil {
		return nil, nil, err
	}
	got, limits := map[string]tableRows{}, map[string]autovacuumLimits{}
	var name string
	var r tableRows
	var vacuumAt, analyzeAt float64
	_, err = pgx.ForEachRow(rows, []any{&name, &r.dead, &r.live, &vacuumAt, &r.changed, &analyzeAt}, func() error {
		got[name], limits[name] = r, autovacuumLimits{vacuum: int64(vacuumAt), analyze: int64(analyzeAt)}
		return nil
	})
	return got, limits, err
}

// asAutovacuum runs command (VACUUM or ANALYZE) on table as an autovacuum
// worker would: at its pace (the server's autovacuum cost delay and
// limit), not at a manual command's full speed, which no server with
// autovacuum on would spend on two cores beside the sends.
func (w *deadRows) asAutovacuum(ctx context.Context, command, table string) error {
	conn, err := w.db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT set_config('vacuum_cost_delay', current_setting('autovacuum_vacuum_cost_delay'), false),
		set_config('vacuum_cost_limit', CASE current_setting('autovacuum_vacuum_cost_limit') WHEN '-1' THEN current_setting('vacuum_cost_limit')
		                                    ELSE current_setting('autovacuum_vacuum_cost_limit') END, false)`); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `RESET vacuum_cost_delay; RESET vacuum_cost_limit`)
	_, err = conn.Exec(ctx, command+` `+pgx.Identifier{table}.Sanitize())
	return err
}

// work runs command on table as autovacuum would and counts it.
func (w *deadRows) work(ctx context.Context, b *testing.B, command, table string, count map[string]int) {
	if err := w.asAutovacuum(ctx, command, table); err != nil && ctx.Err() == nil {
		b.Error(err)
	}
	w.mu.Lock()
	count[table]++
	w.mu.Unlock()
}

func (w *deadRows) run(ctx context.Context, b *testing.B) {
	w.peakHeld, w.liveAtPeak, w.vacuums, w.analyzes = map[string]int64{}, map[string]int64{}, map[string]int{}, map[string]int{}
	w.lastRound = time.Now()
	for ctx.Err() == nil {
		w.step(ctx, b)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (w *deadRows) step(ctx context.Context, b *testing.B) map[string]tableRows {
	got, limits, err := w.sample(ctx)
	if err != nil {
		if ctx.Err() == nil {
			b.Error(err)
		}
		return nil
	}
	w.mu.Lock()
	held := w.held
	for t, r := range got {
		if held && r.dead > w.peakHeld[t] {
			w.peakHeld[t], w.liveAtPeak[t] = r.dead, r.live
		}
	}
	w.mu.Unlock()
	if w.vacuum && time.Since(w.lastRound) >= w.naptime {
		// The launcher's round: each table past a threshold gets its turn.
		w.lastRound = time.Now()
		for t, r := range got {
			if r.dead > limits[t].vacuum {
				w.work(ctx, b, "VACUUM", t, w.vacuums)
			}
			if r.changed > limits[t].analyze {
				w.work(ctx, b, "ANALYZE", t, w.analyzes)
			}
		}
	}
	return got
}

// settle waits for the dead rows to fall under the point where autovacuum
// would vacuum the table again (or for wait to pass) and returns the last
// sample.
func (w *deadRows) settle(ctx context.Context, b *testing.B, wait time.Duration) map[string]tableRows {
	deadline := time.Now().Add(wait)
	for {
		got, limits, err := w.sample(ctx)
		if err != nil {
			b.Fatal(err)
		}
		under := true
		for t, r := range got {
			under = under && r.dead <= limits[t].vacuum
		}
		if under || time.Now().After(deadline) {
			return got
		}
		time.Sleep(time.Second)
	}
}
