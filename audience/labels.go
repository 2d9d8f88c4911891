package audience

import "vibesell"

// What a person reads for the audience's stored values, in the web app
// and the card (whose copy is generated from these tables), keyed by the
// values as stored and sent in structuredContent.
var (
	// LeadStatusLabels name a lead's statuses, in the order the list
	// offers them.
	LeadStatusLabels = vibesell.Labels{
		{Value: LeadNotEmailed, Text: "Not emailed yet"},
		{Value: LeadEmailed, Text: "Emailed"},
		{Value: LeadReplied, Text: "Replied"},
		{Value: LeadBlocked, Text: "Never written to again"},
		{Value: LeadRemoved, Text: "Removed"},
	}
	// StopLabels say why a campaign writes no more to a lead.
	StopLabels = vibesell.Labels{
		{Value: StopReplied, Text: "They replied"},
		{Value: StopColleagueReplied, Text: "A colleague at the same company replied"},
		{Value: StopUnsubscribed, Text: "They unsubscribed"},
		{Value: StopBounced, Text: "The address bounced"},
		{Value: StopSuppressed, Text: "The address is on the never-write-to list"},
		{Value: StopRemoved, Text: "Removed from the leads"},
		{Value: StopFailed, Text: "An email could not be sent after every try"},
		{Value: StopCompleted, Text: "Every email of the sequence went out"},
		{Value: StopCampaignEnded, Text: "The campaign finished"},
	}
	// SourceLabels say where a lead came from.
	SourceLabels = vibesell.Labels{
		{Value: SourceUpload, Text: "An uploaded file"},
		{Value: SourceDirectory, Text: "The lead directory"},
		{Value: SourceSample, Text: "Made-up contacts from the sample directory"},
	}
)
