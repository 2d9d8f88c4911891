package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"text/template"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/toolkit"
)

// catalog.json holds what the assistant and the host read about each tool
// besides its schemas: title, description, behaviour hints, the scope a
// call needs, and whether only the card may call it. The texts are
// product, written and reviewed as prose in one place, where they can be
// read side by side and kept in one voice; the Go
// code keeps the contract (the argument and result types) and the handler.
// A description may quote the server's configured terms as [[.Name]] (see
// catalogTerms), so that prices and days are the ones this server charges
// and counts. [[ ]] because {{ }} are the merge fields sequences use.
//
//go:embed catalog.json
var catalogJSON []byte

type catalogEntry struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Scope       string `json:"scope"`
	Entitlement string `json:"entitlement,omitempty"`
	// AppOnly: only the card sees and calls the tool (MCP Apps'
	// visibility ["app"]); hosts hide it from the model.
	AppOnly bool `json:"appOnly,omitempty"`
	Hints   struct {
		ReadOnly    bool `json:"readOnly"`
		Destructive bool `json:"destructive"`
		Idempotent  bool `json:"idempotent"`
		OpenWorld   bool `json:"openWorld"`
	} `json:"hints"`
	Description string `json:"description"`

	description *template.Template
}

// catalog is catalog.json by tool name, read once; a mistake in the file
// stops the server at start-up and fails every test, as a mistake in a
// spec does in [toolkit.Define].
var catalog = mustReadCatalog(catalogJSON)

func mustReadCatalog(raw []byte) map[string]*catalogEntry {
	var entries []*catalogEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		panic(fmt.Sprintf("tools: catalog.json: %v", err))
	}
	byName := make(map[string]*catalogEntry, len(entries))
	for _, e := range entries {
		if _, dup := byName[e.Name]; dup {
			panic(fmt.Sprintf("tools: catalog.json: %s is listed twice", e.Name))
		}
		t, err := template.New(e.Name).Delims("[[", "]]").Option("missingkey=error").Parse(e.Description)
		if err != nil {
			panic(fmt.Sprintf("tools: catalog.json: %s: %v", e.Name, err))
		}
		e.description = t
		byName[e.Name] = e
	}
	return byName
}

// catalogTerms are the configured terms a description may quote, in the
// words a sentence needs.
type catalogTerms struct {
	DomainPrice, MailboxPrice, WarmedPrice string // "USD 15.00"
	TLDs                                   string // ".com, .net and .org"
	Prep, WarmedPrep                       string // "2 business days"
	DaysOff, SendingDays                   string // "weekends", "Monday to Friday"
	WarmupDays, RampStart, RampStep        int
	PerMailbox, PerDomain                  int // emails per mailbox per day, mailboxes per domain
	EmailsPerLead, WarmupSweepMinutes      int
}

func catalogTermsOf(d Deps) catalogTerms {
	t := termsOf(d)
	return catalogTerms{
		DomainPrice: t.domain, MailboxPrice: t.mailbox, WarmedPrice: t.warmed, TLDs: t.tlds,
		Prep: vibesell.Plural(t.prep, "business day", "business days"), WarmedPrep: vibesell.Plural(t.warmedPrep, "business day", "business days"),
		DaysOff: t.daysOff, SendingDays: t.sendingDays, WarmupDays: t.warmupDays, RampStart: t.start, RampStep: t.step,
		PerMailbox: t.perMailbox, PerDomain: t.perDomain,
		EmailsPerLead: sending.DefaultEmailsPerLead, WarmupSweepMinutes: int(sending.WarmupSweepEvery.Minutes()),
	}
}

// define completes a spec with its catalog entry and defines the tool. A
// spec names its tool and carries its handler; everything else a host
// reads about it comes from catalog.json.
func define[In, Out any](d Deps, s toolkit.Spec[In, Out]) toolkit.Tool {
	e, ok := catalog[s.Name]
	if !ok {
		panic(fmt.Sprintf("tools: %s has no entry in catalog.json", s.Name))
	}
	var description strings.Builder
	if err := e.description.Execute(&description, catalogTermsOf(d)); err != nil {
		panic(fmt.Sprintf("tools: catalog.json: %s: %v", s.Name, err))
	}
	s.Title, s.Description = e.Title, description.String()
	s.Annotations = toolkit.Annotations{ReadOnly: hint(e.Hints.ReadOnly), Destructive: hint(e.Hints.Destructive),
		Idempotent: hint(e.Hints.Idempotent), OpenWorld: hint(e.Hints.OpenWorld)}
	s.Requires = toolkit.Needs{Scope: e.Scope, Entitlement: e.Entitlement}
	s.AppOnly = e.AppOnly
	if _, ok := any(*new(Out)).(shows); ok {
		s.Handler = withTokens(d, s.Handler)
	}
	return toolkit.Define(s)
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

func hint(yes bool) toolkit.Hint {
	if yes {
		return toolkit.Yes
	}
	return toolkit.No
}
