package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/toolkit"
	"vibesell/workspace"
)

type scheduleData struct {
	WindowStart    string   `json:"windowStart" jsonschema:"start of the sending window, HH:MM in each lead's own time zone"`
	WindowEnd      string   `json:"windowEnd" jsonschema:"end of the sending window, HH:MM (24:00: midnight)"`
	Days           []string `json:"days" jsonschema:"the days of the week it sends on"`
	DailyCap       int      `json:"dailyCap" jsonschema:"the most emails each mailbox sends a day for this campaign"`
	StopForCompany bool     `json:"stopForCompany" jsonschema:"true: when one person replies, no one else at their company gets another email"`
}

type countWithWhy struct {
	Value *int   `json:"value" jsonschema:"the count; null when not known (never 0 for unknown)"`
	Why   string `json:"why" jsonschema:"why it is null; empty when it is known"`
}

type countsData struct {
	Sent            countWithWhy `json:"sent" jsonschema:"emails sent"`
	Delivered       countWithWhy `json:"delivered" jsonschema:"emails delivered"`
	Replied         countWithWhy `json:"replied" jsonschema:"people who replied"`
	PositiveReplies countWithWhy `json:"positiveReplies" jsonschema:"interested replies"`
	Bounced         countWithWhy `json:"bounced" jsonschema:"emails that bounced"`
	Unsubscribed    countWithWhy `json:"unsubscribed" jsonschema:"people who unsubscribed"`
	NotSentUnknown  countWithWhy `json:"notSentUnknown" jsonschema:"emails that may have been lost in a crash: the server stopped while sending them, so whether they left is not known; never sent again, and counted in neither sent nor delivered"`
}

type stepMetricsData struct {
	Step int `json:"step" jsonschema:"the step, from 1"`
	countsData
}

type metricsData struct {
	countsData
	RepliesNote string            `json:"repliesNote" jsonschema:"when more replies came in than people replied: which ones replied leaves out (out-of-office replies, bounce notices, complaints, a person's second reply); empty otherwise"`
	Opens       countWithWhy      `json:"opens" jsonschema:"opens; null unless open tracking is on"`
	Steps       []stepMetricsData `json:"steps" jsonschema:"the same counts per step"`
}

func toCountsData(c campaigns.Counts, why string) countsData {
	return countsData{Sent: count(c.Sent, why), Delivered: count(c.Delivered, why), Replied: count(c.Replied, why),
		PositiveReplies: count(c.PositiveReplies, why), Bounced: count(c.Bounced, why), Unsubscribed: count(c.Unsubscribed, why),
		NotSentUnknown: count(c.NotSentUnknown, why)}
}

type campaignData struct {
	Campaign            string       `json:"campaign" jsonschema:"the campaign id, to pass back" pattern:"^cp_[0-9a-f]{16}$"`
	Name                string       `json:"name" jsonschema:"the campaign's name"`
	Status              string       `json:"status" enum:"staged,scheduled,sending,paused,finished" jsonschema:"staged: nothing scheduled yet (launch_campaign next); scheduled: launched, first email due at firstSendAt; sending; paused (pausedReason says why); finished"`
	PausedReason        *string      `json:"pausedReason" jsonschema:"why it is paused; null unless paused"`
	PausedAutomatically bool         `json:"pausedAutomatically" jsonschema:"true when VibeSell paused it for deliverability (resuming then needs the web app)"`
	Sequence            string       `json:"sequence" jsonschema:"the sequence id" pattern:"^sq_[0-9a-f]{16}$"`
	SequenceVersion     int          `json:"sequenceVersion" jsonschema:"the exact version it sends"`
	SequenceApproved    bool         `json:"sequenceApproved" jsonschema:"true when that version is approved"`
	Steps               int          `json:"steps" jsonschema:"how many emails each lead gets at most"`
	Leads               int          `json:"leads" jsonschema:"the people it writes to"`
	Mailboxes           []string     `json:"mailboxes" jsonschema:"the addresses it sends from: the first 20 (mailboxesTotal counts them all; get_sending_setup lists every mailbox)"`
	MailboxesTotal      int          `json:"mailboxesTotal" jsonschema:"how many addresses it sends from"`
	Schedule            scheduleData `json:"schedule" jsonschema:"when it sends"`
	Blockers            []string     `json:"blockers" jsonschema:"while staged: what launch_campaign would refuse for now, each with what to do; empty when it can be launched"`
	CreatedAt           time.Time    `json:"createdAt" jsonschema:"when it was staged"`
	LaunchedAt          *time.Time   `json:"launchedAt" jsonschema:"when its launch was carried out; null until launched"`
	FirstSendAt         *time.Time   `json:"firstSendAt" jsonschema:"when its first email is due; null until launched"`
	Metrics             metricsData  `json:"metrics" jsonschema:"what it has done so far"`
}

type campaignOutput struct {
	Kind     string       `json:"kind" enum:"campaign"`
	Campaign campaignData `json:"campaign" jsonschema:"the campaign as it stands"`
}

func count(v *int, why string) countWithWhy {
	if v != nil {
		why = ""
	}
	return countWithWhy{Value: v, Why: why}
}

// blockerLines writes each blocker with the calls that clear it; never
// nil, an empty list in the data.
func blockerLines(blockers []vibesell.Blocker) []string {
	out := make([]string, len(blockers))
	for i, b := range blockers {
		out[i] = toolkit.BlockerText(b)
	}
	return out
}

func toCampaignData(sc campaigns.StagedCampaign, m campaigns.Metrics) campaignData {
	c := sc.Campaign
	days := make([]string, len(c.Schedule.Days))
	for i, d := range c.Schedule.Days {
		days[i] = strings.ToLower(d.String())
	}
	blockers := blockerLines(sc.Blockers)
	out := campaignData{Campaign: c.ID, Name: c.Name, Status: c.Status, PausedReason: c.PausedReason, PausedAutomatically: c.PausedAutomatically,
		Sequence: c.SequenceID, SequenceVersion: c.SequenceVersion, SequenceApproved: sc.Sequence.Approved(), Steps: len(sc.Sequence.Steps),
		Leads: c.Leads, Mailboxes: c.Mailboxes[:min(len(c.Mailboxes), campaignMailboxesListed)], MailboxesTotal: len(c.Mailboxes), Blockers: blockers, CreatedAt: c.CreatedAt, LaunchedAt: c.LaunchedAt, FirstSendAt: c.FirstSendAt,
		Schedule: scheduleData{WindowStart: campaigns.TimeOfDay(c.Schedule.WindowStart), WindowEnd: campaigns.TimeOfDay(c.Schedule.WindowEnd), Days: days,
			DailyCap: c.Schedule.DailyCap, StopForCompany: c.Schedule.StopForCompany},
		Metrics: metricsData{countsData: toCountsData(m.Counts, m.Why), RepliesNote: m.RepliesNote, Opens: count(m.Opens, m.OpensWhy), Steps: []stepMetricsData{}},
	}
	for _, s := range m.Steps {
		out.Metrics.Steps = append(out.Metrics.Steps, stepMetricsData{Step: s.Step, countsData: toCountsData(s.Counts, m.Why)})
	}
	return out
}

// campaignMailboxesListed is how many of a campaign's addresses its
// result names: a campaign sends from every ordered mailbox unless told
// otherwise, up to 1,000.
const campaignMailboxesListed = 20

// mailboxesText names the first addresses a campaign sends from and
// counts the rest.
func mailboxesText(all []string) string {
	if len(all) <= campaignMailboxesListed {
		return vibesell.JoinAnd(all)
	}
	return fmt.Sprintf("%s (%s and %s more; %s lists every mailbox)", vibesell.Plural(len(all), "mailbox", "mailboxes"),
		strings.Join(all[:campaignMailboxesListed], ", "), vibesell.Count(len(all)-campaignMailboxesListed), vibesell.ToolGetSendingSetup)
}

func campaignMarkdown(ctx context.Context, lead string, sc campaigns.StagedCampaign, m campaigns.Metrics) string {
	c := sc.Campaign
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n## Campaign %s: %s\n\n", lead, c.ID, c.Name)
	status := campaigns.CampaignStatusText(ctx, c)
	approved := "approved"
	if !sc.Sequence.Approved() {
		approved = "NOT approved"
	}
	fmt.Fprintf(&b, "Status: %s.\nSequence: %s version %d (%s, %s), %s.\nPeople: %s.\nFrom: %s.\nSchedule: %s.",
		status, c.SequenceID, c.SequenceVersion, sc.Sequence.Name, vibesell.Plural(len(sc.Sequence.Steps), "step", "steps"), approved,
		vibesell.Count(c.Leads), mailboxesText(c.Mailboxes), c.Schedule.Describe())
	switch {
	case m.Sent == nil:
		fmt.Fprintf(&b, "\nMetrics: not known. %s\nOpens: not measured. %s\n", m.Why, m.OpensWhy)
	case c.Status == campaigns.Staged:
		fmt.Fprintf(&b, "\nMetrics: nothing sent yet, since it is not launched: %s.\nOpens: not measured. %s\n", metricsLine(m.Counts), m.OpensWhy)
	default:
		fmt.Fprintf(&b, "\nMetrics, counted now: %s.", metricsLine(m.Counts))
		if m.RepliesNote != "" {
			fmt.Fprintf(&b, " %s.", m.RepliesNote)
		}
		for _, st := range m.Steps {
			fmt.Fprintf(&b, "\n- step %d: %s", st.Step, metricsLine(st.Counts))
		}
		fmt.Fprintf(&b, "\nOpens: not measured. %s\n", m.OpensWhy)
	}
	switch c.Status {
	case campaigns.Paused:
		if c.PausedAutomatically {
			fmt.Fprintf(&b, "\nVibeSell paused it itself. Tell the person why; once they have dealt with the cause, %s with campaign %s asks to resume it, which only a signed-in person in the web app can approve.\n",
				vibesell.ToolResumeCampaign, c.ID)
		} else {
			fmt.Fprintf(&b, "\nNext: %s with campaign %s asks the person's approval to resume it; %s shows the replies so far.\n",
				vibesell.ToolResumeCampaign, c.ID, vibesell.ToolListReplies)
		}
	case campaigns.Scheduled, campaigns.Sending:
		fmt.Fprintf(&b, "\nNext: %s shows the replies as they come in (call it again later); %s with campaign %s asks the person's approval to stop it.\n",
			vibesell.ToolListReplies, vibesell.ToolStopCampaign, c.ID)
	case campaigns.Finished:
		fmt.Fprintf(&b, "\nIt sends nothing more. Next: %s shows the replies; %s stages a new campaign for other leads.\n",
			vibesell.ToolListReplies, vibesell.ToolStageCampaign)
	}
	if c.Status == campaigns.Staged {
		if len(sc.Blockers) == 0 {
			fmt.Fprintf(&b, "\nNothing blocks the launch. Next: %s shows the days it takes and the replies to expect; %s asks the person's approval to launch (only a signed-in person in the web app can approve it).\n",
				vibesell.ToolEstimateCampaignPlan, vibesell.ToolLaunchCampaign)
		} else {
			fmt.Fprintf(&b, "\nBefore it can launch (%s):\n%s", vibesell.Plural(len(sc.Blockers), "thing", "things"), bulletList(blockerLines(sc.Blockers)))
		}
	}
	if c.Leads > 0 {
		fmt.Fprintf(&b, "\nOne lead's story (each email sent, its replies, its next step, why it stopped): %s with the lead's id or email; %s with campaign %s names the leads who answered, by id.\n",
			vibesell.ToolGetLead, vibesell.ToolListReplies, c.ID)
	}
	return b.String()
}

// stage_campaign

type stageCampaignInput struct {
	Campaign        string   `json:"campaign,omitempty" jsonschema:"a staged campaign to stage again with these settings (same id); absent stages a new campaign" example:"cp_8e1f2a3b4c5d6e7f" pattern:"^cp_[0-9a-f]{16}$"`
	Name            string   `json:"name" jsonschema:"the campaign's name" example:"Heads of sales, Germany, December" minLength:"1" maxLength:"100"`
	Sequence        string   `json:"sequence" jsonschema:"the sequence id" example:"sq_3f2a9c0d4b5e6f70" pattern:"^sq_[0-9a-f]{16}$"`
	SequenceVersion int      `json:"sequenceVersion,omitempty" jsonschema:"the version to send; absent: the latest (it must be approved before the launch)" example:"2" minimum:"1"`
	Mailboxes       []string `json:"mailboxes,omitempty" jsonschema:"the addresses to send from; absent: every ordered mailbox of the workspace" example:"[\"sam@getacme.com\"]" maxItems:"100" maxLength:"320"`
	WindowStart     string   `json:"windowStart" jsonschema:"start of the sending window, HH:MM in each lead's own time zone (the workspace's when unknown)" example:"09:00" pattern:"^[0-2][0-9]:[0-5][0-9]$"`
	WindowEnd       string   `json:"windowEnd" jsonschema:"end of the sending window, HH:MM; 24:00 for midnight (00:00 to 24:00 sends all day)" example:"17:00" pattern:"^[0-2][0-9]:[0-5][0-9]$"`
	Days            []string `json:"days" jsonschema:"days of the week to send on: monday … sunday" example:"[\"monday\", \"tuesday\", \"wednesday\", \"thursday\", \"friday\"]" minItems:"1" maxItems:"7"`
	DailyCap        int      `json:"dailyCap,omitempty" jsonschema:"the most emails each mailbox sends a day, never above what a warm mailbox may; absent: that most" example:"25" minimum:"1" maximum:"100"`
	StopForCompany  bool     `json:"stopForCompany,omitempty" jsonschema:"true: when one person replies, stop writing to everyone at their company" example:"true"`
	PostalAddress   *string  `json:"postalAddress,omitempty" jsonschema:"the workspace's postal address, which every cold email carries by law; saved for the workspace" example:"Acme GmbH, Torstraße 1, 10119 Berlin, Germany" maxLength:"500"`
	SenderName      *string  `json:"senderName,omitempty" jsonschema:"the name emails come from when a mailbox has none of its own; saved for the workspace" example:"Sam Lee" maxLength:"100"`
	TimeZone        *string  `json:"timeZone,omitempty" jsonschema:"the workspace's time zone (IANA name), for dates and for leads whose zone is unknown; saved for the workspace" example:"Europe/Berlin" maxLength:"64"`
}

func stageCampaign(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[stageCampaignInput, campaignOutput]{
		Name:        vibesell.ToolStageCampaign,
		Title:       "Stage a campaign",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.No, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Puts a campaign together without sending anything: the workspace's imported leads, one
			version of a sequence, the mailboxes to send from, and a schedule (a sending window and
			days of the week read in each lead's own time zone, a daily cap per mailbox never above
			what a warm mailbox may send, and whether a reply stops the whole company).
			postalAddress, senderName and timeZone, when given, are saved for the whole workspace
			(every email carries the postal address and the sender's name). The result lists
			everything that still blocks the launch. Staging changes nothing outside VibeSell, sends
			nothing and costs nothing; pass campaign to change a staged campaign instead of making
			another. Not for launching (launch_campaign) or reading a campaign (get_campaign).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in stageCampaignInput) (toolkit.Result[campaignOutput], error) {
			start, err := campaigns.ParseClock(in.WindowStart)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, vibesell.Errorf(vibesell.EINVALID, "windowStart: %s.", err)
			}
			end, err := campaigns.ParseClock(in.WindowEnd)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, vibesell.Errorf(vibesell.EINVALID, "windowEnd: %s.", err)
			}
			days, err := campaigns.ParseDays(in.Days)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, vibesell.Errorf(vibesell.EINVALID, "days: %s.", err)
			}
			sc, err := d.Campaigns.Stage(ctx, p.WorkspaceID, campaigns.StageRequest{Campaign: in.Campaign, Name: in.Name, Sequence: in.Sequence,
				SequenceVersion: in.SequenceVersion, Mailboxes: in.Mailboxes, WindowStart: start, WindowEnd: end, Days: days, DailyCap: in.DailyCap,
				StopForCompany: in.StopForCompany, Sender: workspace.SenderChange{PostalAddress: in.PostalAddress, Name: in.SenderName, TimeZone: in.TimeZone}})
			if err != nil {
				return toolkit.Result[campaignOutput]{}, err
			}
			m, err := d.Campaigns.MetricsOf(ctx, p.WorkspaceID, sc.Campaign, sc.Sequence)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, err
			}
			lead := "Staged the campaign. Nothing is sent and nothing is scheduled."
			return toolkit.Result[campaignOutput]{Markdown: campaignMarkdown(ctx, lead, sc, m), Data: campaignOutput{Campaign: toCampaignData(sc, m)}}, nil
		},
	})
}

// get_campaign

type getCampaignInput struct {
	Campaign string `json:"campaign,omitempty" jsonschema:"the campaign id; absent: the newest campaign" example:"cp_8e1f2a3b4c5d6e7f" pattern:"^cp_[0-9a-f]{16}$"`
}

func getCampaign(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[getCampaignInput, campaignOutput]{
		Name:        vibesell.ToolGetCampaign,
		Title:       "Get a campaign",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Reads a campaign as it stands now: its status (staged, scheduled, sending, paused with
			why, finished), its sequence version, people, mailboxes and schedule, what still blocks
			a staged campaign's launch, and its metrics (sent, delivered, replied, positive replies,
			bounced, unsubscribed, in total and per step; opens only when tracking is on). A metric
			not known is null with the reason, never 0. It changes nothing. Not for the time a
			campaign takes (estimate_campaign_plan).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in getCampaignInput) (toolkit.Result[campaignOutput], error) {
			sc, err := d.Campaigns.Campaign(ctx, p.WorkspaceID, in.Campaign)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, err
			}
			m, err := d.Campaigns.MetricsOf(ctx, p.WorkspaceID, sc.Campaign, sc.Sequence)
			if err != nil {
				return toolkit.Result[campaignOutput]{}, err
			}
			return toolkit.Result[campaignOutput]{Markdown: campaignMarkdown(ctx, "Here is the campaign as it stands now.", sc, m), Data: campaignOutput{Campaign: toCampaignData(sc, m)}}, nil
		},
	})
}

// estimate_campaign_plan

type campaignEstimateOutput struct {
	Kind             string  `json:"kind" enum:"campaign_estimate"`
	Campaign         string  `json:"campaign" jsonschema:"the campaign id" pattern:"^cp_[0-9a-f]{16}$"`
	Leads            int     `json:"leads" jsonschema:"the people of the campaign"`
	ToWrite          int     `json:"toWrite" jsonschema:"the people still to get an email, whom the dates plan for: all of them before the launch; after it, those not yet written to or due a follow-up (not those who had every email, replied, unsubscribed or bounced)"`
	Steps            int     `json:"steps" jsonschema:"emails each person gets at most"`
	Mailboxes        int     `json:"mailboxes" jsonschema:"mailboxes it sends from"`
	PerMailboxPerDay int     `json:"perMailboxPerDay" jsonschema:"emails each mailbox sends a day"`
	PerDay           int     `json:"perDay" jsonschema:"emails a sending day in all"`
	Days             *int    `json:"days" jsonschema:"sending days until every person has had the first email; null when nothing can be sent"`
	FirstSendOn      *string `json:"firstSendOn" jsonschema:"date of the first email, YYYY-MM-DD in timeZone; null when nothing can be sent"`
	LastFirstEmailOn *string `json:"lastFirstEmailOn" jsonschema:"date the last person gets the first email, YYYY-MM-DD in timeZone; null when nothing can be sent or every person has had it"`
	LastSendOn       *string `json:"lastSendOn" jsonschema:"date of the last follow-up, YYYY-MM-DD in timeZone; null when nothing can be sent"`
	TimeZone         string  `json:"timeZone" jsonschema:"the workspace's time zone the dates are in"`
	RepliesLow       int     `json:"repliesLow" jsonschema:"replies to expect, low end"`
	RepliesHigh      int     `json:"repliesHigh" jsonschema:"replies to expect, high end"`
	ReplyRateLow     float64 `json:"replyRateLow" jsonschema:"the reply rate assumed at the low end, in percent"`
	ReplyRateHigh    float64 `json:"replyRateHigh" jsonschema:"the reply rate assumed at the high end, in percent"`
	Assumption       string  `json:"assumption" jsonschema:"what the estimate assumes, in words"`
	CapacityNote     *string `json:"capacityNote" jsonschema:"when the capacity used is not today's, why; null when it is"`
}

func dayOf(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := vibesell.FormatDay(*t)
	return &s
}

func estimateCampaignPlan(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[getCampaignInput, campaignEstimateOutput]{
		Name:        vibesell.ToolEstimateCampaignPlan,
		Title:       "Estimate a campaign's plan",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Works out, with today's sending capacity, how long a campaign takes: emails per mailbox
			per day, the sending days until every person has had the first email, the dates of the
			first and the last email in the workspace's time zone, and the replies to expect as a
			range, with the reply rates assumed (an installation's setting, never a promise). It
			changes nothing. Not for the campaign's status (get_campaign).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in getCampaignInput) (toolkit.Result[campaignEstimateOutput], error) {
			e, err := d.Campaigns.EstimatePlan(ctx, p.WorkspaceID, in.Campaign)
			if err != nil {
				return toolkit.Result[campaignEstimateOutput]{}, err
			}
			out := campaignEstimateOutput{Campaign: e.Campaign.ID, Leads: e.Leads, ToWrite: e.ToWrite, Steps: e.Steps, Mailboxes: e.Mailboxes, PerMailboxPerDay: e.PerMailboxPerDay,
				PerDay: e.PerDay, Days: e.Days, FirstSendOn: dayOf(e.FirstSendOn), LastFirstEmailOn: dayOf(e.LastFirstTouchOn), LastSendOn: dayOf(e.LastSendOn),
				TimeZone: e.Zone, RepliesLow: e.RepliesLow, RepliesHigh: e.RepliesHigh, ReplyRateLow: e.ReplyRateLow, ReplyRateHigh: e.ReplyRateHigh, Assumption: e.Assumption}
			if e.CapacityNote != "" {
				out.CapacityNote = &e.CapacityNote
			}
			return toolkit.Result[campaignEstimateOutput]{Markdown: estimateMarkdown(e), Data: out}, nil
		},
	})
}

func estimateMarkdown(e campaigns.Estimate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Plan of campaign %s: %s\n\n", e.Campaign.ID, e.Campaign.Name)
	fmt.Fprintf(&b, "%s, %s each, from %s at %d a day each: %s a sending day.\n",
		vibesell.Plural(e.Leads, "person", "people"), vibesell.Plural(e.Steps, "email", "emails"), vibesell.Plural(e.Mailboxes, "mailbox", "mailboxes"), e.PerMailboxPerDay, vibesell.Plural(e.PerDay, "email", "emails"))
	if e.Progress != nil {
		fmt.Fprintf(&b, "Now, %s: the dates below plan for the %s still to get an email.\n",
			campaigns.ProgressText(*e.Progress, e.Leads), vibesell.Plural(e.ToWrite, "person", "people"))
	}
	if e.CapacityNote != "" {
		b.WriteString(e.CapacityNote + "\n")
	}
	switch {
	case e.Days == nil && e.Progress != nil && e.ToWrite == 0:
		b.WriteString("No one is left to write to, so there are no dates.\n")
	case e.Days == nil:
		b.WriteString("Nothing can be sent with these leads and this capacity, so there are no dates.\n")
	case e.LastFirstTouchOn == nil:
		last := "the last email"
		if e.Steps > 1 {
			last = "the last follow-up"
		}
		fmt.Fprintf(&b, "Every person has had the first email; the next email goes on %s and %s on %s (dates in %s).\n",
			vibesell.FormatDate(*e.FirstSendOn), last, vibesell.FormatDate(*e.LastSendOn), e.Zone)
	default:
		span := fmt.Sprintf("from %s to %s", vibesell.FormatDate(*e.FirstSendOn), vibesell.FormatDate(*e.LastFirstTouchOn))
		if vibesell.FormatDay(*e.FirstSendOn) == vibesell.FormatDay(*e.LastFirstTouchOn) {
			span = "on " + vibesell.FormatDate(*e.FirstSendOn)
		}
		last := "the last email"
		if e.Steps > 1 {
			last = "the last follow-up"
		}
		fmt.Fprintf(&b, "Every person has the first email after %s, %s; %s goes on %s (dates in %s).\n",
			vibesell.Plural(*e.Days, "sending day", "sending days"), span, last, vibesell.FormatDate(*e.LastSendOn), e.Zone)
	}
	fmt.Fprintf(&b, "Replies to expect: %s to %s. %s\n", vibesell.Count(e.RepliesLow), vibesell.Count(e.RepliesHigh), e.Assumption)
	return b.String()
}

func metricsLine(c campaigns.Counts) string {
	line := fmt.Sprintf("%s sent, %s delivered, %s replied (%s positive), %s bounced, %s unsubscribed",
		vibesell.Count(*c.Sent), vibesell.Count(*c.Delivered), vibesell.Count(*c.Replied), vibesell.Count(*c.PositiveReplies),
		vibesell.Count(*c.Bounced), vibesell.Count(*c.Unsubscribed))
	if c.NotSentUnknown != nil && *c.NotSentUnknown > 0 {
		line += fmt.Sprintf(", %s not sent (unknown: the server stopped while sending %s, so whether %s is not known; never sent again, and not counted as sent or delivered)",
			vibesell.Count(*c.NotSentUnknown), pickText(*c.NotSentUnknown == 1, "it", "them"), pickText(*c.NotSentUnknown == 1, "it left", "they left"))
	}
	return line
}
