package sending

import "vibesell"

// What a person reads for the sending setup's stored values, in the web
// app and in the card (whose copy is generated from these tables), keyed
// by the values as stored and sent in structuredContent. Each table lists
// the states in the order a domain or a mailbox goes through them.
var (
	DomainStateLabels = vibesell.Labels{
		{Value: "chosen", Text: "Picked, not ordered"},
		{Value: "preparing", Text: "Being prepared"},
		{Value: "ready", Text: "Ready"},
	}
	MailboxStateLabels = vibesell.Labels{
		{Value: "planned", Text: "Planned, not ordered"},
		{Value: "preparing", Text: "Being prepared"},
		{Value: "ready", Text: "Ready, warmup not started"},
		{Value: "warming", Text: "Warming up"},
		{Value: "warm", Text: "Warm"},
	}
	// SourceLabels say where the sending addresses come from, as the
	// person reads it once chosen (the question that chooses words its
	// choices its own way).
	SourceLabels = vibesell.Labels{
		{Value: SourceAlreadyWarmed, Text: "Already-warmed addresses"},
		{Value: SourceOwnNames, Text: "New addresses under your brand"},
		{Value: SourceOther, Text: "In your own words"},
	}
)
