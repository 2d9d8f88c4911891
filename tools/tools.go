package tools

import (
	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/sending"
	"vibesell/toolkit"
	"vibesell/workspace"
)

// Deps are what the product's tools call into. cmd/server builds it once at
// start; each area's tools take the services they need from it.
type Deps struct {
	Clock      vibesell.Clock
	Workspaces *workspace.Service
	Sending    *sending.Service
	Approvals  *approvals.Service
	Audience   *audience.Service
	Campaigns  *campaigns.Service
	Billing    *billing.Service
	// PublicURL is the address people reach the server at: links to the
	// web app start with it. Empty: results name the page without a link.
	PublicURL string
	// ContextCacheSize is how many workspaces' contexts get_workspace_context
	// keeps between calls (see workspace.ContextCache): 0 means the
	// default, below 0 none (every call reads everything; the benchmark
	// measures both).
	ContextCacheSize int
}

// Registry returns every tool of the product. It is the one list: a tool
// that is not here is not served. The names and kinds are a public contract
// (see shared/DESIGN.md), checked by TestRegistryContract.
func Registry(d Deps) []toolkit.Tool {
	var all []toolkit.Tool
	// One line per product area; each area's file lists its tools.
	all = append(all, workspaceTools(d)...)
	all = append(all, sendingTools(d)...)
	all = append(all, approvalTools(d)...)
	all = append(all, audienceTools(d)...)
	all = append(all, campaignTools(d)...)
	all = append(all, billingTools(d)...)
	return all
}
