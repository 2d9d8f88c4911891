package audience

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/campaigns"
)

// A lead's story: where it came from, the campaigns it is in, each step
// sent, the next one and when it is due, the replies, and why it stopped.
// The audience feature owns the lead's life (it imports, suppresses and
// removes it) and assembles the story, asking the campaigns feature and
// the sending engine for their parts ([Deps].StoryCampaigns and
// StoryMail).

// LeadCampaigns is what the story asks of the campaigns feature
// (campaigns.Service).
type LeadCampaigns interface {
	LeadCampaigns(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.LeadCampaign, error)
}

// LeadMail is what the story asks of the sending engine (replies.LeadHistory).
type LeadMail interface {
	LeadSends(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.SentStep, error)
	LeadReplies(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.LeadReply, error)
	CompanyStop(ctx context.Context, ws uuid.UUID, campaign string, lead int64, email string) (*campaigns.LeadReply, error)
}

// Where a lead came from.
const (
	SourceUpload    = "upload"    // a file a person uploaded
	SourceDirectory = "directory" // the lead directory
	SourceSample    = "sample"    // the sample directory's made-up contacts
)

// Why a lead's campaign stopped writing to it.
const (
	StopReplied          = "replied"
	StopColleagueReplied = "colleague_replied"
	StopUnsubscribed     = "unsubscribed"
	StopBounced          = "bounced"
	StopSuppressed       = "suppressed"
	StopRemoved          = "removed"
	StopFailed           = "failed"    // a step could not be sent after every try
	StopCompleted        = "completed" // every step went out
	StopCampaignEnded    = "campaign_finished"
)

// MaxStorySteps and MaxStoryReplies bound a story: the newest are kept,
// and the totals say how many there are.
const (
	MaxStorySteps   = 50
	MaxStoryReplies = 20
)

// Story is one lead's story.
type Story struct {
	Lead       ListedLead
	Country    string
	TimeZone   string
	Source     string // one of the Source* values
	FileName   string // the uploaded file's name; "" when not an upload or not known
	Suppressed *Suppression
	RemovedAt  *time.Time
	RemovedBy  string
	Campaigns  []StoryCampaign
	// Replies are the newest replies, at most MaxStoryReplies, newest
	// first; RepliesTotal counts them all.
	Replies      []campaigns.LeadReply
	RepliesTotal int
}

// Suppression is why the workspace never writes to the lead's address.
type Suppression struct {
	Reason string // ReasonUnsubscribe, ReasonHardBounce, ReasonComplaint or ReasonManual
	Domain bool   // the whole domain is suppressed, not the address alone
	At     time.Time
}

// StoryCampaign is the lead's part in one campaign.
type StoryCampaign struct {
	ID     string
	Name   string
	Status string // the campaign's own status
	Steps  int    // the sequence's emails
	// Sent are the steps sent (or tried), oldest first, at most
	// MaxStorySteps (the newest); SentTotal counts them all.
	Sent      []campaigns.SentStep
	SentTotal int
	Next      *NextStep // nil when nothing more will go out
	Stop      *Stop     // nil while the lead may still get emails
}

// NextStep is the step the lead gets next.
type NextStep struct {
	Step int
	Due  *time.Time // nil when not known (the campaign is not running)
	// Waiting says why it is not due yet, when the campaign is not
	// running: WaitLaunch or WaitPaused; "" when Due says when.
	Waiting string
}

// Why a next step waits.
const (
	WaitLaunch = "launch" // the campaign is not launched yet
	WaitPaused = "paused" // the campaign is paused
)

// Stop is why a campaign writes no more to the lead.
type Stop struct {
	Reason string     // one of the Stop* values
	At     *time.Time // nil when not known
	// By is who: the colleague who replied, the person who removed it.
	By string
}

// parseLeadRef reads how a lead is named: its id ("42") or its address.
func parseLeadRef(ref string) (id int64, email string) {
	ref = strings.TrimSpace(ref)
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil && n > 0 {
		return n, ""
	}
	return 0, strings.ToLower(ref)
}

// Story returns the story of the lead named by ref (its id or address).
// Refusals: ENOTFOUND when the workspace has no such lead.
func (s *Service) Story(ctx context.Context, ws uuid.UUID, ref string) (Story, error) {
	id, email := parseLeadRef(ref)
	var st Story
	l := &st.Lead
	var approvalID string
	var sample *bool
	var uploadID, fileName *string
	err := s.db.QueryRow(ctx, `SELECT l.id, l.email, l.first_name, l.last_name, l.company, l.title, `+leadStatusSQL+`, l.created_at,
			l.country, l.time_zone, l.removed_at, coalesce(l.removed_by, ''), l.approval_id, li.sample, li.upload_id, u.file_name
		  FROM leads l
		  LEFT JOIN lead_imports li ON li.workspace_id = l.workspace_id AND li.approval_id = l.approval_id
		  LEFT JOIN lead_uploads u ON u.workspace_id = li.workspace_id AND u.id = li.upload_id
		 WHERE l.workspace_id = $1 AND (l.id = $2 OR l.email = $3)`, ws, id, email).
		Scan(&l.ID, &l.Email, &l.FirstName, &l.LastName, &l.Company, &l.Title, &l.Status, &l.AddedAt,
			&st.Country, &st.TimeZone, &st.RemovedAt, &st.RemovedBy, &approvalID, &sample, &uploadID, &fileName)
	if errors.Is(err, pgx.ErrNoRows) {
		return Story{}, vibesell.Errorf(vibesell.ENOTFOUND, "%s is not one of the workspace's leads: name a lead by its id or its email address.", strconv.Quote(strings.TrimSpace(ref)))
	}
	if err != nil {
		return Story{}, fmt.Errorf("read lead %s: %w", ref, err)
	}
	switch {
	case uploadID != nil:
		st.Source = SourceUpload
		if fileName != nil {
			st.FileName = *fileName
		}
	case sample != nil && *sample:
		st.Source = SourceSample
	default:
		st.Source = SourceDirectory
	}
	if st.Suppressed, err = s.suppressionOf(ctx, ws, l.Email); err != nil {
		return Story{}, err
	}
	if s.storyCampaigns == nil || s.storyMail == nil {
		return st, nil
	}
	lcs, err := s.storyCampaigns.LeadCampaigns(ctx, ws, l.ID)
	if err != nil {
		return Story{}, err
	}
	sends, err := s.storyMail.LeadSends(ctx, ws, l.ID)
	if err != nil {
		return Story{}, err
	}
	replies, err := s.storyMail.LeadReplies(ctx, ws, l.ID)
	if err != nil {
		return Story{}, err
	}
	st.RepliesTotal = len(replies)
	st.Replies = replies[:min(len(replies), MaxStoryReplies)]
	now := s.clock.Now()
	for _, lc := range lcs {
		c, err := s.storyCampaign(ctx, ws, st, lc, sends, replies, now)
		if err != nil {
			return Story{}, err
		}
		st.Campaigns = append(st.Campaigns, c)
	}
	return st, nil
}

func (s *Service) suppressionOf(ctx context.Context, ws uuid.UUID, email string) (*Suppression, error) {
	_, domain, _, _ := normalEmail(email)
	var sp Suppression
	err := s.db.QueryRow(ctx, `SELECT reason, kind = 'domain', created_at FROM suppressions
		WHERE workspace_id = $1 AND ((kind = 'address' AND value = $2) OR (kind = 'domain' AND value = $3))
		ORDER BY kind, created_at LIMIT 1`, ws, email, domain).Scan(&sp.Reason, &sp.Domain, &sp.At)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the suppression of %s: %w", email, err)
	}
	return &sp, nil
}

// storyCampaign tells the lead's part in one campaign, by the engine's
// rules: a removal, a reply that stops (the lead's own, or a colleague's
// when the campaign stops the whole company), the suppression list, then
// the ledger.
func (s *Service) storyCampaign(ctx context.Context, ws uuid.UUID, st Story, lc campaigns.LeadCampaign, sends []campaigns.SentStep,
	replies []campaigns.LeadReply, now time.Time) (StoryCampaign, error) {
	c := StoryCampaign{ID: lc.Campaign.ID, Name: lc.Campaign.Name, Status: lc.Campaign.Status, Steps: lc.Steps}
	var last *campaigns.SentStep
	var retry, failed *campaigns.SentStep
	for i := range sends {
		sd := &sends[i]
		if sd.Campaign != c.ID {
			continue
		}
		c.Sent = append(c.Sent, *sd)
		if sd.Answer {
			continue // an answer to a reply, not a step of the sequence
		}
		switch sd.Outcome {
		case campaigns.StepRetrying:
			retry = sd
		case campaigns.StepFailed:
			failed = sd
		default:
			if last == nil || sd.Step > last.Step {
				last = sd
			}
		}
	}
	c.SentTotal = len(c.Sent)
	if len(c.Sent) > MaxStorySteps {
		c.Sent = c.Sent[len(c.Sent)-MaxStorySteps:]
	}
	// The oldest reply that stopped the sequence.
	var stopping *campaigns.LeadReply
	for i := range replies {
		if r := &replies[i]; r.Campaign == c.ID && r.Stops {
			stopping = r
		}
	}
	switch {
	case lc.RemovedAt != nil:
		c.Stop = &Stop{Reason: StopRemoved, At: lc.RemovedAt, By: st.RemovedBy}
	case st.RemovedAt != nil:
		c.Stop = &Stop{Reason: StopRemoved, At: st.RemovedAt, By: st.RemovedBy}
	case stopping != nil:
		c.Stop = replyStop(*stopping)
	}
	if c.Stop == nil && lc.Campaign.Schedule.StopForCompany {
		r, err := s.storyMail.CompanyStop(ctx, ws, c.ID, st.Lead.ID, st.Lead.Email)
		if err != nil {
			return c, err
		}
		if r != nil {
			c.Stop = &Stop{Reason: StopColleagueReplied, At: &r.ReceivedAt, By: r.From}
		}
	}
	if c.Stop == nil && st.Suppressed != nil {
		at := st.Suppressed.At
		c.Stop = &Stop{Reason: suppressionStop[st.Suppressed.Reason], At: &at}
	}
	if c.Stop != nil {
		return c, nil
	}
	switch {
	case failed != nil:
		c.Stop = &Stop{Reason: StopFailed, At: &failed.At}
	case retry != nil:
		c.Next = &NextStep{Step: retry.Step, Due: retry.RetryAt}
	case last != nil && last.Step >= lc.Steps:
		c.Stop = &Stop{Reason: StopCompleted, At: &last.At}
	case lc.Campaign.Status == campaigns.Finished:
		c.Stop = &Stop{Reason: StopCampaignEnded}
	default:
		n := &NextStep{Step: 1}
		var prev time.Time
		if last != nil {
			n.Step, prev = last.Step+1, last.At
		}
		switch {
		case lc.Campaign.Status == campaigns.Staged:
			n.Waiting = WaitLaunch
		case lc.Campaign.Status == campaigns.Paused:
			n.Waiting = WaitPaused
		default:
			n.Due = lc.Due(n.Step, prev, now)
		}
		c.Next = n
	}
	if c.Next != nil && c.Next.Due == nil && c.Next.Waiting == "" && !lc.Running() {
		c.Next.Waiting = WaitPaused
	}
	return c, nil
}

var suppressionStop = map[string]string{
	ReasonUnsubscribe: StopUnsubscribed,
	ReasonHardBounce:  StopBounced,
	ReasonComplaint:   StopSuppressed,
	ReasonManual:      StopSuppressed,
}

func replyStop(r campaigns.LeadReply) *Stop {
	at := r.ReceivedAt
	switch {
	case r.Classification == "bounce":
		return &Stop{Reason: StopBounced, At: &at}
	case r.Classification == "unsubscribe" || r.Classification == "complaint":
		return &Stop{Reason: StopUnsubscribed, At: &at}
	case r.MatchedBy == "domain":
		return &Stop{Reason: StopColleagueReplied, At: &at, By: r.From}
	default:
		return &Stop{Reason: StopReplied, At: &at, By: r.From}
	}
}
