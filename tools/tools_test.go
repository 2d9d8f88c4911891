package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/sending"
)

// The tool names and kinds are the product's public contract: assistants,
// hosts and the card call and read them by name. A registered tool may
// only use these, and none may be renamed; a new one is added here on
// purpose, with the change that needs it.
var (
	contractTools = []string{
		"answer_reply", "approve_sequence", "check_domains", "check_first_email", "choose_sending_source", "confirm_sizing",
		"confirm_target", "contact_support", "correct_reply", "decide_approval", "estimate_campaign_plan", "estimate_lead_pool",
		"get_campaign", "get_lead", "get_plans_and_billing", "get_sending_setup", "get_workspace_context", "import_leads",
		"launch_campaign", "list_pending_approvals", "list_replies", "list_warmed_domains", "open_billing_portal",
		"order_sending_setup", "preview_lead_sample", "propose_domains", "propose_email", "propose_warmed_domains",
		"remember", "resume_campaign", "save_offer", "save_playbook", "save_sequence",
		"save_target", "save_target_filters", "size_sending_capacity", "stage_campaign", "start_checkout",
		"start_warmup", "stop_campaign", "upgrade_plan",
	}
	// appOnlyTools are the card's own tools (MCP Apps visibility
	// ["app"]): hidden from the model, besides the 41.
	appOnlyTools  = []string{"decide_in_card"}
	contractKinds = []string{
		"approval", "approvals", "campaign", "campaign_estimate", "checkout", "choice", "domain_quote",
		"email_step", "first_email", "lead", "lead_count", "lead_preview", "memory", "offer", "plans", "playbook",
		"portal", "replies", "sending_choice", "sending_setup", "sequence", "sizing", "support", "target",
		"warmed_shelf", "warmup", "workspace",
		// decide_in_card's, for the card only.
		"card_decision",
	}
)

func TestRegistryContract(t *testing.T) {
	if len(contractTools) != 41 || len(contractKinds) != 28 {
		t.Fatalf("the contract lists %d tools and %d kinds, want 41 and 28", len(contractTools), len(contractKinds))
	}
	for _, tool := range Registry(Deps{}) {
		t.Run(tool.Name(), func(t *testing.T) {
			if slices.Contains(appOnlyTools, tool.Name()) != tool.AppOnly() {
				t.Errorf("tool %q: app-only %v, the contract says otherwise", tool.Name(), tool.AppOnly())
			}
			if !slices.Contains(contractTools, tool.Name()) && !tool.AppOnly() {
				t.Errorf("tool %q is not one of the product's tool names", tool.Name())
			}
			var out struct {
				Properties struct {
					Kind struct {
						Enum []string `json:"enum"`
					} `json:"kind"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(tool.Definition().RawOutputSchema, &out); err != nil {
				t.Fatal(err)
			}
			for _, kind := range out.Properties.Kind.Enum {
				if !slices.Contains(contractKinds, kind) {
					t.Errorf("tool %q returns kind %q, which is not one of the product's kinds", tool.Name(), kind)
				}
			}
		})
	}
	// The registry must also build into a server (no duplicate names).
	NewServer(Deps{}, nil)
}

// A tool's scope and its read-only hint say the same thing: a token that
// may only read calls exactly the read-only tools.
func TestScopesMatchTheHints(t *testing.T) {
	for _, tool := range Registry(Deps{}) {
		t.Run(tool.Name(), func(t *testing.T) {
			scope := tool.Needs().Scope
			if !slices.Contains([]string{vibesell.ScopeRead, vibesell.ScopeWrite, vibesell.ScopeAct}, scope) {
				t.Fatalf("scope %q is not one of vibesell's scopes", scope)
			}
			readOnly := *tool.Definition().Annotations.ReadOnlyHint
			if readOnly != (scope == vibesell.ScopeRead) {
				t.Errorf("readOnlyHint %v with scope %s: a read-only tool needs %s, any other tool more", readOnly, scope, vibesell.ScopeRead)
			}
		})
	}
}

func TestInstructionsTeachTheProtocol(t *testing.T) {
	var missing []string
	for _, must := range []string{`null means "not available"`, "Never pick", "Only the person opens links", "just received", `"answers"`, `{"card": "<the card id>", "answer":`, "decideHere false", "appUrl", "Rejecting is always allowed"} {
		if !strings.Contains(Instructions, must) {
			missing = append(missing, must)
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("what the instructions do not say (-want +got):\n%s", diff)
	}
}

// Descriptions quote this server's terms, not the defaults they were
// written with.
func TestDescriptionsQuoteTheConfiguredTerms(t *testing.T) {
	c := sending.DefaultConfig()
	c.MailboxPrice, c.WarmupDays = 725, 9
	d := Deps{Sending: sending.New(sending.Deps{Config: c})}
	for _, tool := range Registry(d) {
		if tool.Name() != vibesell.ToolStartWarmup && tool.Name() != vibesell.ToolOrderSendingSetup {
			continue
		}
		desc := tool.Definition().Description
		want := map[string]string{vibesell.ToolStartWarmup: "for the next 9 days", vibesell.ToolOrderSendingSetup: "USD 7.25 per new mailbox"}[tool.Name()]
		if !strings.Contains(desc, want) {
			t.Errorf("%s's description does not quote the configured term %q:\n%s", tool.Name(), want, desc)
		}
	}
}

// A description is written wrapped and read as one paragraph.
func TestDescriptionsAreOneParagraph(t *testing.T) {
	got := describe(Deps{}, "x", `
		Costs [[.MailboxPrice]]
		a month.
	`)
	if want := "Costs USD 5.00 a month."; got != want {
		t.Errorf("description %q, want %q", got, want)
	}
}

// A term that is broken or that no server configures stops the server at
// start-up instead of reaching the assistant.
func TestDescriptionsRefuseABrokenTerm(t *testing.T) {
	for name, written := range map[string]string{
		"broken term":  "Costs [[.MailboxPrice a month.",
		"unknown term": "Costs [[.Price]] a month.",
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("the description was filled in without a complaint")
				}
			}()
			describe(Deps{}, "x", written)
		})
	}
}
