package campaigns

import "vibesell"

// What a person reads for campaigns' stored values, in the card (whose
// copy is generated from these tables), keyed by the values as stored and
// sent in structuredContent.
var (
	// StatusLabels name a campaign's statuses in the order it goes
	// through them.
	StatusLabels = vibesell.Labels{
		{Value: Staged, Text: "Not launched yet"},
		{Value: Scheduled, Text: "Scheduled"},
		{Value: Sending, Text: "Sending"},
		{Value: Paused, Text: "Paused"},
		{Value: Finished, Text: "Finished"},
	}
	// CheckLabels name the first-email check's checks, in the order it
	// makes them.
	CheckLabels = vibesell.Labels{
		{Value: "merge_fields", Text: "Merge fields"},
		{Value: "spam_phrases", Text: "Spam-trigger phrases"},
		{Value: "links", Text: "Links"},
		{Value: "images", Text: "Images"},
		{Value: "length", Text: "Length"},
		{Value: "personalisation", Text: "Personalisation"},
		{Value: "subject", Text: "Subject line"},
		{Value: "unsubscribe_and_address", Text: "Unsubscribe line and postal address"},
		{Value: "mailbox", Text: "Sending mailbox"},
	}
	// StepLabels say what became of a step sent to a lead.
	StepLabels = vibesell.Labels{
		{Value: StepSending, Text: "Being sent"},
		{Value: StepDelivered, Text: "Delivered"},
		{Value: StepBounced, Text: "Bounced"},
		{Value: StepRetrying, Text: "Not sent yet, tried again"},
		{Value: StepFailed, Text: "Could not be sent"},
		{Value: StepUnknown, Text: "May not have arrived"},
	}
)
