package campaigns

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/workspace"
)

// What the sending engine reads of a campaign and does to it: the
// campaigns running now with their leads, sequence and schedule, the
// emails filled in for each lead, and the status changes a send makes
// (scheduled to sending) or asks for (an automatic pause).

// Run is a running campaign (scheduled or sending) as the sending engine
// reads it at one moment.
type Run struct {
	WorkspaceID uuid.UUID
	Campaign    Campaign
	Sequence    Sequence
	Sender      workspace.Sender
	// Mailboxes are the campaign's mailboxes as the sending setup has them
	// now, in the campaign's order; one the setup no longer has is left
	// out.
	Mailboxes []Mailbox
	Leads     []vibesell.Lead
	parsed    []parsed
	location  *time.Location
}

// Running returns every running campaign of every workspace, oldest
// launch first. It reads them in a fixed number of queries whatever their
// number (the campaigns, their sequences, their leads), and once per
// workspace its sender and its sending setup's mailboxes.
func (s *Service) Running(ctx context.Context) ([]Run, error) {
	rows, err := s.db.Query(ctx, `SELECT c.workspace_id, `+campaignColumns+` FROM campaigns c
		WHERE c.status IN ('scheduled', 'sending') ORDER BY c.launched_at, c.id`)
	if err != nil {
		return nil, fmt.Errorf("read running campaigns: %w", err)
	}
	var runs []Run
	for rows.Next() {
		var r Run
		if err := scanCampaignInto(reorder{rows, &r.WorkspaceID}, &r.Campaign); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read running campaigns: %w", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read running campaigns: %w", err)
	}
	if len(runs) == 0 {
		return nil, nil
	}
	if err := s.runSequences(ctx, runs); err != nil {
		return nil, err
	}
	if err := s.runLeads(ctx, runs); err != nil {
		return nil, err
	}
	type setup struct {
		sender    workspace.Sender
		mailboxes []Mailbox
	}
	setups := map[uuid.UUID]*setup{}
	for i := range runs {
		r := &runs[i]
		ws, c := r.WorkspaceID, r.Campaign
		st := setups[ws]
		if st == nil {
			st = &setup{}
			if st.sender, err = s.senders.Sender(ctx, ws); err != nil {
				return nil, fmt.Errorf("campaign %s: %w", c.ID, err)
			}
			if st.mailboxes, err = s.mailboxes.Mailboxes(ctx, ws); err != nil {
				return nil, fmt.Errorf("campaign %s: %w", c.ID, err)
			}
			setups[ws] = st
		}
		r.Sender, r.location = st.sender, st.sender.Location()
		for _, a := range c.Mailboxes {
			if j := slices.IndexFunc(st.mailboxes, func(m Mailbox) bool { return m.Address == a }); j >= 0 {
				r.Mailboxes = append(r.Mailboxes, st.mailboxes[j])
			}
		}
	}
	return runs, nil
}

// RunOf reads campaign id of workspace ws as the sending engine reads a
// running one ([Service.Running]), whatever its status: what a page
// works out the campaign's next emails from. Refusals: ENOTFOUND.
func (s *Service) RunOf(ctx context.Context, ws uuid.UUID, id string) (Run, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return Run{}, err
	}
	runs := []Run{{WorkspaceID: ws, Campaign: c}}
	if err := s.runSequences(ctx, runs); err != nil {
		return Run{}, err
	}
	if err := s.runLeads(ctx, runs); err != nil {
		return Run{}, err
	}
	r := &runs[0]
	if r.Sender, err = s.senders.Sender(ctx, ws); err != nil {
		return Run{}, fmt.Errorf("campaign %s: %w", id, err)
	}
	r.location = r.Sender.Location()
	all, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return Run{}, fmt.Errorf("campaign %s: %w", id, err)
	}
	for _, a := range c.Mailboxes {
		if j := slices.IndexFunc(all, func(m Mailbox) bool { return m.Address == a }); j >= 0 {
			r.Mailboxes = append(r.Mailboxes, all[j])
		}
	}
	return *r, nil
}

// runSequences reads the sequence version of every run in one query.
func (s *Service) runSequences(ctx context.Context, runs []Run) error {
	wss, ids, versions := make([]uuid.UUID, len(runs)), make([]string, len(runs)), make([]int32, len(runs))
	for i, r := range runs {
		wss[i], ids[i], versions[i] = r.WorkspaceID, r.Campaign.SequenceID, int32(r.Campaign.SequenceVersion)
	}
	rows, err := s.db.Query(ctx, `SELECT v.workspace_id, `+sequenceColumns+` FROM sequence_versions v
		WHERE (v.workspace_id, v.sequence_id, v.version) IN (SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[]))`, wss, ids, versions)
	if err != nil {
		return fmt.Errorf("read the running campaigns' sequences: %w", err)
	}
	type key struct {
		ws      uuid.UUID
		id      string
		version int
	}
	seqs := map[key]Sequence{}
	for rows.Next() {
		var ws uuid.UUID
		q, err := scanSequence(reorder{rows, &ws})
		if err != nil {
			rows.Close()
			return fmt.Errorf("read the running campaigns' sequences: %w", err)
		}
		seqs[key{ws, q.ID, q.Version}] = q
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the running campaigns' sequences: %w", err)
	}
	for i := range runs {
		r := &runs[i]
		c := r.Campaign
		q, ok := seqs[key{r.WorkspaceID, c.SequenceID, c.SequenceVersion}]
		if !ok {
			// No such version (or none named): read it the long way, which
			// says what is wrong.
			if q, err = s.Sequence(ctx, r.WorkspaceID, c.SequenceID, c.SequenceVersion); err != nil {
				return fmt.Errorf("campaign %s: %w", c.ID, err)
			}
		}
		r.Sequence = q
		if r.parsed, err = parseSteps(q.Steps); err != nil {
			return fmt.Errorf("campaign %s: parse its sequence: %w", c.ID, err)
		}
	}
	return nil
}

// runLeads reads the leads of every run in one query.
func (s *Service) runLeads(ctx context.Context, runs []Run) error {
	type key struct {
		ws uuid.UUID
		id string
	}
	wss, ids := make([]uuid.UUID, len(runs)), make([]string, len(runs))
	index := make(map[key]int, len(runs))
	for i, r := range runs {
		wss[i], ids[i] = r.WorkspaceID, r.Campaign.ID
		index[key{r.WorkspaceID, r.Campaign.ID}] = i
	}
	rows, err := s.db.Query(ctx, `SELECT workspace_id, campaign_id, `+campaignLeadColumns+` FROM campaign_leads
		WHERE (workspace_id, campaign_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[])) AND removed_at IS NULL
		ORDER BY workspace_id, campaign_id, lead_id`, wss, ids)
	if err != nil {
		return fmt.Errorf("read the running campaigns' leads: %w", err)
	}
	for rows.Next() {
		var k key
		l, err := scanCampaignLead(rows, &k.ws, &k.id)
		if err != nil {
			rows.Close()
			return fmt.Errorf("read the running campaigns' leads: %w", err)
		}
		if i, ok := index[k]; ok {
			runs[i].Leads = append(runs[i].Leads, l)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the running campaigns' leads: %w", err)
	}
	return nil
}

// reorder scans leading columns (a workspace id, and more) before a
// campaign's, a sequence's or a lead's own.
type reorder struct {
	pgx.Row
	ws *uuid.UUID
}

func (r reorder) Scan(dest ...any) error { return r.Row.Scan(append([]any{r.ws}, dest...)...) }

// Location is the time zone the campaign's window is read in for l: the
// lead's own, or the workspace's when it is unknown.
func (r Run) Location(l vibesell.Lead) *time.Location {
	if l.TimeZone != "" {
		if loc, err := time.LoadLocation(l.TimeZone); err == nil {
			return loc
		}
	}
	if r.location == nil {
		return time.UTC
	}
	return r.location
}

// WorkspaceLocation is the workspace's time zone: a mailbox's day (its
// daily cap) is counted in it.
func (r Run) WorkspaceLocation() *time.Location {
	if r.location == nil {
		return time.UTC
	}
	return r.location
}

// Email is one step filled in for one lead.
type Email struct {
	Subject string
	Body    string
	// SameThread says the step replies in the thread of the first email.
	SameThread bool
	// Unresolved names the fields the lead lacks with no fallback: the
	// email must not go out.
	Unresolved []string
}

// Email fills step (1-based) in for l.
func (r Run) Email(step int, l vibesell.Lead) Email {
	p := r.parsed[step-1]
	subject := p.subject.Render(l.MergeFields())
	if step > 1 && r.Sequence.Steps[step-1].SameThread {
		subject = r.parsed[0].subject.Render(l.MergeFields())
		subject.Text = "Re: " + subject.Text
	}
	body := p.body.Render(l.MergeFields())
	return Email{Subject: subject.Text, Body: body.Text, SameThread: step > 1 && r.Sequence.Steps[step-1].SameThread,
		Unresolved: append(subject.Unresolved, body.Unresolved...)}
}

// stepDue says when step (1-based, 2 or more) of the sequence falls due for a
// lead in loc whose step before went out at prev: its wait in business
// days after that day, from the start of the window.
func (r Run) stepDue(step int, prev time.Time, loc *time.Location) time.Time {
	y, m, d := prev.In(loc).Date()
	day := addBusinessDays(time.Date(y, m, d, 0, 0, 0, 0, loc), r.Sequence.Steps[step-1].WaitBusinessDays)
	return r.Campaign.Schedule.Next(day, loc)
}

// InWindow says whether the schedule lets an email go to a lead in loc at
// t.
func (r Run) InWindow(t time.Time, loc *time.Location) bool {
	return r.Campaign.Schedule.Next(t, loc).Equal(t)
}

// MarkSending moves a scheduled campaign to sending, in the transaction of
// its first send.
func MarkSending(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id string) error {
	_, err := tx.Exec(ctx, `UPDATE campaigns SET status = 'sending' WHERE workspace_id = $1 AND id = $2 AND status = 'scheduled'`, ws, id)
	if err != nil {
		return fmt.Errorf("mark campaign %s sending: %w", id, err)
	}
	return nil
}

// PauseInTx pauses a running campaign automatically, in tx, for reason:
// what the engine does when deliverability or the plan's limit needs it.
// Only a person in the web app may then resume it.
func PauseInTx(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id, reason string, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE campaigns SET status = 'paused', paused_reason = $3, paused_automatically = true, paused_at = $4
		WHERE workspace_id = $1 AND id = $2 AND status IN ('scheduled', 'sending')`, ws, id, reason, now)
	if err != nil {
		return false, fmt.Errorf("pause campaign %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Finish marks a running campaign finished: every lead has had every
// step, or was stopped.
func (s *Service) Finish(ctx context.Context, ws uuid.UUID, id string) error {
	_, err := s.db.Exec(ctx, `UPDATE campaigns SET status = 'finished' WHERE workspace_id = $1 AND id = $2 AND status IN ('scheduled', 'sending')`, ws, id)
	if err != nil {
		return fmt.Errorf("finish campaign %s: %w", id, err)
	}
	return nil
}

// PauseUsing pauses, in tx, every running campaign of the workspace that
// sends from mailbox, automatically, for reason, and returns their ids.
func PauseUsing(ctx context.Context, tx pgx.Tx, ws uuid.UUID, mailbox, reason string, now time.Time) ([]string, error) {
	rows, err := tx.Query(ctx, `UPDATE campaigns SET status = 'paused', paused_reason = $3, paused_automatically = true, paused_at = $4
		WHERE workspace_id = $1 AND $2 = ANY(mailboxes) AND status IN ('scheduled', 'sending') RETURNING id`, ws, mailbox, reason, now)
	if err != nil {
		return nil, fmt.Errorf("pause the campaigns of mailbox %s: %w", mailbox, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pause the campaigns of mailbox %s: %w", mailbox, err)
	}
	return ids, nil
}
