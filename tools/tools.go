package tools

import (
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/auth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/cards"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sending"
	"vibesell/toolkit"
	"vibesell/workspace"
)

// Deps are what the product's tools call into. cmd/server builds it once at
// start; each area's tools take the services they need from it.
type Deps struct {
	Workspaces *workspace.Service
	Sending    *sending.Service
	Approvals  *approvals.Service
	Audience   *audience.Service
	Campaigns  *campaigns.Service
	Billing    *billing.Service
	Cards      *cards.Service
	// Sessions tells whether an MCP session's host declared the MCP Apps
	// extension, recorded beside each decision. Nil: not recorded.
	Sessions *auth.Sessions
	// Replies reads the replies the engine kept (list_replies).
	Replies *replies.Replies
	// Answers proposes answers to replies (answer_reply) and counts the
	// replies waiting for one (get_workspace_context).
	Answers *replies.Answers
	// Connections lists the person's connected mailboxes in
	// get_sending_setup; nil: not available.
	Connections *mailboxes.Connections
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
// that is not here is not served. The tools' names and the kinds their
// results carry are a public contract: assistants, hosts and the card call
// and read them by name, so none is ever renamed and a new one is added to
// the contract on purpose. TestRegistryContract holds the list.
func Registry(d Deps) []toolkit.Tool {
	return []toolkit.Tool{
		// The workspace.
		getWorkspaceContext(d),
		remember(d),
		saveOffer(d),
		savePlaybook(d),
		contactSupport(d),
		// Sending: the source, domains, mailboxes and their warmup.
		chooseSendingSource(d),
		proposeDomains(d),
		proposeWarmedDomains(d),
		proposeEmail(d),
		checkDomains(d),
		listWarmedDomains(d),
		sizeSendingCapacity(d),
		confirmSizing(d),
		getSendingSetup(d),
		startWarmup(d),
		orderSendingSetup(d),
		// Approvals.
		decideApproval(d),
		listPendingApprovals(d),
		decideInCard(d), // the card's own, app-only
		// Audience: who to write to.
		saveTarget(d),
		saveTargetFilters(d),
		confirmTarget(d),
		estimateLeadPool(d),
		previewLeadSample(d),
		importLeads(d),
		getLead(d),
		// Campaigns.
		saveSequence(d),
		approveSequence(d),
		checkFirstEmail(d),
		stageCampaign(d),
		getCampaign(d),
		estimateCampaignPlan(d),
		launchCampaign(d),
		stopCampaign(d),
		resumeCampaign(d),
		listReplies(d),
		correctReply(d),
		answerReply(d),
		// Billing.
		getPlansAndBilling(d),
		startCheckout(d),
		openBillingPortal(d),
		upgradePlan(d),
	}
}
