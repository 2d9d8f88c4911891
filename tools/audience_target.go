package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/toolkit"
)

type countryData struct {
	Code string `json:"code" jsonschema:"ISO 3166 two-letter code, e.g. DE"`
	Name string `json:"name" jsonschema:"the country's English name, e.g. Germany"`
}

type filtersData struct {
	Titles                []string      `json:"titles" jsonschema:"words the job title contains (any of them)"`
	Seniorities           []string      `json:"seniorities" jsonschema:"seniorities (any of them)"`
	Departments           []string      `json:"departments" jsonschema:"departments (any of them)"`
	Industries            []string      `json:"industries" jsonschema:"industries of the company (any of them)"`
	CompanySizes          []string      `json:"companySizes" jsonschema:"company size bands in employees (any of them)"`
	Countries             []countryData `json:"countries" jsonschema:"countries (any of them, or any of the regions)"`
	Regions               []string      `json:"regions" jsonschema:"regions of the world (any of them, or any of the countries)"`
	ExcludeCompanyDomains []string      `json:"excludeCompanyDomains" jsonschema:"company domains left out"`
	ExcludeCompanies      []string      `json:"excludeCompanies" jsonschema:"company names left out"`
	NotContactedDays      int           `json:"notContactedDays" jsonschema:"leaves out leads of the workspace contacted in the last so many days; 0 means no such window"`
	Description           string        `json:"description" jsonschema:"the filters in words"`
}

type targetData struct {
	Who              *string      `json:"who" jsonschema:"who the ideal customer is, in the person's words; null when not described yet"`
	Problem          *string      `json:"problem" jsonschema:"which problem of theirs the offer solves; null when not described yet"`
	Exclusions       *string      `json:"exclusions" jsonschema:"who not to write to, in the person's words; null when none were given"`
	Filters          *filtersData `json:"filters" jsonschema:"the target as filters the lead directory answers; null when none are saved yet"`
	FiltersVersion   int          `json:"filtersVersion" jsonschema:"the filters' version, moved by every change; confirm_target takes it"`
	Confirmed        bool         `json:"confirmed" jsonschema:"true when the filters in force are the ones the person confirmed (pool, preview and import use them only then)"`
	ConfirmedVersion *int         `json:"confirmedVersion" jsonschema:"the filters version last confirmed; null when never confirmed"`
	ConfirmedAt      *time.Time   `json:"confirmedAt" jsonschema:"when the filters were last confirmed; null when never"`
	// ConfirmationWithdrawn tells the card to say that the confirmation
	// was lost, not merely missing.
	ConfirmationWithdrawn bool `json:"confirmationWithdrawn" jsonschema:"true when this call changed confirmed filters, so they need a new confirmation"`
}

type targetOutput struct {
	Kind   string     `json:"kind" enum:"target"`
	Target targetData `json:"target" jsonschema:"the target as it stands after this call"`
}

func toFiltersData(f *audience.Filters) *filtersData {
	if f == nil {
		return nil
	}
	out := &filtersData{Titles: nonNil(f.Titles), Seniorities: nonNil(f.Seniorities), Departments: nonNil(f.Departments),
		Industries: nonNil(f.Industries), CompanySizes: nonNil(f.CompanySizes), Countries: []countryData{}, Regions: nonNil(f.Regions),
		ExcludeCompanyDomains: nonNil(f.ExcludeCompanyDomains), ExcludeCompanies: nonNil(f.ExcludeCompanies),
		NotContactedDays: f.NotContactedDays, Description: f.Describe()}
	for _, c := range f.Countries {
		out.Countries = append(out.Countries, countryData{Code: c, Name: audience.CountryName(c)})
	}
	return out
}

func toTargetData(t audience.Target) targetData {
	out := targetData{Filters: toFiltersData(t.Filters), FiltersVersion: t.FiltersVersion, Confirmed: t.Confirmed(),
		ConfirmedVersion: t.ConfirmedVersion, ConfirmedAt: t.ConfirmedAt}
	if t.Description != nil {
		out.Who, out.Problem = &t.Description.Who, &t.Description.Problem
		if t.Description.Exclusions != "" {
			out.Exclusions = &t.Description.Exclusions
		}
	}
	return out
}

// targetMarkdown writes the target and what to do next.
func targetMarkdown(lead string, t audience.Target) string {
	var b strings.Builder
	b.WriteString(lead + "\n\n")
	if d := t.Description; d != nil {
		fmt.Fprintf(&b, "Who: %s\nTheir problem: %s\n", d.Who, d.Problem)
		if d.Exclusions != "" {
			fmt.Fprintf(&b, "Not to contact: %s\n", d.Exclusions)
		}
	} else {
		fmt.Fprintf(&b, "The ideal customer is not described in words yet (%s).\n", vibesell.ToolSaveTarget)
	}
	switch {
	case t.Filters == nil:
		fmt.Fprintf(&b, "\nNo filters yet. Next: turn the description into filters with %s.\n", vibesell.ToolSaveTargetFilters)
	case t.Confirmed():
		fmt.Fprintf(&b, "\nFilters (version %d, confirmed): %s.\n\nNext: %s counts the pool, %s shows up to %d people, %s imports them (with the person's approval).\n",
			t.FiltersVersion, t.Filters.Describe(), vibesell.ToolEstimateLeadPool, vibesell.ToolPreviewLeadSample, audience.PreviewSize, vibesell.ToolImportLeads)
	default:
		fmt.Fprintf(&b, "\nFilters (version %d, not confirmed): %s.\n\nNext: show the person these filters; once they agree, call %s with filtersVersion %d. Until then pool, preview and import refuse.\n",
			t.FiltersVersion, t.Filters.Describe(), vibesell.ToolConfirmTarget, t.FiltersVersion)
	}
	return b.String()
}

// save_target

type saveTargetInput struct {
	Who        string `json:"who" jsonschema:"who the ideal customer is, in the person's words: role, company, situation" example:"Heads of sales at software companies of 50 to 200 people in Europe" minLength:"1" maxLength:"1000"`
	Problem    string `json:"problem" jsonschema:"which problem of theirs the offer solves" example:"Their reps spend hours a week building prospect lists by hand" minLength:"1" maxLength:"1000"`
	Exclusions string `json:"exclusions,omitempty" jsonschema:"who not to write to, in the person's words" example:"No current customers, nobody at Globex" maxLength:"1000"`
}

func saveTarget(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[saveTargetInput, targetOutput]{
		Name:        vibesell.ToolSaveTarget,
		Title:       "Save the target",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Saves who the person wants to reach, in their own words: who the ideal customer is,
			which problem of theirs the offer solves, and who to leave out. It replaces the
			description saved before and leaves the filters and their confirmation as they are. It
			changes only VibeSell's notes and costs nothing. Use the person's words; do not invent.
			Next, turn the description into filters the lead directory can answer with
			save_target_filters. Not for what is sold (save_offer) or for the filters themselves
			(save_target_filters).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in saveTargetInput) (toolkit.Result[targetOutput], error) {
			t, err := d.Audience.SaveDescription(ctx, p.WorkspaceID, audience.Description{Who: in.Who, Problem: in.Problem, Exclusions: in.Exclusions})
			if err != nil {
				return toolkit.Result[targetOutput]{}, err
			}
			return toolkit.Result[targetOutput]{Markdown: targetMarkdown("Saved the target.", t), Data: targetOutput{Target: toTargetData(t)}}, nil
		},
	})
}

// save_target_filters

type saveTargetFiltersInput struct {
	Titles                []string `json:"titles,omitempty" jsonschema:"words the job title contains; any of them matches" example:"[\"sales\", \"revenue\"]" maxItems:"50" maxLength:"80"`
	Seniorities           []string `json:"seniorities,omitempty" jsonschema:"seniorities; any of them matches" enum:"Owner,Founder,C-level,Partner,VP,Head,Director,Manager,Senior,Entry,Intern" example:"[\"VP\", \"Head\"]" maxItems:"50"`
	Departments           []string `json:"departments,omitempty" jsonschema:"departments; any of them matches" enum:"Customer Success,Data,Design,Engineering,Executive,Finance,Human Resources,IT,Legal,Marketing,Operations,Product,Purchasing,Sales,Support" example:"[\"Sales\"]" maxItems:"50"`
	Industries            []string `json:"industries,omitempty" jsonschema:"industries of the company, e.g. Software, Financial Services, Healthcare, Retail, Manufacturing, Marketing and Advertising (an unknown one is refused with the closest known)" example:"[\"Software\"]" maxItems:"50" maxLength:"80"`
	CompanySizes          []string `json:"companySizes,omitempty" jsonschema:"company size bands, in employees; any of them matches" enum:"1-10,11-50,51-200,201-500,501-1000,1001-5000,5001-10000,10001+" example:"[\"51-200\", \"201-500\"]" maxItems:"50"`
	Countries             []string `json:"countries,omitempty" jsonschema:"countries by English name or two-letter code; a contact in any country or any region matches" example:"[\"Germany\", \"FR\"]" maxItems:"50" maxLength:"80"`
	Regions               []string `json:"regions,omitempty" jsonschema:"regions (UN areas); a contact in any country or any region matches" enum:"Africa,Americas,North America,Latin America,South America,Central America,Caribbean,Asia,Eastern Asia,Southern Asia,Southeast Asia,Western Asia,Europe,Northern Europe,Western Europe,Southern Europe,Eastern Europe,Oceania" example:"[\"Europe\"]" maxItems:"50"`
	ExcludeCompanyDomains []string `json:"excludeCompanyDomains,omitempty" jsonschema:"company domains to leave out (current customers, competitors)" example:"[\"globex.com\"]" maxItems:"50" maxLength:"253"`
	ExcludeCompanies      []string `json:"excludeCompanies,omitempty" jsonschema:"company names to leave out" example:"[\"Globex\"]" maxItems:"50" maxLength:"200"`
	NotContactedDays      int      `json:"notContactedDays,omitempty" jsonschema:"leave out the workspace's leads contacted in the last so many days; 0 or absent: no window" example:"90" minimum:"0" maximum:"3650"`
	Suppress              []string `json:"suppress,omitempty" jsonschema:"addresses (ana@globex.com) or whole domains (globex.com) this workspace must never write to; kept for good whatever the filters, and never imported" example:"[\"ceo@globex.com\", \"initech.com\"]" maxItems:"100" maxLength:"320"`
}

func saveTargetFilters(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[saveTargetFiltersInput, targetOutput]{
		Name:        vibesell.ToolSaveTargetFilters,
		Title:       "Save the target's filters",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Saves the target as filters the lead directory can answer: job title words, seniorities,
			departments, industries, company size bands, countries and regions, companies to leave
			out, and leaving out leads contacted in the last N days. Within one filter any value
			matches (VP or Head); across filters all must (a VP or Head, in Software, in Europe). It
			replaces the filters saved before, so pass every filter each time. A value the directory
			does not know is refused with the closest known ones ("'Saas' is not an industry we
			know; did you mean 'Software'?"): ask the person which they mean, never pick for them.
			Changing confirmed filters withdraws the confirmation: pool, preview and import wait for
			a new confirm_target. suppress adds addresses or whole domains the workspace never
			writes to, for good (no import ever brings them back). It changes only VibeSell's
			records and costs nothing. Not for the description in words (save_target) or for
			counting (estimate_lead_pool).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in saveTargetFiltersInput) (toolkit.Result[targetOutput], error) {
			saved, err := d.Audience.SaveFilters(ctx, p.WorkspaceID, audience.Filters{Titles: in.Titles, Seniorities: in.Seniorities,
				Departments: in.Departments, Industries: in.Industries, CompanySizes: in.CompanySizes, Countries: in.Countries,
				Regions: in.Regions, ExcludeCompanyDomains: in.ExcludeCompanyDomains, ExcludeCompanies: in.ExcludeCompanies,
				NotContactedDays: in.NotContactedDays}, in.Suppress)
			if err != nil {
				return toolkit.Result[targetOutput]{}, err
			}
			lead := "Saved the filters."
			switch {
			case saved.ConfirmationWithdrawn:
				lead = fmt.Sprintf("Saved the filters. They were confirmed before and changed now, so the confirmation is withdrawn: the pool, the preview and imports wait until the person confirms version %d.", saved.Target.FiltersVersion)
			case !saved.Changed:
				lead = "The filters were already exactly these; nothing changed."
			}
			if s := saved.Suppressed; len(s.Addresses)+len(s.Domains)+len(s.Already) > 0 {
				lead += " " + suppressedText(s)
			}
			data := toTargetData(saved.Target)
			data.ConfirmationWithdrawn = saved.ConfirmationWithdrawn
			return toolkit.Result[targetOutput]{Markdown: targetMarkdown(lead, saved.Target), Data: targetOutput{Target: data}}, nil
		},
	})
}

// suppressedText says what save_target_filters suppressed, naming up to
// suppressedNamed of each kind: a call suppresses up to 100 addresses of
// up to 320 characters, too many to repeat in a result.
func suppressedText(s audience.Suppressed) string {
	var parts []string
	if len(s.Addresses) > 0 {
		parts = append(parts, vibesell.Plural(len(s.Addresses), "address", "addresses")+" ("+someOf(s.Addresses)+")")
	}
	if len(s.Domains) > 0 {
		parts = append(parts, vibesell.Plural(len(s.Domains), "whole domain", "whole domains")+" ("+someOf(s.Domains)+")")
	}
	text := ""
	if len(parts) > 0 {
		text = "Suppressed for good: " + vibesell.JoinAnd(parts) + "; no import brings them back."
	}
	if len(s.Already) > 0 {
		text = strings.TrimSpace(text + " Already suppressed: " + someOf(s.Already) + ".")
	}
	return text
}

const suppressedNamed = 5

// someOf names the first suppressedNamed items and counts the rest.
func someOf(items []string) string {
	if len(items) <= suppressedNamed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:suppressedNamed], ", ") + " and " + vibesell.Count(len(items)-suppressedNamed) + " more"
}

// confirm_target

type confirmTargetInput struct {
	FiltersVersion int `json:"filtersVersion" jsonschema:"the version of the filters the person agreed to, as the last save_target_filters result gave it" example:"1" minimum:"1"`
}

func confirmTarget(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[confirmTargetInput, targetOutput]{
		Name:        vibesell.ToolConfirmTarget,
		Title:       "Confirm the target",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Locks the target's filters as the ones the lead pool, the preview and imports use, once
			the person has seen them and agreed. Pass the filtersVersion they saw: if the filters
			changed since, it refuses and gives the current ones to show again. Confirming the
			confirmed version again changes nothing. Any later change of the filters
			(save_target_filters) withdraws the confirmation. It changes only VibeSell's records and
			costs nothing. Call it only with the person's agreement. Not for saving filters
			(save_target_filters).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in confirmTargetInput) (toolkit.Result[targetOutput], error) {
			t, err := d.Audience.Confirm(ctx, p.WorkspaceID, in.FiltersVersion)
			if err != nil {
				return toolkit.Result[targetOutput]{}, err
			}
			lead := fmt.Sprintf("Confirmed the target's filters (version %d).", t.FiltersVersion)
			return toolkit.Result[targetOutput]{Markdown: targetMarkdown(lead, t), Data: targetOutput{Target: toTargetData(t)}}, nil
		},
	})
}
