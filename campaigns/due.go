package campaigns

import (
	"slices"
	"time"

	"vibesell"
)

// What is due now: given a running campaign, what its send ledger says
// went out, the leads a reply stopped, its mailboxes' standing today and
// the time, which (lead, step) pairs go now and from which mailbox. The
// sending engine reads those facts and sends what this says; nothing here
// reads or writes anything.

// SendRecord is one step of one lead as the send ledger has it.
type SendRecord struct {
	Step int
	// Failed says it did not go out: it is tried again after its
	// back-off, up to the engine's tries.
	Failed    bool
	ClaimedAt time.Time
	Mailbox   string
	MessageID string
	RetryAt   *time.Time // a failed step's next try; nil: at once
	Attempts  int
}

// MailboxToday is one of the campaign's mailboxes as the engine finds it
// at the tick: whether it can be reached at all, what it sent today (the
// workspace's day) for this campaign and for every campaign, and when its
// gap after its last email ends.
type MailboxToday struct {
	Reachable      bool
	SentByCampaign int
	SentAll        int
	NextAt         time.Time
}

// DueFacts are what the schedule needs beside the campaign.
type DueFacts struct {
	Now time.Time
	// Ledger is each lead's steps, in step order.
	Ledger map[int64][]SendRecord
	// Stopped are the leads a reply stopped (with their company's when
	// the campaign says so).
	Stopped map[int64]bool
	// Mailboxes is the standing of each of the campaign's mailboxes, by
	// address.
	Mailboxes map[string]MailboxToday
	// MaxAttempts is how many times a step is tried.
	MaxAttempts int
	// Paced says a gap follows each email of a mailbox: it sends one a
	// tick at most.
	Paced bool
}

// DueStep is one step of one lead that goes now.
type DueStep struct {
	Lead    vibesell.Lead
	Step    int
	Mailbox string
	// Prior are the lead's steps before this one, for a follow-up in the
	// same thread.
	Prior []SendRecord
}

// MailboxSends is what one mailbox sends now, over one SMTP session.
type MailboxSends struct {
	Mailbox string
	Steps   []DueStep
	// Waiting says the mailbox's gap after its last email has not ended:
	// it sends nothing this time, and its steps wait for a later tick.
	Waiting bool
}

// Due is what a campaign has to send now.
type Due struct {
	// Open counts the leads with a step still to come; none: the campaign
	// is finished.
	Open int
	// Mailboxes are the campaign's mailboxes that have steps assigned, in
	// the campaign's order.
	Mailboxes []MailboxSends
}

// Due works out what the campaign sends now. A lead's first step goes
// once the campaign's first send time has come, each follow-up its
// business days after the step before, only inside the campaign's window
// and days in the lead's time zone (the workspace's when unknown); a
// failed step is tried again after its back-off, up to MaxAttempts. A
// step with a field the lead lacks never goes. Follow-ups come first and
// keep their lead's mailbox; a new lead takes the mailbox with the most
// room left today. A mailbox sends at most the campaign's daily cap and
// what its warmup stage allows across campaigns, counted in the
// workspace's day.
func (r Run) Due(f DueFacts) Due {
	var out Due
	var dues []DueStep
	for _, l := range r.Leads {
		if f.Stopped[l.ID] {
			continue
		}
		d, pending := r.next(l, f.Ledger[l.ID], f.Now, f.MaxAttempts)
		if pending {
			out.Open++
		}
		if d != nil {
			dues = append(dues, *d)
		}
	}
	if out.Open == 0 {
		return out
	}
	// Follow-ups first (they keep their mailbox and their day), then new
	// leads in their order.
	slices.SortStableFunc(dues, func(a, b DueStep) int { return b.Step - a.Step })

	room := r.room(f.Mailboxes)
	perMailbox := map[string][]DueStep{}
	for _, d := range dues {
		if d.Mailbox == "" {
			best := ""
			for _, a := range r.Campaign.Mailboxes {
				left, ok := room[a]
				if !ok || left-len(perMailbox[a]) <= 0 {
					continue
				}
				if best == "" || left-len(perMailbox[a]) > room[best]-len(perMailbox[best]) {
					best = a
				}
			}
			if best == "" {
				continue
			}
			d.Mailbox = best
		}
		left, ok := room[d.Mailbox]
		if !ok || len(perMailbox[d.Mailbox]) >= left {
			continue
		}
		perMailbox[d.Mailbox] = append(perMailbox[d.Mailbox], d)
	}
	for _, a := range r.Campaign.Mailboxes {
		list := perMailbox[a]
		if len(list) == 0 {
			continue
		}
		waiting := f.Now.Before(f.Mailboxes[a].NextAt)
		if f.Paced && !waiting {
			list = list[:1] // the gap follows it
		}
		out.Mailboxes = append(out.Mailboxes, MailboxSends{Mailbox: a, Steps: list, Waiting: waiting})
	}
	return out
}

// room is, for each of the campaign's mailboxes that may send now, how
// many emails it may still send today for this campaign: the campaign's
// daily cap less what the campaign sent from it today, and never more than
// its warmup stage allows less what it sent today for any campaign. A
// mailbox that cannot be reached, is gone from the setup or may not send
// at its warmup stage has none.
func (r Run) room(today map[string]MailboxToday) map[string]int {
	out := map[string]int{}
	for _, a := range r.Campaign.Mailboxes {
		j := slices.IndexFunc(r.Mailboxes, func(m Mailbox) bool { return m.Address == a })
		t := today[a]
		if !t.Reachable || j < 0 || r.Mailboxes[j].DailyLimit <= 0 {
			continue
		}
		out[a] = max(0, min(r.Campaign.Schedule.DailyCap-t.SentByCampaign, r.Mailboxes[j].DailyLimit-t.SentAll))
	}
	return out
}

// next works out lead l's due step now, if any, and whether the lead has a
// step still to come at all.
func (r Run) next(l vibesell.Lead, rows []SendRecord, now time.Time, maxAttempts int) (*DueStep, bool) {
	loc := r.Location(l)
	mailbox := ""
	if len(rows) > 0 {
		mailbox = rows[0].Mailbox
	}
	// A failed step is tried again after its back-off, up to maxAttempts.
	for _, s := range rows {
		if !s.Failed {
			continue
		}
		if s.Attempts >= maxAttempts {
			return nil, false
		}
		if s.RetryAt != nil && now.Before(*s.RetryAt) || !r.InWindow(now, loc) {
			return nil, true
		}
		return &DueStep{Lead: l, Step: s.Step, Mailbox: mailbox, Prior: before(rows, s.Step)}, true
	}
	last := 0
	var lastAt time.Time
	if len(rows) > 0 {
		last, lastAt = rows[len(rows)-1].Step, rows[len(rows)-1].ClaimedAt
	}
	if last >= len(r.Sequence.Steps) {
		return nil, false
	}
	step := last + 1
	var at time.Time
	if step == 1 {
		if r.Campaign.FirstSendAt != nil {
			at = *r.Campaign.FirstSendAt
		}
	} else {
		at = r.stepDue(step, lastAt, loc)
	}
	if now.Before(at) || !r.InWindow(now, loc) {
		return nil, true
	}
	if len(r.Email(step, l).Unresolved) > 0 {
		return nil, false // launch refuses this; never send an email with a hole
	}
	return &DueStep{Lead: l, Step: step, Mailbox: mailbox, Prior: rows}, true
}

func before(rows []SendRecord, step int) []SendRecord {
	var out []SendRecord
	for _, s := range rows {
		if s.Step < step {
			out = append(out, s)
		}
	}
	return out
}

// NextDueAt is the first moment at or after f.Now when any lead of the
// campaign has a step that may go, as [Run.Due] would find it then: the
// step's own time (the first send, a follow-up's business days, a retry's
// back-off) moved into the lead's window. It leaves out the mailboxes'
// room and gaps, which only hold a due step back. ok is false when no
// lead has a step to come.
func (r Run) NextDueAt(f DueFacts) (at time.Time, ok bool) {
	for _, l := range r.Leads {
		if f.Stopped[l.ID] {
			continue
		}
		t, pending := r.dueAt(l, f.Ledger[l.ID], f.Now, f.MaxAttempts)
		if pending && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	}
	return at, ok
}

// dueAt is when lead l's next step may go, at or after now, and whether it
// has one to come: the times [Run.next] checks, read forward.
func (r Run) dueAt(l vibesell.Lead, rows []SendRecord, now time.Time, maxAttempts int) (time.Time, bool) {
	loc := r.Location(l)
	from := func(t time.Time) time.Time {
		if t.Before(now) {
			t = now
		}
		return r.Campaign.Schedule.Next(t, loc)
	}
	for _, s := range rows {
		if !s.Failed {
			continue
		}
		if s.Attempts >= maxAttempts {
			return time.Time{}, false
		}
		if s.RetryAt != nil {
			return from(*s.RetryAt), true
		}
		return from(now), true
	}
	last := 0
	var lastAt time.Time
	if len(rows) > 0 {
		last, lastAt = rows[len(rows)-1].Step, rows[len(rows)-1].ClaimedAt
	}
	if last >= len(r.Sequence.Steps) {
		return time.Time{}, false
	}
	step := last + 1
	if len(r.Email(step, l).Unresolved) > 0 {
		return time.Time{}, false
	}
	if step == 1 {
		if r.Campaign.FirstSendAt == nil {
			return from(now), true
		}
		return from(*r.Campaign.FirstSendAt), true
	}
	return from(r.stepDue(step, lastAt, loc)), true
}
