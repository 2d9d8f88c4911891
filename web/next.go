package web

import (
	"vibesell"
	"vibesell/approvals"
	"vibesell/billing"
)

// The person's half of a refusal's steps: each step's sentence, as a link
// to the page of the web app that does it. The tool that does it in the
// conversation is never shown here; it only picks the page.

// nextLink is one step as a page shows it: the sentence, and the page
// that does it ("" when no page of the web app does: the sentence alone).
type nextLink struct {
	Do   string
	Href string
}

// nextLinks writes the steps of the refusal in err's chain for a person.
func (s *server) nextLinks(err error) []nextLink {
	var out []nextLink
	for _, n := range vibesell.ErrorNext(err) {
		if n.Do == "" {
			continue // a step only the assistant takes
		}
		out = append(out, nextLink{Do: n.Do, Href: s.pageFor(n)})
	}
	return out
}

// pageFor is the page of the web app that does what step n's tool does in
// the conversation, or "".
func (s *server) pageFor(n vibesell.Next) string {
	switch n.Tool {
	case vibesell.ToolUpgradePlan, vibesell.ToolStartCheckout, vibesell.ToolOpenBillingPortal, vibesell.ToolGetPlansAndBilling:
		return billing.BillingPath
	case vibesell.ToolListPendingApprovals, vibesell.ToolDecideApproval:
		if id, ok := n.Args["approval"].(string); ok {
			return approvals.AppPath(id)
		}
		return "/app/approvals"
	case vibesell.ToolImportLeads:
		return LeadsPath
	case vibesell.ToolContactSupport:
		if s.Workspaces != nil {
			return "/app/support"
		}
	case vibesell.ToolGetSendingSetup:
		if s.Sending != nil {
			return "/app/sending"
		}
	case vibesell.ToolGetCampaign:
		if s.Workspaces != nil && s.Campaigns != nil {
			return "/app/campaigns"
		}
	}
	return ""
}
