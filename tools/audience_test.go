package tools

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

type audienceBundle struct {
	t         *testing.T
	deps      Deps
	ws        workspacetest.Pair
	acme      *toolkittest.Client
	globex    *toolkittest.Client
	approvals *approvals.Service
}

// directoryCSV: for VP or Head in Software in Germany or France, ana, ben
// and cara match (cara's industry written "saas", her country "France");
// dan is in Retail, eve a Manager, info@ a role address, fay in Spain.
const directoryCSV = `email,first_name,last_name,title,seniority,industry,company,company_domain,company_size,country
ana@alpha.test,Ana,Silva,VP of Sales,VP,Software,Alpha,alpha.test,51-200,DE
ben@beta.test,Ben,Berg,Head of Sales,Head,Software,Beta,beta.test,11-50,DE
cara@gamma.test,Cara,Costa,VP Revenue,VP,saas,Gamma,gamma.test,201-500,France
dan@delta.test,Dan,Dubois,VP of Sales,VP,Retail,Delta,delta.test,51-200,DE
eve@alpha.test,Eve,Evans,Sales Manager,Manager,Software,Alpha,alpha.test,51-200,DE
info@alpha.test,,,,VP,Software,Alpha,alpha.test,51-200,DE
fay@epsilon.test,Fay,Fischer,VP of Sales,VP,Software,Epsilon,epsilon.test,51-200,ES
`

// newAudienceBundle serves the audience tools with imports held to
// billing's default plans, the free plan allowing freeLeads a month.
func newAudienceBundle(t *testing.T, cfg audience.Config, freeLeads int) *audienceBundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ap := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler)})
	cfg.UploadURL = "https://vibesell.example.test/app/leads"
	bc := billing.DefaultConfig()
	bc.Plans[0].Limits.LeadsPerMonth = freeLeads
	bill := billing.New(billing.Deps{
		DB:     pool,
		Config: bc, Stripe: billingtest.NewFakeStripe(clock, bc.Plans), Approvals: ap, PublicURL: "https://vibesell.example.test", Clock: clock,
		Logger: slog.New(slog.DiscardHandler), Meters: map[billing.Metric]billing.Meter{billing.Leads: billing.Counted},
	})
	svc := audience.New(audience.Deps{DB: pool, Clock: clock, Config: cfg, Approvals: ap, LeadLimit: bill.Limit(billing.Leads)})
	ap.Register(vibesell.ToolImportLeads, audience.ImportAction(svc))
	b := &audienceBundle{t: t, ws: workspacetest.Two(t, pool), approvals: ap,
		deps: Deps{Workspaces: workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}}), Approvals: ap, Audience: svc}}
	b.acme = toolkittest.Connect(t, NewServer(b.deps, nil), workspacetest.Principal(b.ws.Acme))
	b.globex = toolkittest.Connect(t, NewServer(b.deps, nil), workspacetest.Principal(b.ws.Globex))
	if _, err := audience.ImportDirectory(t.Context(), pool, strings.NewReader(directoryCSV), "directory.csv", nil); err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	storetest.StartRiver(t, pool, &river.Config{Workers: workers, PeriodicJobs: approvals.AddWorkers(workers, ap)})
	return b
}

var vpOrHeadInSoftware = map[string]any{"seniorities": []string{"VP", "Head"}, "industries": []string{"Software"}, "countries": []string{"Germany", "FR"}}

func (b *audienceBundle) confirm(c *toolkittest.Client, filters map[string]any) targetOutput {
	b.t.Helper()
	var saved targetOutput
	c.Result(vibesell.ToolSaveTargetFilters, filters, &saved)
	var confirmed targetOutput
	c.Result(vibesell.ToolConfirmTarget, map[string]any{"filtersVersion": saved.Target.FiltersVersion}, &confirmed)
	return confirmed
}

// vpOrHeadInSoftwarePool is the directory's pool for vpOrHeadInSoftware
// before any import (its filters aside).
var vpOrHeadInSoftwarePool = leadCountOutput{Kind: "lead_count", Directory: "loaded", FiltersVersion: 1, Matched: 4, Available: 3,
	Subtractions: []subtractionData{{"suppressed", 0}, {"contacted_in_window", 0}, {"already_imported", 0}, {"invalid_or_role", 1}},
	Loosened:     []loosenedData{{"seniorities", "VP, Head", 5}, {"industries", "Software", 5}, {"places", "Germany, France", 5}}}

// poolsBesidesFilters compares lead pools, their filters aside; an import's
// times come from the database.
var poolsBesidesFilters = cmp.Options{cmpopts.IgnoreFields(leadCountOutput{}, "Filters"), cmpopts.IgnoreFields(importData{}, "StartedAt", "FinishedAt")}

func TestAudienceTools(t *testing.T) {
	t.Parallel()
	b := newAudienceBundle(t, audience.Config{}, 2)
	c := b.acme

	t.Run("get_workspace_context before anything", func(t *testing.T) {
		var ctx workspaceOutput
		md := c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctx)
		if d := cmp.Diff(&audienceSummaryData{}, ctx.Audience); d != "" {
			t.Errorf("audience mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "### Who to write to\nNo target yet (save_target, then save_target_filters).\n- Leads: 0\n")
	})

	t.Run("save_target", func(t *testing.T) {
		var out targetOutput
		md := c.Result(vibesell.ToolSaveTarget, map[string]any{"who": "Sales leaders at software companies", "problem": "Building lists by hand"}, &out)
		want := targetData{Who: new("Sales leaders at software companies"), Problem: new("Building lists by hand")}
		if d := cmp.Diff(want, out.Target); d != "" {
			t.Errorf("target mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "Saved the target.", "No filters yet. Next: turn the description into filters with save_target_filters.")
		msg := c.Refusal(vibesell.ToolSaveTarget, map[string]any{"who": "x", "problem": "y", "budget": 3})
		mustContain(t, msg, "budget")
	})

	t.Run("unknown values are refused with the closest known ones", func(t *testing.T) {
		// Industries are an open list, checked by the feature; regions are
		// a schema enum, which names every value (the test of the enums).
		msg := c.Refusal(vibesell.ToolSaveTargetFilters, map[string]any{"industries": []string{"Saas"}, "countries": []string{"Europa"}})
		mustContain(t, msg, "'Saas' is not an industry we know; did you mean 'Software'?", "'Europa' is not a country we know; did you mean 'Europe'?")
	})

	t.Run("pool and preview wait for a confirmation", func(t *testing.T) {
		var saved targetOutput
		md := c.Result(vibesell.ToolSaveTargetFilters, vpOrHeadInSoftware, &saved)
		mustContain(t, md, "not confirmed", "call confirm_target with filtersVersion 1")
		msg := c.Refusal(vibesell.ToolEstimateLeadPool, nil)
		mustContain(t, msg, "are not confirmed yet", `Call confirm_target with filtersVersion 1.`)
		c.Refusal(vibesell.ToolPreviewLeadSample, nil)
		c.Refusal(vibesell.ToolImportLeads, map[string]any{"count": 5})
	})

	t.Run("estimate_lead_pool", func(t *testing.T) {
		tg := b.confirm(c, vpOrHeadInSoftware)
		if !tg.Target.Confirmed || tg.Target.Filters == nil {
			t.Fatalf("confirmed %v, with filters %v; want confirmed filters", tg.Target.Confirmed, tg.Target.Filters != nil)
		}
		if got, want := tg.Target.Filters.Description, "VP or Head; in the Software industry; in Germany or France"; got != want {
			t.Fatalf("confirmed filters %q, want %q", got, want)
		}
		var out leadCountOutput
		md := c.Result(vibesell.ToolEstimateLeadPool, nil, &out)
		want := vpOrHeadInSoftwarePool
		want.Filters = *tg.Target.Filters
		if d := cmp.Diff(want, out); d != "" {
			t.Errorf("lead_count mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "Matching the target: 4 contacts", "Minus invalid or role addresses (info@, sales@…): 1", "**Available to import: 3**")
		if strings.Contains(md, "sample directory") {
			t.Errorf("a loaded directory is called the sample:\n%s", md)
		}
	})

	t.Run("preview_lead_sample", func(t *testing.T) {
		var out leadPreviewOutput
		c.Result(vibesell.ToolPreviewLeadSample, nil, &out)
		var again leadPreviewOutput
		c.Result(vibesell.ToolPreviewLeadSample, nil, &again)
		if len(out.Contacts) != 3 || out.Available != 3 {
			t.Fatalf("preview: %d contacts of %d available, want 3 of 3", len(out.Contacts), out.Available)
		}
		if d := cmp.Diff(out, again); d != "" {
			t.Errorf("the same filters gave other people (-first +second):\n%s", d)
		}
		for _, p := range out.Contacts {
			if !strings.Contains(p.MaskedEmail, "***@") {
				t.Errorf("unmasked address %q", p.MaskedEmail)
			}
		}
	})

	t.Run("import_leads within the plan is decided here", func(t *testing.T) {
		var ap approvalOutput
		md := c.Result(vibesell.ToolImportLeads, map[string]any{"count": 2}, &ap)
		if d := cmp.Diff(asked{Action: vibesell.ToolImportLeads, Status: "pending", DecideHere: true}, askedOf(ap.approvalData)); d != "" {
			t.Fatalf("approval mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "Nothing is imported yet", "Imports 2 contacts from the lead directory", "Skipped: 1 with an invalid or role address",
			"Imported: 2 of the 3 available (the number asked for)", "Plan: 2 of the 2 leads the Free plan allows this month (0 in use before it); 0 left after it")
		var decided approvalOutput
		c.Result(vibesell.ToolDecideApproval, map[string]any{"approval": ap.Approval, "decision": "approve"}, &decided)
		if decided.Status != "done" || decided.Outcome == nil || *decided.Outcome != "Imported 2 leads from the lead directory." {
			t.Errorf("decided: %s, %q; want done, 2 imported", decided.Status, textOf(decided.Outcome))
		}
		var pool leadCountOutput
		md = c.Result(vibesell.ToolEstimateLeadPool, nil, &pool)
		imported := importData{Approval: ap.Approval, Requested: 2, Imported: 2}
		want := vpOrHeadInSoftwarePool
		want.Available, want.LastImport = 1, &imported
		want.Subtractions = []subtractionData{{"suppressed", 0}, {"contacted_in_window", 0}, {"already_imported", 2}, {"invalid_or_role", 1}}
		if d := cmp.Diff(want, pool, poolsBesidesFilters); d != "" {
			t.Errorf("pool after the import mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "Last import ("+ap.Approval)

		var ctx workspaceOutput
		md = c.Result(vibesell.ToolGetWorkspaceContext, nil, &ctx)
		a := ctx.Audience
		if a == nil || a.Target == nil {
			t.Fatalf("audience in the context: %v, with a target %v", a != nil, a != nil && a.Target != nil)
		}
		if !a.Target.Confirmed {
			t.Errorf("the target in the context is not confirmed (filters version %d)", a.Target.FiltersVersion)
		}
		// The target is checked above and by the text below.
		if d := cmp.Diff(audienceSummaryData{Target: a.Target, Leads: 2, LastImport: &imported}, *a, poolsBesidesFilters); d != "" {
			t.Fatalf("audience in the context mismatch (-want +got):\n%s", d)
		}
		mustContain(t, md, "- Target: Sales leaders at software companies\n- Filters (version 1, confirmed Tue 1 Dec 2026, 09:00 UTC): VP or Head; in the Software industry; in Germany or France\n- Leads: 2\n- Last import: "+ap.Approval+" (finished")
	})

	t.Run("above the plan it is refused with the limit, the usage and the way up", func(t *testing.T) {
		res := c.Call(vibesell.ToolImportLeads, map[string]any{"count": 1})
		want := "The Free plan allows 2 leads this month; 2 in use, so 1 more would go over. The Starter plan allows 2,500 leads for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if d := cmp.Diff([]any{true, want, vibesell.EPAYMENTREQUIRED}, []any{res.IsError, toolkittest.TextOf(res), res.Meta.AdditionalFields["vibesell/refusal"]}); d != "" {
			t.Errorf("refusal mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("import_leads gives the upload link, and imports an upload", func(t *testing.T) {
		msg := c.Refusal(vibesell.ToolImportLeads, map[string]any{})
		mustContain(t, msg, "or upload (the id of a CSV file the person uploaded at https://vibesell.example.test/app/leads, a page only the person opens, signed in)")
		up, err := b.deps.Audience.StoreUpload(t.Context(), b.ws.Acme.ID, "mine.csv", []byte("email\nzoe@omega.test\nyan@omega.test\n"))
		if err != nil {
			t.Fatal(err)
		}
		msg = c.Refusal(vibesell.ToolImportLeads, map[string]any{"upload": up.ID})
		mustContain(t, msg, "is not checked yet", "https://vibesell.example.test/app/leads/uploads/"+up.ID)
		if _, err := b.deps.Audience.CheckUpload(t.Context(), b.ws.Acme.ID, up.ID, []string{"email"}); err != nil {
			t.Fatal(err)
		}
		// Checked, the upload is held to the plan as the target's contacts are.
		msg = c.Refusal(vibesell.ToolImportLeads, map[string]any{"upload": up.ID})
		mustContain(t, msg, "The Free plan allows 2 leads this month; 2 in use, so 2 more would go over.")
		b.globex.Refusal(vibesell.ToolImportLeads, map[string]any{"upload": up.ID})
	})

	t.Run("import_leads skips an upload's flagged rows unless keepFlagged", func(t *testing.T) {
		up, err := b.deps.Audience.StoreUpload(t.Context(), b.ws.Acme.ID, "roles.csv", []byte("email\ninfo@omega.test\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.deps.Audience.CheckUpload(t.Context(), b.ws.Acme.ID, up.ID, []string{"email"}); err != nil {
			t.Fatal(err)
		}
		msg := c.Refusal(vibesell.ToolImportLeads, map[string]any{"upload": up.ID})
		mustContain(t, msg, "1 flagged by the list check, as chosen: 1 with a role address (info@, sales@…)",
			"The flagged rows can be imported by choosing not to skip them.")
		// Kept, the row is importable, and held to the plan.
		msg = c.Refusal(vibesell.ToolImportLeads, map[string]any{"upload": up.ID, "keepFlagged": true})
		mustContain(t, msg, "The Free plan allows 2 leads this month; 2 in use, so 1 more would go over.")
	})

	t.Run("a change after confirmation needs a new one, and says so", func(t *testing.T) {
		var out targetOutput
		md := c.Result(vibesell.ToolSaveTargetFilters, map[string]any{"seniorities": []string{"VP"}, "industries": []string{"Software"}}, &out)
		if out.Target.Confirmed || !out.Target.ConfirmationWithdrawn || out.Target.FiltersVersion != 2 {
			t.Errorf("target: version %d, confirmed %v, confirmation withdrawn %v; want version 2, its confirmation withdrawn",
				out.Target.FiltersVersion, out.Target.Confirmed, out.Target.ConfirmationWithdrawn)
		}
		mustContain(t, md, "the confirmation is withdrawn", "confirms version 2")
		msg := c.Refusal(vibesell.ToolConfirmTarget, map[string]any{"filtersVersion": 1})
		mustContain(t, msg, "The filters changed after version 1", "confirm version 2")
		// A version from the future did not change since: it never was.
		res := c.Call(vibesell.ToolConfirmTarget, map[string]any{"filtersVersion": 3})
		if !res.IsError || res.Meta.AdditionalFields["vibesell/refusal"] != vibesell.ENOTFOUND {
			t.Errorf("confirming version 3: isError %v, meta %v; want a not_found refusal", res.IsError, res.Meta)
		}
		mustContain(t, toolkittest.TextOf(res), "The filters have no version 3: they are at version 2", "confirm version 2 if they agree")
		mustNotContain(t, toolkittest.TextOf(res), "changed after")
	})

	t.Run("suppress through the filters tool", func(t *testing.T) {
		filters := map[string]any{"seniorities": []string{"VP", "Head"}, "industries": []string{"Software"}, "suppress": []string{"gamma.test"}}
		var out targetOutput
		md := c.Result(vibesell.ToolSaveTargetFilters, filters, &out)
		mustContain(t, md, "Suppressed for good: 1 whole domain (gamma.test)")
		b.confirm(c, filters)
		var pool leadCountOutput
		c.Result(vibesell.ToolEstimateLeadPool, nil, &pool)
		if d := cmp.Diff(subtractionData{"suppressed", 1}, pool.Subtractions[0]); d != "" {
			t.Errorf("suppressed mismatch (-want +got):\n%s", d)
		}
		msg := c.Refusal(vibesell.ToolSaveTargetFilters, map[string]any{"industries": []string{"Software"}, "suppress": []string{"not a domain"}})
		mustContain(t, msg, "'not a domain' is neither an email address nor a domain")
	})

	t.Run("another workspace sees none of it", func(t *testing.T) {
		msg := b.globex.Refusal(vibesell.ToolEstimateLeadPool, nil)
		mustContain(t, msg, "There is no target to count yet")
		b.confirm(b.globex, vpOrHeadInSoftware)
		var pool leadCountOutput
		b.globex.Result(vibesell.ToolEstimateLeadPool, nil, &pool)
		if d := cmp.Diff(vpOrHeadInSoftwarePool, pool, poolsBesidesFilters); d != "" {
			t.Errorf("Globex's pool mismatch (-want +got):\n%s", d)
		}
	})
}

// An empty pool says which filter emptied it (the matches with each one
// left out, counted in one statement) and proposes no preview of nobody.
func TestEmptyPoolSaysWhatToLoosen(t *testing.T) {
	t.Parallel()
	b := newAudienceBundle(t, audience.Config{}, 2)
	b.confirm(b.acme, map[string]any{"seniorities": []string{"VP"}, "industries": []string{"Retail"}, "countries": []string{"France"}})
	var out leadCountOutput
	md := b.acme.Result(vibesell.ToolEstimateLeadPool, nil, &out)
	want := []loosenedData{{"seniorities", "VP", 0}, {"industries", "Retail", 1}, {"places", "France", 1}}
	if d := cmp.Diff(want, out.Loosened); d != "" || out.Matched != 0 {
		t.Errorf("loosened (-want +got):\n%s\nmatched %d", d, out.Matched)
	}
	mustContain(t, md, "Matching the target: 0 contacts", "- without the industries (Retail): 1 contact", "- without the seniorities (VP): 0 contacts",
		"No contact of the directory matches these filters. Next: ask the person which filter to widen")
	mustNotContain(t, md, vibesell.ToolPreviewLeadSample)
}

func TestImportLeadsConcurrentCallsGiveOneApproval(t *testing.T) {
	t.Parallel()
	b := newAudienceBundle(t, audience.Config{}, 250)
	b.confirm(b.acme, vpOrHeadInSoftware)
	ids := make([]string, 32)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			res, err := b.acme.MCP().CallTool(b.acme.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: vibesell.ToolImportLeads, Arguments: map[string]any{"count": 3}}})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			if res.IsError {
				t.Errorf("call %d refused: %s", i, toolkittest.TextOf(res))
				return
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var ap approvalOutput
			json.Unmarshal(raw, &ap)
			ids[i] = ap.Approval
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id == "" || id != ids[0] {
			t.Fatalf("32 identical calls gave more than one approval: %v", ids)
		}
	}
	var decided approvalOutput
	b.acme.Result(vibesell.ToolDecideApproval, map[string]any{"approval": ids[0], "decision": "approve"}, &decided)
	var pool leadCountOutput
	b.acme.Result(vibesell.ToolEstimateLeadPool, nil, &pool)
	if decided.Status != "done" {
		t.Errorf("the import of 3 ended %s: %s", decided.Status, textOf(decided.Outcome))
	}
	want := vpOrHeadInSoftwarePool
	want.Available = 0
	want.Subtractions = []subtractionData{{"suppressed", 0}, {"contacted_in_window", 0}, {"already_imported", 3}, {"invalid_or_role", 1}}
	if d := cmp.Diff(want, pool, poolsBesidesFilters, cmpopts.IgnoreFields(leadCountOutput{}, "LastImport")); d != "" {
		t.Errorf("pool after one import of 3 mismatch (-want +got):\n%s", d)
	}
}

func TestAudienceToolsOnTheSampleDirectory(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	if _, err := audience.LoadSampleDirectory(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ap := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler)})
	svc := audience.New(audience.Deps{DB: pool, Clock: clock, Approvals: ap})
	ap.Register(vibesell.ToolImportLeads, audience.ImportAction(svc))
	ws := workspacetest.Two(t, pool)
	c := toolkittest.Connect(t, NewServer(Deps{Approvals: ap, Audience: svc}, nil), workspacetest.Principal(ws.Acme))
	var saved targetOutput
	c.Result(vibesell.ToolSaveTargetFilters, map[string]any{"regions": []string{"Europe"}, "seniorities": []string{"VP"}}, &saved)
	c.Result(vibesell.ToolConfirmTarget, map[string]any{"filtersVersion": saved.Target.FiltersVersion}, nil)

	var count leadCountOutput
	md := c.Result(vibesell.ToolEstimateLeadPool, nil, &count)
	if count.Directory != "sample" || count.Matched == 0 {
		t.Errorf("lead_count: %d matched in the %q directory, want some in the sample", count.Matched, count.Directory)
	}
	mustContain(t, md, "**sample directory**")
	var preview leadPreviewOutput
	md = c.Result(vibesell.ToolPreviewLeadSample, nil, &preview)
	if preview.Directory != "sample" || len(preview.Contacts) != audience.PreviewSize {
		t.Errorf("lead_preview: %d contacts from the %q directory, want %d from the sample", len(preview.Contacts), preview.Directory, audience.PreviewSize)
	}
	mustContain(t, md, "**sample directory**")
	md = c.Result(vibesell.ToolImportLeads, map[string]any{"count": 10}, nil)
	mustContain(t, md, "from the sample directory", "made-up sample contacts on reserved domains")
}

// save_target_filters' closed vocabularies are schema enums a client can
// offer, each exactly the audience's own list (the values filters are
// checked against), so the two never drift apart.
func TestTargetFilterEnumsAreTheVocabulary(t *testing.T) {
	t.Parallel()
	b := newAudienceBundle(t, audience.Config{}, 2)
	var def struct {
		InputSchema struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Items       struct {
					Enum []string `json:"enum"`
				} `json:"items"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(b.acme.Tool(vibesell.ToolSaveTargetFilters), &def); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"seniorities": audience.Seniorities, "departments": audience.Departments,
		"companySizes": audience.CompanySizes, "regions": audience.RegionNames()} {
		p := def.InputSchema.Properties[name]
		got := slices.Sorted(slices.Values(p.Items.Enum))
		if d := cmp.Diff(slices.Sorted(slices.Values(want)), got); d != "" {
			t.Errorf("%s: the schema's enum is not the vocabulary (-vocabulary +enum):\n%s", name, d)
		}
		// The values are in the enum, not spelled out in prose beside it.
		if strings.Contains(p.Description, want[0]+",") || strings.Contains(p.Description, "any of:") {
			t.Errorf("%s lists its values in its description: %q", name, p.Description)
		}
	}
	msg := b.acme.Refusal(vibesell.ToolSaveTargetFilters, map[string]any{"regions": []string{"Europa"}})
	mustContain(t, msg, "regions", `"Europe"`)
}
