package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/toolkit"
	"vibesell/workspace"
)

// Output shapes shared by several workspace kinds.

type workspaceInfo struct {
	ID        uuid.UUID `json:"id" jsonschema:"the workspace id"`
	Slug      string    `json:"slug" jsonschema:"the workspace's short name, used in commands and links"`
	Name      string    `json:"name" jsonschema:"the workspace's name"`
	CreatedAt time.Time `json:"createdAt" jsonschema:"when the workspace was created"`
}

type priceData struct {
	Amount   string  `json:"amount" jsonschema:"the amount as a decimal number with two places, e.g. 1450.00"`
	Currency string  `json:"currency" jsonschema:"ISO 4217 currency code, e.g. INR"`
	Period   *string `json:"period" jsonschema:"what the amount is per (month, year, one-time, seat per month); null when not given"`
}

type offerData struct {
	CompanyName   string     `json:"companyName" jsonschema:"the seller's company"`
	CompanyDomain *string    `json:"companyDomain" jsonschema:"the seller's website domain; null when not given"`
	Product       string     `json:"product" jsonschema:"what they sell"`
	Audience      string     `json:"audience" jsonschema:"who it is for"`
	Value         string     `json:"value" jsonschema:"what the buyer gains"`
	ProofPoints   []string   `json:"proofPoints" jsonschema:"evidence that it works"`
	CallToAction  string     `json:"callToAction" jsonschema:"what the email asks the reader to do"`
	Price         *priceData `json:"price" jsonschema:"the price; null when the person did not give one"`
	UpdatedAt     time.Time  `json:"updatedAt" jsonschema:"when the offer was last saved"`
}

type objectionData struct {
	Objection string `json:"objection" jsonschema:"what a buyer says"`
	Answer    string `json:"answer" jsonschema:"how to answer it"`
}

type playbookData struct {
	Tone       string          `json:"tone" jsonschema:"how the emails should sound"`
	Angles     []string        `json:"angles" jsonschema:"angles to open with"`
	Objections []objectionData `json:"objections" jsonschema:"objections and their answers"`
	Dos        []string        `json:"dos" jsonschema:"what to do"`
	Donts      []string        `json:"donts" jsonschema:"what never to do"`
	UpdatedAt  time.Time       `json:"updatedAt" jsonschema:"when the playbook was last saved"`
}

// offerOutput is what save_offer returns.
type offerOutput struct {
	Kind   string     `json:"kind" enum:"offer"`
	Offer  offerData  `json:"offer" jsonschema:"the offer as saved"`
	Sender senderData `json:"sender" jsonschema:"who the workspace's emails come from, as saved for the workspace"`
}

type senderData struct {
	PostalAddress *string `json:"postalAddress" jsonschema:"the postal address every cold email carries by law; null until the person gives it"`
	SenderName    *string `json:"senderName" jsonschema:"the name emails come from when a mailbox has none of its own; null until the person gives it"`
}

func senderMarkdown(d senderData) string {
	postal := fmt.Sprintf("not given yet (the law asks every cold email to carry one, and a campaign cannot launch without it: ask the person and pass postalAddress to %s)", vibesell.ToolSaveOffer)
	if d.PostalAddress != nil {
		postal = *d.PostalAddress
	}
	name := "not given yet (each mailbox's own name is used; a mailbox without one needs it)"
	if d.SenderName != nil {
		name = *d.SenderName
	}
	return fmt.Sprintf("- Postal address: %s\n- Default sender name: %s\n", postal, name)
}

// playbookOutput is what save_playbook returns.
type playbookOutput struct {
	Kind     string       `json:"kind" enum:"playbook"`
	Playbook playbookData `json:"playbook" jsonschema:"the playbook as saved"`
}

type memoryItem struct {
	ID        uuid.UUID `json:"id" jsonschema:"the memory id, to forget it"`
	About     string    `json:"about" jsonschema:"what the fact is about" enum:"person,company,preference"`
	Fact      string    `json:"fact" jsonschema:"the fact, in the person's words"`
	CreatedAt time.Time `json:"createdAt" jsonschema:"when it was remembered"`
}

type nextStepData struct {
	Tool *string `json:"tool" jsonschema:"the tool to call next; null when the next step is not a tool call"`
	Why  string  `json:"why" jsonschema:"why this is the next step"`
}

type planData struct {
	ID              string     `json:"id" jsonschema:"the plan id (get_plans_and_billing lists the plans)"`
	Name            string     `json:"name" jsonschema:"the plan's name"`
	Status          string     `json:"status" jsonschema:"the subscription status as Stripe has it (active on the free plan); past_due: a payment failed and Stripe is retrying"`
	PaymentFailedAt *time.Time `json:"paymentFailedAt" jsonschema:"when the last payment failed, while it is unpaid (the card must be updated in the billing portal); null when payments are in order"`
}

func toOfferData(o *workspace.Offer) *offerData {
	if o == nil {
		return nil
	}
	out := &offerData{CompanyName: o.CompanyName, Product: o.Product, Audience: o.Audience, Value: o.Value,
		ProofPoints: nonNil(o.ProofPoints), CallToAction: o.CallToAction, UpdatedAt: o.UpdatedAt}
	if o.CompanyDomain != "" {
		out.CompanyDomain = &o.CompanyDomain
	}
	if o.Price != nil {
		out.Price = &priceData{Amount: o.Price.Amount(), Currency: o.Price.Currency}
		if o.Price.Period != "" {
			out.Price.Period = &o.Price.Period
		}
	}
	return out
}

// playbookSummaryData is the playbook in the context: the tone and the
// angles, and how many objections, dos and don'ts it has. Whole, it is up
// to 36,000 characters, more than the context may carry beside everything
// else (vibesell.MaxResultStructured).
type playbookSummaryData struct {
	Tone            string    `json:"tone" jsonschema:"how the emails should sound"`
	Angles          []string  `json:"angles" jsonschema:"angles to open with"`
	ObjectionsCount int       `json:"objectionsCount" jsonschema:"how many objections it answers"`
	DosCount        int       `json:"dosCount" jsonschema:"how many dos it has"`
	DontsCount      int       `json:"dontsCount" jsonschema:"how many don'ts it has"`
	UpdatedAt       time.Time `json:"updatedAt" jsonschema:"when the playbook was last saved"`
}

func toPlaybookSummary(p *workspace.Playbook) *playbookSummaryData {
	if p == nil {
		return nil
	}
	return &playbookSummaryData{Tone: p.Tone, Angles: nonNil(p.Angles), ObjectionsCount: len(p.Objections), DosCount: len(p.Dos),
		DontsCount: len(p.Donts), UpdatedAt: p.UpdatedAt}
}

func toPlaybookData(p *workspace.Playbook) *playbookData {
	if p == nil {
		return nil
	}
	out := &playbookData{Tone: p.Tone, Angles: nonNil(p.Angles), Dos: nonNil(p.Dos), Donts: nonNil(p.Donts),
		Objections: []objectionData{}, UpdatedAt: p.UpdatedAt}
	for _, o := range p.Objections {
		out.Objections = append(out.Objections, objectionData(o))
	}
	return out
}

func toMemoryItems(ms []workspace.Memory) []memoryItem {
	out := make([]memoryItem, 0, len(ms))
	for _, m := range ms {
		out = append(out, memoryItem(m))
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// offerMarkdown writes the offer; proof points longer than clipAt
// characters are cut short (0: never), for the context, which summarises.
func offerMarkdown(o *offerData, clipAt int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- Company: %s", o.CompanyName)
	if o.CompanyDomain != nil {
		fmt.Fprintf(&b, " (%s)", *o.CompanyDomain)
	}
	fmt.Fprintf(&b, "\n- Sells: %s\n- To: %s\n- Value: %s\n- Call to action: %s\n", o.Product, o.Audience, o.Value, o.CallToAction)
	if o.Price != nil {
		fmt.Fprintf(&b, "- Price: %s", vibesell.FormatMoney(o.Price.Currency, o.Price.Amount))
		if o.Price.Period != nil {
			fmt.Fprintf(&b, " per %s", *o.Price.Period)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("- Price: not given\n")
	}
	if len(o.ProofPoints) > 0 {
		b.WriteString("- Proof points:\n")
		for _, p := range o.ProofPoints {
			if clipAt > 0 {
				p = clip(p, clipAt)
			}
			fmt.Fprintf(&b, "  - %s\n", p)
		}
	}
	return b.String()
}

// get_workspace_context

type getWorkspaceContextInput struct{}

type workspaceOutput struct {
	Kind               string                `json:"kind" enum:"workspace"`
	Workspace          workspaceInfo         `json:"workspace" jsonschema:"the workspace this connection acts for"`
	TimeZone           string                `json:"timeZone" jsonschema:"the workspace's time zone (an IANA name such as Europe/Paris), which every date here is written in, with UTC beside it in the text"`
	Plan               *planData             `json:"plan" jsonschema:"the plan and its status; null while plans and billing are not available"`
	Offer              *offerData            `json:"offer" jsonschema:"what the workspace sells and to whom; null when not saved yet"`
	Playbook           *playbookSummaryData  `json:"playbook" jsonschema:"how the emails should sound, in short (save_playbook returns it whole); null when not saved yet"`
	Memory             []memoryItem          `json:"memory" jsonschema:"the newest facts and preferences to keep in mind, newest first (at most 5; memoryTotal counts them all, and remember lists the rest page by page)"`
	MemoryTotal        int                   `json:"memoryTotal" jsonschema:"how many facts and preferences the workspace remembers in all"`
	OpenSupportTickets int                   `json:"openSupportTickets" jsonschema:"support tickets not yet answered"`
	SendingSetup       *sendingSummaryData   `json:"sendingSetup" jsonschema:"the sending setup in short (get_sending_setup has the detail); null when it is not available"`
	Audience           *audienceSummaryData  `json:"audience" jsonschema:"who to write to: the target, its confirmation, the leads and the last import; null when it is not available"`
	Campaigns          *campaignsSummaryData `json:"campaigns" jsonschema:"the campaigns, each with its status and why it is paused, and what they need next; null when it is not available"`
	NextStep           nextStepData          `json:"nextStep" jsonschema:"the recommended next step"`
}

// defaultContextCacheSize is how many workspaces' contexts one server
// keeps: the ones read most recently. An entry is a few kilobytes (the
// newest 5 memories of up to 1,000 characters each, and the count).
const defaultContextCacheSize = 1024

func getWorkspaceContext(d Deps) toolkit.Tool {
	contexts := newContextReader(d)
	return define(d, toolkit.Spec[getWorkspaceContextInput, workspaceOutput]{
		Name:        vibesell.ToolGetWorkspaceContext,
		Title:       "Get workspace context",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Shows everything VibeSell knows about this workspace: its name, plan, the saved offer
			(what they sell, to whom, the price), the playbook (tone, angles, objections), the facts
			remembered about the person and company (how many, and the newest five; remember lists
			the rest), open support tickets, the sending setup in short (source, domains, mailboxes,
			the day it can send), who to write to (the target, whether its filters are confirmed,
			the number of leads and the last import), the campaigns (each with its status, and why
			it is paused), and the recommended next step. Call it at the start of a conversation and
			whenever you are unsure what is already set up. It reads only; it changes and costs
			nothing. To change the offer use save_offer, the playbook save_playbook, a fact
			remember.
		`,
		Handler: func(ctx context.Context, p auth.Principal, _ getWorkspaceContextInput) (toolkit.Result[workspaceOutput], error) {
			c, err := contexts.Read(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[workspaceOutput]{}, err
			}
			return toolkit.Result[workspaceOutput]{Data: toWorkspaceOutput(c)}, nil
		},
		Markdown: workspaceMarkdown,
	})
}

func toWorkspaceOutput(c workspace.Context) workspaceOutput {
	ws := c.Workspace
	ctx := vibesell.InZone(context.Background(), c.Zone)
	out := workspaceOutput{
		Workspace:          workspaceInfo{ID: ws.ID, Slug: ws.Slug, Name: ws.Name, CreatedAt: ws.CreatedAt},
		TimeZone:           c.Zone.String(),
		Offer:              toOfferData(c.Offer),
		Playbook:           toPlaybookSummary(c.Playbook),
		Memory:             toMemoryItems(c.Memories),
		MemoryTotal:        c.MemoryCount,
		OpenSupportTickets: c.OpenTickets,
		NextStep:           toNextStepData(c.NextStep),
	}
	if sum, ok := workspace.View[billing.Summary](c); ok {
		out.Plan = &planData{ID: sum.Plan.ID, Name: sum.Plan.Name, Status: sum.Status, PaymentFailedAt: sum.PaymentFailedAt}
	}
	if setup, ok := workspace.View[sendingPartView](c); ok {
		// The setup's step names only the setup's own approvals (an order
		// waiting), never another feature's: sending.Setup.WithOpen.
		waiting, _ := workspace.View[approvals.Waiting](c)
		out.SendingSetup = toSendingSummary(setup.Setup.WithOpen(waiting))
	}
	if r, ok := workspace.View[campaigns.ContextRows](c); ok {
		out.Campaigns = toCampaignsSummary(ctx, r, c)
	}
	if who, ok := workspace.View[audience.ContextRows](c); ok {
		out.Audience = &audienceSummaryData{Leads: who.Leads, LastImport: toImportData(who.LastImport)}
		if t := who.Target; t.Description != nil || t.Filters != nil {
			out.Audience.Target = toTargetSummary(t)
		}
	}
	return out
}

func planMarkdown(ctx context.Context, p *planData) string {
	switch {
	case p == nil:
		return "Plan: not available (plans and billing are not set up in this workspace yet).\n\n"
	case p.PaymentFailedAt != nil:
		return fmt.Sprintf("Plan: %s, %s. **A payment failed on %s and is still unpaid**: call %s and give the person the link to update their card.\n\n",
			p.Name, strings.ToLower(billing.StatusLabels.Of(p.Status)), vibesell.FormatTimeFor(ctx, *p.PaymentFailedAt), vibesell.ToolOpenBillingPortal)
	}
	return fmt.Sprintf("Plan: %s, %s (%s has prices, limits and usage).\n\n", p.Name, strings.ToLower(billing.StatusLabels.Of(p.Status)), vibesell.ToolGetPlansAndBilling)
}

func toNextStepData(s workspace.NextStep) nextStepData {
	return nextStepData{Tool: strPtr(s.Tool()), Why: nextText(s)}
}

// contextClip is how much of each proof point, angle and other list item
// the context's text shows: it summarises a workspace whose every part
// may be at its longest, within the bound of one result
// (vibesell.MaxResultText). The structuredContent keeps each whole, and
// the tool that saved it shows it whole.
const contextClip = 150

func workspaceMarkdown(o workspaceOutput) string {
	// A function of its data alone (it is kept while the data stands):
	// its moments are in the zone the data carries.
	loc, err := time.LoadLocation(o.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	ctx := vibesell.InZone(context.Background(), loc)
	var b strings.Builder
	fmt.Fprintf(&b, "## Workspace %s (slug %s)\n\n", o.Workspace.Name, o.Workspace.Slug)
	b.WriteString(planMarkdown(ctx, o.Plan))
	if o.Offer != nil {
		fmt.Fprintf(&b, "### Offer (saved %s)\n%s\n", vibesell.FormatTimeFor(ctx, o.Offer.UpdatedAt), offerMarkdown(o.Offer, contextClip))
	} else {
		b.WriteString("### Offer\nNot saved yet.\n\n")
	}
	if o.Playbook != nil {
		fmt.Fprintf(&b, "### Playbook (saved %s)\n- Tone: %s\n", vibesell.FormatTimeFor(ctx, o.Playbook.UpdatedAt), o.Playbook.Tone)
		if len(o.Playbook.Angles) > 0 {
			fmt.Fprintf(&b, "- Angles: %s\n", strings.Join(clipAll(o.Playbook.Angles, contextClip), "; "))
		}
		fmt.Fprintf(&b, "- Objections with answers: %d\n- Dos: %d, don'ts: %d\n\n", o.Playbook.ObjectionsCount, o.Playbook.DosCount, o.Playbook.DontsCount)
	} else {
		b.WriteString("### Playbook\nNot saved yet.\n\n")
	}
	b.WriteString(rememberedMarkdown(o.Memory, o.MemoryTotal))
	b.WriteString(sendingSummaryMarkdown(o.SendingSetup))
	b.WriteString(audienceSummaryMarkdown(o.Audience))
	b.WriteString(campaignsSummaryMarkdown(ctx, o.Campaigns))
	fmt.Fprintf(&b, "Open support tickets: %d.\n\n", o.OpenSupportTickets)
	b.WriteString(nextStepMarkdown(o.NextStep))
	return b.String()
}

// rememberedMarkdown summarises what is remembered for the context: the
// count, the newest facts, and the call that lists the rest.
func rememberedMarkdown(newest []memoryItem, total int) string {
	if total == 0 {
		return "### Remembered\nNothing yet.\n\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Remembered (%s)\n", vibesell.Count(total))
	if total > len(newest) {
		fmt.Fprintf(&b, "The newest %d; call %s with no fact to list them all, page by page.\n", len(newest), vibesell.ToolRemember)
	}
	for _, m := range newest {
		fmt.Fprintf(&b, "- (%s) %s — id %s\n", m.About, m.Fact, m.ID)
	}
	b.WriteString("\n")
	return b.String()
}

func nextStepMarkdown(s nextStepData) string {
	if s.Tool != nil {
		return fmt.Sprintf("**Next step:** %s (tool %s)\n", s.Why, *s.Tool)
	}
	return fmt.Sprintf("**Next step:** %s\n", s.Why)
}

// remember

type rememberInput struct {
	Fact   string `json:"fact,omitempty" jsonschema:"a fact or preference to keep, in the person's words; leave out to list what is remembered" example:"Prefers to be called Sam" maxLength:"1000"`
	About  string `json:"about,omitempty" jsonschema:"what the fact is about: the person, their company, or a preference for how to work; default company" example:"person" enum:"person,company,preference"`
	Forget string `json:"forget,omitempty" jsonschema:"the id of a remembered fact to forget (ids are in the list); leave out otherwise" example:"0b6f9a52-4d1e-4c55-9c1f-3f1e2d7c8a10"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many remembered facts to list per page; 10 when left out" example:"10" minimum:"1" maximum:"20"`
	Cursor string `json:"cursor,omitempty" jsonschema:"where to continue the list: the nextCursor of the previous page; leave it out for the newest" example:"MjAyNi0xMi0wMlQwOTowMDowMFp8MGI2ZjlhNTItNGQxZS00YzU1LTljMWYtM2YxZTJkN2M4YTEw" maxLength:"200"`
}

type memoryOutput struct {
	Kind       string       `json:"kind" enum:"memory"`
	Action     string       `json:"action" jsonschema:"what this call did" enum:"remembered,forgotten,listed"`
	Memory     *memoryItem  `json:"memory" jsonschema:"the fact remembered or forgotten by this call; null when only listing"`
	Memories   []memoryItem `json:"memories" jsonschema:"this page of what is remembered now, newest first (total counts them all)"`
	Total      int          `json:"total" jsonschema:"how many facts the workspace remembers now (at most 200)"`
	NextCursor *string      `json:"nextCursor" jsonschema:"pass as cursor for the next page; null on the last page"`
}

func remember(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[rememberInput, memoryOutput]{
		Name:        vibesell.ToolRemember,
		Title:       "Remember a fact",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.No, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Keeps a fact or preference about the person or their company for later conversations
			("calls me Sam", "we never email on Fridays"), lists what is remembered, or forgets one
			fact by its id. With fact: stores it (up to 1,000 characters; a workspace keeps at most
			200). With forget: deletes that fact. With neither: lists what is remembered, newest
			first, a page at a time (limit, at most 20; cursor for the next page). Every call
			returns the first page of what is remembered afterwards, or the page cursor asks for.
			Give fact or forget, not both. It changes only VibeSell's notes and costs nothing. Not
			for the offer or the playbook: use save_offer and save_playbook for those.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in rememberInput) (toolkit.Result[memoryOutput], error) {
			changed, err := d.Workspaces.ChangeMemory(ctx, p.WorkspaceID, workspace.MemoryChange(in))
			if err != nil {
				return toolkit.Result[memoryOutput]{}, err
			}
			out := memoryOutput{Action: changed.Action, Memories: toMemoryItems(changed.Memories), Total: changed.Total, NextCursor: strPtr(changed.Next)}
			if changed.Memory != nil {
				item := memoryItem(*changed.Memory)
				out.Memory = &item
			}
			return toolkit.Result[memoryOutput]{Markdown: memoryMarkdown(out), Data: out}, nil
		},
	})
}

func memoryMarkdown(o memoryOutput) string {
	var b strings.Builder
	switch o.Action {
	case "forgotten":
		fmt.Fprintf(&b, "Forgot: \"%s\".\n\n", o.Memory.Fact)
	case "remembered":
		fmt.Fprintf(&b, "Remembered (%s): \"%s\" — id %s.\n\n", o.Memory.About, o.Memory.Fact, o.Memory.ID)
	}
	switch {
	case o.Total == 0:
		fmt.Fprintf(&b, "Nothing is remembered in this workspace.\n\nNext: when the person says something worth keeping (how they like to work, a fact about their company), call %s with the fact.\n", vibesell.ToolRemember)
		return b.String()
	case len(o.Memories) == 0:
		fmt.Fprintf(&b, "%s remembered; none on this page. Call %s with no fact and no cursor for the newest.\n", vibesell.Count(o.Total), vibesell.ToolRemember)
		return b.String()
	case len(o.Memories) == o.Total:
		fmt.Fprintf(&b, "%s remembered, newest first:\n", vibesell.Count(o.Total))
	default:
		fmt.Fprintf(&b, "%s remembered; %d of them on this page, newest first:\n", vibesell.Count(o.Total), len(o.Memories))
	}
	for _, m := range o.Memories {
		fmt.Fprintf(&b, "- (%s) %s — id %s\n", m.About, m.Fact, m.ID)
	}
	if o.NextCursor != nil {
		fmt.Fprintf(&b, "\nMore on the next page: call %s with cursor %q.\n", vibesell.ToolRemember, *o.NextCursor)
	} else {
		fmt.Fprintf(&b, "\nNext: keep these in mind in what you write; call %s with forget and a fact's id when the person says it no longer holds.\n", vibesell.ToolRemember)
	}
	return b.String()
}

// save_offer

type priceInput struct {
	Amount   float64 `json:"amount" jsonschema:"the amount, a number without currency symbol or separators" example:"1450" minimum:"0" maximum:"1000000000"`
	Currency string  `json:"currency" jsonschema:"ISO 4217 currency code" example:"INR" pattern:"^[A-Za-z]{3}$"`
	Period   string  `json:"period,omitempty" jsonschema:"what the amount is per: one-time, month, year, seat per month…; leave out when not said" example:"month" maxLength:"40"`
}

type saveOfferInput struct {
	CompanyName   string      `json:"companyName" jsonschema:"the seller's company name" example:"Acme Analytics" minLength:"1" maxLength:"200"`
	CompanyDomain string      `json:"companyDomain,omitempty" jsonschema:"the seller's website domain, used later to propose sending domains" example:"acme.com" maxLength:"253"`
	Product       string      `json:"product" jsonschema:"what they sell, in a sentence" example:"A dashboard that shows which ads bring paying customers" minLength:"1" maxLength:"1000"`
	Audience      string      `json:"audience" jsonschema:"who it is for: roles, company size, industry, region" example:"Heads of marketing at B2B SaaS companies with 20 to 200 employees in Europe" minLength:"1" maxLength:"1000"`
	Value         string      `json:"value" jsonschema:"what the buyer gains, in their terms" example:"Stop paying for ads that never convert; cut wasted spend by a third" minLength:"1" maxLength:"1000"`
	ProofPoints   []string    `json:"proofPoints,omitempty" jsonschema:"evidence: customers, numbers, awards (at most 10)" example:"[\"Used by 40 SaaS teams\", \"Cut Foo Inc's cost per lead by 31%\"]" maxItems:"10" maxLength:"500"`
	CallToAction  string      `json:"callToAction" jsonschema:"what the email asks the reader to do" example:"Book a 20-minute demo" minLength:"1" maxLength:"300"`
	Price         *priceInput `json:"price,omitempty" jsonschema:"the price, only if the person gave one" example:"{\"amount\": 1450, \"currency\": \"INR\", \"period\": \"month\"}"`
	PostalAddress *string     `json:"postalAddress,omitempty" jsonschema:"the workspace's postal address, which every cold email carries by law; saved for the workspace; leave out to keep the one saved" example:"Acme GmbH, Torstraße 1, 10119 Berlin, Germany" minLength:"10" maxLength:"500"`
	SenderName    *string     `json:"senderName,omitempty" jsonschema:"the name emails come from when a mailbox has none of its own; saved for the workspace; leave out to keep the one saved" example:"Sam Lee" minLength:"1" maxLength:"100"`
}

func saveOffer(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[saveOfferInput, offerOutput]{
		Name:        vibesell.ToolSaveOffer,
		Title:       "Save the offer",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Saves what the workspace sells: the company, what it sells, to whom, the value for the
			buyer, proof points, the call to action, and the price if the person gave one. It
			replaces the offer saved before (one offer per workspace), so pass every field each
			time. It also sets the workspace's postal address (postalAddress, which every cold email
			carries by law; no campaign launches without it) and default sender name (senderName)
			when given; left out, they keep what is saved (stage_campaign and the web app's settings
			set them too). Use the person's own words; do not invent proof points or a price. It
			changes only VibeSell's notes and costs nothing. Not for tone or objections: those go in
			save_playbook.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in saveOfferInput) (toolkit.Result[offerOutput], error) {
			o := workspace.Offer{CompanyName: in.CompanyName, CompanyDomain: in.CompanyDomain, Product: in.Product,
				Audience: in.Audience, Value: in.Value, ProofPoints: in.ProofPoints, CallToAction: in.CallToAction}
			if in.Price != nil {
				price := workspace.NewPrice(in.Price.Amount, in.Price.Currency, in.Price.Period)
				o.Price = &price
			}
			saved, err := d.Workspaces.SaveOfferAndSender(ctx, p.WorkspaceID, o, workspace.SenderChange{PostalAddress: in.PostalAddress, Name: in.SenderName})
			if err != nil {
				return toolkit.Result[offerOutput]{}, err
			}
			data := toOfferData(&saved.Offer)
			sender := senderData{PostalAddress: strPtr(saved.Sender.PostalAddress), SenderName: strPtr(saved.Sender.Name)}
			md := "Saved the offer:\n\n" + offerMarkdown(data, 0) + "\nWho the emails come from (for the workspace):\n" + senderMarkdown(sender) + "\n" + nextStepMarkdown(toNextStepData(saved.NextStep))
			return toolkit.Result[offerOutput]{Markdown: md, Data: offerOutput{Offer: *data, Sender: sender}}, nil
		},
	})
}

// save_playbook

type objectionInput struct {
	Objection string `json:"objection" jsonschema:"what a buyer says" example:"We already use Google Analytics" minLength:"1" maxLength:"500"`
	Answer    string `json:"answer" jsonschema:"how to answer it" example:"It tells you clicks; we tell you which clicks paid" minLength:"1" maxLength:"500"`
}

type savePlaybookInput struct {
	Tone       string           `json:"tone" jsonschema:"how the emails should sound" example:"Plain-spoken and brief, no hype, first names" minLength:"1" maxLength:"300"`
	Angles     []string         `json:"angles,omitempty" jsonschema:"angles to open with (at most 10)" example:"[\"Wasted ad spend\", \"A recent funding round\"]" maxItems:"10" maxLength:"500"`
	Objections []objectionInput `json:"objections,omitempty" jsonschema:"objections buyers raise, each with its answer (at most 10)" example:"[{\"objection\": \"We already use Google Analytics\", \"answer\": \"It tells you clicks; we tell you which clicks paid\"}]" maxItems:"10"`
	Dos        []string         `json:"dos,omitempty" jsonschema:"what the emails should do (at most 20)" example:"[\"Mention one number\"]" maxItems:"20" maxLength:"300"`
	Donts      []string         `json:"donts,omitempty" jsonschema:"what the emails must never do (at most 20)" example:"[\"Never promise ROI\"]" maxItems:"20" maxLength:"300"`
}

func savePlaybook(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[savePlaybookInput, playbookOutput]{
		Name:        vibesell.ToolSavePlaybook,
		Title:       "Save the playbook",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Saves how the workspace's emails should sound and argue: the tone, the angles to open
			with, objections buyers raise with their answers, and dos and don'ts. It replaces the
			playbook saved before (one per workspace), so pass everything each time. Use what the
			person said; do not invent objections. It changes only VibeSell's notes and costs
			nothing. Not for what they sell or to whom: that is save_offer.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in savePlaybookInput) (toolkit.Result[playbookOutput], error) {
			pb := workspace.Playbook{Tone: in.Tone, Angles: in.Angles, Dos: in.Dos, Donts: in.Donts}
			for _, o := range in.Objections {
				pb.Objections = append(pb.Objections, workspace.Objection(o))
			}
			saved, err := d.Workspaces.SavePlaybook(ctx, p.WorkspaceID, pb)
			if err != nil {
				return toolkit.Result[playbookOutput]{}, err
			}
			data := toPlaybookData(&saved.Playbook)
			// Each item is repeated cut to playbookClip characters: the
			// assistant has just written them, and 60 items of up to
			// 1,000 characters would not fit in a result.
			var b strings.Builder
			fmt.Fprintf(&b, "Saved the playbook.\n\n- Tone: %s\n", data.Tone)
			if len(data.Angles) > 0 {
				b.WriteString("- Angles:\n" + indent(bulletList(clipAll(data.Angles, playbookClip))))
			}
			if len(data.Objections) > 0 {
				b.WriteString("- Objections:\n")
				for _, o := range data.Objections {
					fmt.Fprintf(&b, "  - \"%s\" → %s\n", clip(o.Objection, playbookClip), clip(o.Answer, playbookClip))
				}
			}
			if len(data.Dos) > 0 {
				b.WriteString("- Do:\n" + indent(bulletList(clipAll(data.Dos, playbookClip))))
			}
			if len(data.Donts) > 0 {
				b.WriteString("- Don't:\n" + indent(bulletList(clipAll(data.Donts, playbookClip))))
			}
			if strings.Contains(b.String(), "…") {
				fmt.Fprintf(&b, "\nItems longer than %d characters are cut short here (…); they are saved in full.\n", playbookClip)
			}
			b.WriteString("\n" + nextStepMarkdown(toNextStepData(saved.NextStep)))
			return toolkit.Result[playbookOutput]{Markdown: b.String(), Data: playbookOutput{Playbook: *data}}, nil
		},
	})
}

// playbookClip is how much of each playbook item save_playbook's text
// repeats.
const playbookClip = 200

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// contact_support

type contactSupportInput struct {
	Message string `json:"message" jsonschema:"what went wrong or what the person needs, in their words" example:"The approval card stays blank after I click Approve" minLength:"1" maxLength:"5000"`
	Topic   string `json:"topic" jsonschema:"what it is about" example:"bug" enum:"sending,leads,campaigns,billing,account,bug,other"`
	ReplyTo string `json:"replyTo,omitempty" jsonschema:"the email address to answer at, if the person gives one" example:"sam@acme.com" maxLength:"254"`
}

type ticketData struct {
	ID        uuid.UUID `json:"id" jsonschema:"the ticket id"`
	Reference string    `json:"reference" jsonschema:"the reference to quote, e.g. VS-1001"`
	Topic     string    `json:"topic" jsonschema:"what it is about"`
	Message   string    `json:"message" jsonschema:"what the person reported"`
	ReplyTo   *string   `json:"replyTo" jsonschema:"where the answer goes; null when no address was given"`
	Status    string    `json:"status" jsonschema:"the ticket's status" enum:"open,answered,closed"`
	CreatedAt time.Time `json:"createdAt" jsonschema:"when it was opened"`
}

type supportOutput struct {
	Kind     string     `json:"kind" enum:"support"`
	Ticket   ticketData `json:"ticket" jsonschema:"the ticket as stored"`
	WhatNext string     `json:"whatNext" jsonschema:"what happens next"`
}

func contactSupport(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[contactSupportInput, supportOutput]{
		Name:        vibesell.ToolContactSupport,
		Title:       "Contact support",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.No, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Opens a support ticket with the people who run this VibeSell server: what went wrong or
			what the person needs, in their words, the topic, and optionally an email address to
			answer at. Use it when the person asks for help from a human, reports a bug, or a result
			says something went wrong on our side more than once (include the ref). Each call opens
			a new ticket, so call it once per problem. It costs nothing. Not for facts to keep in
			mind: that is remember.
		`,
		Handler: func(ctx context.Context, p auth.Principal, in contactSupportInput) (toolkit.Result[supportOutput], error) {
			t, err := d.Workspaces.OpenTicket(ctx, p.WorkspaceID, in.Topic, in.Message, in.ReplyTo)
			if err != nil {
				return toolkit.Result[supportOutput]{}, err
			}
			data := ticketData{ID: t.ID, Reference: t.Reference(), Topic: t.Topic, Message: t.Message,
				Status: t.Status, CreatedAt: t.CreatedAt}
			if t.ReplyTo != "" {
				data.ReplyTo = &t.ReplyTo
			}
			next := ticketNext(t, d.PublicURL)
			md := fmt.Sprintf("Opened support ticket %s (%s) on %s.\n\nReported: \"%s\"\n\n%s", data.Reference, t.Topic, vibesell.FormatTimeFor(ctx, t.CreatedAt), t.Message, next)
			return toolkit.Result[supportOutput]{Markdown: md, Data: supportOutput{Ticket: data, WhatNext: next}}, nil
		},
	})
}

// ticketNext says where the ticket went: it stays on this server, where
// the workspace's people see it in the web app and the server's operator
// lists it (`server support list`) to answer it.
func ticketNext(t workspace.Ticket, publicURL string) string {
	where := "the web app's Support page"
	if publicURL != "" {
		where = fmt.Sprintf("the web app's Support page (%s/app/support; only the workspace's people open it, signed in)", strings.TrimRight(publicURL, "/"))
	}
	next := fmt.Sprintf("The ticket is kept on this VibeSell server: the workspace's signed-in people see it on %s, and whoever runs this server reads it with the command `server support list`.", where)
	if t.ReplyTo != "" {
		return next + fmt.Sprintf(" They answer by email at %s, quoting %s.\n\nNext: tell the person the ticket's reference, %s, and that the answer comes by email.", t.ReplyTo, t.Reference(), t.Reference())
	}
	return next + fmt.Sprintf(" No reply address was given, so they cannot write back by email.\n\nNext: tell the person the ticket's reference, %s. If they want an answer by email, open a new ticket with replyTo and mention %s.", t.Reference(), t.Reference())
}
