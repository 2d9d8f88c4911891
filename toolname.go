package vibesell

// The 41 tool names: a public contract, never renamed (an assistant and
// the connectors people set up call them by name; the snapshots in
// tools/testdata/toolsnaps/ fail on any change, see README.md). They are
// declared once, here, because a feature names the tool that takes a
// next step in a [Next] (never in a sentence: the toolkit writes the call
// for the assistant, the web app a link for a person), and the catalog
// (tools/) defines each tool under the same constant.
const (
	ToolGetWorkspaceContext = "get_workspace_context"
	ToolRemember            = "remember"
	ToolSaveOffer           = "save_offer"
	ToolSavePlaybook        = "save_playbook"
	ToolContactSupport      = "contact_support"

	ToolChooseSendingSource  = "choose_sending_source"
	ToolProposeDomains       = "propose_domains"
	ToolProposeWarmedDomains = "propose_warmed_domains"
	ToolProposeEmail         = "propose_email"
	ToolCheckDomains         = "check_domains"
	ToolListWarmedDomains    = "list_warmed_domains"
	ToolSizeSendingCapacity  = "size_sending_capacity"
	ToolConfirmSizing        = "confirm_sizing"
	ToolGetSendingSetup      = "get_sending_setup"
	ToolStartWarmup          = "start_warmup"
	ToolOrderSendingSetup    = "order_sending_setup"

	ToolDecideApproval       = "decide_approval"
	ToolListPendingApprovals = "list_pending_approvals"
	// ToolDecideInCard is not one of the 41: it is the card's own tool
	// (MCP Apps visibility ["app"]), hidden from the model, which decides
	// an approval or answers a question only with the card's one-time
	// token, so that the decision is recorded as clicked.
	ToolDecideInCard = "decide_in_card"

	ToolSaveTarget        = "save_target"
	ToolSaveTargetFilters = "save_target_filters"
	ToolConfirmTarget     = "confirm_target"
	ToolEstimateLeadPool  = "estimate_lead_pool"
	ToolPreviewLeadSample = "preview_lead_sample"
	ToolImportLeads       = "import_leads"
	ToolGetLead           = "get_lead"

	ToolSaveSequence         = "save_sequence"
	ToolApproveSequence      = "approve_sequence"
	ToolCheckFirstEmail      = "check_first_email"
	ToolStageCampaign        = "stage_campaign"
	ToolGetCampaign          = "get_campaign"
	ToolEstimateCampaignPlan = "estimate_campaign_plan"
	ToolLaunchCampaign       = "launch_campaign"
	ToolStopCampaign         = "stop_campaign"
	ToolResumeCampaign       = "resume_campaign"
	ToolListReplies          = "list_replies"
	ToolCorrectReply         = "correct_reply"
	ToolAnswerReply          = "answer_reply"

	ToolGetPlansAndBilling = "get_plans_and_billing"
	ToolStartCheckout      = "start_checkout"
	ToolOpenBillingPortal  = "open_billing_portal"
	ToolUpgradePlan        = "upgrade_plan"
)

// The bounds of every tool result, whatever the workspace holds: hosts cut
// or drop results larger than this. A list a tool returns is therefore
// paged or summarised, never whole; the toolkit refuses to send a result
// over either bound (an internal failure under a ref, so a list that grows
// without bound fails loudly in tests), and toolkittest checks every
// result it sees against them.
const (
	// MaxResultText is the most characters (Unicode code points) of a
	// result's text.
	MaxResultText = 25_000
	// MaxResultStructured is the most bytes of a result's
	// structuredContent, encoded as JSON.
	MaxResultStructured = 100_000
)
