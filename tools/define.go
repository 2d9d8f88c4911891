package tools

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"text/template"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/toolkit"
)

// define completes a spec's description and defines the tool.
//
// A spec states the whole contract beside its handler: the title, the four
// hints, the OAuth scope, whether only the card may call it, and the
// description, which is the text the assistant reads to choose the tool.
// The description is written as prose wrapped in a raw string: define
// joins it into the one paragraph hosts show (every run of white space,
// line breaks and indents included, becomes one space), then fills in the
// configured terms it quotes as [[.MailboxPrice]] and the like (the fields
// of [descriptionTerms]), so that prices and days are the ones this server
// charges and counts. [[ ]] because {{ }} are the merge fields sequences
// use. A broken or unknown term panics, so it stops the server at start-up
// and fails every test, as a mistake in a spec does in [toolkit.Define].
func define[In, Out any](d Deps, s toolkit.Spec[In, Out]) toolkit.Tool {
	s.Description = describe(d, s.Name, s.Description)
	if _, ok := any(*new(Out)).(shows); ok {
		s.Handler = withTokens(d, s.Handler)
	}
	if s.Annotations.ReadOnly != toolkit.Yes && d.Workspaces != nil {
		s.Handler = thenWrote(d, s.Handler)
	}
	return toolkit.Define(s)
}

// thenWrote tells the workspace's context caches, once a call that may
// change anything is done (refused ones too: a refusal may have been
// recorded), that this replica wrote to it, so that the caller's next
// read sees its own write without waiting for the notification.
func thenWrote[In, Out any](d Deps, h toolkit.Handler[In, Out]) toolkit.Handler[In, Out] {
	return func(ctx context.Context, p auth.Principal, in In) (toolkit.Result[Out], error) {
		defer d.Workspaces.Wrote(p.WorkspaceID)
		return h(ctx, p, in)
	}
}

// describe turns a description as written into the one hosts show: one
// paragraph, with the configured terms filled in.
func describe(d Deps, tool, written string) string {
	t, err := template.New(tool).Delims("[[", "]]").Option("missingkey=error").Parse(strings.Join(strings.Fields(written), " "))
	if err != nil {
		panic(fmt.Sprintf("tools: %s's description: %v", tool, err))
	}
	var b strings.Builder
	if err := t.Execute(&b, descriptionTermsOf(d)); err != nil {
		panic(fmt.Sprintf("tools: %s's description: %v", tool, err))
	}
	return b.String()
}

// descriptionTerms are the configured terms a description may quote, in
// the words a sentence needs.
type descriptionTerms struct {
	DomainPrice, MailboxPrice, WarmedPrice string // "USD 15.00"
	TLDs                                   string // ".com, .net and .org"
	Prep, WarmedPrep                       string // "2 business days"
	DaysOff, SendingDays                   string // "weekends", "Monday to Friday"
	WarmupDays, RampStart, RampStep        int
	PerMailbox, PerDomain                  int // emails per mailbox per day, mailboxes per domain
	EmailsPerLead, WarmupSweepMinutes      int
}

func descriptionTermsOf(d Deps) descriptionTerms {
	t := termsOf(d)
	return descriptionTerms{
		DomainPrice: t.domain, MailboxPrice: t.mailbox, WarmedPrice: t.warmed, TLDs: t.tlds,
		Prep: vibesell.Plural(t.prep, "business day", "business days"), WarmedPrep: vibesell.Plural(t.warmedPrep, "business day", "business days"),
		DaysOff: t.daysOff, SendingDays: t.sendingDays, WarmupDays: t.warmupDays, RampStart: t.start, RampStep: t.step,
		PerMailbox: t.perMailbox, PerDomain: t.perDomain,
		EmailsPerLead: sending.DefaultEmailsPerLead, WarmupSweepMinutes: int(sending.WarmupSweepEvery.Minutes()),
	}
}

// withTokens gives each result of h that shows something to decide in the
// card (see [shows]) the card's one-time tokens for it, in its _meta.
func withTokens[In, Out any](d Deps, h toolkit.Handler[In, Out]) toolkit.Handler[In, Out] {
	return func(ctx context.Context, p auth.Principal, in In) (toolkit.Result[Out], error) {
		res, err := h(ctx, p, in)
		if err != nil {
			return res, err
		}
		meta, err := decisionTokens(ctx, d, p.WorkspaceID, any(res.Data).(shows))
		if err != nil {
			return toolkit.Result[Out]{}, fmt.Errorf("issue the card's tokens: %w", err)
		}
		if len(meta) > 0 {
			res.Meta = maps.Clone(res.Meta)
			if res.Meta == nil {
				res.Meta = map[string]any{}
			}
			maps.Copy(res.Meta, meta)
		}
		return res, nil
	}
}
