package sending

import "vibesell"

// The steps of the sending setup, each written once: what to do, for a
// person, and the tool that does it. Refusals and next steps take them
// from here, so a step reads the same wherever it is given.
var (
	stepChooseSource  = vibesell.Next{Do: "Choose where the emails go out from: already-warmed addresses (sooner) or new addresses under the brand.", Tool: vibesell.ToolChooseSendingSource}
	stepPickNew       = vibesell.Next{Do: "Pick lookalike domains of the brand, with their prices.", Tool: vibesell.ToolProposeDomains}
	stepPickWarmed    = vibesell.Next{Do: "Pick already-warmed domains from the shelf.", Tool: vibesell.ToolProposeWarmedDomains}
	stepAddresses     = vibesell.Next{Do: "Choose the senders' addresses, from their names.", Tool: vibesell.ToolProposeEmail}
	stepSize          = vibesell.Next{Do: "Work out how many addresses the sending needs, from the person's daily volume (or lead count and deadline).", Tool: vibesell.ToolSizeSendingCapacity}
	stepConfirmSizing = vibesell.Next{Do: "Confirm the sizing once the person agrees.", Tool: vibesell.ToolConfirmSizing}
	stepOrder         = vibesell.Next{Do: "Ask for approval of the order.", Tool: vibesell.ToolOrderSendingSetup}
	stepSeeSetup      = vibesell.Next{Do: "See where the sending setup stands.", Tool: vibesell.ToolGetSendingSetup}
	stepStartWarmup   = vibesell.Next{Do: "Start the warmup at once.", Tool: vibesell.ToolStartWarmup}
	stepSupport       = vibesell.Next{Do: "Pass on the person's words so someone can help with their arrangement.", Tool: vibesell.ToolContactSupport}
	stepFollowOrder   = vibesell.Next{Do: "Follow the order's approval.", Tool: vibesell.ToolListPendingApprovals}
	stepRejectOrder   = vibesell.Next{Do: "The person may also reject it here.", Tool: vibesell.ToolDecideApproval}
	stepCheckNames    = vibesell.Next{Do: "Check the names the person likes before adding them.", Tool: vibesell.ToolCheckDomains}
	stepSaveDomain    = vibesell.Next{Do: "Save the company's domain in the offer.", Tool: vibesell.ToolSaveOffer}

	stepsSizing = []vibesell.Next{stepSize, stepConfirmSizing}
)
