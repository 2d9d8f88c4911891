package tools

import (
	"context"

	"vibesell"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/toolkit"
)

// import_leads

type importLeadsInput struct {
	Count       int    `json:"count,omitempty" jsonschema:"the most leads to import, as the person said; fewer are imported when fewer are available. Required for the target's contacts; with upload, leave it out to import every row" example:"500" minimum:"1" maximum:"100000"`
	Upload      string `json:"upload,omitempty" jsonschema:"the id of a CSV file the person uploaded and checked in the web app, to import its rows instead of the target's contacts" example:"up_3f9c2a7b1d4e6f80" pattern:"^up_[0-9a-f]{16}$"`
	KeepFlagged bool   `json:"keepFlagged,omitempty" jsonschema:"with upload: true imports the rows the file's check flagged too (a domain without mail servers, a disposable-address domain, a role address such as info@); by default they are skipped. Set it only when the person asked to keep them" example:"false"`
}

func importLeads(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[importLeadsInput, approvalOutput]{
		Name:        vibesell.ToolImportLeads,
		Title:       "Import leads",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Asks for approval to import up to count contacts of the confirmed target from the lead
			directory into the workspace's leads, or the rows of a CSV file the person uploaded in
			the web app (upload). Called with neither, it refuses and gives the link where the
			person uploads a file (the page maps the columns, shows the first rows and lists invalid
			rows by line number, then gives the upload id). It imports nothing itself: it returns an
			approval card (kind approval, status pending) whose impact says how many will be
			imported, how many are skipped and why (already in the workspace, suppressed, contacted
			within the window, invalid or role addresses), and what that uses of the leads the plan
			allows this month. The person may decide in the card or by telling you (decide_approval,
			decideHere true). Above the plan's leads for the month it refuses with the limit, the
			usage and the plan that allows more (start_checkout, or upgrade_plan when subscribed).
			Once approved it runs once, in the background, in batches; estimate_lead_pool shows its
			progress; if another import used the plan's leads meanwhile, it stops at the limit and
			says so. Importing contacts no one and costs nothing. Calling it again with the same
			count while its approval is pending returns the same approval. It refuses until the
			filters are confirmed (confirm_target), or when no contact is available. Not for
			counting (estimate_lead_pool) or previewing (preview_lead_sample).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in importLeadsInput) (toolkit.Result[approvalOutput], error) {
			a, created, err := d.Audience.RequestImport(ctx, p.WorkspaceID, audience.ImportRequest{
				Count: in.Count, Upload: in.Upload, KeepFlagged: in.KeepFlagged, RequestedBy: personOf(p)})
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			return requestedApproval(ctx, a, created, requestLeads{
				asked:   "Nothing is imported yet: this asks for the person's approval.",
				running: "This import is already approved and running; here is its approval.",
				waiting: "This import is already waiting for a decision; here is the same approval. Nothing is imported yet.",
			})
		},
	})
}
