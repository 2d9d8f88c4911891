package approvals

import "vibesell"

// What a person reads for an approval's stored values, in the web app and
// in the card (whose copy is generated from these tables). Via labels are
// noun phrases, so they read both on their own ("Where: the web app") and
// in a sentence ("approved by ada@acme.com in the web app").
var (
	StatusLabels = vibesell.Labels{
		{Value: string(Pending), Text: "Waiting for a decision"},
		{Value: string(Approved), Text: "Approved, being carried out"},
		{Value: string(Done), Text: "Done"},
		{Value: string(NotDone), Text: "Not done"},
		{Value: string(Rejected), Text: "Rejected"},
	}
	ViaLabels = vibesell.Labels{
		{Value: ViaCard, Text: "the card in the conversation, by a click"},
		{Value: ViaConversation, Text: "the conversation, relayed by the assistant"},
		{Value: ViaWeb, Text: "the web app"},
		{Value: ViaSystem, Text: "automatically"},
	}
	// ActionLabels name the actions approvals are asked for, by the tool
	// that asks.
	ActionLabels = vibesell.Labels{
		{Value: vibesell.ToolOrderSendingSetup, Text: "Order the sending setup"},
		{Value: vibesell.ToolImportLeads, Text: "Import leads"},
		{Value: vibesell.ToolLaunchCampaign, Text: "Launch a campaign"},
		{Value: vibesell.ToolStopCampaign, Text: "Stop a campaign"},
		{Value: vibesell.ToolResumeCampaign, Text: "Resume a campaign"},
		{Value: vibesell.ToolAnswerReply, Text: "Answer a reply"},
		{Value: vibesell.ToolUpgradePlan, Text: "Change the plan"},
	}
	// HostAppsLabels say, beside a decision made through the
	// conversation, whether the app the person used said it can show
	// cards (it declared the MCP Apps extension when it connected).
	HostAppsLabels = vibesell.Labels{
		{Value: "true", Text: "the app said it shows cards"},
		{Value: "false", Text: "the app did not say it shows cards"},
	}
	// EventLabels are the lines of an approval's history.
	EventLabels = vibesell.Labels{
		{Value: "opened", Text: "Asked for a decision"},
		{Value: "approved", Text: "Approved"},
		{Value: "rejected", Text: "Rejected"},
		{Value: "approve_refused", Text: "Approval refused here (the reason says where it can be approved)"},
		{Value: "executing", Text: "Started carrying it out"},
		{Value: "done", Text: "Done"},
		{Value: "not_done", Text: "Ended without being done"},
		{Value: "expired", Text: "Expired"},
		{Value: "superseded", Text: "Replaced by a newer approval"},
		{Value: "vote", Text: "Approval counted; more are needed"},
		{Value: "reminded", Text: "Reminded the people it waits for"},
		{Value: "escalated", Text: "Asked the fallback approver"},
	}
)

// HostAppsNote is what a person reads beside a decision's place: for a
// decision in the card or relayed by the assistant, whether the app it
// came through said it shows cards; "" for the web app or when not known.
func HostAppsNote(via string, hostApps *bool) string {
	if hostApps == nil || (via != ViaCard && via != ViaConversation) {
		return ""
	}
	if *hostApps {
		return HostAppsLabels.Of("true")
	}
	return HostAppsLabels.Of("false")
}

// Label is how a person reads the status.
func (s Status) Label() string { return StatusLabels.Of(string(s)) }
