package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/toolkit"
)

// size_sending_capacity and confirm_sizing

type sizingInput struct {
	DailyVolume        int    `json:"dailyVolume,omitempty" jsonschema:"Emails to send per business day at full volume. Give this, or leadCount with deadline." example:"300" minimum:"1" maximum:"10000"`
	LeadCount          int    `json:"leadCount,omitempty" jsonschema:"How many people to email. Give it with deadline, instead of dailyVolume." example:"3000" minimum:"1" maximum:"1000000"`
	Deadline           string `json:"deadline,omitempty" jsonschema:"The last day by which every lead should have had every email, YYYY-MM-DD. Give it with leadCount." example:"2027-02-26" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"`
	EmailsPerLead      int    `json:"emailsPerLead,omitempty" jsonschema:"How many emails each lead gets (the sequence length); 3 when left out. Only with leadCount." example:"3" minimum:"1" maximum:"10"`
	Source             string `json:"source,omitempty" jsonschema:"Which addresses to size for: already_warmed or own_names. Leave it out to use the chosen source, or own_names when none is chosen." example:"own_names" enum:"already_warmed,own_names"`
	EmailsPerMailbox   int    `json:"emailsPerMailbox,omitempty" jsonschema:"Emails one mailbox sends per day at full volume; the default in the tool description when left out." example:"30" minimum:"1" maximum:"50"`
	MailboxesPerDomain int    `json:"mailboxesPerDomain,omitempty" jsonschema:"Mailboxes per domain, at most 5; the default in the tool description when left out." example:"3" minimum:"1" maximum:"5"`
}

type sizingOutput struct {
	Kind               string     `json:"kind" enum:"sizing"`
	Sandbox            bool       `json:"sandbox" jsonschema:"true when the setup runs in the sandbox: the prices are never charged"`
	Confirmed          bool       `json:"confirmed" jsonschema:"true when this sizing is recorded as the workspace's (confirm_sizing); false for a calculation only"`
	ConfirmedAt        *time.Time `json:"confirmedAt" jsonschema:"when it was recorded; null when not recorded"`
	Source             string     `json:"source" jsonschema:"the addresses sized for: already_warmed or own_names"`
	DailyVolume        int        `json:"dailyVolume" jsonschema:"emails per business day at full volume"`
	LeadCount          *int       `json:"leadCount" jsonschema:"the leads sized for; null when sized from a daily volume"`
	Deadline           *string    `json:"deadline" jsonschema:"the day to reach them by, YYYY-MM-DD; null when sized from a daily volume"`
	EmailsPerLead      *int       `json:"emailsPerLead" jsonschema:"emails each lead gets; null when sized from a daily volume"`
	TotalEmails        *int       `json:"totalEmails" jsonschema:"emails to send in all; null when sized from a daily volume"`
	SendingDays        *int       `json:"sendingDays" jsonschema:"business days from the first full-volume day to the deadline, both included; null when sized from a daily volume"`
	EmailsPerMailbox   int        `json:"emailsPerMailbox" jsonschema:"emails one mailbox sends per day at full volume"`
	MailboxesPerDomain int        `json:"mailboxesPerDomain" jsonschema:"mailboxes per domain"`
	Mailboxes          int        `json:"mailboxes" jsonschema:"mailboxes needed"`
	Domains            int        `json:"domains" jsonschema:"domains needed"`
	MailboxPrice       moneyData  `json:"mailboxPrice" jsonschema:"one mailbox's price per month"`
	DomainPrice        moneyData  `json:"domainPrice" jsonschema:"one domain's price per year"`
	MonthlyCost        moneyData  `json:"monthlyCost" jsonschema:"the mailboxes' cost per month"`
	YearlyCost         moneyData  `json:"yearlyCost" jsonschema:"the domains' cost per year"`
	ReadyOn            string     `json:"readyOn" jsonschema:"the day the addresses would be ready if ordered today, YYYY-MM-DD (UTC)"`
	FullVolumeOn       string     `json:"fullVolumeOn" jsonschema:"the first day full volume is possible if ordered today, YYYY-MM-DD (UTC)"`
}

func sizingRequest(in sizingInput) sending.SizingRequest {
	return sending.SizingRequest{
		DailyVolume: in.DailyVolume, LeadCount: in.LeadCount, Deadline: in.Deadline, EmailsPerLead: in.EmailsPerLead, Source: sending.SourceKind(in.Source),
		EmailsPerMailbox: in.EmailsPerMailbox, MailboxesPerDomain: in.MailboxesPerDomain,
	}
}

func toSizingOutput(z sending.Sizing) sizingOutput {
	return sizingOutput{
		Kind: "sizing", Sandbox: z.Sandbox, Confirmed: z.ConfirmedAt != nil, ConfirmedAt: z.ConfirmedAt, Source: string(z.Source), DailyVolume: z.DailyVolume,
		LeadCount: z.LeadCount, Deadline: dayPtr(z.Deadline), EmailsPerLead: z.EmailsPerLead, TotalEmails: z.TotalEmails, SendingDays: z.SendingDays,
		EmailsPerMailbox: z.EmailsPerMailbox, MailboxesPerDomain: z.MailboxesPerDomain, Mailboxes: z.Mailboxes, Domains: z.Domains,
		MailboxPrice: moneyOf(z.MailboxPrice), DomainPrice: moneyOf(z.DomainPrice), MonthlyCost: moneyOf(z.MonthlyCost), YearlyCost: moneyOf(z.YearlyCost),
		ReadyOn: dayText(z.ReadyOn), FullVolumeOn: dayText(z.FullVolumeOn),
	}
}

func sizingMarkdown(t sendingTerms, z sending.Sizing, confirmed bool) string {
	var b strings.Builder
	what := "new addresses under your brand"
	if z.Source == sending.SourceAlreadyWarmed {
		what = "already-warmed addresses"
	}
	if confirmed {
		fmt.Fprintf(&b, "## Sizing recorded (%s)\n\n", formatTime(*z.ConfirmedAt))
	} else {
		b.WriteString("## Sending capacity needed\n\n")
	}
	if z.LeadCount != nil {
		fmt.Fprintf(&b, "To send %s emails (%s leads × %d emails each) by %s, over %s of full volume: %s emails per business day.\n\n",
			vibesell.Count(*z.TotalEmails), vibesell.Count(*z.LeadCount), *z.EmailsPerLead, formatDate(*z.Deadline), vibesell.Plural(*z.SendingDays, "business day", "business days"), vibesell.Count(z.DailyVolume))
	} else {
		fmt.Fprintf(&b, "For %s emails per business day:\n\n", vibesell.Count(z.DailyVolume))
	}
	fmt.Fprintf(&b, "- %s, with %s.\n", z.Layout(), what)
	fmt.Fprintf(&b, "- Cost, at %s per mailbox per month and %s per domain per year: %s.\n",
		z.MailboxPrice, z.DomainPrice, sending.Costs(z.YearlyCost, z.MonthlyCost, z.Domains, z.Mailboxes, z.Sandbox))
	if z.Source == sending.SourceAlreadyWarmed {
		fmt.Fprintf(&b, "- Ordered today, they are handed over on %s and can send at full volume from that day.\n", formatDate(z.ReadyOn))
	} else {
		fmt.Fprintf(&b, "- Ordered today, they are ready on %s (business days, %s not counted), then warm up; full volume is possible from %s.\n",
			formatDate(z.ReadyOn), t.daysOff, formatDate(z.FullVolumeOn))
	}
	fmt.Fprintf(&b, "\nSending days are %s.\n", t.sendingDays)
	if confirmed {
		b.WriteString("\nNext: propose_domains (or propose_warmed_domains for already-warmed addresses) now offers this many domains.\n")
	} else {
		b.WriteString("\nNothing was recorded. If the person agrees, call confirm_sizing with the same arguments to record it; the domain proposals then use these numbers.\n")
	}
	return b.String()
}

func sizeSendingCapacity(d Deps) toolkit.Tool {
	t := termsOf(d)
	return define(d, toolkit.Spec[sizingInput, sizingOutput]{
		Name:        vibesell.ToolSizeSendingCapacity,
		Title:       "Size the sending capacity",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Works out the mailboxes and domains needed for a sending volume, what they cost per
			month and per year, and the first day full volume is possible if ordered today (new
			addresses: about [[.Prep]] of preparation, [[.DaysOff]] not counted, then
			[[.WarmupDays]] days of warmup; already-warmed addresses: handed over in about
			[[.WarmedPrep]], at full volume). Give either dailyVolume, or leadCount with deadline
			(and optionally emailsPerLead, [[.EmailsPerLead]] by default). Defaults: [[.PerMailbox]]
			emails per mailbox per day, [[.PerDomain]] mailboxes per domain; sending days are
			[[.SendingDays]]. Prices: [[.MailboxPrice]] per new mailbox per month, [[.WarmedPrice]]
			per already-warmed mailbox per month, [[.DomainPrice]] per domain per year. It
			calculates only: nothing is recorded, reserved or billed. To record the result once the
			person agrees, call confirm_sizing with the same arguments.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in sizingInput) (toolkit.Result[sizingOutput], error) {
			z, err := d.Sending.Size(ctx, p.WorkspaceID, sizingRequest(in))
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			return toolkit.Result[sizingOutput]{Markdown: sizingMarkdown(t, z, false), Data: toSizingOutput(z)}, nil
		},
	})
}

func confirmSizing(d Deps) toolkit.Tool {
	t := termsOf(d)
	return define(d, toolkit.Spec[sizingInput, sizingOutput]{
		Name:        vibesell.ToolConfirmSizing,
		Title:       "Confirm the sizing",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Records the sending capacity the person agreed to, worked out as size_sending_capacity
			does from the same arguments and today's date, replacing the sizing recorded before.
			Give either dailyVolume, or leadCount with deadline (and optionally emailsPerLead,
			[[.EmailsPerLead]] by default). Defaults: [[.PerMailbox]] emails per mailbox per day,
			[[.PerDomain]] mailboxes per domain; sending days are [[.SendingDays]]. Prices:
			[[.MailboxPrice]] per new mailbox per month, [[.WarmedPrice]] per already-warmed mailbox
			per month, [[.DomainPrice]] per domain per year. The recorded sizing sets how many
			domains propose_domains and propose_warmed_domains ask for, and its mailboxes are spread
			over the new domains picked (so the picks add up to it). It records a plan only: nothing
			is ordered, reserved or billed. Call size_sending_capacity first to show the person the
			numbers; call this only once they agree.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in sizingInput) (toolkit.Result[sizingOutput], error) {
			z, err := d.Sending.ConfirmSizing(ctx, p.WorkspaceID, sizingRequest(in))
			if err != nil {
				return toolkit.Result[sizingOutput]{}, err
			}
			return toolkit.Result[sizingOutput]{Markdown: sizingMarkdown(t, z, true), Data: toSizingOutput(z)}, nil
		},
	})
}
