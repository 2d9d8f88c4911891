package sending

import "vibesell"

// What a person reads for the sending setup's stored values, in the web
// app and in the card (whose copy is generated from these tables), keyed
// by the values as stored and sent in structuredContent. Each table lists
// the states in the order a domain or a mailbox goes through them.
var (
	DomainStateLabels = vibesell.Labels{
		{Value: string(DomainChosen), Text: "Picked, not ordered"},
		{Value: string(DomainPreparing), Text: "Being prepared"},
		{Value: string(DomainReady), Text: "Ready"},
	}
	MailboxStateLabels = vibesell.Labels{
		{Value: string(MailboxPlanned), Text: "Planned, not ordered"},
		{Value: string(MailboxPreparing), Text: "Being prepared"},
		{Value: string(MailboxReady), Text: "Ready, warmup not started"},
		{Value: string(MailboxWarming), Text: "Warming up"},
		{Value: string(MailboxWarm), Text: "Warm"},
	}
	// SourceLabels say where the sending addresses come from, as the
	// person reads it once chosen (the question that chooses words its
	// choices its own way).
	SourceLabels = vibesell.Labels{
		{Value: string(SourceAlreadyWarmed), Text: "Already-warmed addresses"},
		{Value: string(SourceOwnNames), Text: "New addresses under your brand"},
		{Value: string(SourceOther), Text: "In your own words"},
	}
	// ShortcutLabels say a domain or mailbox was made ready (and warm)
	// by the sandbox shortcut: the card shows it from the generated copy.
	ShortcutLabels = vibesell.Labels{
		{Value: "sandbox_ready", Text: SandboxShortcutLabel},
	}
)
