package sending

import (
	"fmt"

	"vibesell"
)

// Capacity compares what the picked addresses can send with what the
// confirmed sizing needs, so that nobody orders an undersized (or
// oversized) setup without being told, and a setup ordered short keeps
// saying so.
type Capacity struct {
	Needed       int  // emails a day the confirmed sizing needs
	Reach        int  // emails a day the picked domains and addresses send at full volume
	Mailboxes    int  // mailboxes picked (planned or ordered; a domain without addresses yet counts what it will carry)
	Want         int  // mailboxes the confirmed sizing has
	WantDomains  int  // domains the confirmed sizing has
	FromDeadline bool // the sizing was worked out from leads and a deadline
	Ordered      bool // everything picked is ordered: nothing is left to order as it is
}

// capacityOf compares the picks with sizing z; nil without a sizing or
// without picks.
func capacityOf(z *Sizing, domains []Domain, mailboxes []MailboxOrder, cfg Config) *Capacity {
	if z == nil || len(domains) == 0 {
		return nil
	}
	c := &Capacity{Needed: z.DailyVolume, Want: z.Mailboxes, WantDomains: z.Domains, FromDeadline: z.LeadCount != nil, Ordered: true}
	newDomains := 0
	for _, d := range domains {
		if d.Origin == OriginNew && d.Status == DomainChosen {
			newDomains++
		}
	}
	spread := newDomainMailboxes(z, newDomains, cfg)
	k := 0
	for _, d := range domains {
		if d.Status == DomainChosen {
			c.Ordered = false
		}
		n := 0
		for _, m := range mailboxes {
			if m.Domain == d.Name {
				n++
				if m.Status == MailboxPlanned {
					c.Ordered = false
				}
			}
		}
		if n == 0 {
			switch {
			case d.Origin == OriginWarmed:
				n = d.ShelfMailboxes
			case d.Status == DomainChosen:
				n = spread[k]
			default:
				n = z.MailboxesPerDomain
			}
		}
		if d.Origin == OriginNew && d.Status == DomainChosen {
			k++
		}
		c.Mailboxes += n
	}
	c.Reach = c.Mailboxes * z.EmailsPerMailbox
	return c
}

// Short reports whether the picks send less than the sizing needs.
func (c Capacity) Short() bool { return c.Reach < c.Needed }

// Over reports whether the picks have more mailboxes than the sizing.
func (c Capacity) Over() bool { return c.Mailboxes > c.Want }

// Off reports whether the picks and the sizing disagree.
func (c Capacity) Off() bool { return c.Short() || c.Over() }

// Sentence says how the picks and the sizing disagree, for a person; ""
// when they agree. Once everything picked is ordered it says what the
// ordered setup sends, and how to reach the sizing from there.
func (c Capacity) Sentence() string {
	needs := "the confirmed sizing needs"
	if c.FromDeadline {
		needs = "your deadline needs"
	}
	switch {
	case c.Short() && c.Ordered:
		return fmt.Sprintf("The ordered setup sends %s of the %s emails a day %s (%s of the %s sized): it falls short. To reach it, pick and order more domains, or confirm a smaller sizing.",
			vibesell.Count(c.Reach), vibesell.Count(c.Needed), needs, mailboxesCounted(c.Mailboxes).Count(), vibesell.Count(c.Want))
	case c.Short():
		return fmt.Sprintf("This reaches %s of the %s emails a day %s (%s of the %s sized). Pick more domains or addresses to reach it, or confirm a smaller sizing; it can also be ordered as it is.",
			vibesell.Count(c.Reach), vibesell.Count(c.Needed), needs, mailboxesCounted(c.Mailboxes).Count(), vibesell.Count(c.Want))
	case c.Over() && c.Ordered:
		return fmt.Sprintf("The ordered setup has %s, more than the %s the confirmed sizing needs for %s emails a day.",
			mailboxesCounted(c.Mailboxes).Count(), vibesell.Count(c.Want), vibesell.Count(c.Needed))
	case c.Over():
		return fmt.Sprintf("This has %s, more than the %s the confirmed sizing needs for %s emails a day, and each costs every month. Pick fewer domains or addresses, or confirm a larger sizing; it can also be ordered as it is.",
			mailboxesCounted(c.Mailboxes).Count(), vibesell.Count(c.Want), vibesell.Count(c.Needed))
	}
	return ""
}

// Costs says what a setup costs, the same way in every text: the yearly
// and monthly amounts, that ordering charges the first year and the first
// month, and in the sandbox that nothing is charged at all.
func Costs(yearly, monthly vibesell.Money, domains, mailboxes int, sandbox bool) string {
	text := fmt.Sprintf("%s per year for %s and %s per month for %s; ordering charges the first year and the first month (%s in all)",
		yearly, domainsCounted(domains).The(), monthly, mailboxesCounted(mailboxes).Count(), firstCharge(yearly, monthly))
	if sandbox {
		text += ". These are sandbox amounts: nothing is charged"
	}
	return text
}
