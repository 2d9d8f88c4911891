package delivery

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/mail"
	"vibesell/store"
	"vibesell/webhooks"
)

// What a tick reads before it sends: every running campaign's ledger, the
// replies that stop its leads, its mailboxes' endpoints, today's sends
// and pace, and the bounce health of its mailboxes and of itself, each in
// one query across all the campaigns (the endpoints once per workspace).
// What the tick's own sends change (a mailbox's count today, its gap) is
// kept up to date as it goes; after a pause or a send, the next campaign
// reads the health again (three queries).

type campaignKey struct {
	ws uuid.UUID
	id string
}

type mailboxKey struct {
	ws      uuid.UUID
	address string // lower case
}

func mailboxOf(ws uuid.UUID, address string) mailboxKey {
	return mailboxKey{ws, strings.ToLower(address)}
}

// healthKey names a mailbox's or a campaign's bounce health.
type healthKey struct {
	kind string // "mailbox" or "campaign"
	ws   uuid.UUID
	key  string
}

// repliedLead is a lead whose reply stops it, and its address's domain.
type repliedLead struct {
	lead   int64
	domain string
}

// mailboxState is a mailbox's row in mail_mailboxes: paused, counted for
// bounces from windowFrom, and its gap ending at nextAt.
type mailboxState struct {
	paused     bool
	windowFrom time.Time
	nextAt     time.Time
}

// sentToday is what a mailbox sent today, by campaign and in all.
type sentToday struct {
	byCampaign map[string]int
	all        int
}

// tick is what one tick read, for every running campaign.
type tick struct {
	runs         []campaigns.Run
	ledger       map[campaignKey]map[int64][]campaigns.SendRecord
	replied      map[campaignKey][]repliedLead
	accounts     map[mailboxKey]mail.Account
	sourceErrs   map[uuid.UUID]error
	counts       map[mailboxKey]*sentToday
	mailboxes    map[mailboxKey]mailboxState
	campaignFrom map[campaignKey]time.Time
	health       map[healthKey]BounceHealth
	// stale says a pause changed the health since it was read.
	stale bool
}

// read reads what the running campaigns need at now.
func (e *Engine) read(ctx context.Context, runs []campaigns.Run, now time.Time) (*tick, error) {
	t := &tick{runs: runs, accounts: map[mailboxKey]mail.Account{}, sourceErrs: map[uuid.UUID]error{}}
	keys := make([]campaignKey, len(runs))
	for i, r := range runs {
		keys[i] = campaignKey{r.WorkspaceID, r.Campaign.ID}
	}
	var err error
	if t.ledger, err = readLedgers(ctx, e.db, keys); err != nil {
		return nil, err
	}
	if t.replied, err = readReplied(ctx, e.db, keys); err != nil {
		return nil, err
	}
	for _, r := range runs {
		ws := r.WorkspaceID
		if _, done := t.sourceErrs[ws]; done {
			continue
		}
		all, err := e.sources.Mailboxes(ctx, ws)
		if err != nil {
			err = fmt.Errorf("read the mailboxes' endpoints: %w", err)
		}
		t.sourceErrs[ws] = err
		for _, m := range all {
			t.accounts[mailboxOf(ws, m.Address.Email)] = m.Account
		}
	}
	if t.counts, err = readSentToday(ctx, e.db, runs, now); err != nil {
		return nil, err
	}
	if err := e.readHealth(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// readHealth reads the mailboxes' pause, pace and bounce windows, the
// campaigns' bounce windows, and the bounce health of each, from its
// window.
func (e *Engine) readHealth(ctx context.Context, t *tick) error {
	t.stale = false
	var wss []uuid.UUID
	var addresses []string
	seen := map[mailboxKey]bool{}
	cwss, cids := make([]uuid.UUID, len(t.runs)), make([]string, len(t.runs))
	for i, r := range t.runs {
		cwss[i], cids[i] = r.WorkspaceID, r.Campaign.ID
		for _, a := range r.Campaign.Mailboxes {
			if k := (mailboxKey{r.WorkspaceID, a}); !seen[k] {
				seen[k] = true
				wss, addresses = append(wss, r.WorkspaceID), append(addresses, a)
			}
		}
	}
	t.mailboxes = map[mailboxKey]mailboxState{}
	rows, err := e.db.Query(ctx, `SELECT workspace_id, mailbox, paused_reason IS NOT NULL, coalesce(window_from, 'epoch'::timestamptz), next_at
		FROM mail_mailboxes WHERE (workspace_id, mailbox) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`, wss, addresses)
	if err != nil {
		return fmt.Errorf("read the mailboxes' health: %w", err)
	}
	var k mailboxKey
	var st mailboxState
	if _, err := pgx.ForEachRow(rows, []any{&k.ws, &k.address, &st.paused, &st.windowFrom, &st.nextAt}, func() error {
		t.mailboxes[k] = st
		return nil
	}); err != nil {
		return fmt.Errorf("read the mailboxes' health: %w", err)
	}
	t.campaignFrom = map[campaignKey]time.Time{}
	rows, err = e.db.Query(ctx, `SELECT workspace_id, campaign_id, window_from FROM mail_campaign_health
		WHERE (workspace_id, campaign_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`, cwss, cids)
	if err != nil {
		return fmt.Errorf("read the campaigns' health: %w", err)
	}
	var ck campaignKey
	var from time.Time
	if _, err := pgx.ForEachRow(rows, []any{&ck.ws, &ck.id, &from}, func() error {
		t.campaignFrom[ck] = from
		return nil
	}); err != nil {
		return fmt.Errorf("read the campaigns' health: %w", err)
	}
	mfrom := make([]time.Time, len(wss))
	for i := range wss {
		mfrom[i] = t.mailboxes[mailboxKey{wss[i], addresses[i]}].windowFrom // the epoch without a row
		if mfrom[i].IsZero() {
			mfrom[i] = time.Unix(0, 0)
		}
	}
	cfrom := make([]time.Time, len(cids))
	for i := range cids {
		if cfrom[i] = t.campaignFrom[campaignKey{cwss[i], cids[i]}]; cfrom[i].IsZero() {
			cfrom[i] = time.Unix(0, 0)
		}
	}
	t.health, err = readBounceCounts(ctx, e.db, wss, addresses, mfrom, cwss, cids, cfrom)
	return err
}

// today is the standing of each of run's mailboxes now.
func (t *tick) today(run campaigns.Run, now time.Time) map[string]campaigns.MailboxToday {
	ws := run.WorkspaceID
	out := make(map[string]campaigns.MailboxToday, len(run.Campaign.Mailboxes))
	for _, a := range run.Campaign.Mailboxes {
		_, reachable := t.accounts[mailboxOf(ws, a)]
		mt := campaigns.MailboxToday{Reachable: reachable, NextAt: t.mailboxes[mailboxKey{ws, a}].nextAt}
		if c := t.counts[mailboxKey{ws, a}]; c != nil {
			mt.SentByCampaign, mt.SentAll = c.byCampaign[run.Campaign.ID], c.all
		}
		out[a] = mt
	}
	return out
}

// sent keeps what a mailbox's session did for the campaigns after it in
// this tick: its count today, and its gap. Its sends also move the
// mailbox's and the campaign's latest sends, which the bounce health
// counts: the next campaign reads the health again, as it would have
// before anything was read ahead.
func (t *tick) sent(run campaigns.Run, mailbox string, out sentFrom) {
	k := mailboxKey{run.WorkspaceID, mailbox}
	if out.counted > 0 {
		t.stale = true
		c := t.counts[k]
		if c == nil {
			c = &sentToday{byCampaign: map[string]int{}}
			t.counts[k] = c
		}
		c.byCampaign[run.Campaign.ID] += out.counted
		c.all += out.counted
	}
	if out.nextAt != nil {
		st := t.mailboxes[k]
		st.nextAt = *out.nextAt
		t.mailboxes[k] = st
	}
}

// readLedgers reads the campaigns' ledgers, each lead's steps in order:
// what the schedule works from and what [Tallies.CampaignProgress]
// reports.
func readLedgers(ctx context.Context, db *pgxpool.Pool, keys []campaignKey) (map[campaignKey]map[int64][]campaigns.SendRecord, error) {
	wss, ids := splitKeys(keys)
	rows, err := db.Query(ctx, `SELECT workspace_id, campaign_id, lead_id, step, status, claimed_at, mailbox, message_id, retry_at, attempts
		FROM mail_sends WHERE (workspace_id, campaign_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[])) AND step > 0
		ORDER BY workspace_id, campaign_id, lead_id, step`, wss, ids)
	if err != nil {
		return nil, fmt.Errorf("read the ledger: %w", err)
	}
	out := map[campaignKey]map[int64][]campaigns.SendRecord{}
	var k campaignKey
	var lead int64
	var status string
	var r campaigns.SendRecord
	if _, err := pgx.ForEachRow(rows, []any{&k.ws, &k.id, &lead, &r.Step, &status, &r.ClaimedAt, &r.Mailbox, &r.MessageID, &r.RetryAt, &r.Attempts}, func() error {
		r.Failed = status == StatusFailed
		if out[k] == nil {
			out[k] = map[int64][]campaigns.SendRecord{}
		}
		out[k][lead] = append(out[k][lead], r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the ledger: %w", err)
	}
	return out, nil
}

// readReplied reads the campaigns' leads whose reply stops them.
func readReplied(ctx context.Context, db *pgxpool.Pool, keys []campaignKey) (map[campaignKey][]repliedLead, error) {
	wss, ids := splitKeys(keys)
	rows, err := db.Query(ctx, `SELECT DISTINCT r.workspace_id, r.campaign_id, r.lead_id, lower(split_part(s.recipient, '@', 2)) FROM mail_replies r
		JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
		WHERE (r.workspace_id, r.campaign_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[])) AND `+stopping(3), wss, ids, PassingClassifications, PassingBounce)
	if err != nil {
		return nil, fmt.Errorf("read the replies: %w", err)
	}
	out := map[campaignKey][]repliedLead{}
	var k campaignKey
	var r repliedLead
	if _, err := pgx.ForEachRow(rows, []any{&k.ws, &k.id, &r.lead, &r.domain}, func() error {
		out[k] = append(out[k], r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the replies: %w", err)
	}
	return out, nil
}

// stoppedFrom are the leads of campaign c a reply stopped, with their
// whole company when the campaign says so.
func stoppedFrom(c campaigns.Campaign, leads []vibesell.Lead, replied []repliedLead) map[int64]bool {
	out := map[int64]bool{}
	domains := map[string]bool{}
	for _, r := range replied {
		out[r.lead] = true
		if !mail.Freemail(r.domain) {
			domains[r.domain] = true
		}
	}
	if c.Schedule.StopForCompany && len(domains) > 0 {
		for _, l := range leads {
			if d := mail.CompanyDomain(l.Email); d != "" && domains[d] {
				out[l.ID] = true
			}
		}
	}
	return out
}

// readSentToday counts what each running campaign's mailboxes sent today,
// the day being each workspace's: what a daily cap is measured against.
func readSentToday(ctx context.Context, db *pgxpool.Pool, runs []campaigns.Run, now time.Time) (map[mailboxKey]*sentToday, error) {
	var wss []uuid.UUID
	var addresses []string
	var starts []time.Time
	seen := map[mailboxKey]bool{}
	for _, r := range runs {
		loc := r.WorkspaceLocation()
		y, m, d := now.In(loc).Date()
		for _, a := range r.Campaign.Mailboxes {
			if k := (mailboxKey{r.WorkspaceID, a}); !seen[k] {
				seen[k] = true
				wss, addresses, starts = append(wss, r.WorkspaceID), append(addresses, a), append(starts, time.Date(y, m, d, 0, 0, 0, 0, loc))
			}
		}
	}
	rows, err := db.Query(ctx, `SELECT s.workspace_id, s.mailbox, s.campaign_id, count(*) FROM mail_sends s
		JOIN unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS k (ws, mailbox, day_start) ON s.workspace_id = k.ws AND s.mailbox = k.mailbox
		WHERE s.claimed_at >= k.day_start AND s.status <> 'failed' GROUP BY 1, 2, 3`, wss, addresses, starts)
	if err != nil {
		return nil, fmt.Errorf("count today's sends: %w", err)
	}
	out := map[mailboxKey]*sentToday{}
	var k mailboxKey
	var campaign string
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&k.ws, &k.address, &campaign, &n}, func() error {
		c := out[k]
		if c == nil {
			c = &sentToday{byCampaign: map[string]int{}}
			out[k] = c
		}
		c.byCampaign[campaign] += n
		c.all += n
		return nil
	}); err != nil {
		return nil, fmt.Errorf("count today's sends: %w", err)
	}
	return out, nil
}

func splitKeys(keys []campaignKey) ([]uuid.UUID, []string) {
	wss, ids := make([]uuid.UUID, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		wss[i], ids[i] = k.ws, k.id
	}
	return wss, ids
}

// checkHealth pauses what bounces too much before anything is sent: each
// of the campaign's mailboxes over its latest sends (pausing every
// campaign that sends from it), and the campaign over its own. A mailbox
// paused before that sends for a running campaign again was resumed by a
// person (only a person resumes an automatic pause, or launches a
// campaign): its pause ends and its bounce rate is counted afresh.
func (e *Engine) checkHealth(ctx context.Context, run campaigns.Run, t *tick, now time.Time) (bool, error) {
	ws, c := run.WorkspaceID, run.Campaign
	lim := limits{e.cfg.BounceLimit, e.cfg.ComplaintLimit}
	for _, a := range c.Mailboxes {
		h := t.health[healthKey{"mailbox", ws, a}]
		if t.mailboxes[mailboxKey{ws, a}].paused {
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
			t.stale = true
			if h, err = bounceHealth(ctx, e.db, ws, "mailbox", a, now, lim, "sent from "+a); err != nil {
				return false, err
			}
		} else {
			judge(&h, lim, "sent from "+a)
		}
		if !h.OverLimit {
			continue
		}
		reason := "VibeSell paused mailbox " + a + " for its " + h.Why + ": " + h.Reason
		var paused []string
		err := store.InTx(ctx, e.db, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO mail_mailboxes (workspace_id, mailbox, next_at, paused_reason, paused_at) VALUES ($1, $2, $3, $4, $3)
				ON CONFLICT (workspace_id, mailbox) DO UPDATE SET paused_reason = EXCLUDED.paused_reason, paused_at = EXCLUDED.paused_at`,
				ws, a, now, reason); err != nil {
				return fmt.Errorf("pause mailbox %s: %w", a, err)
			}
			var err error
			if paused, err = campaigns.PauseUsing(ctx, tx, ws, a, reason, now); err != nil {
				return err
			}
			events := make([]webhooks.Event, len(paused))
			for i, id := range paused {
				if err := restartBounceWindow(ctx, tx, ws, id, now); err != nil {
					return err
				}
				events[i] = webhooks.CampaignPaused(id, reason)
			}
			return e.cfg.Webhooks.Emit(ctx, tx, ws, events...)
		})
		t.stale = true
		if err != nil {
			return false, err
		}
		e.cfg.Logger.Warn("paused a mailbox for its "+h.Why+", and the campaigns sending from it", "mailbox", a, "campaigns", paused)
		return true, nil
	}
	h := t.health[healthKey{"campaign", ws, c.ID}]
	if judge(&h, lim, "of this campaign"); !h.OverLimit {
		return false, nil
	}
	var paused bool
	err := store.InTx(ctx, e.db, func(tx pgx.Tx) error {
		var err error
		reason := "VibeSell paused the campaign for its " + h.Why + ": " + h.Reason
		if paused, err = campaigns.PauseInTx(ctx, tx, ws, c.ID, reason, now); err != nil {
			return err
		}
		if err := restartBounceWindow(ctx, tx, ws, c.ID, now); err != nil || !paused {
			return err
		}
		return e.cfg.Webhooks.Emit(ctx, tx, ws, webhooks.CampaignPaused(c.ID, reason))
	})
	t.stale = true
	return paused, err
}
