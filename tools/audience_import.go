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
		Name: vibesell.ToolImportLeads,
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
