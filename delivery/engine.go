package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/store"
	"vibesell/webhooks"
)

// The engine sends what running campaigns have due. Each tick it reads
// every running campaign and the facts the schedule needs (the ledger,
// the replies that stop leads, each mailbox's sends today, pace and
// health) in a fixed number of queries, asks each campaign what is due
// now and from which mailbox ([campaigns.Run.Due]), and sends it through
// [Dispatcher], mailbox by mailbox over one SMTP session. The last word
// on each send is the gate, in the transaction that claims it: the
// campaign still running, the lead not stopped by a reply, the mailbox
// healthy, the plan's monthly emails.

// Usage records sends against the workspace's plan, in the claim's
// transaction (billing's monthly emails limit). A refusal with code
// EPAYMENTREQUIRED pauses the campaign, with the refusal as the reason.
type Usage interface {
	UseEmails(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error
}

// Campaigns is what the engine reads of campaigns and does to them.
type Campaigns interface {
	Running(ctx context.Context) ([]campaigns.Run, error)
	Finish(ctx context.Context, ws uuid.UUID, id string) error
}

// DefaultParallel is how many mailboxes a tick sends from at once, each
// over its own SMTP session, unless the installation says otherwise.
const DefaultParallel = 4

// EngineConfig is what an installation decides about sending.
type EngineConfig struct {
	// PublicURL is where unsubscribe links lead.
	PublicURL string
	// BounceLimit pauses a mailbox or campaign whose hard bounces over its
	// last BounceWindow sends pass it; default 0.02 (2%).
	BounceLimit float64
	// ComplaintLimit pauses a mailbox or campaign whose spam complaints
	// (feedback-loop reports) over its last BounceWindow sends pass it,
	// two at least; default [DefaultComplaintLimit].
	ComplaintLimit float64
	// MinGap and MaxGap bound the random gap between two emails from one
	// mailbox; default 2 to 6 minutes. Zero for both sends without a gap
	// (the benchmark).
	MinGap, MaxGap time.Duration
	// NoGap sends without gaps even when MinGap and MaxGap are zero by
	// default.
	NoGap bool
	// Parallel is how many mailboxes send at once; default
	// [DefaultParallel].
	Parallel int
	// MaxAttempts is how many times a step is tried (a failure before the
	// message was handed over, a soft bounce); default [Tries].
	MaxAttempts int
	Logger      *slog.Logger
	// Webhooks is told of each campaign the engine pauses, in the pause's
	// transaction. Nil: no webhooks.
	Webhooks *webhooks.Service
}

// Engine schedules and sends the campaigns' emails.
type Engine struct {
	db        *pgxpool.Pool
	sessions  *pgxpool.Pool
	sender    *Dispatcher
	sources   mailboxes.Source
	campaigns Campaigns
	usage     Usage
	secret    mail.Secret
	clock     vibesell.Clock
	cfg       EngineConfig
}

// EngineDeps is what the engine needs.
type EngineDeps struct {
	DB *pgxpool.Pool
	// Sessions is a pool whose connections are PostgreSQL sessions of
	// their own, never shared through a transaction pooler (PgBouncer):
	// the tick's advisory lock is a session's, so taken and let go through
	// a pooler it could land on two server connections and never be let
	// go. Nil: DB is direct.
	Sessions *pgxpool.Pool
	// Dispatcher sends each step.
	Dispatcher *Dispatcher
	// Sources gives the mailboxes the campaigns send from.
	Sources   mailboxes.Source
	Campaigns Campaigns
	// Usage counts what is sent; nil counts nothing.
	Usage Usage
	// Secret signs the unsubscribe links.
	Secret mail.Secret
	// Clock is nil for the system's.
	Clock  vibesell.Clock
	Config EngineConfig
}

// NewEngine returns the engine.
func NewEngine(d EngineDeps) *Engine {
	clock, cfg := d.Clock, d.Config
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	if cfg.BounceLimit <= 0 {
		cfg.BounceLimit = 0.02
	}
	if cfg.ComplaintLimit <= 0 {
		cfg.ComplaintLimit = DefaultComplaintLimit
	}
	if !cfg.NoGap && cfg.MaxGap <= 0 {
		cfg.MinGap, cfg.MaxGap = 2*time.Minute, 6*time.Minute
	}
	if cfg.MaxGap < cfg.MinGap {
		cfg.MaxGap = cfg.MinGap
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = Tries
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	sessions := d.Sessions
	if sessions == nil {
		sessions = d.DB
	}
	return &Engine{db: d.DB, sessions: sessions, sender: d.Dispatcher, sources: d.Sources, campaigns: d.Campaigns, usage: d.Usage, secret: d.Secret, clock: clock, cfg: cfg}
}

// TickResult counts what one tick did.
type TickResult struct {
	Sent, Held, Suppressed, Failed int
	Paused                         []string // campaigns paused by this tick
}

// Tick sends everything due now. It reads what every running campaign
// needs in a fixed number of queries, whatever their number ([Engine.read]),
// asks each campaign what is due ([campaigns.Run.Due]), and sends it.
func (e *Engine) Tick(ctx context.Context) (TickResult, error) {
	var res TickResult
	if _, err := e.sender.ReleaseStale(ctx); err != nil {
		return res, err
	}
	runs, err := e.campaigns.Running(ctx)
	if err != nil || len(runs) == 0 {
		return res, err
	}
	now := e.clock.Now()
	t, err := e.read(ctx, runs, now)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, run := range runs {
		if err := e.tickCampaign(ctx, run, t, now, &res); err != nil {
			errs = append(errs, fmt.Errorf("campaign %s: %w", run.Campaign.ID, err))
		}
	}
	return res, errors.Join(errs...)
}

func (e *Engine) tickCampaign(ctx context.Context, run campaigns.Run, t *tick, now time.Time, res *TickResult) error {
	ws, c := run.WorkspaceID, run.Campaign
	if t.stale {
		// A pause or a send earlier in this tick moved what the health says.
		if err := e.readHealth(ctx, t); err != nil {
			return err
		}
	}
	if paused, err := e.checkHealth(ctx, run, t, now); err != nil || paused {
		if paused {
			res.Paused = append(res.Paused, c.ID)
		}
		return err
	}
	if err := t.sourceErrs[ws]; err != nil {
		return err
	}
	key := campaignKey{ws, c.ID}
	due := run.Due(campaigns.DueFacts{
		Now:         now,
		Ledger:      t.ledger[key],
		Stopped:     stoppedFrom(c, run.Leads, t.replied[key]),
		Mailboxes:   t.today(run, now),
		MaxAttempts: e.cfg.MaxAttempts,
		Paced:       e.cfg.MaxGap > 0,
	})
	if due.Open == 0 {
		return e.campaigns.Finish(ctx, ws, c.ID)
	}
	if c.Status == campaigns.Scheduled && len(due.Mailboxes) > 0 {
		// Its first emails go now. (Marked here, not in the claims: they
		// run at once and hold the campaign's row for share.)
		if err := store.InTx(ctx, e.db, func(tx pgx.Tx) error { return campaigns.MarkSending(ctx, tx, ws, c.ID) }); err != nil {
			return err
		}
	}
	// Each mailbox sends over its own SMTP session, several at once. Once
	// one finds the campaign stopped (or fails), no other starts; those
	// under way hear the stop from their gate at their next email.
	var (
		mu         sync.Mutex
		errs       []error
		halted     bool
		suppressed int // leads found suppressed as they were due
		wg         sync.WaitGroup
	)
	slots := make(chan struct{}, e.cfg.Parallel)
	for _, m := range due.Mailboxes {
		acct, ok := t.accounts[mailboxKey{ws, m.Mailbox}]
		if !ok || m.Waiting {
			continue
		}
		slots <- struct{}{}
		mu.Lock()
		stopped := halted
		mu.Unlock()
		if stopped {
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			var mine TickResult
			out, err := e.sendFrom(ctx, run, acct, m.Steps, &mine)
			mu.Lock()
			defer mu.Unlock()
			res.add(mine)
			suppressed += mine.Suppressed
			t.sent(run, m.Mailbox, out)
			if err != nil {
				errs = append(errs, err)
			}
			halted = halted || out.stop || err != nil
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if due.Open == suppressed {
		// Every lead left is on the suppression list: nothing more will
		// ever go out.
		return e.campaigns.Finish(ctx, ws, c.ID)
	}
	return nil
}

func (r *TickResult) add(o TickResult) {
	r.Sent += o.Sent
	r.Held += o.Held
	r.Suppressed += o.Suppressed
	r.Failed += o.Failed
	for _, id := range o.Paused {
		if !slices.Contains(r.Paused, id) {
			r.Paused = append(r.Paused, id)
		}
	}
}

// sentFrom is what one mailbox's session did that the rest of the tick
// must know: whether the campaign must stop for now, how many steps it
// claimed that count against the mailbox's day, and the end of the gap it
// set.
type sentFrom struct {
	stop    bool
	counted int
	nextAt  *time.Time
}

// sendFrom sends list from one mailbox over one SMTP session, one at a
// time within its pace.
func (e *Engine) sendFrom(ctx context.Context, run campaigns.Run, acct mail.Account, list []campaigns.DueStep, res *TickResult) (sentFrom, error) {
	ws, c := run.WorkspaceID, run.Campaign
	var out sentFrom
	from := acct.Address
	if from.Name == "" {
		from.Name = senderName(run, from.Email)
	}
	outs := make([]Outgoing, 0, len(list))
	for _, d := range list {
		msg, email := MessageFor(run, d.Step, d.Lead, from, e.secret.UnsubscribeURL(e.cfg.PublicURL, ws, d.Lead.Email))
		if email.SameThread && len(d.Prior) > 0 {
			for _, p := range d.Prior {
				msg.References = append(msg.References, p.MessageID)
			}
			msg.InReplyTo = d.Prior[len(d.Prior)-1].MessageID
		}
		mb := acct
		mb.Address = from
		outs = append(outs, Outgoing{
			Step:    Step{WorkspaceID: ws, CampaignID: c.ID, LeadID: d.Lead.ID, Step: d.Step},
			Mailbox: mb, Message: msg,
		})
	}
	results, sendErr := e.sender.SendGated(ctx, outs, campaignGate{e, run})
	sent := 0
	for _, r := range results {
		switch {
		case r.Held != nil:
			res.Held++
			if r.Held.Pause != "" {
				if paused, err := e.pause(ctx, ws, c.ID, r.Held.Pause); err != nil {
					out.stop = true
					return out, err
				} else if paused {
					res.Paused = append(res.Paused, c.ID)
				}
			}
			if r.Held.Stop {
				out.stop = true
			}
		case r.Suppressed:
			res.Suppressed++
		case r.Duplicate:
		case r.Status == StatusSent:
			res.Sent++
			sent++
		}
		if r.Held == nil && !r.Suppressed && !r.Duplicate && r.Status != "" && r.Status != StatusFailed {
			out.counted++
		}
		if out.stop {
			break
		}
	}
	if sendErr != nil && (len(results) == 0 || (results[len(results)-1].Status != StatusFailed && results[len(results)-1].Status != StatusUnknown)) {
		out.stop = true
		return out, sendErr // the ledger could not be read or written: not a send that failed
	}
	if sendErr != nil {
		res.Failed++
		e.cfg.Logger.Warn("a send failed; the step is tried again after its back-off", "campaign", c.ID, "mailbox", acct.Address.Email, "err", sendErr)
		if err := e.backOff(ctx, ws, c.ID); err != nil {
			return out, err
		}
	}
	if sent > 0 || sendErr != nil {
		gap := e.cfg.MinGap
		if e.cfg.MaxGap > e.cfg.MinGap {
			gap += rand.N(e.cfg.MaxGap - e.cfg.MinGap)
		}
		next := e.clock.Now().Add(gap)
		if _, err := e.db.Exec(ctx, `INSERT INTO mail_mailboxes (workspace_id, mailbox, next_at) VALUES ($1, $2, $3)
			ON CONFLICT (workspace_id, mailbox) DO UPDATE SET next_at = EXCLUDED.next_at`,
			ws, strings.ToLower(acct.Address.Email), next); err != nil {
			return out, fmt.Errorf("pace mailbox %s: %w", acct.Address.Email, err)
		}
		out.nextAt = &next
	}
	return out, nil
}

// backOff gives the campaign's failed steps that have no next try yet one,
// later for each attempt: 15 minutes, then an hour, then four.
func (e *Engine) backOff(ctx context.Context, ws uuid.UUID, campaign string) error {
	_, err := e.db.Exec(ctx, `UPDATE mail_sends SET retry_at = settled_at + make_interval(mins => 15 * power(4, attempts - 1)::int)
		WHERE workspace_id = $1 AND campaign_id = $2 AND status = 'failed' AND retry_at IS NULL`, ws, campaign)
	if err != nil {
		return fmt.Errorf("back off failed sends: %w", err)
	}
	return nil
}

func senderName(run campaigns.Run, address string) string {
	for _, m := range run.Mailboxes {
		if m.Address == strings.ToLower(address) && m.SenderName != "" {
			return m.SenderName
		}
	}
	return run.Sender.Name
}

// The replies that stop a lead's sequence are anything a person wrote, an
// unsubscribe request and a hard bounce; not a reply classified as one of
// PassingClassifications (an out-of-office reply, another automatic
// answer: no person answered), nor a bounce of kind PassingBounce (soft:
// the step is tried again). The engine holds a lead's steps back by this
// rule, and the lead's story (replies) says which replies stopped it.
var PassingClassifications = []string{"out_of_office", "auto_reply"}

// PassingBounce is the kind of bounce that does not stop a lead's
// sequence; see [PassingClassifications].
const PassingBounce = "soft"

// stopping is the condition, on replies r, that a reply stops its lead's
// sequence, with [PassingClassifications] in parameter $n and
// [PassingBounce] in $n+1.
func stopping(n int) string {
	return fmt.Sprintf(`r.classification <> ALL($%d::text[]) AND r.bounce IS DISTINCT FROM $%d::text`, n, n+1)
}

// campaignGate is the last word on a campaign's sends, in the
// transaction that claims them.
type campaignGate struct {
	e   *Engine
	run campaigns.Run
}

// Check holds every step back when the campaign is no longer running or
// the mailbox is paused, and a step whose lead (or, when the campaign
// says so, whose company) replied.
func (g campaignGate) Check(ctx context.Context, tx pgx.Tx, outs []Outgoing) ([]*Held, error) {
	ws, c := g.run.WorkspaceID, g.run.Campaign
	holds := make([]*Held, len(outs))
	all := func(h *Held) ([]*Held, error) {
		for i := range holds {
			holds[i] = h
		}
		return holds, nil
	}
	ok, err := campaigns.SendAllowed(ctx, tx, ws, c.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return all(&Held{Reason: "the campaign is not running any more", Stop: true})
	}
	var pausedReason *string
	err = tx.QueryRow(ctx, `SELECT paused_reason FROM mail_mailboxes WHERE workspace_id = $1 AND mailbox = $2 FOR SHARE`,
		ws, strings.ToLower(outs[0].Mailbox.Address.Email)).Scan(&pausedReason)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read the mailbox's health: %w", err)
	}
	if pausedReason != nil {
		return all(&Held{Reason: "the mailbox is paused: " + *pausedReason, Stop: true})
	}
	leads, domains := make([]int64, len(outs)), make([]string, 0, len(outs))
	for i, o := range outs {
		leads[i] = o.LeadID
		if d := mail.CompanyDomain(o.Message.To.Email); d != "" {
			domains = append(domains, d)
		}
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT r.lead_id, lower(split_part(s.recipient, '@', 2)) FROM mail_replies r
		JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
		WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND `+stopping(6)+`
		  AND (r.lead_id = ANY($3) OR ($4 AND lower(split_part(s.recipient, '@', 2)) = ANY($5)))`,
		ws, c.ID, leads, c.Schedule.StopForCompany, domains, PassingClassifications, PassingBounce)
	if err != nil {
		return nil, fmt.Errorf("read the leads' replies: %w", err)
	}
	repliedLeads, repliedDomains := map[int64]bool{}, map[string]bool{}
	var lead int64
	var domain string
	if _, err := pgx.ForEachRow(rows, []any{&lead, &domain}, func() error {
		repliedLeads[lead], repliedDomains[domain] = true, true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the leads' replies: %w", err)
	}
	// A lead a person removed since the tick read the campaign's leads
	// gets nothing more.
	removed, err := campaigns.RemovedLeads(ctx, tx, ws, c.ID, leads)
	if err != nil {
		return nil, err
	}
	for i, o := range outs {
		d := mail.CompanyDomain(o.Message.To.Email)
		switch {
		case repliedLeads[o.LeadID] || (c.Schedule.StopForCompany && d != "" && repliedDomains[d]):
			holds[i] = &Held{Reason: "the lead (or their company) replied"}
		case removed[o.LeadID]:
			holds[i] = &Held{Reason: "a person removed the lead"}
		}
	}
	return holds, nil
}

// Stopped is the campaigns' own rule: a campaign no longer scheduled or
// sending sends nothing more, read with its row locked for share.
func (campaignGate) Stopped(ctx context.Context, tx pgx.Tx, ws uuid.UUID, ids []string) (map[string]bool, error) {
	return campaigns.StoppedCampaigns(ctx, tx, ws, ids)
}

// Removed is the campaigns' own rule: a lead a person removed gets no
// step, read with its row locked for share.
func (campaignGate) Removed(ctx context.Context, tx pgx.Tx, ws uuid.UUID, pairs []campaigns.CampaignLead) (map[campaigns.CampaignLead]bool, error) {
	return campaigns.RemovedFrom(ctx, tx, ws, pairs)
}

// Claimed counts the steps claimed against the plan's monthly emails (a
// refusal pauses the campaign, with the limit as the reason).
func (g campaignGate) Claimed(ctx context.Context, tx pgx.Tx, outs []Outgoing) error {
	ws := g.run.WorkspaceID
	if g.e.usage != nil {
		if err := g.e.usage.UseEmails(ctx, tx, ws, len(outs)); err != nil {
			if vibesell.ErrorCode(err) == vibesell.EPAYMENTREQUIRED {
				return &Held{Reason: vibesell.ErrorMessage(err), Stop: true, Pause: "The plan's monthly emails are used up: " + vibesell.ErrorMessage(err)}
			}
			return err
		}
	}
	return nil
}

// pause pauses the campaign automatically for reason.
func (e *Engine) pause(ctx context.Context, ws uuid.UUID, campaign, reason string) (bool, error) {
	var paused bool
	err := store.InTx(ctx, e.db, func(tx pgx.Tx) error {
		var err error
		if paused, err = campaigns.PauseInTx(ctx, tx, ws, campaign, reason, e.clock.Now()); err != nil || !paused {
			return err
		}
		return e.cfg.Webhooks.Emit(ctx, tx, ws, webhooks.CampaignPaused(campaign, reason))
	})
	if paused {
		e.cfg.Logger.Warn("paused a campaign", "campaign", campaign, "reason", reason)
	}
	return paused, err
}

// restartBounceWindow counts a campaign paused for bouncing afresh from
// now: once a person resumes it, only its sends after the pause count.
func restartBounceWindow(ctx context.Context, tx pgx.Tx, ws uuid.UUID, campaign string, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO mail_campaign_health (workspace_id, campaign_id, window_from) VALUES ($1, $2, $3)
		ON CONFLICT (workspace_id, campaign_id) DO UPDATE SET window_from = EXCLUDED.window_from`, ws, campaign, now)
	if err != nil {
		return fmt.Errorf("restart the bounce window of campaign %s: %w", campaign, err)
	}
	return nil
}
