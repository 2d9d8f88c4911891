package sending

// The words of the sending setup, typed as approvals types its Status, so a
// misspelt state does not compile and every state has one spelling.

// SourceKind is where a workspace's emails go out from.
type SourceKind string

// The sources a workspace can send from.
const (
	SourceAlreadyWarmed SourceKind = "already_warmed"
	SourceOwnNames      SourceKind = "own_names"
	SourceOther         SourceKind = "other" // the person answered in their own words
)

// Origin is where a domain comes from.
type Origin string

// The origins of a domain.
const (
	OriginNew    Origin = "new"    // registered for the workspace
	OriginWarmed Origin = "warmed" // taken off the warmed shelf
)

// DomainState is where a domain stands. A domain is stored chosen or
// ordered; [Domain.State] works out preparing or ready from the clock.
type DomainState string

// The states of a domain.
const (
	DomainChosen    DomainState = "chosen"    // picked, not ordered
	DomainOrdered   DomainState = "ordered"   // stored only: preparing or ready
	DomainPreparing DomainState = "preparing" // ordered, not ready yet
	DomainReady     DomainState = "ready"
)

// MailboxState is where a mailbox stands. A mailbox is stored planned,
// ordered or warming; [MailboxOrder.State] works out the rest from the clock.
type MailboxState string

// The states of a mailbox.
const (
	MailboxPlanned   MailboxState = "planned"   // chosen, not ordered
	MailboxOrdered   MailboxState = "ordered"   // stored only: preparing, ready or (prewarmed) warm
	MailboxPreparing MailboxState = "preparing" // ordered, not ready yet
	MailboxReady     MailboxState = "ready"     // prepared, warmup not started
	MailboxWarming   MailboxState = "warming"
	MailboxWarm      MailboxState = "warm" // can send at full volume
)

// Decision is what a settled domain question decided.
type Decision string

// The decisions about domains.
const (
	DecisionSource        Decision = "source"         // the source: kept, when asked to switch
	DecisionDomains       Decision = "domains"        // new domains under the brand
	DecisionWarmedDomains Decision = "warmed_domains" // domains off the warmed shelf
)
