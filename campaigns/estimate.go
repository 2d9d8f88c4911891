package campaigns

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
)

// Estimate is what a campaign should take with today's capacity.
type Estimate struct {
	Campaign Campaign
	Leads    int
	// ToWrite is how many of them still get an email: every lead before
	// the launch; after it, those not yet written to or due a follow-up.
	ToWrite int
	// Progress is where the leads stand once launched; nil before (or on
	// a server without the sending engine, when all are counted).
	Progress         *Progress
	Steps            int
	Mailboxes        int
	PerMailboxPerDay int
	PerDay           int
	// Days is how many sending days the first email takes to reach every
	// lead; nil when nothing can be sent (no lead or no capacity).
	Days *int
	// FirstSendOn and LastSendOn are the dates (in the workspace's zone)
	// of the next email and the last follow-up; nil when Days is nil.
	// LastFirstTouchOn is the day the last lead gets the first email; nil
	// too when every lead has had it already.
	FirstSendOn, LastFirstTouchOn, LastSendOn *time.Time
	Zone                                      string
	RepliesLow, RepliesHigh                   int
	ReplyRateLow, ReplyRateHigh               float64
	Assumption                                string
	// CapacityNote says when the capacity used is not today's (no mailbox
	// is warm yet, so the estimate uses what they send once warm).
	CapacityNote string
}

// maxEstimateDays bounds the simulation: ten years of sending days.
const maxEstimateDays = 3660

// EstimatePlan works out how long campaign id takes to reach its leads,
// day by day in the workspace's time zone: each sending day, follow-ups
// due go first, then new leads, up to the mailboxes' daily capacity.
// Refusals: ENOTFOUND.
func (s *Service) EstimatePlan(ctx context.Context, ws uuid.UUID, id string) (Estimate, error) {
	c, err := s.campaign(ctx, s.db, ws, id, false)
	if err != nil {
		return Estimate{}, err
	}
	q, err := s.Sequence(ctx, ws, c.SequenceID, c.SequenceVersion)
	if err != nil {
		return Estimate{}, err
	}
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return Estimate{}, err
	}
	mailboxes, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return Estimate{}, err
	}
	e := Estimate{Campaign: c, Leads: c.Leads, Steps: len(q.Steps), Mailboxes: len(c.Mailboxes), Zone: sender.Location().String(),
		ReplyRateLow: s.cfg.ReplyRateLow, ReplyRateHigh: s.cfg.ReplyRateHigh}
	warm, perMailbox, total := 0, c.Schedule.DailyCap, 0
	for _, a := range c.Mailboxes {
		i := slices.IndexFunc(mailboxes, func(m Mailbox) bool { return m.Address == a })
		if i >= 0 && mailboxes[i].State == "warm" {
			warm++
			total += min(c.Schedule.DailyCap, mailboxes[i].DailyLimit)
		}
	}
	if warm == 0 {
		total = c.Schedule.DailyCap * len(c.Mailboxes)
		e.CapacityNote = fmt.Sprintf("No mailbox of the campaign is warm yet, so this counts what its %s send once warm (%d a day each).",
			vibesell.Plural(len(c.Mailboxes), "mailbox", "mailboxes"), c.Schedule.DailyCap)
	} else {
		perMailbox = total / warm
	}
	e.PerMailboxPerDay, e.PerDay = perMailbox, total
	e.RepliesLow = int(math.Round(float64(c.Leads) * s.cfg.ReplyRateLow / 100))
	e.RepliesHigh = int(math.Round(float64(c.Leads) * s.cfg.ReplyRateHigh / 100))
	e.Assumption = fmt.Sprintf("Expected replies assume %s%% to %s%% of the people written to reply, the usual range for cold email (set for this installation, not a promise). "+
		"Dates count the campaign's days (%s) in the workspace's time zone, %s; follow-ups due on a day go before new leads; no one replies, bounces or is stopped early.",
		percent(s.cfg.ReplyRateLow), percent(s.cfg.ReplyRateHigh), DayNames(c.Schedule.Days), e.Zone)
	// A launched campaign is planned from where its leads stand now:
	// those who had every email, or were stopped, get nothing more.
	newLeads, followUps := c.Leads, []int(nil)
	e.ToWrite = c.Leads
	if e.Progress, err = s.progressOf(ctx, ws, c, q); err != nil {
		return Estimate{}, err
	}
	if e.Progress != nil {
		newLeads, followUps, e.ToWrite = e.Progress.NotStarted, e.Progress.FollowUps, e.Progress.ToWrite()
	}
	if e.ToWrite == 0 || total == 0 {
		return e, nil
	}
	start := s.clock.Now()
	if c.FirstSendAt != nil && c.FirstSendAt.After(start) {
		start = *c.FirstSendAt
	}
	loc := sender.Location()
	first := c.Schedule.Next(start, loc)
	days, firstTouch, last, finished := simulate(c.Schedule, q.Steps, newLeads, followUps, total, first, loc)
	if !finished {
		e.CapacityNote = strings.TrimSpace(e.CapacityNote + " At this capacity the campaign would take more than ten years, so there are no dates: add mailboxes or raise the daily cap.")
		return e, nil
	}
	e.Days, e.FirstSendOn, e.LastSendOn = &days, &first, &last
	if newLeads > 0 {
		e.LastFirstTouchOn = &firstTouch
	}
	return e, nil
}

func percent(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

type cohort struct {
	due  time.Time
	step int // index of the step due
	n    int
}

// simulate sends leads through steps at perDay emails a sending day from
// first on, and returns the sending days the first step takes and the
// dates of the last first email and of the last email; finished is false
// when [maxEstimateDays] did not suffice.
//
// followUps[k] are leads that had k steps already, whose next step is due
// from the first day on (nil before the launch).
func simulate(sch Schedule, steps []Step, leads int, followUps []int, perDay int, first time.Time, loc *time.Location) (days int, lastFirstTouch, lastSend time.Time, finished bool) {
	y, m, d := first.In(loc).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, loc)
	remaining := leads
	var queue []cohort
	for k, n := range followUps {
		if n > 0 && k > 0 && k < len(steps) {
			queue = append(queue, cohort{due: day, step: k, n: n})
		}
	}
	for range maxEstimateDays {
		if remaining == 0 && len(queue) == 0 {
			return days, lastFirstTouch, lastSend, true
		}
		if slices.Contains(sch.Days, day.Weekday()) {
			budget := perDay
			var next []cohort
			for len(queue) > 0 && budget > 0 && !queue[0].due.After(day) {
				take := min(budget, queue[0].n)
				budget -= take
				if queue[0].step+1 < len(steps) {
					next = append(next, cohort{due: addBusinessDays(day, steps[queue[0].step+1].WaitBusinessDays), step: queue[0].step + 1, n: take})
				}
				queue[0].n -= take
				if queue[0].n == 0 {
					queue = queue[1:]
				}
				lastSend = day
			}
			if budget > 0 && remaining > 0 {
				take := min(budget, remaining)
				remaining -= take
				days++
				lastFirstTouch, lastSend = day, day
				if len(steps) > 1 {
					next = append(next, cohort{due: addBusinessDays(day, steps[1].WaitBusinessDays), step: 1, n: take})
				}
			}
			queue = append(queue, next...)
			slices.SortStableFunc(queue, func(a, b cohort) int { return a.due.Compare(b.due) })
		}
		day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc)
	}
	return days, lastFirstTouch, lastSend, remaining == 0 && len(queue) == 0
}
