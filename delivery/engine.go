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
)

// The engine sends what running campaigns have due. Each tick it reads
// every running campaign, works out which (lead, step) pairs are due now
// (the first step once launched, each follow-up its business days after
// the step before, only inside the campaign's window and days in the
// lead's time zone), hands each to a mailbox (a lead keeps the mailbox of
// its first email; a new lead goes to the mailbox with the most room
// today), and sends them through [Dispatcher], mailbox by mailbox over one
// SMTP session, within each mailbox's daily caps and pace. The last word
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
	// Parallel is how many mailboxes send at once; default 4.
	Parallel int
	// MaxAttempts is how many times a step is tried (a failure before the
	// message was handed over, a soft bounce); default [Tries].
	MaxAttempts int
	Logger      *slog.Logger
}

// Engine schedules and sends the campaigns' emails.
type Engine struct {
	db        *pgxpool.Pool
	sender    *Dispatcher
	sources   mailboxes.MailboxSource
	campaigns Campaigns
	usage     Usage
	secret    mail.Secret
	clock     vibesell.Clock
	cfg       EngineConfig
}

// NewEngine returns the engine. usage may be nil (nothing is counted).
func NewEngine(db *pgxpool.Pool, sender *Dispatcher, sources mailboxes.MailboxSource, camps Campaigns, usage Usage, secret mail.Secret, clock vibesell.Clock, cfg EngineConfig) *Engine {
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
		cfg.Parallel = 4
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = Tries
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{db: db, sender: sender, sources: sources, campaigns: camps, usage: usage, secret: secret, clock: clock, cfg: cfg}
}

// TickResult counts what one tick did.
type TickResult struct {
	Sent, Held, Suppressed, Failed int
	Paused                         []string // campaigns paused by this tick
}

// Tick sends everything due now.
func (e *Engine) Tick(ctx context.Context) (TickResult, error) {
	var res TickResult
	if _, err := e.sender.ReleaseStale(ctx); err != nil {
		return res, err
	}
	runs, err := e.campaigns.Running(ctx)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, run := range runs {
		if err := e.tickCampaign(ctx, run, &res); err != nil {
			errs = append(errs, fmt.Errorf("campaign %s: %w", run.Campaign.ID, err))
		}
	}
	return res, errors.Join(errs...)
}

// ledgerRow is one step of one lead as the ledger has it.
type ledgerRow struct {
	step      int
	status    string
	claimedAt time.Time
	mailbox   string
	messageID string
	retryAt   *time.Time
	attempts  int
}

// due is one (lead, step) the engine may send now.
type due struct {
	lead    vibesell.Lead
	step    int
	mailbox string // "" until assigned
	prior   []ledgerRow
}

// mailboxDay is a mailbox's room for this campaign now.
type mailboxDay struct {
	mb       mail.Account
	room     int // emails it may still send today for this campaign
	nextAt   time.Time
	sentHere int
}

func (e *Engine) tickCampaign(ctx context.Context, run campaigns.Run, res *TickResult) error {
	now := e.clock.Now()
	ws, c := run.WorkspaceID, run.Campaign
	if paused, err := e.checkHealth(ctx, run, now); err != nil || paused {
		if paused {
			res.Paused = append(res.Paused, c.ID)
		}
		return err
	}
	ledger, err := e.ledger(ctx, ws, c.ID)
	if err != nil {
		return err
	}
	stopped, err := e.stoppedLeads(ctx, run)
	if err != nil {
		return err
	}
	days, err := e.mailboxDays(ctx, run, now)
	if err != nil {
		return err
	}

	var dues []due
	open := 0 // leads with a step still to come
	for _, l := range run.Leads {
		if stopped[l.ID] {
			continue
		}
		d, pending := e.next(run, l, ledger[l.ID], now)
		if pending {
			open++
		}
		if d != nil {
			dues = append(dues, *d)
		}
	}
	if open == 0 {
		return e.campaigns.Finish(ctx, ws, c.ID)
	}
	// Follow-ups first (they keep their mailbox and their day), then new
	// leads in their order.
	slices.SortStableFunc(dues, func(a, b due) int { return b.step - a.step })

	// Assign: a lead keeps its mailbox; a new lead takes the mailbox with
	// the most room left after what is assigned already.
	perMailbox := map[string][]due{}
	for _, d := range dues {
		if d.mailbox == "" {
			best := ""
			for _, a := range c.Mailboxes {
				md := days[a]
				if md == nil || md.room-len(perMailbox[a]) <= 0 {
					continue
				}
				if best == "" || md.room-len(perMailbox[a]) > days[best].room-len(perMailbox[best]) {
					best = a
				}
			}
			if best == "" {
				continue
			}
			d.mailbox = best
		}
		md := days[d.mailbox]
		if md == nil || len(perMailbox[d.mailbox]) >= md.room {
			continue
		}
		perMailbox[d.mailbox] = append(perMailbox[d.mailbox], d)
	}

	if c.Status == campaigns.Scheduled && len(perMailbox) > 0 {
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
	for _, a := range c.Mailboxes {
		list, md := perMailbox[a], days[a]
		if len(list) == 0 || md == nil {
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
			halt, err := e.sendFrom(ctx, run, md, list, now, &mine)
			mu.Lock()
			defer mu.Unlock()
			res.add(mine)
			suppressed += mine.Suppressed
			if err != nil {
				errs = append(errs, err)
			}
			halted = halted || halt || err != nil
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if open == suppressed {
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

// next works out lead l's due step now, if any, and whether the lead has a
// step still to come at all.
func (e *Engine) next(run campaigns.Run, l vibesell.Lead, rows []ledgerRow, now time.Time) (*due, bool) {
	loc := run.Location(l)
	steps := len(run.Sequence.Steps)
	mailbox := ""
	if len(rows) > 0 {
		mailbox = rows[0].mailbox
	}
	// A failed step is tried again after its back-off, up to MaxAttempts.
	for _, r := range rows {
		if r.status != StatusFailed {
			continue
		}
		if r.attempts >= e.cfg.MaxAttempts {
			return nil, false
		}
		if r.retryAt != nil && now.Before(*r.retryAt) || !run.InWindow(now, loc) {
			return nil, true
		}
		return &due{lead: l, step: r.step, mailbox: mailbox, prior: before(rows, r.step)}, true
	}
	last := 0
	var lastAt time.Time
	if len(rows) > 0 {
		last, lastAt = rows[len(rows)-1].step, rows[len(rows)-1].claimedAt
	}
	if last >= steps {
		return nil, false
	}
	step := last + 1
	var at time.Time
	if step == 1 {
		if run.Campaign.FirstSendAt != nil {
			at = *run.Campaign.FirstSendAt
		}
	} else {
		at = run.Due(step, lastAt, loc)
	}
	if now.Before(at) || !run.InWindow(now, loc) {
		return nil, true
	}
	if len(run.Email(step, l).Unresolved) > 0 {
		return nil, false // launch refuses this; never send an email with a hole
	}
	return &due{lead: l, step: step, mailbox: mailbox, prior: rows}, true
}

func before(rows []ledgerRow, step int) []ledgerRow {
	var out []ledgerRow
	for _, r := range rows {
		if r.step < step {
			out = append(out, r)
		}
	}
	return out
}

// sendFrom sends list from one mailbox over one SMTP session, one at a
// time within its pace, and says whether the campaign must stop for now.
func (e *Engine) sendFrom(ctx context.Context, run campaigns.Run, md *mailboxDay, list []due, now time.Time, res *TickResult) (bool, error) {
	ws, c := run.WorkspaceID, run.Campaign
	if now.Before(md.nextAt) {
		return false, nil
	}
	if e.cfg.MaxGap > 0 {
		list = list[:1] // one email a tick from a paced mailbox: the gap follows it
	}
	from := md.mb.Address
	if from.Name == "" {
		from.Name = senderName(run, from.Email)
	}
	outs := make([]Outgoing, 0, len(list))
	for _, d := range list {
		msg, email := MessageFor(run, d.step, d.lead, from, e.secret.UnsubscribeURL(e.cfg.PublicURL, ws, d.lead.Email))
		if email.SameThread && len(d.prior) > 0 {
			for _, p := range d.prior {
				msg.References = append(msg.References, p.messageID)
			}
			msg.InReplyTo = d.prior[len(d.prior)-1].messageID
		}
		mb := md.mb
		mb.Address = from
		outs = append(outs, Outgoing{
			Step:    Step{WorkspaceID: ws, CampaignID: c.ID, LeadID: d.lead.ID, Step: d.step},
			Mailbox: mb, Message: msg,
		})
	}
	results, sendErr := e.sender.SendGated(ctx, outs, campaignGate{e, run})
	stop := false
	sent := 0
	for _, r := range results {
		switch {
		case r.Held != nil:
			res.Held++
			if r.Held.Pause != "" {
				if paused, err := e.pause(ctx, ws, c.ID, r.Held.Pause); err != nil {
					return true, err
				} else if paused {
					res.Paused = append(res.Paused, c.ID)
				}
			}
			if r.Held.Stop {
				stop = true
			}
		case r.Suppressed:
			res.Suppressed++
		case r.Duplicate:
		case r.Status == StatusSent:
			res.Sent++
			sent++
		}
		if stop {
			break
		}
	}
	if sendErr != nil && (len(results) == 0 || (results[len(results)-1].Status != StatusFailed && results[len(results)-1].Status != StatusUnknown)) {
		return true, sendErr // the ledger could not be read or written: not a send that failed
	}
	if sendErr != nil {
		res.Failed++
		e.cfg.Logger.Warn("a send failed; the step is tried again after its back-off", "campaign", c.ID, "mailbox", md.mb.Address.Email, "err", sendErr)
		if err := e.backOff(ctx, ws, c.ID); err != nil {
			return stop, err
		}
	}
	if sent > 0 || sendErr != nil {
		gap := e.cfg.MinGap
		if e.cfg.MaxGap > e.cfg.MinGap {
			gap += rand.N(e.cfg.MaxGap - e.cfg.MinGap)
		}
		if _, err := e.db.Exec(ctx, `INSERT INTO mail_mailboxes (workspace_id, mailbox, next_at) VALUES ($1, $2, $3)
			ON CONFLICT (workspace_id, mailbox) DO UPDATE SET next_at = EXCLUDED.next_at`,
			ws, strings.ToLower(md.mb.Address.Email), e.clock.Now().Add(gap)); err != nil {
			return stop, fmt.Errorf("pace mailbox %s: %w", md.mb.Address.Email, err)
		}
	}
	return stop, nil
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

// stopping is the replies that stop a lead's sequence: anything a person
// wrote, an unsubscribe request and a hard bounce; not an out-of-office
// reply nor another automatic answer (no person answered), nor a soft
// bounce (the step is tried again).
const stopping = `r.classification NOT IN ('out_of_office', 'auto_reply') AND r.bounce IS DISTINCT FROM 'soft'`

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
		WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND `+stopping+`
		  AND (r.lead_id = ANY($3) OR ($4 AND lower(split_part(s.recipient, '@', 2)) = ANY($5)))`,
		ws, c.ID, leads, c.Schedule.StopForCompany, domains)
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

func (e *Engine) ledger(ctx context.Context, ws uuid.UUID, campaign string) (map[int64][]ledgerRow, error) {
	return readLedger(ctx, e.db, ws, campaign)
}

// readLedger reads a campaign's ledger, each lead's steps in order: what
// the engine works from and what [Tallies.CampaignProgress] reports.
func readLedger(ctx context.Context, db *pgxpool.Pool, ws uuid.UUID, campaign string) (map[int64][]ledgerRow, error) {
	rows, err := db.Query(ctx, `SELECT lead_id, step, status, claimed_at, mailbox, message_id, retry_at, attempts
		FROM mail_sends WHERE workspace_id = $1 AND campaign_id = $2 ORDER BY lead_id, step`, ws, campaign)
	if err != nil {
		return nil, fmt.Errorf("read the ledger: %w", err)
	}
	out := map[int64][]ledgerRow{}
	var lead int64
	var r ledgerRow
	_, err = pgx.ForEachRow(rows, []any{&lead, &r.step, &r.status, &r.claimedAt, &r.mailbox, &r.messageID, &r.retryAt, &r.attempts}, func() error {
		out[lead] = append(out[lead], r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the ledger: %w", err)
	}
	return out, nil
}

// stoppedLeads are the campaign's leads a reply stopped (with their whole
// company when the campaign says so).
func (e *Engine) stoppedLeads(ctx context.Context, run campaigns.Run) (map[int64]bool, error) {
	return stoppedIn(ctx, e.db, run.WorkspaceID, run.Campaign, run.Leads)
}

// stoppedIn are the leads of campaign c a reply stopped (with their whole
// company when the campaign says so).
func stoppedIn(ctx context.Context, db *pgxpool.Pool, ws uuid.UUID, c campaigns.Campaign, leads []vibesell.Lead) (map[int64]bool, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT r.lead_id, lower(split_part(s.recipient, '@', 2)) FROM mail_replies r
		JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
		WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND `+stopping, ws, c.ID)
	if err != nil {
		return nil, fmt.Errorf("read the replies: %w", err)
	}
	out := map[int64]bool{}
	domains := map[string]bool{}
	var lead int64
	var domain string
	if _, err := pgx.ForEachRow(rows, []any{&lead, &domain}, func() error {
		out[lead] = true
		if !mail.Freemail(domain) {
			domains[domain] = true
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the replies: %w", err)
	}
	if c.Schedule.StopForCompany && len(domains) > 0 {
		for _, l := range leads {
			if d := mail.CompanyDomain(l.Email); d != "" && domains[d] {
				out[l.ID] = true
			}
		}
	}
	return out, nil
}

// mailboxDays reads, for each of the campaign's mailboxes that can send
// now, its endpoints, its pace and its room today: the campaign's daily
// cap less what the campaign sent from it today, and never more than its
// warmup stage allows less what it sent today for any campaign. The day is
// the workspace's.
func (e *Engine) mailboxDays(ctx context.Context, run campaigns.Run, now time.Time) (map[string]*mailboxDay, error) {
	ws, c := run.WorkspaceID, run.Campaign
	all, err := e.sources.Mailboxes(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("read the mailboxes' endpoints: %w", err)
	}
	out := map[string]*mailboxDay{}
	for _, a := range c.Mailboxes {
		i := slices.IndexFunc(all, func(m mailboxes.WorkspaceMailbox) bool { return strings.EqualFold(m.Address.Email, a) })
		j := slices.IndexFunc(run.Mailboxes, func(m campaigns.Mailbox) bool { return m.Address == a })
		if i < 0 || j < 0 || run.Mailboxes[j].DailyLimit <= 0 {
			continue // not reachable, gone from the setup, or not allowed to send at its warmup stage
		}
		out[a] = &mailboxDay{mb: all[i].Account, room: min(c.Schedule.DailyCap, run.Mailboxes[j].DailyLimit)}
	}
	if len(out) == 0 {
		return out, nil
	}
	y, m, d := now.In(run.WorkspaceLocation()).Date()
	dayStart := time.Date(y, m, d, 0, 0, 0, 0, run.WorkspaceLocation())
	rows, err := e.db.Query(ctx, `SELECT mailbox, count(*) FILTER (WHERE campaign_id = $3), count(*) FROM mail_sends
		WHERE workspace_id = $1 AND mailbox = ANY($2) AND claimed_at >= $4 AND status <> 'failed' GROUP BY mailbox`,
		ws, c.Mailboxes, c.ID, dayStart)
	if err != nil {
		return nil, fmt.Errorf("count today's sends: %w", err)
	}
	var mailbox string
	var here, total int
	if _, err := pgx.ForEachRow(rows, []any{&mailbox, &here, &total}, func() error {
		md := out[mailbox]
		if md == nil {
			return nil
		}
		j := slices.IndexFunc(run.Mailboxes, func(m campaigns.Mailbox) bool { return m.Address == mailbox })
		md.room = max(0, min(c.Schedule.DailyCap-here, run.Mailboxes[j].DailyLimit-total))
		md.sentHere = here
		return nil
	}); err != nil {
		return nil, fmt.Errorf("count today's sends: %w", err)
	}
	rows, err = e.db.Query(ctx, `SELECT mailbox, next_at FROM mail_mailboxes WHERE workspace_id = $1 AND mailbox = ANY($2)`, ws, c.Mailboxes)
	if err != nil {
		return nil, fmt.Errorf("read the mailboxes' pace: %w", err)
	}
	var next time.Time
	if _, err := pgx.ForEachRow(rows, []any{&mailbox, &next}, func() error {
		if md := out[mailbox]; md != nil {
			md.nextAt = next
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the mailboxes' pace: %w", err)
	}
	return out, nil
}

// pause pauses the campaign automatically for reason.
func (e *Engine) pause(ctx context.Context, ws uuid.UUID, campaign, reason string) (bool, error) {
	var paused bool
	err := store.InTx(ctx, e.db, func(tx pgx.Tx) error {
		var err error
		paused, err = campaigns.PauseInTx(ctx, tx, ws, campaign, reason, e.clock.Now())
		return err
	})
	if paused {
		e.cfg.Logger.Warn("paused a campaign", "campaign", campaign, "reason", reason)
	}
	return paused, err
}

// checkHealth pauses what bounces too much before anything is sent: each
// of the campaign's mailboxes over its latest sends (pausing every
// campaign that sends from it), and the campaign over its own. A mailbox
// paused before that sends for a running campaign again was resumed by a
// person (only a person resumes an automatic pause, or launches a
// campaign): its pause ends and its bounce rate is counted afresh.
func (e *Engine) checkHealth(ctx context.Context, run campaigns.Run, now time.Time) (bool, error) {
	ws, c := run.WorkspaceID, run.Campaign
	type state struct {
		paused     bool
		windowFrom time.Time
	}
	states := map[string]state{}
	rows, err := e.db.Query(ctx, `SELECT mailbox, paused_reason IS NOT NULL, coalesce(window_from, 'epoch'::timestamptz) FROM mail_mailboxes
		WHERE workspace_id = $1 AND mailbox = ANY($2)`, ws, c.Mailboxes)
	if err != nil {
		return false, fmt.Errorf("read the mailboxes' health: %w", err)
	}
	var mailbox string
	var st state
	if _, err := pgx.ForEachRow(rows, []any{&mailbox, &st.paused, &st.windowFrom}, func() error {
		states[mailbox] = st
		return nil
	}); err != nil {
		return false, fmt.Errorf("read the mailboxes' health: %w", err)
	}
	var campaignFrom time.Time
	err = e.db.QueryRow(ctx, `SELECT coalesce((SELECT window_from FROM mail_campaign_health WHERE workspace_id = $1 AND campaign_id = $2), 'epoch'::timestamptz)`,
		ws, c.ID).Scan(&campaignFrom)
	if err != nil {
		return false, fmt.Errorf("read the campaign's health: %w", err)
	}
	for _, a := range c.Mailboxes {
		st := states[a]
		if st.paused {
			var running bool
			err := store.InTx(ctx, e.db, func(tx pgx.Tx) error {
				var err error
				if running, err = campaigns.SendAllowed(ctx, tx, ws, c.ID); err != nil || !running {
					return err
				}
				_, err = tx.Exec(ctx, `UPDATE mail_mailboxes SET paused_reason = NULL, paused_at = NULL, window_from = $3
					WHERE workspace_id = $1 AND mailbox = $2`, ws, a, now)
				return err
			})
			if err != nil || !running {
				return !running, err
			}
			st.windowFrom = now
		}
		h, err := bounceHealth(ctx, e.db, ws, "mailbox", a, st.windowFrom, limits{e.cfg.BounceLimit, e.cfg.ComplaintLimit}, "sent from "+a)
		if err != nil {
			return false, err
		}
		if !h.OverLimit {
			continue
		}
		reason := "VibeSell paused mailbox " + a + " for its " + h.Why + ": " + h.Reason
		var paused []string
		err = store.InTx(ctx, e.db, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO mail_mailboxes (workspace_id, mailbox, next_at, paused_reason, paused_at) VALUES ($1, $2, $3, $4, $3)
				ON CONFLICT (workspace_id, mailbox) DO UPDATE SET paused_reason = EXCLUDED.paused_reason, paused_at = EXCLUDED.paused_at`,
				ws, a, now, reason); err != nil {
				return fmt.Errorf("pause mailbox %s: %w", a, err)
			}
			var err error
			if paused, err = campaigns.PauseUsing(ctx, tx, ws, a, reason, now); err != nil {
				return err
			}
			for _, id := range paused {
				if err := restartBounceWindow(ctx, tx, ws, id, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return false, err
		}
		e.cfg.Logger.Warn("paused a mailbox for its "+h.Why+", and the campaigns sending from it", "mailbox", a, "campaigns", paused)
		return true, nil
	}
	h, err := bounceHealth(ctx, e.db, ws, "campaign_id", c.ID, campaignFrom, limits{e.cfg.BounceLimit, e.cfg.ComplaintLimit}, "of this campaign")
	if err != nil || !h.OverLimit {
		return false, err
	}
	var paused bool
	err = store.InTx(ctx, e.db, func(tx pgx.Tx) error {
		var err error
		if paused, err = campaigns.PauseInTx(ctx, tx, ws, c.ID, "VibeSell paused the campaign for its "+h.Why+": "+h.Reason, now); err != nil {
			return err
		}
		return restartBounceWindow(ctx, tx, ws, c.ID, now)
	})
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
