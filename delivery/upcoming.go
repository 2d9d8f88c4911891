package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/campaigns"
)

// What a person watching a campaign reads of what comes next: mailbox by
// mailbox, the next few emails (who, which step, from when), worked out
// by the schedule the engine sends by ([campaigns.Run.Due]) from the
// same facts, read forward. With a gap of minutes between a mailbox's
// emails, a launched campaign otherwise looks stalled.

// RunReader reads one campaign as the engine reads a running one.
type RunReader interface {
	RunOf(ctx context.Context, ws uuid.UUID, id string) (campaigns.Run, error)
}

// Upcoming works out a campaign's next emails.
type Upcoming struct {
	db             *pgxpool.Pool
	campaigns      RunReader
	clock          vibesell.Clock
	minGap, maxGap time.Duration
	maxAttempts    int
}

// UpcomingDeps is what works out the next emails needs: the campaigns'
// runs, and the engine's configuration (its gaps and tries).
type UpcomingDeps struct {
	DB        *pgxpool.Pool
	Campaigns RunReader
	Clock     vibesell.Clock
	Config    EngineConfig
}

// NewUpcoming returns what works out the next emails of the campaigns
// the engine configured by d.Config sends.
func NewUpcoming(d UpcomingDeps) *Upcoming {
	db, camps, clock, cfg := d.DB, d.Campaigns, d.Clock, d.Config
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	if !cfg.NoGap && cfg.MaxGap <= 0 {
		cfg.MinGap, cfg.MaxGap = 2*time.Minute, 6*time.Minute
	}
	if cfg.MaxGap < cfg.MinGap {
		cfg.MaxGap = cfg.MinGap
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = Tries
	}
	return &Upcoming{db: db, campaigns: camps, clock: clock, minGap: cfg.MinGap, maxGap: cfg.MaxGap, maxAttempts: cfg.MaxAttempts}
}

// NextEmail is one email a mailbox sends next.
type NextEmail struct {
	Lead vibesell.Lead
	Step int
	// At is the earliest it goes: the gaps between a mailbox's emails are
	// random, so the later ones may go some minutes after.
	At time.Time
}

// MailboxNext is what one mailbox of the campaign sends next.
type MailboxNext struct {
	Mailbox string
	Emails  []NextEmail
	// Held says, for a person, why the mailbox sends none of them; "" when
	// nothing holds it.
	Held string
}

// NextEmails is what a campaign sends next.
type NextEmails struct {
	// Running says the campaign is scheduled or sending; nothing comes
	// otherwise, and the rest is empty.
	Running bool
	// Now is the moment it was worked out at.
	Now time.Time
	// Waiting is when the next email goes, when none is due now: the
	// window opens then, or a follow-up falls due. Nil when emails are
	// due now (a mailbox's gap may still hold them a few minutes) or none
	// is to come.
	Waiting *time.Time
	// Done says no lead has a step to come.
	Done bool
	// MinGap and MaxGap bound the gap after each email of a mailbox.
	MinGap, MaxGap time.Duration
	Mailboxes      []MailboxNext
}

// Next works out, for each mailbox of campaign id, its next emails, up to
// perMailbox of them, over the next days at most. Refusals: ENOTFOUND.
func (u *Upcoming) Next(ctx context.Context, ws uuid.UUID, id string, perMailbox int) (NextEmails, error) {
	run, err := u.campaigns.RunOf(ctx, ws, id)
	if err != nil {
		return NextEmails{}, err
	}
	now := u.clock.Now()
	out := NextEmails{Now: now, MinGap: u.minGap, MaxGap: u.maxGap}
	c := run.Campaign
	if c.Status != campaigns.Scheduled && c.Status != campaigns.Sending {
		return out, nil
	}
	out.Running = true
	key := campaignKey{ws, c.ID}
	ledgers, err := readLedgers(ctx, u.db, []campaignKey{key})
	if err != nil {
		return NextEmails{}, err
	}
	replied, err := readReplied(ctx, u.db, []campaignKey{key})
	if err != nil {
		return NextEmails{}, err
	}
	counts, err := readSentToday(ctx, u.db, []campaigns.Run{run}, now)
	if err != nil {
		return NextEmails{}, err
	}
	states, err := u.mailboxStates(ctx, ws, c.Mailboxes)
	if err != nil {
		return NextEmails{}, err
	}
	// The facts as the engine's tick would read them, copied: the plan
	// below writes its own emails into them as it goes.
	ledger := map[int64][]campaigns.SendRecord{}
	for lead, rows := range ledgers[key] {
		ledger[lead] = append([]campaigns.SendRecord(nil), rows...)
	}
	today := map[string]campaigns.MailboxToday{}
	held := map[string]string{}
	for _, a := range c.Mailboxes {
		st := states[a]
		mt := campaigns.MailboxToday{Reachable: !st.paused, NextAt: st.nextAt}
		if k := counts[mailboxKey{ws, a}]; k != nil {
			mt.SentByCampaign, mt.SentAll = k.byCampaign[c.ID], k.all
		}
		today[a] = mt
		switch i := indexOfMailbox(run.Mailboxes, a); {
		case i < 0:
			held[a] = "It is no longer among the workspace's mailboxes."
		case st.paused:
			held[a] = "It is paused for its bounces or complaints."
		case run.Mailboxes[i].DailyLimit <= 0:
			held[a] = "It may not send at its warmup stage yet."
		}
	}
	f := campaigns.DueFacts{Now: now, Ledger: ledger, Stopped: stoppedFrom(c, run.Leads, replied[key]), Mailboxes: today, MaxAttempts: u.maxAttempts}
	plan := map[string][]NextEmail{}
	dueNow := false
	full := func() bool {
		for _, a := range c.Mailboxes {
			if held[a] == "" && len(plan[a]) < perMailbox {
				return false
			}
		}
		return true
	}
	loc := run.WorkspaceLocation()
	day := func(t time.Time) time.Time { y, m, d := t.In(loc).Date(); return time.Date(y, m, d, 0, 0, 0, 0, loc) }
	horizon := now.AddDate(0, 0, 14)
	for round := 0; round < 4*perMailbox+8 && !full() && f.Now.Before(horizon); round++ {
		// Unpaced: every step the mailboxes' room lets go then, which the
		// engine sends one a gap apart.
		due := run.Due(f)
		if due.Open == 0 {
			out.Done = round == 0
			break
		}
		if round == 0 {
			dueNow = len(due.Mailboxes) > 0
		}
		for _, m := range due.Mailboxes {
			at := f.Now
			if last := plan[m.Mailbox]; len(last) > 0 {
				at = later(at, last[len(last)-1].At.Add(u.minGap))
			} else {
				at = later(at, f.Mailboxes[m.Mailbox].NextAt)
			}
			mt := f.Mailboxes[m.Mailbox]
			for _, d := range m.Steps {
				if len(plan[m.Mailbox]) >= perMailbox {
					break
				}
				plan[m.Mailbox] = append(plan[m.Mailbox], NextEmail{Lead: d.Lead, Step: d.Step, At: at})
				f.Ledger[d.Lead.ID] = append(f.Ledger[d.Lead.ID], campaigns.SendRecord{Step: d.Step, ClaimedAt: at, Mailbox: m.Mailbox})
				mt.SentByCampaign++
				mt.SentAll++
				at = at.Add(u.minGap)
			}
			f.Mailboxes[m.Mailbox] = mt
		}
		next, ok := run.NextDueAt(f)
		if !ok {
			break
		}
		if !next.After(f.Now) {
			// Due already, yet nothing more fitted: the mailboxes' room
			// for the day is spent; the next day brings more.
			next = day(f.Now).AddDate(0, 0, 1)
			if n, ok := run.NextDueAt(campaigns.DueFacts{Now: next, Ledger: f.Ledger, Stopped: f.Stopped, MaxAttempts: f.MaxAttempts}); ok {
				next = n
			}
		}
		if !day(next).Equal(day(f.Now)) {
			for a, mt := range f.Mailboxes {
				mt.SentByCampaign, mt.SentAll = 0, 0
				f.Mailboxes[a] = mt
			}
		}
		f.Now = next
	}
	first := time.Time{}
	for _, a := range c.Mailboxes {
		mn := MailboxNext{Mailbox: a, Emails: plan[a], Held: held[a]}
		if len(mn.Emails) > 0 && (first.IsZero() || mn.Emails[0].At.Before(first)) {
			first = mn.Emails[0].At
		}
		out.Mailboxes = append(out.Mailboxes, mn)
	}
	if !dueNow && !first.IsZero() && first.After(now) {
		out.Waiting = &first
	}
	return out, nil
}

// mailboxStates reads the pause and pace of the campaign's mailboxes.
func (u *Upcoming) mailboxStates(ctx context.Context, ws uuid.UUID, addresses []string) (map[string]mailboxState, error) {
	rows, err := u.db.Query(ctx, `SELECT mailbox, paused_reason IS NOT NULL, next_at FROM mail_mailboxes WHERE workspace_id = $1 AND mailbox = ANY($2)`, ws, addresses)
	if err != nil {
		return nil, fmt.Errorf("read the mailboxes' pace: %w", err)
	}
	out := map[string]mailboxState{}
	var a string
	var st mailboxState
	if _, err := pgx.ForEachRow(rows, []any{&a, &st.paused, &st.nextAt}, func() error {
		out[a] = st
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the mailboxes' pace: %w", err)
	}
	return out, nil
}

func indexOfMailbox(all []campaigns.Mailbox, address string) int {
	for i, m := range all {
		if m.Address == address {
			return i
		}
	}
	return -1
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
