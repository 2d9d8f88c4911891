package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
)

// campaignLeads reads a campaign's leads as staged, less those a person
// removed since: nothing more goes to them.
func (s *Service) campaignLeads(ctx context.Context, ws uuid.UUID, id string) ([]vibesell.Lead, error) {
	rows, err := s.db.Query(ctx, `SELECT `+campaignLeadColumns+` FROM campaign_leads
		WHERE workspace_id = $1 AND campaign_id = $2 AND removed_at IS NULL ORDER BY lead_id`, ws, id)
	if err != nil {
		return nil, fmt.Errorf("read leads of campaign %s: %w", id, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (vibesell.Lead, error) { return scanCampaignLead(r) })
	if err != nil {
		return nil, fmt.Errorf("read leads of campaign %s: %w", id, err)
	}
	return out, nil
}

const campaignLeadColumns = `lead_id, email, fields, time_zone`

// scanCampaignLead reads a lead as the campaign keeps it (its fields as
// they were at launch); extra columns come first.
func scanCampaignLead(r pgx.Row, extra ...any) (vibesell.Lead, error) {
	var l vibesell.Lead
	var raw []byte
	if err := r.Scan(append(extra, &l.ID, &l.Email, &raw, &l.TimeZone)...); err != nil {
		return l, err
	}
	var v map[string]string
	if err := json.Unmarshal(raw, &v); err != nil {
		return l, err
	}
	l.FirstName, l.LastName, l.Company, l.Title, l.CompanyDomain = v["first_name"], v["last_name"], v["company"], v["title"], v["company_domain"]
	return l, nil
}

// blockers lists everything that stops campaign c from launching now,
// each a sentence and the steps that clear it; empty when it may be
// launched.
func (s *Service) blockers(ctx context.Context, ws uuid.UUID, c Campaign, q Sequence) ([]vibesell.Blocker, error) {
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return nil, err
	}
	all, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return nil, err
	}
	leads, err := s.campaignLeads(ctx, ws, c.ID)
	if err != nil {
		return nil, err
	}
	var out []vibesell.Blocker
	block := func(what string, next ...vibesell.Next) { out = append(out, vibesell.Blocker{What: what, Next: next}) }
	restage := func(do string) vibesell.Next { n := stepStage.With("campaign", c.ID); n.Do = do; return n }
	if sender.PostalAddress == "" {
		block("The workspace has no postal address, which the law asks every cold email to carry.",
			restage("Ask the person for the postal address, and stage the campaign again with it as postalAddress."))
	}
	var mailboxes []Mailbox
	var gone, cold, over, unnamed []string
	for _, a := range c.Mailboxes {
		i := slices.IndexFunc(all, func(m Mailbox) bool { return m.Address == a })
		if i < 0 {
			gone = append(gone, a)
			continue
		}
		m := all[i]
		mailboxes = append(mailboxes, m)
		switch {
		case m.State != "warm":
			cold = append(cold, fmt.Sprintf("%s (%s)", a, m.State))
		case c.Schedule.DailyCap > m.DailyLimit:
			over = append(over, fmt.Sprintf("%s (%d a day)", a, m.DailyLimit))
		}
		if m.SenderName == "" {
			unnamed = append(unnamed, a)
		}
	}
	if sender.Name == "" && len(unnamed) > 0 {
		block(fmt.Sprintf("No sender name for %s and no default for the workspace.", vibesell.JoinAnd(unnamed)),
			restage("Ask the person which name their emails come from, and stage the campaign again with it as senderName."))
	}
	switch {
	case q.Approved():
	case q.Version < q.LatestVersion:
		// approve_sequence refuses any version but the latest, so the way
		// out is the latest version, and staging the campaign again is
		// what binds it.
		latest, err := s.sequence(ctx, s.db, ws, q.ID, q.LatestVersion)
		if err != nil {
			return nil, fmt.Errorf("read sequence %s version %d: %w", q.ID, q.LatestVersion, err)
		}
		onLatest := restage("Stage the campaign again with the same settings, leaving sequenceVersion out (it takes the latest version).")
		if latest.Approved() {
			block(fmt.Sprintf("The campaign sends sequence %s version %d, which is not approved; version %d is the latest and is approved.",
				q.ID, q.Version, latest.Version), onLatest)
		} else {
			block(fmt.Sprintf("The campaign sends sequence %s version %d, which is not approved, and only the latest version (%d) can be approved now.",
				q.ID, q.Version, latest.Version),
				stepApprove.With("sequence", q.ID, "version", latest.Version),
				onLatest)
		}
	default:
		block(fmt.Sprintf("Sequence %s version %d is not approved.", q.ID, q.Version),
			stepApprove.With("sequence", q.ID, "version", q.Version))
	}
	if len(gone) > 0 {
		block(fmt.Sprintf("%s %s no longer among the workspace's mailboxes.", vibesell.JoinAnd(gone), pick(len(gone), "is", "are")),
			restage("Stage the campaign again with mailboxes it has."))
	}
	if len(cold) > 0 {
		block(fmt.Sprintf("Not warm yet: %s. A mailbox sends a campaign only once its warmup is over.", vibesell.JoinAnd(cold)),
			stepSeeMailboxes)
	}
	if len(over) > 0 {
		block(fmt.Sprintf("The daily cap of %d emails per mailbox is above what %s may send at its warmup stage.", c.Schedule.DailyCap, vibesell.JoinAnd(over)),
			restage("Stage the campaign again with a lower dailyCap."))
	}
	if len(leads) == 0 {
		block("The campaign has no leads.",
			stepImportLeads, restage("Then stage the campaign again."))
	}
	ps, err := parseSteps(q.Steps)
	if err != nil {
		return nil, fmt.Errorf("parse stored sequence %s: %w", q.ID, err)
	}
	// A field without a fallback must be there for every lead: an email
	// never goes out with a hole in it.
	for _, f := range noFallbackFields(ps) {
		lacking := 0
		for _, l := range leads {
			if Value(l.MergeFields()[f]) == "" {
				lacking++
			}
		}
		if lacking > 0 {
			block(fmt.Sprintf("{{%s}} has no fallback, and %s of %s no value for it: give it one, such as {{%s|there}}.", f, vibesell.Count(lacking), vibesell.Plural(len(leads), "lead has", "leads have"), f),
				stepWrite.With("sequence", q.ID), stepApprove.With("sequence", q.ID),
				restage("Then stage the campaign again (it takes the latest version)."))
		}
	}
	if len(leads) > 0 {
		fe, err := s.firstEmail(q, leads[0], leads, sender, mailboxes)
		if err != nil {
			return nil, err
		}
		var failed []string
		for _, f := range fe.Findings {
			// Address, sender, mailboxes and fields are blockers of their
			// own above.
			if f.Status == Fail && !slices.Contains([]string{"merge_fields", "unsubscribe_and_address", "mailbox"}, f.Check) {
				failed = append(failed, strings.TrimSuffix(f.Finding, "."))
			}
		}
		if len(failed) > 0 {
			block(fmt.Sprintf("The first-email check fails: %s.", strings.Join(failed, "; ")),
				stepCheckFirst.With("sequence", q.ID, "version", q.Version))
		}
	}
	perDay := c.Schedule.DailyCap * len(c.Mailboxes)
	var others int
	if err := s.db.QueryRow(ctx, `SELECT coalesce(sum(daily_cap * cardinality(mailboxes)), 0) FROM campaigns
		WHERE workspace_id = $1 AND id <> $2 AND status IN ('scheduled', 'sending')`, ws, c.ID).Scan(&others); err != nil {
		return nil, fmt.Errorf("count scheduled volume: %w", err)
	}
	if perDay+others > s.cfg.MaxDailyEmails {
		block(fmt.Sprintf("A workspace may schedule at most %s emails a day across its campaigns on this installation; this one would bring it to %s (%s from campaigns already running).",
			vibesell.Count(s.cfg.MaxDailyEmails), vibesell.Count(perDay+others), vibesell.Count(others)),
			restage("Stage the campaign again with a lower dailyCap or fewer mailboxes."))
	}
	return out, nil
}

// launchBlockers are the blockers of a launch asked for now: those that
// stop it from launching at all, and the plan's limit on running
// campaigns. An approved launch is held to the plan in the transaction
// that launches it instead ([CampaignLimit].Use), in a person's words.
func (s *Service) launchBlockers(ctx context.Context, ws uuid.UUID, c Campaign, q Sequence) ([]vibesell.Blocker, error) {
	out, err := s.blockers(ctx, ws, c, q)
	if err != nil {
		return nil, err
	}
	over, err := s.overPlan(ctx, ws)
	if err != nil {
		return nil, err
	}
	if over != nil {
		out = append(out, vibesell.Blocker{What: over.Message, Next: over.Next})
	}
	return out, nil
}

// overPlan is the plan's refusal of one more running campaign, or nil.
func (s *Service) overPlan(ctx context.Context, ws uuid.UUID) (*vibesell.Error, error) {
	if s.limit == nil {
		return nil, nil
	}
	err := s.limit.Check(ctx, ws, 1)
	var refusal *vibesell.Error
	if errors.As(err, &refusal) && refusal.Code == vibesell.EPAYMENTREQUIRED {
		return refusal, nil
	}
	return nil, err
}

func noFallbackFields(ps []parsed) []string {
	var out []string
	for _, p := range ps {
		for _, u := range append(p.subject.Uses(), p.body.Uses()...) {
			if !u.HasFallback && !slices.Contains(out, u.Field) {
				out = append(out, u.Field)
			}
		}
	}
	return out
}

// firstSend is the first moment any lead of c may get its first email at
// or after from: the earliest of the windows of its leads' time zones (the
// workspace's for a lead whose zone is unknown), with that zone.
func (s *Service) firstSend(ctx context.Context, ws uuid.UUID, c Campaign, from time.Time) (time.Time, *time.Location, error) {
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return time.Time{}, nil, err
	}
	wsLoc := sender.Location()
	rows, err := s.db.Query(ctx, `SELECT DISTINCT time_zone FROM campaign_leads WHERE workspace_id = $1 AND campaign_id = $2`, ws, c.ID)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("read zones of campaign %s: %w", c.ID, err)
	}
	zones, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("read zones of campaign %s: %w", c.ID, err)
	}
	var best time.Time
	bestLoc := wsLoc
	for _, z := range zones {
		loc := wsLoc
		if z != "" {
			if l, err := time.LoadLocation(z); err == nil {
				loc = l
			}
		}
		if t := c.Schedule.Next(from, loc); best.IsZero() || t.Before(best) {
			best, bestLoc = t, loc
		}
	}
	if best.IsZero() {
		best = c.Schedule.Next(from, wsLoc)
	}
	return best, bestLoc, nil
}

// FormatIn writes t as the person reads it in loc, with UTC beside it.
func FormatIn(t time.Time, loc *time.Location) string {
	local := t.In(loc)
	if loc == time.UTC {
		return vibesell.FormatTime(t)
	}
	return fmt.Sprintf("%s, %s %s (%s)", vibesell.FormatDate(local), local.Format("15:04"), loc, t.UTC().Format("15:04")+" UTC")
}

type campaignArguments struct {
	Campaign string `json:"campaign"`
}

type launchDetails struct {
	Campaign    string    `json:"campaign"`
	Staged      staging   `json:"staged"`
	FirstSendAt time.Time `json:"firstSendAt"`
}

// staging is what a person approves the launch of: a campaign staged
// again afterwards (other leads, version, mailboxes or schedule) is not
// what they approved.
type staging struct {
	SequenceID      string   `json:"sequenceId"`
	SequenceVersion int      `json:"sequenceVersion"`
	Leads           int      `json:"leads"`
	Mailboxes       []string `json:"mailboxes"`
	Schedule        string   `json:"schedule"`
}

func stagingOf(c Campaign) staging {
	return staging{SequenceID: c.SequenceID, SequenceVersion: c.SequenceVersion, Leads: c.Leads, Mailboxes: c.Mailboxes, Schedule: c.Schedule.Describe()}
}

// RequestLaunch opens (or returns the waiting) approval to launch a
// staged campaign. It is irreversible: only a signed-in person in the web
// app may approve it. Refusals: EINVALID listing every blocker at once
// (the plan's limit among them); EPAYMENTREQUIRED when the plan's limit on
// running campaigns is the only one; ECONFLICT when the campaign is not
// staged; ENOTFOUND.
func (s *Service) RequestLaunch(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if c.Status != Staged {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s, not staged: it was launched already.", c.ID, c.Status).Then(
			stepSeeCampaign.With("campaign", c.ID))
	}
	q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	blockers, err := s.blockers(ctx, ws, c, q)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	over, err := s.overPlan(ctx, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if over != nil && len(blockers) == 0 {
		return approvals.Approval{}, false, over
	}
	if over != nil {
		blockers = append(blockers, vibesell.Blocker{What: over.Message, Next: over.Next})
	}
	if len(blockers) > 0 {
		return approvals.Approval{}, false, &vibesell.Error{Code: vibesell.EINVALID, Message: fmt.Sprintf("Campaign %s cannot launch yet (%s to fix): %s",
			c.ID, vibesell.Plural(len(blockers), "thing", "things"), strings.Join(numbered(blockers), " ")), Next: vibesell.StepsOf(blockers)}
	}
	r, err := s.launchRequest(ctx, ws, c, q, s.clock.Now())
	if err != nil {
		return approvals.Approval{}, false, err
	}
	r.RequestedBy = requestedBy
	return s.approvals.Open(ctx, r)
}

// launchRequest is the approval a launch of c asks for, its first email
// worked out from the moment from.
func (s *Service) launchRequest(ctx context.Context, ws uuid.UUID, c Campaign, q Sequence, from time.Time) (approvals.Request, error) {
	first, loc, err := s.firstSend(ctx, ws, c, from)
	if err != nil {
		return approvals.Request{}, err
	}
	perDay := min(c.Leads, c.Schedule.DailyCap*len(c.Mailboxes))
	zero := vibesell.NewMoney(0, s.cfg.Currency)
	return approvals.Request{
		WorkspaceID: ws,
		Action:      vibesell.ToolLaunchCampaign,
		Arguments:   campaignArguments{Campaign: c.ID},
		Details:     launchDetails{Campaign: c.ID, Staged: stagingOf(c), FirstSendAt: first},
		Summary:     fmt.Sprintf("Launch campaign %q: %s to %s", c.Name, vibesell.Plural(len(q.Steps), "email", "emails"), vibesell.Plural(c.Leads, "person", "people")),
		Impact: approvals.Impact{
			// The impact is read by a person (the card, the web app, the
			// emails): the campaign by its name; its id is in Arguments.
			What: fmt.Sprintf("Starts sending campaign %q: sequence %q version %d, %s, to %s from %s.",
				c.Name, q.Name, q.Version, vibesell.Plural(len(q.Steps), "email", "emails"), vibesell.Plural(c.Leads, "person", "people"), someMailboxes(c.Mailboxes)),
			Items: []string{
				fmt.Sprintf("First email: %s", FormatIn(first, loc)),
				fmt.Sprintf("Volume: up to %s a day (%d per mailbox, %s)", vibesell.Plural(perDay, "email", "emails"), c.Schedule.DailyCap, vibesell.Plural(len(c.Mailboxes), "mailbox", "mailboxes")),
				fmt.Sprintf("Window: %s to %s, %s, in each person's own time zone", TimeOfDay(c.Schedule.WindowStart), TimeOfDay(c.Schedule.WindowEnd), DayNames(c.Schedule.Days)),
				fmt.Sprintf("Stops for a person when they reply%s", map[bool]string{true: ", and for their whole company", false: ""}[c.Schedule.StopForCompany]),
			},
			Who:         fmt.Sprintf("%s imported into the workspace, each written to by name from the approved sequence.", vibesell.Plural(c.Leads, "person", "people")),
			When:        fmt.Sprintf("From %s on, once approved, within each person's sending window.", FormatIn(first, loc)),
			CostOnce:    zero,
			CostMonthly: zero,
			Renewal:     "Nothing renews: sending uses the mailboxes the workspace already pays for.",
			Undo:        "Sent email cannot be recalled. Stopping the campaign pauses everything not yet sent, at any time.",
		},
		Irreversible: true,
		DecideHere:   false,
	}, nil
}

func numbered(blockers []vibesell.Blocker) []string {
	out := make([]string, len(blockers))
	for i, b := range blockers {
		out[i] = fmt.Sprintf("(%d) %s", i+1, b.What)
	}
	return out
}

// LaunchAction carries out an approved launch_campaign: register it under
// [vibesell.ToolLaunchCampaign]. It re-checks every blocker, then
// schedules the campaign.
func LaunchAction(s *Service) approvals.Executor {
	return launchAction{ExecutorFuncs: launchExecutor(s), s: s}
}

// launchAction is the launch's executor, and its [approvals.Reviser]: a
// campaign staged again while its launch waits (other leads, sequence
// version, mailboxes or schedule) changes what the approval shows, so a
// decision on what it showed before is refused.
type launchAction struct {
	approvals.ExecutorFuncs
	s *Service
}

// Revise says what the launch would ask for now, its first email worked
// out from when it was asked, as it was then.
func (l launchAction) Revise(ctx context.Context, a approvals.Approval) (approvals.Revision, error) {
	var d launchDetails
	if err := json.Unmarshal(a.Details, &d); err != nil {
		return approvals.Revision{}, fmt.Errorf("read asked launch: %w", err)
	}
	c, err := l.s.campaign(ctx, l.s.db, a.WorkspaceID, d.Campaign, false)
	if err != nil {
		return approvals.Revision{}, err
	}
	if c.Status != Staged {
		return approvals.Revision{}, vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s, not staged.", c.ID, c.Status)
	}
	q, err := l.s.Sequence(ctx, a.WorkspaceID, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return approvals.Revision{}, err
	}
	r, err := l.s.launchRequest(ctx, a.WorkspaceID, c, q, a.CreatedAt)
	if err != nil {
		return approvals.Revision{}, err
	}
	return approvals.Revision{Summary: r.Summary, Impact: r.Impact, Details: r.Details}, nil
}

func launchExecutor(s *Service) approvals.ExecutorFuncs {
	return approvals.ExecutorFuncs{
		CheckFunc: func(ctx context.Context, ex approvals.Execution) error {
			var d launchDetails
			if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
				return fmt.Errorf("read approved launch: %w", err)
			}
			ws := ex.Approval.WorkspaceID
			c, err := s.campaign(ctx, s.db, ws, d.Campaign, false)
			if err != nil {
				return err
			}
			if c.Status != Staged {
				return vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s already, so nothing was launched again.", c.ID, c.Status)
			}
			if !reflect.DeepEqual(stagingOf(c), d.Staged) {
				return vibesell.Errorf(vibesell.ECONFLICT,
					"Campaign %s was staged again after this launch was approved (its leads, sequence version, mailboxes or schedule changed), so nothing was launched. Ask for the launch again for the campaign as it is now.",
					c.ID)
			}
			q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
			if err != nil {
				return err
			}
			blockers, err := s.blockers(ctx, ws, c, q)
			if err != nil {
				return err
			}
			if len(blockers) > 0 {
				return &vibesell.Error{Code: vibesell.EINVALID, Message: "Not launched: since the approval, " + strings.Join(numbered(blockers), " "), Next: vibesell.StepsOf(blockers)}
			}
			return nil
		},
		ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
			var d launchDetails
			if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
				return "", fmt.Errorf("read approved launch: %w", err)
			}
			ws := ex.Approval.WorkspaceID
			c, err := s.campaign(ctx, s.db, ws, d.Campaign, false)
			if err != nil {
				return "", err
			}
			now := s.clock.Now()
			first, loc, err := s.firstSend(ctx, ws, c, now)
			if err != nil {
				return "", err
			}
			launched, err := s.setRunning(ctx, ws, d.Campaign, Staged, `UPDATE campaigns SET status = 'scheduled', launched_at = $3, first_send_at = $4
				WHERE workspace_id = $1 AND id = $2`, now, first)
			if err != nil {
				return "", err
			}
			if !launched && !ex.Resumed {
				return "", vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s was no longer staged, so nothing was launched again.", d.Campaign)
			}
			return fmt.Sprintf("Launched campaign %s: its first email is due %s.", d.Campaign, FormatIn(first, loc)), nil
		},
	}
}

// SendAllowed tells the sending engine, inside the transaction of a send,
// whether campaign id may send now. It locks the campaign's row for
// share: a stop or pause waits for sends in flight to commit, and every
// send after it, on any replica, reads the stop.
func SendAllowed(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id string) (bool, error) {
	var status string
	err := tx.QueryRow(ctx, `SELECT status FROM campaigns WHERE workspace_id = $1 AND id = $2 FOR SHARE`, ws, id).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read status of campaign %s: %w", id, err)
	}
	return status == Scheduled || status == Sending, nil
}

// StoppedCampaigns returns, of the campaigns ids of workspace ws, those
// that may not send any more (stopped, paused, finished, or with no row):
// what the sending engine reads right before a message's DATA, in the
// transaction that marks its step sending. It locks every one of those
// rows for share in tx, as [SendAllowed] does: a stop or pause in flight
// is waited for and then read, and a stop that comes after waits for tx
// to commit.
func StoppedCampaigns(ctx context.Context, tx pgx.Tx, ws uuid.UUID, ids []string) (map[string]bool, error) {
	rows, err := tx.Query(ctx, `SELECT u.id FROM unnest($2::text[]) AS u (id)
		LEFT JOIN (SELECT c.id, c.status FROM campaigns c WHERE c.workspace_id = $1 AND c.id = ANY($2::text[]) FOR SHARE) c ON c.id = u.id
		WHERE c.status IS NULL OR c.status NOT IN ($3, $4)`, ws, ids, Scheduled, Sending)
	if err != nil {
		return nil, fmt.Errorf("read the stopped campaigns: %w", err)
	}
	ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read the stopped campaigns: %w", err)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// Pause pauses a scheduled or sending campaign at once, for reason: what
// the engine calls when deliverability needs it (automatic: a person must
// then resume it in the web app), and what an approved stop does.
func (s *Service) Pause(ctx context.Context, ws uuid.UUID, id, reason string, automatic bool) (bool, error) {
	tag, err := s.db.Exec(ctx, `UPDATE campaigns SET status = 'paused', paused_reason = $3, paused_automatically = $4, paused_at = $5
		WHERE workspace_id = $1 AND id = $2 AND status IN ('scheduled', 'sending')`, ws, id, reason, automatic, s.clock.Now())
	if err != nil {
		return false, fmt.Errorf("pause campaign %s: %w", id, err)
	}
	paused := tag.RowsAffected() == 1
	return paused, nil
}

// RequestStop opens (or returns the waiting) approval to stop a scheduled
// or sending campaign; the person may decide it in the conversation.
// Refusals: ECONFLICT when the campaign is not running; ENOTFOUND.
func (s *Service) RequestStop(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if c.Status != Scheduled && c.Status != Sending {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s: only a scheduled or sending campaign can be stopped.", c.ID, c.Status)
	}
	zero := vibesell.NewMoney(0, s.cfg.Currency)
	return s.approvals.Open(ctx, approvals.Request{
		WorkspaceID: ws,
		Action:      vibesell.ToolStopCampaign,
		Arguments:   campaignArguments{Campaign: c.ID},
		Summary:     fmt.Sprintf("Stop campaign %q", c.Name),
		Impact: approvals.Impact{
			What:        fmt.Sprintf("Pauses campaign %q (%s): no further email of it goes out, to anyone, from the moment it is approved.", c.Name, c.ID),
			Who:         fmt.Sprintf("No one is contacted; the %s of the campaign hear nothing more until it is resumed.", vibesell.Plural(c.Leads, "person", "people")),
			When:        "As soon as it is approved, before the next email is sent, on every server.",
			CostOnce:    zero,
			CostMonthly: zero,
			Renewal:     "Nothing renews.",
			Undo:        "Yes: resuming the campaign carries on where it stopped. Emails already sent stay sent.",
		},
		DecideHere:  true,
		RequestedBy: requestedBy,
	})
}

// approvedCampaign reads which campaign an approval acts on.
func approvedCampaign(ex approvals.Execution) (campaignArguments, error) {
	var a campaignArguments
	if err := json.Unmarshal(ex.Approval.Arguments, &a); err != nil {
		return a, fmt.Errorf("read approved %s: %w", ex.Approval.Action, err)
	}
	return a, nil
}

// StopAction carries out an approved stop_campaign.
func StopAction(s *Service) approvals.Executor {
	return approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		a, err := approvedCampaign(ex)
		if err != nil {
			return "", err
		}
		who := "a person"
		if ex.Approval.DecidedBy != nil {
			who = *ex.Approval.DecidedBy
		}
		paused, err := s.Pause(ctx, ex.Approval.WorkspaceID, a.Campaign, fmt.Sprintf("Stopped by %s on %s.", who, vibesell.FormatTimeFor(ctx, s.clock.Now())), false)
		if err != nil {
			return "", err
		}
		if !paused {
			return fmt.Sprintf("Campaign %s was not running any more, so there was nothing to stop.", a.Campaign), nil
		}
		return fmt.Sprintf("Stopped campaign %s: no further email of it goes out until it is resumed.", a.Campaign), nil
	}}
}

// setRunning sets campaign id running with update (its $1 and $2 are the
// workspace and the campaign, then args) if it is still in status from,
// holding it to the plan's limit on running campaigns in the same
// transaction; ok is false when it was no longer in status from.
// Refusals: the plan's, for a person.
func (s *Service) setRunning(ctx context.Context, ws uuid.UUID, id, from, update string, args ...any) (ok bool, err error) {
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		c, err := s.campaign(ctx, tx, ws, id, true)
		if err != nil || c.Status != from {
			return err
		}
		if s.limit != nil {
			if err := s.limit.Use(ctx, tx, ws, 1); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, update, append([]any{ws, id}, args...)...); err != nil {
			return fmt.Errorf("set campaign %s running: %w", id, err)
		}
		ok = true
		return nil
	})
	return ok, err
}

// RequestResume opens (or returns the waiting) approval to resume a
// paused campaign. After an automatic pause (for deliverability) only a
// signed-in person in the web app may approve it. Refusals: ECONFLICT when
// it is not paused; EPAYMENTREQUIRED when the plan allows no more running
// campaigns; ENOTFOUND.
func (s *Service) RequestResume(ctx context.Context, ws uuid.UUID, id, requestedBy string) (approvals.Approval, bool, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if c.Status != Paused {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s, not paused: there is nothing to resume.", c.ID, c.Status)
	}
	if over, err := s.overPlan(ctx, ws); err != nil || over != nil {
		if over != nil {
			return approvals.Approval{}, false, over
		}
		return approvals.Approval{}, false, err
	}
	next, loc, err := s.firstSend(ctx, ws, c, s.clock.Now())
	if err != nil {
		return approvals.Approval{}, false, err
	}
	why := *c.PausedReason
	undo := "Yes: stopping the campaign pauses it again at any time. Emails sent stay sent."
	var personOnly string
	if c.PausedAutomatically {
		undo = "VibeSell paused it for deliverability: " + why + " Resuming sends from the same mailboxes again; " + undo
		personOnly = "It costs nothing, but VibeSell paused this campaign to protect the mailboxes' reputation, so only a person signed in to the VibeSell web app can resume it, not the assistant."
	}
	// Who is read now: those who had every email, replied, unsubscribed
	// or bounced get nothing more.
	who := fmt.Sprintf("The people of the campaign not yet written to, or due a follow-up (of %s in all).", vibesell.Plural(c.Leads, "person", "people"))
	q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if p, err := s.progressOf(ctx, ws, c, q); err != nil {
		return approvals.Approval{}, false, err
	} else if p != nil {
		who = fmt.Sprintf("The %s still to get an email: %s.", vibesell.Plural(p.ToWrite(), "person", "people"), ProgressText(*p, c.Leads))
	}
	zero := vibesell.NewMoney(0, s.cfg.Currency)
	return s.approvals.Open(ctx, approvals.Request{
		WorkspaceID: ws,
		Action:      vibesell.ToolResumeCampaign,
		Arguments:   campaignArguments{Campaign: c.ID},
		Summary:     fmt.Sprintf("Resume campaign %q", c.Name),
		Impact: approvals.Impact{
			What:        fmt.Sprintf("Resumes campaign %q (%s), paused because: %s", c.Name, c.ID, why),
			Who:         who,
			When:        fmt.Sprintf("From %s on, within each person's sending window.", FormatIn(next, loc)),
			CostOnce:    zero,
			CostMonthly: zero,
			Renewal:     "Nothing renews.",
			Undo:        undo,
			PersonOnly:  personOnly,
		},
		DecideHere:  !c.PausedAutomatically,
		RequestedBy: requestedBy,
	})
}

// ResumeAction carries out an approved resume_campaign.
func ResumeAction(s *Service) approvals.Executor {
	return approvals.ExecutorFuncs{ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
		a, err := approvedCampaign(ex)
		if err != nil {
			return "", err
		}
		resumed, err := s.setRunning(ctx, ex.Approval.WorkspaceID, a.Campaign, Paused, `UPDATE campaigns SET status = 'scheduled', paused_reason = NULL, paused_at = NULL, paused_automatically = false
			WHERE workspace_id = $1 AND id = $2`)
		if err != nil {
			return "", err
		}
		if !resumed {
			return fmt.Sprintf("Campaign %s was not paused any more, so nothing changed.", a.Campaign), nil
		}
		return fmt.Sprintf("Resumed campaign %s.", a.Campaign), nil
	}}
}

// namedMailboxes is how many of a campaign's addresses its launch's
// impact names: a campaign sends from every ordered mailbox unless told
// otherwise, up to 1,000, and the impact is shown in every list of
// approvals.
const namedMailboxes = 5

// someMailboxes names a campaign's addresses, the first few of many and
// how many there are.
func someMailboxes(all []string) string {
	if len(all) <= namedMailboxes {
		return vibesell.JoinAnd(all)
	}
	return fmt.Sprintf("%s (%s and %s more)", vibesell.Plural(len(all), "mailbox", "mailboxes"), strings.Join(all[:namedMailboxes], ", "), vibesell.Count(len(all)-namedMailboxes))
}

// someNames names the first few of many and counts the rest: "a, b, c, d,
// e and 95 more" (up to 100 addresses of up to 320 characters are given).
func someNames(all []string) string {
	if len(all) <= namedMailboxes {
		return vibesell.JoinAnd(all)
	}
	return strings.Join(all[:namedMailboxes], ", ") + " and " + vibesell.Count(len(all)-namedMailboxes) + " more"
}
