package toolkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

// The tools below exist only to exercise the framework; each stands for a
// shape the product's tools have.

var testPrincipal = auth.Principal{
	WorkspaceID:   uuid.MustParse("6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f"),
	WorkspaceSlug: "acme",
}

type contactInput struct {
	Name  string `json:"name" jsonschema:"the company name" example:"Acme" minLength:"1" maxLength:"100"`
	Email string `json:"email,omitempty" jsonschema:"where to write to them" example:"ada@acme.com" pattern:"^[^@ ]+@[^@ ]+$"`
}

type contactOutput struct {
	Kind  string  `json:"kind" enum:"target"`
	Name  string  `json:"name" jsonschema:"the company name"`
	Email *string `json:"email" jsonschema:"where to write to them; null means not available"`
}

func saveContact() Tool {
	return Define(Spec[contactInput, contactOutput]{
		Name:        "save_contact",
		Title:       "Save a contact",
		Description: "Saves a company to write to.",
		Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in contactInput) (Result[contactOutput], error) {
			out := contactOutput{Name: in.Name} // Kind left empty: the framework fills it
			if in.Email != "" {
				out.Email = &in.Email
			}
			return Result[contactOutput]{Markdown: fmt.Sprintf("Saved **%s**.", in.Name), Data: out}, nil
		},
	})
}

type answer struct {
	Card   string `json:"card" jsonschema:"the id of the card that asked" pattern:"^[0-9a-f]{16}$"`
	Answer string `json:"answer" jsonschema:"the choice id, or the person's own words" minLength:"1"`
}

type leadsInput struct {
	Limit   int      `json:"limit,omitempty" jsonschema:"how many leads to show" example:"20" minimum:"1" maximum:"100"`
	Status  string   `json:"status,omitempty" jsonschema:"only leads in this state" example:"replied" enum:"new,replied,bounced"`
	Answers []answer `json:"answers,omitempty" jsonschema:"the answers given so far" example:"[{\"card\":\"0123456789abcdef\",\"answer\":\"gmail\"}]" maxItems:"5"`
	Offset  int      `json:"offset,omitempty" jsonschema:"how many leads to skip" example:"0" minimum:"0"`
}

type leadsOutput struct {
	Kind  string `json:"kind" enum:"lead_preview"`
	Count *int   `json:"count" jsonschema:"how many leads match; null means not available"`
}

func listLeads() Tool {
	return Define(Spec[leadsInput, leadsOutput]{
		Name:        "list_leads",
		Title:       "List leads",
		Description: "Lists leads.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: Yes},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in leadsInput) (Result[leadsOutput], error) {
			return Result[leadsOutput]{Markdown: "No count is available right now.", Data: leadsOutput{Kind: "lead_preview"}}, nil
		},
	})
}

type tagInput struct {
	Names []string `json:"names" jsonschema:"the leads to tag" example:"[\"ada@acme.com\"]" minItems:"1"`
	Note  *string  `json:"note,omitempty" jsonschema:"why they are tagged" example:"Met at the fair"`
}

type tagOutput struct {
	Kind   string  `json:"kind" enum:"lead_count"`
	Tagged int     `json:"tagged" jsonschema:"how many leads were tagged"`
	Note   *string `json:"note" jsonschema:"why they are tagged; null means not said"`
}

// tagLeads stands for a tool with a required list and an optional pointer,
// the two shapes the schema generator types as ["null", T].
func tagLeads() Tool {
	return Define(Spec[tagInput, tagOutput]{
		Name:        "tag_leads",
		Title:       "Tag leads",
		Description: "Tags leads.",
		Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in tagInput) (Result[tagOutput], error) {
			return Result[tagOutput]{Markdown: "Tagged.", Data: tagOutput{Tagged: len(in.Names), Note: in.Note}}, nil
		},
	})
}

type pingOutput struct {
	Kind      string `json:"kind" enum:"support"`
	Workspace string `json:"workspace" jsonschema:"the workspace's slug"`
}

func ping() Tool {
	return Define(Spec[struct{}, pingOutput]{
		Name:        "ping",
		Title:       "Ping",
		Description: "Says which workspace is asking.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in struct{}) (Result[pingOutput], error) {
			return Result[pingOutput]{Markdown: "Workspace " + p.WorkspaceSlug + ".", Data: pingOutput{Workspace: p.WorkspaceSlug}}, nil
		},
	})
}

func behave() Tool {
	return Define(Spec[behaveInput, behaveOutput]{
		Name:        "behave",
		Title:       "Behave",
		Description: "Ends the way it is told to.",
		Annotations: Annotations{ReadOnly: No, Destructive: Yes, Idempotent: No, OpenWorld: Yes},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in behaveInput) (Result[behaveOutput], error) {
			switch in.Mode {
			case "refuse":
				return Result[behaveOutput]{}, vibesell.Errorf(vibesell.ENOTFOUND, "MC9999 is not a design we carry. Ask for the catalogue to see what we have.")
			case "steps":
				return Result[behaveOutput]{}, vibesell.Errorf(vibesell.ECONFLICT, "Campaign Spring is already sending.").Then(
					vibesell.Call("Pause it first.", "pause_campaign", "campaign", "c_1"), vibesell.Next{Do: "Ask the owner."}, vibesell.Next{Tool: "get_campaign"})
			case "wrapped":
				return Result[behaveOutput]{}, fmt.Errorf("launch campaign: %w", vibesell.Errorf(vibesell.ECONFLICT, "Campaign Spring is already sending. Pause it first."))
			case "internal_refusal":
				return Result[behaveOutput]{}, vibesell.Errorf(vibesell.EINTERNAL, "pq: relation approvals does not exist")
			case "fail":
				return Result[behaveOutput]{}, fmt.Errorf("find approval: %w", errors.New("connection refused to 10.0.0.7:5432"))
			case "panic":
				var m map[string]int
				//lint:ignore SA5000 the nil map is the point: a real bug's panic, not a hand-made panic value
				m["boom"]++ // a real bug, not a hand-made panic value
			case "bad_kind":
				return Result[behaveOutput]{Markdown: "Done.", Data: behaveOutput{Kind: "campaign", Status: "pending"}}, nil
			case "no_markdown":
				return Result[behaveOutput]{Data: behaveOutput{Kind: "approval", Status: "pending"}}, nil
			case "at_bound":
				// Characters, not bytes: 25,000 two-byte characters fit.
				return Result[behaveOutput]{Markdown: strings.Repeat("é", vibesell.MaxResultText), Data: behaveOutput{Kind: "approval", Status: "pending"}}, nil
			case "long_text":
				return Result[behaveOutput]{Markdown: strings.Repeat("a", vibesell.MaxResultText+1), Data: behaveOutput{Kind: "approval", Status: "pending"}}, nil
			case "long_refusal":
				return Result[behaveOutput]{}, vibesell.Errorf(vibesell.EINVALID, "%s", strings.Repeat("a", vibesell.MaxResultText+1))
			case "big_structured":
				return Result[behaveOutput]{Markdown: "Done.", Data: behaveOutput{Kind: "approval", Status: strings.Repeat("a", vibesell.MaxResultStructured)}}, nil
			}
			return Result[behaveOutput]{Markdown: "Waiting for a decision.", Data: behaveOutput{Kind: "approval", Status: "pending"}}, nil
		},
	})
}

type behaveInput struct {
	Mode string `json:"mode" jsonschema:"how the handler ends" example:"ok" enum:"ok,refuse,steps,wrapped,internal_refusal,fail,panic,bad_kind,no_markdown,at_bound,long_text,big_structured,long_refusal"`
}

type behaveOutput struct {
	Kind   string `json:"kind" enum:"approval,approvals"`
	Status string `json:"status" jsonschema:"where the approval stands"`
}

// testInstructions stand for the catalog's instructions.
const testInstructions = "Null means not available. Never pick for the person."

// testBundle is what most tests need: a client acting for testPrincipal on
// a server of the test tools (and echo), and what that server logged.
type testBundle struct {
	client *toolkittest.Client
	logs   *toolkittest.LogBuffer
}

// setup serves the test tools; options, when given, change the server's
// options before it is built.
func setup(t *testing.T, options ...func(*Options)) *testBundle {
	t.Helper()
	logs := &toolkittest.LogBuffer{}
	o := &Options{
		Instructions: testInstructions,
		Version:      "test",
		Logger:       slog.New(slog.NewJSONHandler(logs, nil)),
		Echo:         true,
	}
	for _, change := range options {
		change(o)
	}
	s := NewServer([]Tool{saveContact(), listLeads(), tagLeads(), ping(), behave()}, o)
	return &testBundle{client: toolkittest.Connect(t, s, testPrincipal), logs: logs}
}

// withPrincipal returns the test's context acting for testPrincipal.
func withPrincipal(t *testing.T) context.Context {
	return auth.NewContext(t.Context(), testPrincipal)
}

// mustPanic fails the test unless f panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		if v == nil {
			t.Errorf("no panic, want one saying %q", want)
			return
		}
		if msg := fmt.Sprint(v); !strings.Contains(msg, want) {
			t.Errorf("panic %q, want it to say %q", msg, want)
		}
	}()
	f()
}
