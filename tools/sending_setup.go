package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/toolkit"
	"vibesell/workspace"
)

// sendingTerms are the numbers and prices the descriptions quote, from the
// service's configuration (the defaults when no service is wired, as in
// the registry's contract test), so a description never quotes a price the
// server does not charge.
type sendingTerms struct {
	domain, mailbox, warmed, tlds, daysOff, sendingDays              string
	prep, warmedPrep, warmupDays, perMailbox, perDomain, start, step int
}

func termsOf(d Deps) sendingTerms {
	c := sending.DefaultConfig()
	if d.Sending != nil {
		c = d.Sending.Config()
	}
	m := func(minor int64) string { return vibesell.NewMoney(minor, c.Currency).String() }
	return sendingTerms{
		domain: m(c.DomainPrice()), mailbox: m(c.MailboxPrice), warmed: m(c.WarmedMailboxPrice), tlds: vibesell.JoinAnd(c.SoldTLDs()), daysOff: c.DaysOff(), sendingDays: c.SendingDays(),
		prep: c.PrepBusinessDays, warmedPrep: c.WarmedPrepBusinessDays, warmupDays: c.WarmupDays,
		perMailbox: c.EmailsPerMailbox, perDomain: c.MailboxesPerDomain, start: c.RampStart, step: c.RampStep,
	}
}

// Output shapes shared by the sending tools.

func moneyPtr(m vibesell.Money) *moneyData { v := moneyOf(m); return &v }

// dayText is the structured form of a calendar day.
func dayText(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func dayPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := dayText(*t)
	return &s
}

func sandboxLine(provider string) string {
	if provider != sending.SandboxName {
		return ""
	}
	return "\nSandbox: nothing here is real. No real registry, shelf or mail provider was asked, and nothing will be registered, created or billed by the sandbox.\n"
}

func notesMarkdown(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return "\n" + strings.Join(notes, "\n") + "\n"
}

type sendingStepData struct {
	Tool *string `json:"tool" jsonschema:"the tool to call next; null when the next step is not a tool call"`
	Why  string  `json:"why" jsonschema:"why this is the next step, and what to do"`
}

func stepData(n workspace.NextStep) *sendingStepData {
	return &sendingStepData{Tool: strPtr(n.Tool()), Why: nextText(n)}
}

// nextText writes a next step for the assistant: why, and each step as
// the call that takes it.
func nextText(n workspace.NextStep) string { return toolkit.GuidanceText(n.Why, n.Next) }

func kindChoice() string { return "choice" }

// get_sending_setup

type getSendingSetupInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"How many domains per page, each with its mailboxes; 5 when left out." example:"5" minimum:"1" maximum:"5"`
	Cursor string `json:"cursor,omitempty" jsonschema:"Where to continue: the nextCursor of the previous page (a domain name). Leave it out for the first page." example:"getacme.com" maxLength:"253"`
}

// setupPage is how many domains a page of get_sending_setup shows by
// default and at most, each with its mailboxes (up to 5) and DNS records:
// a workspace may order up to 1,000 mailboxes, and a page must stay
// within the bounds of a result whatever the domains' names.
const setupPage = 5

func getSendingSetup(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[getSendingSetupInput, sendingSetupOutput]{
		Name:        vibesell.ToolGetSendingSetup,
		Title:       "Get the sending setup",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Shows the workspace's sending setup as it is now: the source chosen, the confirmed
			sizing, each domain and mailbox with its status (chosen or planned, preparing, ready,
			warming, warm; five domains a page with their mailboxes, and a cursor for the next
			page), each ordered domain's DNS records (MX, SPF, DKIM, DMARC) with whether each checks
			out (null when a lookup could not complete), warmup progress, the date the setup can
			send at full volume, and the next step. When the picks fall short of (or exceed) the
			confirmed sizing, or an order is waiting for approval, the next step says so and what to
			do. It reads only (the DNS lookups are made now); nothing is changed or billed. Dates
			are days in UTC. For a short summary of the whole workspace use get_workspace_context;
			to change the setup use the tools the next step names.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in getSendingSetupInput) (toolkit.Result[sendingSetupOutput], error) {
			st, err := d.Sending.GetSetup(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[sendingSetupOutput]{}, err
			}
			page, err := setupPageOf(st, in)
			if err != nil {
				return toolkit.Result[sendingSetupOutput]{}, err
			}
			out := toSetupOutput(page.Setup)
			out.DomainsTotal, out.MailboxesTotal, out.NextCursor = len(st.Domains), len(st.Mailboxes), strPtr(page.next)
			if d.Connections != nil {
				list, err := d.Connections.List(ctx, p.WorkspaceID)
				if err != nil {
					return toolkit.Result[sendingSetupOutput]{}, err
				}
				out.Connected, out.ConnectedTotal = []connectedData{}, len(list)
				for _, m := range list[:min(len(list), connectedListed)] {
					out.Connected = append(out.Connected, connectedData{Address: m.Address, SenderName: strPtr(m.SenderName),
						SMTP:        mailServerData{Host: m.SMTPHost, Port: m.SMTPPort, Security: m.SMTPSecurity},
						IMAP:        mailServerData{Host: m.IMAPHost, Port: m.IMAPPort, Security: m.IMAPSecurity},
						ConnectedAt: m.ConnectedAt, CheckedAt: m.CheckedAt})
				}
			}
			return toolkit.Result[sendingSetupOutput]{Markdown: setupMarkdown(page.Setup, out), Data: out}, nil
		},
	})
}

type setupPageData struct {
	sending.Setup        // its Domains and Mailboxes are the page's
	first         int    // the page's first domain, from 0
	next          string // the cursor of the next page; "" on the last
}

// setupPageOf cuts the setup's domains to one page, with the mailboxes on
// them; the rest of the setup (sizing, dates, next step) is the whole
// setup's. Refusals: EINVALID for a cursor that names no domain of it.
func setupPageOf(st sending.Setup, in getSendingSetupInput) (setupPageData, error) {
	limit := in.Limit
	if limit == 0 {
		limit = setupPage
	}
	start := 0
	if in.Cursor != "" {
		i := slices.IndexFunc(st.Domains, func(d sending.DomainStatus) bool { return d.Name == in.Cursor })
		if i < 0 {
			return setupPageData{}, vibesell.Errorf(vibesell.EINVALID, "The cursor %q is not a domain of this setup's pages. Leave it out to start from the first domain.", in.Cursor)
		}
		start = i + 1
	}
	end := min(start+limit, len(st.Domains))
	p := setupPageData{Setup: st, first: start}
	p.Domains = st.Domains[start:end]
	if end < len(st.Domains) {
		p.next = st.Domains[end-1].Name
	}
	if len(st.Domains) > limit {
		on := map[string]bool{}
		for _, d := range p.Domains {
			on[d.Name] = true
		}
		p.Mailboxes = slices.DeleteFunc(slices.Clone(st.Mailboxes), func(m sending.MailboxStatus) bool { return !on[m.Domain] })
	}
	return p, nil
}

type sendingSetupOutput struct {
	Kind           string          `json:"kind" enum:"sending_setup"`
	Source         *sourceData     `json:"source" jsonschema:"where the emails go out from, as the person chose; null when not chosen yet"`
	Sizing         *sizingSummary  `json:"sizing" jsonschema:"the confirmed sizing; null when none is confirmed"`
	Domains        []setupDomain   `json:"domains" jsonschema:"the picked and ordered domains: this page of them, 5 at most (domainsTotal counts them all)"`
	Mailboxes      []setupMailbox  `json:"mailboxes" jsonschema:"the planned and ordered addresses on this page's domains"`
	WarmupDays     int             `json:"warmupDays" jsonschema:"how many days a new mailbox warms up"`
	ReadyToSendOn  *string         `json:"readyToSendOn" jsonschema:"the first day every ordered address can send at full volume, YYYY-MM-DD (UTC); null when nothing is ordered yet or some addresses are not ordered"`
	Sandbox        bool            `json:"sandbox" jsonschema:"true when any domain is handled by the sandbox (nothing real was registered or created)"`
	Connected      []connectedData `json:"connected" jsonschema:"the person's own mailboxes connected in the web app (their settings, never a password); null when connecting mailboxes is not available on this server"`
	NextStep       sendingStepData `json:"nextStep" jsonschema:"what the setup needs next"`
	DomainsTotal   int             `json:"domainsTotal" jsonschema:"how many domains the setup has; domains holds this page of them"`
	MailboxesTotal int             `json:"mailboxesTotal" jsonschema:"how many mailboxes the setup has; mailboxes holds those on this page's domains"`
	NextCursor     *string         `json:"nextCursor" jsonschema:"pass as cursor for the next page of domains; null on the last page"`
	ConnectedTotal int             `json:"connectedTotal" jsonschema:"how many of the person's own mailboxes are connected; connected holds the first 20 (the web app's Sending page lists them all)"`
}

// connectedListed is how many of the person's connected mailboxes
// get_sending_setup shows: nothing bounds how many they connect in the
// web app, and a result must stay within its bounds.
const connectedListed = 20

type connectedData struct {
	Address     string         `json:"address" jsonschema:"the connected email address"`
	SenderName  *string        `json:"senderName" jsonschema:"who it signs as; null when not given"`
	SMTP        mailServerData `json:"smtp" jsonschema:"the server it sends through"`
	IMAP        mailServerData `json:"imap" jsonschema:"the server replies are read from"`
	ConnectedAt time.Time      `json:"connectedAt" jsonschema:"when it was connected"`
	CheckedAt   time.Time      `json:"checkedAt" jsonschema:"when VibeSell last signed in to both servers with its settings"`
}

type mailServerData struct {
	Host     string `json:"host" jsonschema:"the server's host name"`
	Port     int    `json:"port" jsonschema:"its port"`
	Security string `json:"security" enum:"starttls,tls" jsonschema:"starttls: plain, then STARTTLS; tls: TLS from the start"`
}

type sourceData struct {
	ID       string    `json:"id" jsonschema:"already_warmed, own_names, or other (the person's own words)" enum:"already_warmed,own_names,other"`
	Label    string    `json:"label" jsonschema:"the choice as the person saw it"`
	Text     *string   `json:"text" jsonschema:"the person's own words, for other; null otherwise"`
	ChosenAt time.Time `json:"chosenAt" jsonschema:"when it was chosen"`
}

type sizingSummary struct {
	DailyVolume int       `json:"dailyVolume" jsonschema:"emails per business day at full volume"`
	Mailboxes   int       `json:"mailboxes" jsonschema:"mailboxes needed"`
	Domains     int       `json:"domains" jsonschema:"domains needed"`
	MonthlyCost moneyData `json:"monthlyCost" jsonschema:"the mailboxes' cost per month"`
	YearlyCost  moneyData `json:"yearlyCost" jsonschema:"the domains' cost per year"`
	ConfirmedAt time.Time `json:"confirmedAt" jsonschema:"when it was confirmed"`
}

type setupDomain struct {
	Domain         string     `json:"domain" jsonschema:"the domain name"`
	Origin         string     `json:"origin" jsonschema:"new: registered for the workspace; warmed: from the warmed shelf" enum:"new,warmed"`
	Status         string     `json:"status" jsonschema:"chosen: picked, not ordered; preparing: ordered, being set up; ready: set up" enum:"chosen,preparing,ready"`
	Provider       *string    `json:"provider" jsonschema:"who set it up (sandbox: nothing real); null until ordered"`
	YearlyPrice    moneyData  `json:"yearlyPrice" jsonschema:"its price per year"`
	OrderedAt      *time.Time `json:"orderedAt" jsonschema:"when it was ordered; null until ordered"`
	ReadyOn        *string    `json:"readyOn" jsonschema:"the day it is (or was) ready, YYYY-MM-DD (UTC); null until ordered"`
	DNS            []dnsCheck `json:"dns" jsonschema:"its DNS records (MX, SPF, DKIM, DMARC) and whether each checks out; null until ordered"`
	DNSCheckedWith *string    `json:"dnsCheckedWith" jsonschema:"what answered the DNS checks: dns (a real resolver) or sandbox; null when not checked"`
	SandboxReadyAt *time.Time `json:"sandboxReadyAt" jsonschema:"when the sandbox shortcut made it ready at once, without waiting for its preparation (sandbox only); null when it was prepared the ordinary way"`
}

type dnsCheck struct {
	Type     string  `json:"type" jsonschema:"the record" enum:"MX,SPF,DKIM,DMARC"`
	Host     string  `json:"host" jsonschema:"the name it is published at"`
	Expected string  `json:"expected" jsonschema:"what must be published (for MX, the mail server)"`
	Found    *string `json:"found" jsonschema:"what the DNS holds there now; null when nothing or unknown"`
	OK       *bool   `json:"ok" jsonschema:"true: checks out; false: missing or different; null: the lookup could not complete"`
}

type setupMailbox struct {
	Address        string       `json:"address" jsonschema:"the email address"`
	Domain         string       `json:"domain" jsonschema:"its domain"`
	SenderName     *string      `json:"senderName" jsonschema:"who it signs as; null when not given"`
	Status         string       `json:"status" jsonschema:"planned: chosen, not ordered; preparing; ready: prepared, warmup not started; warming; warm: can send at full volume" enum:"planned,preparing,ready,warming,warm"`
	Prewarmed      bool         `json:"prewarmed" jsonschema:"true when it came already warmed up"`
	MonthlyPrice   moneyData    `json:"monthlyPrice" jsonschema:"its price per month"`
	ReadyOn        *string      `json:"readyOn" jsonschema:"the day it is (or was) ready, YYYY-MM-DD (UTC); null until ordered"`
	Warmup         *warmupState `json:"warmup" jsonschema:"its warmup progress; null when not warming up"`
	FullVolumeOn   *string      `json:"fullVolumeOn" jsonschema:"the first day it can send at full volume, YYYY-MM-DD (UTC); null until ordered"`
	SandboxReadyAt *time.Time   `json:"sandboxReadyAt" jsonschema:"when the sandbox shortcut made it ready and warm at once, without a real warmup (sandbox only); null when it was prepared and warmed the ordinary way"`
}

type warmupState struct {
	StartedOn   string `json:"startedOn" jsonschema:"the day warmup started, YYYY-MM-DD"`
	Day         int    `json:"day" jsonschema:"which day of the warmup today is"`
	Of          int    `json:"of" jsonschema:"how many days the warmup lasts"`
	TodayVolume int    `json:"todayVolume" jsonschema:"warmup emails it sends today"`
	Percent     int    `json:"percent" jsonschema:"how far the warmup is, 0 to 100"`
}

func toSetupOutput(st sending.Setup) sendingSetupOutput {
	out := sendingSetupOutput{Kind: "sending_setup", Domains: []setupDomain{}, Mailboxes: []setupMailbox{}, WarmupDays: st.WarmupDays,
		ReadyToSendOn: dayPtr(st.ReadyToSendOn), Sandbox: st.Sandbox, NextStep: *stepData(st.Next)}
	if st.Source != nil {
		out.Source = &sourceData{ID: string(st.Source.Source), Label: sourceLabel(st.Source.Source), Text: strPtr(st.Source.Text), ChosenAt: st.Source.ChosenAt}
	}
	if z := st.Sizing; z != nil {
		out.Sizing = &sizingSummary{DailyVolume: z.DailyVolume, Mailboxes: z.Mailboxes, Domains: z.Domains,
			MonthlyCost: moneyOf(z.MonthlyCost), YearlyCost: moneyOf(z.YearlyCost), ConfirmedAt: *z.ConfirmedAt}
	}
	for _, d := range st.Domains {
		sd := setupDomain{Domain: d.Name, Origin: string(d.Origin), Status: string(d.State), Provider: strPtr(d.Provider), YearlyPrice: moneyOf(d.YearlyPrice),
			OrderedAt: d.OrderedAt, ReadyOn: dayPtr(d.ReadyAt), DNSCheckedWith: strPtr(d.CheckedWith), SandboxReadyAt: d.SandboxReadyAt}
		if d.Checks != nil {
			sd.DNS = []dnsCheck{}
			for _, c := range d.Checks {
				sd.DNS = append(sd.DNS, dnsCheck{Type: c.Type, Host: c.Host, Expected: c.Value, Found: strPtr(c.Found), OK: c.OK})
			}
		}
		out.Domains = append(out.Domains, sd)
	}
	for _, m := range st.Mailboxes {
		sm := setupMailbox{Address: m.Address, Domain: m.Domain, SenderName: strPtr(m.SenderName), Status: string(m.State), Prewarmed: m.Prewarmed,
			MonthlyPrice: moneyOf(m.MonthlyPrice), ReadyOn: dayPtr(m.ReadyAt), FullVolumeOn: dayPtr(m.FullVolumeOn), SandboxReadyAt: m.SandboxReadyAt}
		if m.WarmupDay != nil {
			sm.Warmup = &warmupState{StartedOn: dayText(*m.WarmupStartedAt), Day: *m.WarmupDay, Of: st.WarmupDays, TodayVolume: *m.TodayVolume,
				Percent: *m.WarmupDone}
		}
		out.Mailboxes = append(out.Mailboxes, sm)
	}
	return out
}

func sourceLabel(s sending.SourceKind) string {
	switch s {
	case sending.SourceAlreadyWarmed:
		return "Start sooner (already-warmed addresses)"
	case sending.SourceOwnNames:
		return "Send under my brand (new addresses)"
	}
	return "In the person's own words"
}

// The states in the words of the assistant's Markdown.
var (
	domainStateWords = map[sending.DomainState]string{
		sending.DomainChosen: "picked, not ordered", sending.DomainPreparing: "being prepared", sending.DomainReady: "ready",
	}
	mailboxStateWords = map[sending.MailboxState]string{
		sending.MailboxPlanned: "planned, not ordered", sending.MailboxPreparing: "being prepared", sending.MailboxReady: "ready",
		sending.MailboxWarming: "warming up", sending.MailboxWarm: "warm, can send at full volume",
	}
)

var originWords = map[sending.Origin]string{sending.OriginNew: "new", sending.OriginWarmed: "already warmed"}

func setupMarkdown(st sending.Setup, out sendingSetupOutput) string {
	var b strings.Builder
	b.WriteString("## Sending setup\n\n")
	if out.Source != nil {
		fmt.Fprintf(&b, "Source: %s, chosen %s", out.Source.Label, formatTime(out.Source.ChosenAt))
		if out.Source.Text != nil {
			fmt.Fprintf(&b, " (%q)", *out.Source.Text)
		}
		b.WriteString(".\n")
	} else {
		b.WriteString("Source: not chosen yet.\n")
	}
	if z := st.Sizing; z != nil {
		fmt.Fprintf(&b, "Sizing: %s emails per business day on %s and %s; %s per month and %s per year (confirmed %s).\n",
			vibesell.Count(z.DailyVolume), vibesell.Plural(z.Mailboxes, "mailbox", "mailboxes"), vibesell.Plural(z.Domains, "domain", "domains"), z.MonthlyCost, z.YearlyCost, formatTime(*z.ConfirmedAt))
		// An ordered setup that falls short says so in its next step.
		if c := st.Capacity; c != nil && c.Off() && !(c.Ordered && c.Short()) {
			fmt.Fprintf(&b, "Picks against the sizing: %s\n", c.Sentence())
		}
	} else {
		b.WriteString("Sizing: not confirmed yet.\n")
	}
	switch {
	case len(st.Domains) > 0 && out.DomainsTotal > len(st.Domains):
		fmt.Fprintf(&b, "\n### Domains (%d on this page, of %d)\n", len(st.Domains), out.DomainsTotal)
	case len(st.Domains) > 0:
		b.WriteString("\n### Domains\n")
	}
	for _, d := range st.Domains {
		fmt.Fprintf(&b, "- **%s** (%s): %s", d.Name, originWords[d.Origin], domainStateWords[d.State])
		// The state already says "ready": the day follows it as "since".
		switch {
		case d.ReadyAt == nil:
		case d.State == sending.DomainReady:
			fmt.Fprintf(&b, " since %s", formatDate(*d.ReadyAt))
		default:
			fmt.Fprintf(&b, ", ready on %s", formatDate(*d.ReadyAt))
		}
		fmt.Fprintf(&b, "; %s per year.", d.YearlyPrice)
		if d.SandboxReadyAt != nil {
			fmt.Fprintf(&b, " Made ready at once by the sandbox shortcut on %s, not by a real preparation.", formatTime(*d.SandboxReadyAt))
		}
		b.WriteString("\n")
		for _, c := range d.Checks {
			verdict := "could not be checked right now"
			switch {
			case c.OK != nil && *c.OK:
				verdict = "checks out"
			case c.OK != nil && d.State == sending.DomainPreparing:
				verdict = "not yet: published when the domain is ready on " + formatDate(*d.ReadyAt)
			case c.OK != nil:
				verdict = "not published as expected"
			}
			fmt.Fprintf(&b, "  - %s at %s: %s\n", c.Type, c.Host, verdict)
		}
	}
	switch {
	case len(st.Mailboxes) > 0 && out.MailboxesTotal > len(st.Mailboxes):
		fmt.Fprintf(&b, "\n### Mailboxes on these domains (%d, of %d)\n", len(st.Mailboxes), out.MailboxesTotal)
	case len(st.Mailboxes) > 0:
		b.WriteString("\n### Mailboxes\n")
	}
	for _, m := range st.Mailboxes {
		fmt.Fprintf(&b, "- %s: %s", m.Address, mailboxStateWords[m.State])
		if m.WarmupDay != nil {
			fmt.Fprintf(&b, " (day %d of %d, %d warmup emails today)", *m.WarmupDay, st.WarmupDays, *m.TodayVolume)
		}
		if m.State == sending.MailboxPreparing {
			fmt.Fprintf(&b, ", ready on %s", formatDate(*m.ReadyAt))
		}
		if m.FullVolumeOn != nil && m.State != sending.MailboxWarm {
			fmt.Fprintf(&b, ", full volume from %s", formatDate(*m.FullVolumeOn))
		}
		fmt.Fprintf(&b, "; %s per month.", m.MonthlyPrice)
		if m.SandboxReadyAt != nil {
			fmt.Fprintf(&b, " Made ready and warm at once by the sandbox shortcut on %s, not by a real warmup.", formatTime(*m.SandboxReadyAt))
		}
		b.WriteString("\n")
	}
	if out.NextCursor != nil {
		fmt.Fprintf(&b, "\nMore domains and their mailboxes on the next page: call %s with cursor %q.\n", vibesell.ToolGetSendingSetup, *out.NextCursor)
	}
	if st.ReadyToSendOn != nil {
		fmt.Fprintf(&b, "\nThe setup can send at full volume from %s.\n", formatDate(*st.ReadyToSendOn))
	} else if out.MailboxesTotal > 0 {
		b.WriteString("\nReady-to-send date: not available until every address is ordered.\n")
	}
	if len(out.Connected) > 0 {
		b.WriteString("\n### Connected mailboxes (the person's own)\n")
		for _, m := range out.Connected {
			fmt.Fprintf(&b, "- %s: sends through %s:%d, reads replies from %s:%d; connected %s.\n", m.Address, m.SMTP.Host, m.SMTP.Port, m.IMAP.Host, m.IMAP.Port, formatTime(m.ConnectedAt))
		}
		if out.ConnectedTotal > len(out.Connected) {
			fmt.Fprintf(&b, "- and %s more, which the person sees on the web app's Sending page\n", vibesell.Count(out.ConnectedTotal-len(out.Connected)))
		}
	}
	if out.Sandbox {
		b.WriteString("\nSandbox: these domains and mailboxes exist only in the sandbox; no real domain was registered and no real DNS was checked.\n")
	}
	fmt.Fprintf(&b, "\nNext: %s\n", nextText(st.Next))
	return b.String()
}

// The sending setup in short, for get_workspace_context.

type sendingSummaryData struct {
	Source          *string         `json:"source" jsonschema:"already_warmed, own_names or other (the person's own words); null when not chosen yet"`
	SizingConfirmed bool            `json:"sizingConfirmed" jsonschema:"true when a sizing is confirmed"`
	Domains         domainCounts    `json:"domains" jsonschema:"the domains, by status"`
	Mailboxes       mailboxCounts   `json:"mailboxes" jsonschema:"the mailboxes, by status"`
	ReadyToSendOn   *string         `json:"readyToSendOn" jsonschema:"the first day every ordered address can send at full volume, YYYY-MM-DD (UTC); null when nothing is ordered yet or some addresses are not ordered"`
	Sandbox         bool            `json:"sandbox" jsonschema:"true when any domain is handled by the sandbox (nothing real)"`
	SandboxShortcut int             `json:"sandboxShortcut" jsonschema:"how many mailboxes the sandbox shortcut made ready and warm at once, without a real warmup"`
	NextStep        sendingStepData `json:"nextStep" jsonschema:"what the sending setup needs next"`
}

type domainCounts struct {
	Chosen    int `json:"chosen" jsonschema:"picked, not ordered"`
	Preparing int `json:"preparing" jsonschema:"ordered, being set up"`
	Ready     int `json:"ready" jsonschema:"set up"`
}

type mailboxCounts struct {
	Planned   int `json:"planned" jsonschema:"chosen, not ordered"`
	Preparing int `json:"preparing" jsonschema:"ordered, being prepared"`
	Ready     int `json:"ready" jsonschema:"prepared, warmup not started"`
	Warming   int `json:"warming" jsonschema:"warming up"`
	Warm      int `json:"warm" jsonschema:"can send at full volume"`
}

func toSendingSummary(st sending.Setup) *sendingSummaryData {
	out := &sendingSummaryData{SizingConfirmed: st.Sizing != nil, ReadyToSendOn: dayPtr(st.ReadyToSendOn), NextStep: *stepData(st.Next)}
	if st.Source != nil {
		out.Source = strPtr(string(st.Source.Source))
	}
	out.Sandbox, out.SandboxShortcut = st.Sandbox, st.SandboxShortcuts()
	out.Domains = domainCounts{Chosen: st.DomainCount(sending.DomainChosen), Preparing: st.DomainCount(sending.DomainPreparing), Ready: st.DomainCount(sending.DomainReady)}
	out.Mailboxes = mailboxCounts{
		Planned: st.MailboxCount(sending.MailboxPlanned), Preparing: st.MailboxCount(sending.MailboxPreparing), Ready: st.MailboxCount(sending.MailboxReady),
		Warming: st.MailboxCount(sending.MailboxWarming), Warm: st.MailboxCount(sending.MailboxWarm),
	}
	return out
}

func sendingSummaryMarkdown(s *sendingSummaryData) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Sending setup\n")
	if s.Source != nil {
		fmt.Fprintf(&b, "- Source: %s\n", sourceLabel(sending.SourceKind(*s.Source)))
	} else {
		b.WriteString("- Source: not chosen yet\n")
	}
	fmt.Fprintf(&b, "- Sizing: %s\n", pickText(s.SizingConfirmed, "confirmed", "not confirmed yet"))
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Domains.Chosen, "picked"}, {s.Domains.Preparing, "being set up"}, {s.Domains.Ready, "set up"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(&b, "- Domains: %s\n", pickText(len(parts) == 0, "none yet", strings.Join(parts, ", ")))
	parts = nil
	for _, c := range []struct {
		n    int
		what string
	}{{s.Mailboxes.Planned, "planned"}, {s.Mailboxes.Preparing, "being prepared"}, {s.Mailboxes.Ready, "ready to warm up"}, {s.Mailboxes.Warming, "warming up"}, {s.Mailboxes.Warm, "warm"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(&b, "- Mailboxes: %s\n", pickText(len(parts) == 0, "none yet", strings.Join(parts, ", ")))
	if s.ReadyToSendOn != nil {
		t, _ := time.Parse(time.DateOnly, *s.ReadyToSendOn)
		fmt.Fprintf(&b, "- Can send at full volume from %s\n", formatDate(t))
	}
	if s.Sandbox {
		b.WriteString("- Sandbox: nothing in this setup is real\n")
	}
	if s.SandboxShortcut > 0 {
		fmt.Fprintf(&b, "- Sandbox shortcut: %s made ready and warm at once, not by a real warmup\n", vibesell.Plural(s.SandboxShortcut, "mailbox was", "mailboxes were"))
	}
	fmt.Fprintf(&b, "- Next for the sending setup: %s\n\n", s.NextStep.Why)
	return b.String()
}
