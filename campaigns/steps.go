package campaigns

import "vibesell"

// The steps of a campaign, each written once: what to do, for a person,
// and the tool that does it. Refusals, launch blockers, the first-email
// check and the context's next step take them from here, given the ids of
// the case with With.
var (
	stepWrite        = vibesell.Next{Do: "Write the emails as a new version of the sequence (merge fields such as {{first_name|there}}), and show them to the person.", Tool: vibesell.ToolSaveSequence}
	stepApprove      = vibesell.Next{Do: "Show the person the version's steps, and approve it once they agree.", Tool: vibesell.ToolApproveSequence}
	stepStage        = vibesell.Next{Do: "Stage the campaign: the sequence's latest approved version, the imported leads and the ready mailboxes, on a schedule.", Tool: vibesell.ToolStageCampaign}
	stepLaunch       = vibesell.Next{Do: "Ask for the person's approval to launch it; the answer lists anything still in the way.", Tool: vibesell.ToolLaunchCampaign}
	stepResume       = vibesell.Next{Do: "If the person wants it to carry on, ask to resume it, which only they can approve, in the web app.", Tool: vibesell.ToolResumeCampaign}
	stepSeeCampaign  = vibesell.Next{Do: "See where the campaign stands (sent, replies, bounces, what is in the way).", Tool: vibesell.ToolGetCampaign}
	stepImportLeads  = vibesell.Next{Do: "Import leads.", Tool: vibesell.ToolImportLeads}
	stepSeeMailboxes = vibesell.Next{Do: "See the workspace's mailboxes and when each can send.", Tool: vibesell.ToolGetSendingSetup}
	stepSetUpSending = vibesell.Next{Do: "Set up sending first: choose where the emails go out from.", Tool: vibesell.ToolChooseSendingSource}
	stepCheckFirst   = vibesell.Next{Do: "See the first-email check and what fixes each finding.", Tool: vibesell.ToolCheckFirstEmail}
	stepReport       = vibesell.Next{Do: "Report it.", Tool: vibesell.ToolContactSupport}
)
