package tools

import (
	"context"
	"fmt"
	"strings"

	"vibesell"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/toolkit"
)

type findingData struct {
	Check   string `json:"check" enum:"merge_fields,spam_phrases,links,images,length,personalisation,subject,unsubscribe_and_address,mailbox" jsonschema:"what was checked"`
	Checked string `json:"checked" jsonschema:"the parts of the email this check looked at, in words"`
	Status  string `json:"status" enum:"pass,warn,fail" jsonschema:"pass: fine; warn: hurts replies or deliverability, fix it if you can; fail: blocks the launch"`
	Finding string `json:"finding" jsonschema:"what was found"`
	Why     string `json:"why" jsonschema:"why it matters"`
	Fix     string `json:"fix" jsonschema:"how to fix it; empty on a pass"`
}

type firstEmailOutput struct {
	Kind     string        `json:"kind" enum:"first_email"`
	Sequence string        `json:"sequence" jsonschema:"the sequence id" pattern:"^sq_[0-9a-f]{16}$"`
	Version  int           `json:"version" jsonschema:"the version rendered"`
	Approved bool          `json:"approved" jsonschema:"true when that version is approved"`
	Lead     string        `json:"lead" jsonschema:"the imported lead it was rendered for (their address)"`
	LeadName string        `json:"leadName" jsonschema:"the lead's name and company as imported"`
	From     string        `json:"from" jsonschema:"the From line it goes out with (the sender's name and the mailbox); only a name while the workspace has no mailbox"`
	Subject  string        `json:"subject" jsonschema:"the subject as this lead gets it"`
	Text     string        `json:"text" jsonschema:"the text/plain part exactly as the sending engine composes it for this lead, footer included (postal address and unsubscribe line); the lead's personal unsubscribe link is shown as a placeholder"`
	HTML     string        `json:"html" jsonschema:"the text/html part exactly as the sending engine composes it, footer included, as HTML source"`
	Findings []findingData `json:"findings" jsonschema:"each check, pass, warn or fail"`
	Verdict  string        `json:"verdict" enum:"pass,warn,fail" jsonschema:"fail when any check fails (the launch is blocked), warn when any warns, else pass"`
}

type checkFirstEmailInput struct {
	Sequence string `json:"sequence" jsonschema:"the sequence id" example:"sq_3f2a9c0d4b5e6f70" pattern:"^sq_[0-9a-f]{16}$"`
	Version  int    `json:"version,omitempty" jsonschema:"the version to render; absent: the latest" example:"2" minimum:"1"`
	Lead     string `json:"lead,omitempty" jsonschema:"the address of an imported lead the person wants to see it for; absent: the first imported lead" example:"ana@alpha.example" maxLength:"320"`
}

func checkFirstEmail(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[checkFirstEmailInput, firstEmailOutput]{
		Name:        vibesell.ToolCheckFirstEmail,
		Title:       "Check the first email",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Composes step 1 of a sequence with the sending engine's own code, as it goes out to one
			real imported lead (the person may name the lead): the From line, the subject, the text
			part and the HTML part, footer included (the lead's personal unsubscribe link is shown
			as a placeholder). Then checks it the way a deliverability expert would: spam-trigger
			phrases, links and their domains, images, length, personalisation coverage across the
			leads, subject length and capitals, the sender, postal address and unsubscribe link in
			both parts, merge fields left unresolved, and whether a mailbox is ready to send. Each
			finding names the parts it checked and is pass, warn or fail with why it matters and how
			to fix it; a fail blocks launch_campaign. It sends nothing and changes nothing. Not for
			saving edits (save_sequence).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in checkFirstEmailInput) (toolkit.Result[firstEmailOutput], error) {
			fe, err := d.Campaigns.CheckFirstEmail(ctx, p.WorkspaceID, campaigns.CheckRequest{Sequence: in.Sequence, Version: in.Version, Lead: in.Lead})
			if err != nil {
				return toolkit.Result[firstEmailOutput]{}, err
			}
			out := firstEmailOutput{Sequence: fe.Sequence.ID, Version: fe.Sequence.Version, Approved: fe.Sequence.Approved(), Lead: fe.Lead.Email,
				LeadName: leadName(fe.Lead), From: fe.Email.From, Subject: fe.Email.Subject, Text: fe.Email.Text, HTML: fe.Email.HTML, Findings: []findingData{}, Verdict: fe.Verdict}
			for _, f := range fe.Findings {
				out.Findings = append(out.Findings, findingData{Check: f.Check, Checked: f.Checked, Status: f.Status, Finding: f.Finding, Why: f.Why, Fix: fixText(f)})
			}
			return toolkit.Result[firstEmailOutput]{Markdown: firstEmailMarkdown(fe), Data: out}, nil
		},
	})
}

// fixText is a finding's fix for the assistant, with the calls that take
// it.
func fixText(f campaigns.Finding) string { return toolkit.GuidanceText(f.Fix, f.FixBy) }

func leadName(l vibesell.Lead) string {
	name := strings.TrimSpace(l.FirstName + " " + l.LastName)
	if name == "" {
		name = l.Email
	}
	if l.Company != "" {
		name += ", " + l.Company
	}
	return name
}

func firstEmailMarkdown(fe campaigns.FirstEmail) string {
	var b strings.Builder
	b.WriteString(vibesell.FenceOutside("The lead's name and company as imported", leadName(fe.Lead)))
	e := fe.Email
	fmt.Fprintf(&b, "\nStep 1 of sequence %s version %d, composed by the sending engine for that lead (%s), as it goes out:\n\nFrom: %s\nTo: %s\nSubject: %s\n\n",
		fe.Sequence.ID, fe.Sequence.Version, fe.Lead.Email, e.From, e.To, e.Subject)
	fmt.Fprintf(&b, "### Text part (text/plain)\n\n%s\n\n### HTML part (text/html), as source\n\n```html\n%s```\n\n", strings.TrimRight(e.Text, "\n"), e.HTML)
	b.WriteString("## Checks\n")
	for _, f := range fe.Findings {
		fmt.Fprintf(&b, "- %s, %s (checked: %s): %s %s", strings.ToUpper(f.Status), strings.ReplaceAll(f.Check, "_", " "), f.Checked, f.Finding, f.Why)
		if fix := fixText(f); fix != "" {
			fmt.Fprintf(&b, " Fix: %s", fix)
		}
		b.WriteString("\n")
	}
	switch fe.Verdict {
	case campaigns.Fail:
		fmt.Fprintf(&b, "\nVerdict: fail. launch_campaign refuses while a check fails. Tell the person what fails and why; fix the text with %s (a new version to approve), or what else each fix says.\n", vibesell.ToolSaveSequence)
	case campaigns.Warn:
		b.WriteString("\nVerdict: warnings only. Nothing blocks the launch, but each warning costs replies or deliverability: put them to the person before going on.\n")
	default:
		b.WriteString("\nVerdict: every check passes.\n")
	}
	if !fe.Sequence.Approved() {
		fmt.Fprintf(&b, "This version is not approved yet: show the person every step and, once they agree, call %s with version %d.\n", vibesell.ToolApproveSequence, fe.Sequence.Version)
	}
	return b.String()
}
