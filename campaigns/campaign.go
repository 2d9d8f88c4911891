package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
	"vibesell/workspace"
)

// The statuses of a campaign.
const (
	Staged    = "staged"    // bound and checked, nothing scheduled: launch_campaign next
	Scheduled = "scheduled" // launched; its first email is due at FirstSendAt
	Sending   = "sending"   // the engine has sent its first email
	Paused    = "paused"    // stopped by a person or automatically; PausedReason says why
	Finished  = "finished"  // every lead has had every step, or stopped
)

// Campaign is a campaign as it stands.
type Campaign struct {
	ID                  string
	Name                string
	SequenceID          string
	SequenceVersion     int
	Mailboxes           []string
	Schedule            Schedule
	Status              string
	PausedReason        *string
	PausedAutomatically bool
	CreatedAt           time.Time
	LaunchedAt          *time.Time
	FirstSendAt         *time.Time
	PausedAt            *time.Time
	Leads               int
}

// Counts are what the sending engine counts. Each is nil until the engine
// records it: nil means "not known", never zero.
type Counts struct {
	Sent, Delivered, Replied, PositiveReplies, Bounced, Unsubscribed *int
	// NotSentUnknown counts the emails that may have been lost in a
	// crash: not known to have left, never sent again, in neither Sent
	// nor Delivered.
	NotSentUnknown *int
}

// Metrics are a campaign's counts, in total and per step.
type Metrics struct {
	Counts
	// Why says why the counts are nil.
	Why string
	// RepliesNote says, when more replies came in than people replied,
	// which ones the Replied count leaves out and why; "" otherwise.
	RepliesNote string
	// Opens is nil when open tracking is off (always, for now); OpensWhy
	// says why.
	Opens    *int
	OpensWhy string
	Steps    []StepMetrics
}

// StepMetrics are the counts of one step.
type StepMetrics struct {
	Step int
	Counts
}

var campaignIDPattern = regexp.MustCompile(`^cp_[0-9a-f]{16}$`)

// StageRequest is one call of stage_campaign.
type StageRequest struct {
	// Campaign, when set, stages that staged campaign again with these
	// settings (same id) instead of a new one.
	Campaign        string
	Name            string
	Sequence        string
	SequenceVersion int      // 0: the latest version
	Mailboxes       []string // empty: every mailbox that is ordered
	WindowStart     int      // minutes after local midnight
	WindowEnd       int
	Days            []time.Weekday
	DailyCap        int // per mailbox; 0: each mailbox's full volume
	StopForCompany  bool
	// Sender settings of the workspace, saved when given.
	Sender workspace.SenderChange
}

// SenderWriter saves who the workspace's emails come from (the workspace
// feature).
type SenderWriter interface {
	SetSender(ctx context.Context, ws uuid.UUID, c workspace.SenderChange, now time.Time) (workspace.Sender, error)
}

// Staged is a staged campaign and what still stands between it and a
// launch.
type StagedCampaign struct {
	Campaign Campaign
	Sequence Sequence
	Blockers []vibesell.Blocker // what launch_campaign would refuse for now; empty when it can ask for approval
}

// Stage binds the workspace's imported leads, one version of a sequence
// and mailboxes with a schedule into a new campaign in status staged. It
// changes nothing outside VibeSell and sends nothing. The sender settings
// given are saved to the workspace first. Refusals: EINVALID for a
// schedule or cap out of range or a mailbox that is not the workspace's
// or not ordered; ENOTFOUND for an unknown sequence.
func (s *Service) Stage(ctx context.Context, ws uuid.UUID, r StageRequest) (StagedCampaign, error) {
	if r.WindowEnd <= r.WindowStart || r.WindowStart < 0 || r.WindowEnd > 24*60 {
		return StagedCampaign{}, vibesell.Errorf(vibesell.EINVALID, "The sending window %s to %s is empty; give a start before its end, anything from 00:00 to 24:00.", TimeOfDay(r.WindowStart), TimeOfDay(r.WindowEnd))
	}
	if len(r.Days) == 0 {
		return StagedCampaign{}, vibesell.Errorf(vibesell.EINVALID, "days is empty; give the days of the week to send on, e.g. [\"monday\", \"tuesday\", \"wednesday\", \"thursday\", \"friday\"].")
	}
	name := strings.TrimSpace(r.Name)
	if n := len([]rune(name)); n < 1 || n > 100 {
		return StagedCampaign{}, vibesell.Errorf(vibesell.EINVALID, "name needs a campaign name of 1 to 100 characters, e.g. \"Heads of sales, Germany, December\".")
	}
	if r.Sender != (workspace.SenderChange{}) {
		w, ok := s.senders.(SenderWriter)
		if !ok {
			return StagedCampaign{}, errors.New("stage campaign: the sender settings cannot be saved here")
		}
		if _, err := w.SetSender(ctx, ws, r.Sender, s.clock.Now()); err != nil {
			return StagedCampaign{}, err
		}
	}
	q, err := s.Sequence(ctx, ws, r.Sequence, r.SequenceVersion)
	if err != nil {
		return StagedCampaign{}, err
	}
	all, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return StagedCampaign{}, fmt.Errorf("stage campaign: %w", err)
	}
	chosen, err := chooseMailboxes(all, r.Mailboxes)
	if err != nil {
		return StagedCampaign{}, err
	}
	full := chosen[0].FullVolume
	for _, m := range chosen {
		full = min(full, m.FullVolume)
	}
	capPer := r.DailyCap
	if capPer == 0 {
		capPer = full
	}
	if capPer < 1 || capPer > full {
		return StagedCampaign{}, vibesell.Errorf(vibesell.EINVALID,
			"dailyCap is %d emails per mailbox a day; it can be 1 to %d, the most these mailboxes send a day once warm (a higher cap burns the sending domains).", r.DailyCap, full)
	}
	leads, err := s.leads.ImportedLeads(ctx, ws)
	if err != nil {
		return StagedCampaign{}, fmt.Errorf("stage campaign: %w", err)
	}
	addresses := make([]string, len(chosen))
	for i, m := range chosen {
		addresses[i] = m.Address
	}
	days := make([]int16, len(r.Days))
	for i, d := range r.Days {
		days[i] = int16(isoDay(d))
	}
	id := r.Campaign
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if id != "" {
			c, err := s.campaign(ctx, tx, ws, id, true)
			if err != nil {
				return err
			}
			if c.Status != Staged {
				return vibesell.Errorf(vibesell.ECONFLICT, "Campaign %s is %s: only a staged campaign can be staged again. Leave campaign out to stage a new one.", c.ID, c.Status)
			}
			if _, err := tx.Exec(ctx, `UPDATE campaigns SET name = $3, sequence_id = $4, sequence_version = $5, mailboxes = $6,
					window_start = $7, window_end = $8, days = $9, daily_cap = $10, stop_for_company = $11
				WHERE workspace_id = $1 AND id = $2`,
				ws, id, name, q.ID, q.Version, addresses, r.WindowStart, r.WindowEnd, days, capPer, r.StopForCompany); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM campaign_leads WHERE workspace_id = $1 AND campaign_id = $2`, ws, id); err != nil {
				return err
			}
		} else {
			id = newID("cp_")
			if _, err := tx.Exec(ctx, `INSERT INTO campaigns (workspace_id, id, name, sequence_id, sequence_version, mailboxes,
					window_start, window_end, days, daily_cap, stop_for_company, status, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'staged', $12)`,
				ws, id, name, q.ID, q.Version, addresses, r.WindowStart, r.WindowEnd, days, capPer, r.StopForCompany, s.clock.Now()); err != nil {
				return err
			}
		}
		ids, emails, fields, zones := make([]int64, len(leads)), make([]string, len(leads)), make([]string, len(leads)), make([]string, len(leads))
		for i, l := range leads {
			raw, err := json.Marshal(l.MergeFields())
			if err != nil {
				return err
			}
			ids[i], emails[i], fields[i], zones[i] = l.ID, l.Email, string(raw), validZone(l.TimeZone)
		}
		_, err := tx.Exec(ctx, `INSERT INTO campaign_leads (workspace_id, campaign_id, lead_id, email, fields, time_zone)
			SELECT $1, $2, id, email, fields::jsonb, zone FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[]) AS n (id, email, fields, zone)`,
			ws, id, ids, emails, fields, zones)
		return err
	})
	if err != nil {
		return StagedCampaign{}, refusalOrWrap(err, "stage campaign")
	}
	return s.Campaign(ctx, ws, id)
}

// validZone keeps an IANA zone name that loads, and "" otherwise (the
// workspace's zone is used then).
func validZone(z string) string {
	if z == "" || z == "Local" {
		return ""
	}
	if _, err := time.LoadLocation(z); err != nil {
		return ""
	}
	return z
}

func chooseMailboxes(all []Mailbox, asked []string) ([]Mailbox, error) {
	var out []Mailbox
	if len(asked) == 0 {
		for _, m := range all {
			if m.State != "planned" {
				out = append(out, m)
			}
		}
		if len(out) == 0 {
			return nil, vibesell.Errorf(vibesell.EINVALID,
				"The workspace has no ordered mailbox to send from yet.").Then(stepSeeMailboxes)
		}
		return out, nil
	}
	var unknown, planned []string
	for _, a := range asked {
		a = strings.ToLower(strings.TrimSpace(a))
		i := slices.IndexFunc(all, func(m Mailbox) bool { return m.Address == a })
		switch {
		case i < 0:
			unknown = append(unknown, a)
		case all[i].State == "planned":
			planned = append(planned, a)
		case !slices.ContainsFunc(out, func(m Mailbox) bool { return m.Address == a }):
			out = append(out, all[i])
		}
	}
	if len(unknown) > 0 || len(planned) > 0 {
		var parts []string
		if len(unknown) > 0 {
			parts = append(parts, someNames(unknown)+" "+pick(len(unknown), "is not a mailbox", "are not mailboxes")+" of this workspace")
		}
		if len(planned) > 0 {
			parts = append(parts, someNames(planned)+" "+pick(len(planned), "is", "are")+" only planned, not ordered")
		}
		return nil, vibesell.Errorf(vibesell.EINVALID, "%s. Leave mailboxes out to use every ordered one.",
			capitalize(strings.Join(parts, "; "))).Then(stepSeeMailboxes)
	}
	return out, nil
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

const campaignColumns = `c.id, c.name, c.sequence_id, c.sequence_version, c.mailboxes, c.window_start, c.window_end, c.days, c.daily_cap,
	c.stop_for_company, c.status, c.paused_reason, c.paused_automatically, c.created_at, c.launched_at, c.first_send_at, c.paused_at,
	(SELECT count(*) FROM campaign_leads l WHERE l.workspace_id = c.workspace_id AND l.campaign_id = c.id)`

func scanCampaign(r pgx.Row) (Campaign, error) {
	var c Campaign
	err := scanCampaignInto(r, &c)
	return c, err
}

// scanCampaignInto scans campaignColumns into c, then the extra columns
// that follow them into extra.
func scanCampaignInto(r pgx.Row, c *Campaign, extra ...any) error {
	var days []int16
	var start, end int16
	dest := append([]any{&c.ID, &c.Name, &c.SequenceID, &c.SequenceVersion, &c.Mailboxes, &start, &end, &days, &c.Schedule.DailyCap,
		&c.Schedule.StopForCompany, &c.Status, &c.PausedReason, &c.PausedAutomatically, &c.CreatedAt, &c.LaunchedAt, &c.FirstSendAt,
		&c.PausedAt, &c.Leads}, extra...)
	if err := r.Scan(dest...); err != nil {
		return err
	}
	c.Schedule.WindowStart, c.Schedule.WindowEnd = int(start), int(end)
	for _, d := range days {
		c.Schedule.Days = append(c.Schedule.Days, time.Weekday(d%7))
	}
	return nil
}

// Campaign returns a campaign with its sequence version and what blocks
// its launch; id "" means the newest campaign. Refusals: ENOTFOUND.
func (s *Service) Campaign(ctx context.Context, ws uuid.UUID, id string) (StagedCampaign, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return StagedCampaign{}, err
	}
	q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return StagedCampaign{}, err
	}
	out := StagedCampaign{Campaign: c, Sequence: q}
	if c.Status == Staged {
		if out.Blockers, err = s.launchBlockers(ctx, ws, c, q); err != nil {
			return StagedCampaign{}, err
		}
	}
	return out, nil
}

func (s *Service) campaign(ctx context.Context, db store.DBTX, ws uuid.UUID, id string, lock bool) (Campaign, error) {
	var row pgx.Row
	switch {
	case id == "":
		row = db.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns c WHERE workspace_id = $1 ORDER BY created_at DESC, id LIMIT 1`, ws)
	case !campaignIDPattern.MatchString(id):
		return Campaign{}, vibesell.Errorf(vibesell.ENOTFOUND, "%q is not a campaign id; they look like cp_ and 16 hexadecimal characters.", id).Then(
			stepSeeCampaign)
	default:
		sql := `SELECT ` + campaignColumns + ` FROM campaigns c WHERE workspace_id = $1 AND id = $2`
		if lock {
			sql += ` FOR UPDATE`
		}
		row = db.QueryRow(ctx, sql, ws, id)
	}
	c, err := scanCampaign(row)
	if errors.Is(err, pgx.ErrNoRows) {
		if id == "" {
			return Campaign{}, vibesell.Errorf(vibesell.ENOTFOUND, "This workspace has no campaign yet.").Then(
				stepStage)
		}
		return Campaign{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no campaign %s in this workspace.", id)
	}
	if err != nil {
		return Campaign{}, fmt.Errorf("read campaign %s: %w", id, err)
	}
	return c, nil
}

// Tally is what the sending engine counted of a campaign, in total or
// for one step.
type Tally struct {
	Sent, Delivered, Replied, Positive, Bounced, Unsubscribed int
	// Lost counts the emails a worker stopped while sending: whether they
	// left is not known, and they count in neither Sent nor Delivered.
	Lost int
	// Received counts every reply that came in, in total only: Replied
	// counts people, once each, and not out-of-office replies, bounce
	// notices or complaints (counted here, so a reader can tell them
	// apart).
	Received, OutOfOffice, BounceNotices, Complaints int
}

// Counter counts a campaign's sends and replies (the sending engine):
// the total, and one tally per step, steps long; and where each of its
// leads stands now.
type Counter interface {
	CampaignTallies(ctx context.Context, ws uuid.UUID, id string, steps int) (Tally, []Tally, error)
	CampaignProgress(ctx context.Context, ws uuid.UUID, c Campaign, leads []vibesell.Lead, steps int) (Progress, error)
}

// Progress is where a launched campaign's leads stand, as the sending
// engine sees them at its next round; every lead counts once.
type Progress struct {
	NotStarted int // no email yet
	// FollowUps[k] are the leads whose next email is step k+1 (k from 1):
	// they had k steps. FollowUps[0] is always 0.
	FollowUps []int
	Done      int // had every step
	// Stopped get nothing more: a reply stopped them (or someone at their
	// company did, when the campaign says so), or they unsubscribed or
	// their address bounced for good.
	Stopped int
}

// ToWrite is how many leads still get an email.
func (p Progress) ToWrite() int {
	n := p.NotStarted
	for _, f := range p.FollowUps {
		n += f
	}
	return n
}

// progressOf reads where a launched campaign's leads stand; nil before
// the launch (every lead is still to be written to) or on a server
// without the sending engine.
func (s *Service) progressOf(ctx context.Context, ws uuid.UUID, c Campaign, q Sequence) (*Progress, error) {
	if c.Status == Staged || s.counter == nil {
		return nil, nil
	}
	leads, err := s.campaignLeads(ctx, ws, c.ID)
	if err != nil {
		return nil, err
	}
	p, err := s.counter.CampaignProgress(ctx, ws, c, leads, len(q.Steps))
	if err != nil {
		return nil, fmt.Errorf("progress of campaign %s: %w", c.ID, err)
	}
	return &p, nil
}

// ProgressText says in words where p's leads stand, of total.
func ProgressText(p Progress, total int) string {
	follow := 0
	for _, f := range p.FollowUps {
		follow += f
	}
	parts := []string{
		vibesell.Count(p.NotStarted) + " not yet written to",
		vibesell.Count(follow) + " due a follow-up",
		vibesell.Count(p.Done) + " had every email",
		vibesell.Count(p.Stopped) + " stopped by a reply, an unsubscribe or a bounce",
	}
	return fmt.Sprintf("of the %s in the campaign, %s", vibesell.Plural(total, "person", "people"), vibesell.JoinAnd(parts))
}

const opensWhy = "Open tracking is off: tracking pixels hurt deliverability and miscount (mail apps preload images), so opens are not measured."

// MetricsOf returns a campaign's metrics, read now from what the sending
// engine recorded. A staged campaign has sent nothing, which is known:
// every count is 0. On a server without the engine, a launched
// campaign's counts cannot be known: each is nil, with the reason.
func (s *Service) MetricsOf(ctx context.Context, ws uuid.UUID, c Campaign, q Sequence) (Metrics, error) {
	m := Metrics{OpensWhy: opensWhy}
	if c.Status != Staged && s.counter == nil {
		m.Why = "VibeSell does not record sends on this server: the sending engine that delivers a launched campaign's emails and counts them is not running."
		for i := range q.Steps {
			m.Steps = append(m.Steps, StepMetrics{Step: i + 1})
		}
		return m, nil
	}
	total, steps := Tally{}, make([]Tally, len(q.Steps))
	if c.Status != Staged {
		var err error
		if total, steps, err = s.counter.CampaignTallies(ctx, ws, c.ID, len(q.Steps)); err != nil {
			return Metrics{}, fmt.Errorf("metrics of campaign %s: %w", c.ID, err)
		}
	}
	m.Counts = countsOf(total)
	m.RepliesNote = repliesNote(total)
	for i, t := range steps {
		m.Steps = append(m.Steps, StepMetrics{Step: i + 1, Counts: countsOf(t)})
	}
	return m, nil
}

// repliesNote says which replies that came in the count of people who
// replied leaves out: "4 replies came in; 3 people replied, not counting
// 1 out-of-office reply".
func repliesNote(t Tally) string {
	if t.Received <= t.Replied {
		return ""
	}
	var left []string
	if t.OutOfOffice > 0 {
		left = append(left, vibesell.Plural(t.OutOfOffice, "out-of-office reply", "out-of-office replies"))
	}
	if t.BounceNotices > 0 {
		left = append(left, vibesell.Plural(t.BounceNotices, "bounce notice", "bounce notices")+" (counted as bounced)")
	}
	if t.Complaints > 0 {
		left = append(left, vibesell.Plural(t.Complaints, "spam complaint", "spam complaints"))
	}
	if more := t.Received - t.OutOfOffice - t.BounceNotices - t.Complaints - t.Replied; more > 0 {
		left = append(left, vibesell.Plural(more, "further reply from someone who had replied already", "further replies from people who had replied already"))
	}
	return fmt.Sprintf("%s came in; %s replied, not counting %s",
		vibesell.Plural(t.Received, "reply", "replies"), vibesell.Plural(t.Replied, "person", "people"), vibesell.JoinAnd(left))
}

func countsOf(t Tally) Counts {
	return Counts{Sent: &t.Sent, Delivered: &t.Delivered, Replied: &t.Replied, PositiveReplies: &t.Positive, Bounced: &t.Bounced, Unsubscribed: &t.Unsubscribed,
		NotSentUnknown: &t.Lost}
}

// Listed is a campaign with the sequence version it sends.
type Listed struct {
	Campaign Campaign
	Sequence Sequence
	Metrics  Metrics
}

// List returns the workspace's newest campaigns (at most limit, 1 to
// 100), each with its sequence version and metrics.
func (s *Service) List(ctx context.Context, ws uuid.UUID, limit int) ([]Listed, error) {
	limit = min(max(limit, 1), 100)
	rows, err := s.db.Query(ctx, `SELECT `+campaignColumns+`, v.name, v.version, v.steps, v.created_at, v.approved_at, v.approved_by, v.sequence_id,
			(SELECT max(version) FROM sequence_versions l WHERE l.workspace_id = v.workspace_id AND l.sequence_id = v.sequence_id)
		FROM campaigns c JOIN sequence_versions v ON v.workspace_id = c.workspace_id AND v.sequence_id = c.sequence_id AND v.version = c.sequence_version
		WHERE c.workspace_id = $1 ORDER BY c.created_at DESC, c.id LIMIT $2`, ws, limit)
	if err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Listed, error) {
		var l Listed
		q := &l.Sequence
		var raw []byte
		if err := scanCampaignInto(r, &l.Campaign, &q.Name, &q.Version, &raw, &q.CreatedAt, &q.ApprovedAt, &q.ApprovedBy, &q.ID, &q.LatestVersion); err != nil {
			return l, err
		}
		if err := json.Unmarshal(raw, &q.Steps); err != nil {
			return l, err
		}
		return l, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	for i := range out {
		if out[i].Metrics, err = s.MetricsOf(ctx, ws, out[i].Campaign, out[i].Sequence); err != nil {
			return nil, err
		}
	}
	return out, nil
}
