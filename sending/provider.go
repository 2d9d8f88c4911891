package sending

import (
	"context"
	"time"
)

// The sending setup reaches outside VibeSell in three places, each behind
// an interface: whether a domain name can be registered ([Availability]),
// which already-warmed domains are on offer ([Shelf]), and registering
// domains and creating mailboxes ([Provisioner]). DNS checks go through a
// [Resolver]. [Sandbox] implements the first three without touching
// anything real; [RDAP] checks availability with the registries.

// NameCheck is what a registry says about one domain name.
type NameCheck struct {
	Domain string
	// Available is nil when the check could not complete (the registry did
	// not answer, or no registry is known for the name): unknown, which is
	// never "no".
	Available *bool
	// Reason says why the name cannot be had, or why it is unknown; "" when
	// it is available.
	Reason string
}

// Availability tells whether domain names can be registered.
type Availability interface {
	// Name is what the person is told the answer came from: "rdap" or
	// "sandbox".
	Name() string
	// Check answers for every name, in order. It does not fail as a whole:
	// a name it could not check comes back unknown.
	Check(ctx context.Context, names []string) []NameCheck
}

// WarmedDomain is a domain on the warmed shelf: registered a while ago, with
// mailboxes that have been warming up since.
type WarmedDomain struct {
	Domain       string
	RegisteredOn time.Time
	Mailboxes    int
	Reputation   *int // 0 to 100; nil when not measured
}

// Shelf lists the already-warmed domains on offer.
type Shelf interface {
	Name() string
	// List returns what is on the shelf now, including domains already
	// sold; the service leaves out those ordered by a workspace.
	List(ctx context.Context) ([]WarmedDomain, error)
}

// DomainOrder is one domain to prepare and the addresses to create on it.
type DomainOrder struct {
	Domain    string
	Warmed    bool // taken off the warmed shelf rather than registered
	Addresses []string
}

// DomainReceipt is what the provider promises for one ordered domain.
type DomainReceipt struct {
	Domain  string
	ReadyAt time.Time // when the domain and its mailboxes are ready
	Records []Record  // the DNS records it must publish
}

// Provisioner registers domains, creates mailboxes and runs their warmup.
type Provisioner interface {
	Name() string
	// Order prepares the domains and their mailboxes, all or nothing. A
	// non-empty key makes it idempotent: the same key again returns the
	// receipts of the first order instead of ordering twice.
	Order(ctx context.Context, key string, orders []DomainOrder) ([]DomainReceipt, error)
	// StartWarmup starts warming the mailboxes up.
	StartWarmup(ctx context.Context, addresses []string) error
}

// Record is a DNS record a sending domain publishes.
type Record struct {
	Type  string // MX, SPF, DKIM or DMARC
	Host  string // the name it is published at
	Value string // for MX, the mail server's host name
}
