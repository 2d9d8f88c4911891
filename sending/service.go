// Package sending is the sending setup of a workspace: where its emails go
// out from (already-warmed addresses, or new ones under its brand), the
// capacity it needs, the domains and mailboxes it picks and orders, their
// DNS records and their warmup.
//
// Decisions are the person's: the tools that settle one (the source, the
// domains, the addresses) ask through package cards and record the answer
// only once it is bound to the card that asked. Registries, the warmed
// shelf and the mailbox vendor sit behind the interfaces of provider.go.
package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/cards"
	"vibesell/store"
	"vibesell/workspace"
)

// OfferReader gives the workspace's offer; *workspace.Service is one.
type OfferReader interface {
	FindOffer(ctx context.Context, ws uuid.UUID) (*workspace.Offer, error)
}

// Providers replace the outside services a [Service] uses. A nil field
// means the default chosen by [Config].Provider.
type Providers struct {
	Availability Availability // default: Sandbox, or RDAP when Provider is "rdap"
	Shelf        Shelf        // default: Sandbox
	Provisioner  Provisioner  // default: Sandbox
	Resolver     Resolver     // default: NewResolver(cfg.DNSServer, cfg.DNSTimeout)
}

// Approvals is where the sending setup asks a person to approve an order,
// and asks whether an order is already waiting for them;
// *approvals.Service is one.
type Approvals interface {
	Open(ctx context.Context, r approvals.Request) (approvals.Approval, bool, error)
	List(ctx context.Context, ws uuid.UUID, o approvals.ListOptions) (approvals.Page, error)
}

// Deps are what a [Service] is built from.
type Deps struct {
	DB        *pgxpool.Pool
	Clock     vibesell.Clock // default: the system clock
	Config    Config         // normally [DefaultConfig] or [ConfigFromEnv]'s; zero numbers take the defaults
	Cards     *cards.Service
	Offers    OfferReader
	Approvals Approvals // nil: no order can be asked for, and none is looked for
	Providers Providers
	// Limit is the plan's limit on mailboxes; nil: orders are not held to
	// a plan (tests of other things).
	Limit MailboxLimit
	// DKIMRecord, when set, gives the DKIM record an ordered domain
	// publishes, in place of the provider's: the key the engine signs with.
	DKIMRecord DKIMRecordFunc
	// Contexts, when set, keeps the source each workspace records between
	// calls, for as long as its context stamp stands (sending_setups and
	// sending_sizings move it): an answer replayed reads nothing. nil:
	// every answer reads the record.
	Contexts *workspace.Service
}

// MailboxLimit is the plan's limit on the mailboxes a workspace has
// ordered; billing's (billing.Service.Limit(billing.Mailboxes)) is one,
// wired in cmd/server, and [OrderedMailboxes] is what it counts.
type MailboxLimit interface {
	// Check refuses (EPAYMENTREQUIRED, written for the assistant: the
	// limit, the usage and the way up) when the plan does not allow n more
	// mailboxes now.
	Check(ctx context.Context, ws uuid.UUID, n int) error
	// Use refuses the same way, written for a person, or lets n more
	// through, in tx: the transaction that records them as ordered. It
	// holds the workspace's plan locked until tx ends, so that two orders
	// cannot both take the last mailbox.
	Use(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error
}

// Service runs the sending setup.
type Service struct {
	db           *pgxpool.Pool
	clock        vibesell.Clock
	cfg          Config
	cards        *cards.Service
	offers       OfferReader
	approvals    Approvals
	availability Availability
	shelf        Shelf
	provisioner  Provisioner
	resolver     Resolver
	limit        MailboxLimit
	dkimRecord   DKIMRecordFunc

	contexts    *workspace.Service
	sourcesOnce sync.Once
	sources     *workspace.ContextCache[Rows]
}

// New returns a Service.
func New(d Deps) *Service {
	clock := d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	cfg := d.Config.withDefaults()
	o := d.Providers
	sandbox := NewSandbox(clock, cfg)
	if o.Availability == nil {
		if cfg.Provider == "rdap" {
			o.Availability = NewRDAP(cfg)
		} else {
			o.Availability = sandbox
		}
	}
	if o.Shelf == nil {
		o.Shelf = sandbox
	}
	if o.Provisioner == nil {
		o.Provisioner = sandbox
	}
	if o.Resolver == nil {
		o.Resolver = NewResolver(cfg.DNSServer, cfg.DNSTimeout)
	}
	return &Service{
		db: d.DB, clock: clock, cfg: cfg, cards: d.Cards, offers: d.Offers, approvals: d.Approvals,
		availability: o.Availability, shelf: o.Shelf, provisioner: o.Provisioner, resolver: o.Resolver, limit: d.Limit,
		dkimRecord: d.DKIMRecord, contexts: d.Contexts,
	}
}

// Sandbox reports whether the setup runs in the sandbox: mailboxes are
// created (and so everything is ordered) by the sandbox, and nothing is
// real or charged.
func (s *Service) Sandbox() bool { return s.provisioner.Name() == SandboxName }

// Config returns the configuration the service runs with.
func (s *Service) Config() Config { return s.cfg }

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Provider == "" {
		c.Provider = d.Provider
	}
	for _, p := range []struct{ v, def *int }{
		{&c.EmailsPerMailbox, &d.EmailsPerMailbox}, {&c.MailboxesPerDomain, &d.MailboxesPerDomain},
		{&c.PrepBusinessDays, &d.PrepBusinessDays}, {&c.WarmedPrepBusinessDays, &d.WarmedPrepBusinessDays},
		{&c.WarmupDays, &d.WarmupDays}, {&c.RampStart, &d.RampStart}, {&c.RampStep, &d.RampStep},
	} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	if c.Currency == "" {
		c.Currency = d.Currency
	}
	if c.DomainPrices == nil {
		c.DomainPrices = d.DomainPrices
	}
	if c.MailboxPrice <= 0 {
		c.MailboxPrice = d.MailboxPrice
	}
	if c.WarmedMailboxPrice <= 0 {
		c.WarmedMailboxPrice = d.WarmedMailboxPrice
	}
	if c.RDAPServers == nil {
		c.RDAPServers = d.RDAPServers
	}
	if c.RDAPTimeout <= 0 {
		c.RDAPTimeout = d.RDAPTimeout
	}
	if c.DNSTimeout <= 0 {
		c.DNSTimeout = d.DNSTimeout
	}
	return c
}

func (s *Service) money(minor int64) vibesell.Money { return vibesell.NewMoney(minor, s.cfg.Currency) }

// Outcome is what a tool that asks the person returns: the card to put to
// them while a question is open, or the result once every question is
// settled.
type Outcome[T any] struct {
	Card      *cards.Card     // the open question; nil once settled
	Arguments json.RawMessage // the call's canonical arguments
	Answers   []cards.Answer  // the answers that settled questions so far
	Result    *T              // set once settled
	Notes     []string        // sentences the assistant should pass on (names that cannot be had, ...)
	// Sandbox says the setup runs in the sandbox, on the card as on the
	// result: set here, once, so no adapter can say otherwise on one.
	Sandbox bool
}

func asked[T any](s *Service, f *cards.Flow, c *cards.Card, notes []string) Outcome[T] {
	return Outcome[T]{Card: c, Arguments: f.Arguments(), Answers: f.Answers(), Notes: notes, Sandbox: s.Sandbox()}
}

func settled[T any](s *Service, f *cards.Flow, r T, notes []string) Outcome[T] {
	return Outcome[T]{Arguments: f.Arguments(), Answers: f.Answers(), Result: &r, Notes: notes, Sandbox: s.Sandbox()}
}

// lockSetup makes sure the workspace has a setup row and locks it until tx
// ends: every change to a workspace's sending setup takes this lock first,
// so concurrent calls (on any replica) apply one after the other.
func lockSetup(ctx context.Context, tx pgx.Tx, ws uuid.UUID) error {
	if _, err := tx.Exec(ctx, `INSERT INTO sending_setups (workspace_id) VALUES ($1) ON CONFLICT DO NOTHING`, ws); err != nil {
		return fmt.Errorf("create sending setup: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM sending_setups WHERE workspace_id = $1 FOR UPDATE`, ws); err != nil {
		return fmt.Errorf("lock sending setup: %w", err)
	}
	return nil
}

// Domain is a sending domain of the workspace.
type Domain struct {
	Name           string
	Origin         Origin
	Status         DomainState // chosen or ordered, as stored; see [Domain.State]
	YearlyPrice    vibesell.Money
	MailboxPrice   vibesell.Money // per mailbox per month
	ShelfMailboxes int            // warmed: the mailboxes it comes with
	RegisteredOn   *time.Time
	Reputation     *int
	Card           string
	ChosenAt       time.Time
	Provider       string
	OrderedAt      *time.Time
	ReadyAt        *time.Time
	Records        []Record
	// SandboxReadyAt is when the sandbox shortcut made it ready at once;
	// nil when it was prepared the ordinary way.
	SandboxReadyAt *time.Time
}

// State is where the domain stands at now: chosen (picked, not ordered),
// preparing (ordered, not ready yet) or ready.
func (d Domain) State(now time.Time) DomainState {
	switch {
	case d.Status == DomainChosen:
		return DomainChosen
	case d.SandboxReadyAt != nil && !now.Before(*d.SandboxReadyAt):
		return DomainReady
	case d.ReadyAt != nil && now.Before(*d.ReadyAt):
		return DomainPreparing
	}
	return DomainReady
}

// MailboxOrder is a sending address of the workspace as its setup has it:
// planned, ordered from a provider, or warming, with its price.
type MailboxOrder struct {
	Address         string
	Domain          string
	SenderName      string
	Status          MailboxState // planned, ordered or warming, as stored; see [Mailbox.State]
	Prewarmed       bool
	MonthlyPrice    vibesell.Money
	Card            string
	Provider        string
	OrderedAt       *time.Time
	ReadyAt         *time.Time
	WarmupStartedAt *time.Time
	// SandboxReadyAt is when the sandbox shortcut made it ready and warm
	// at once; nil when it was prepared and warmed the ordinary way.
	SandboxReadyAt *time.Time
}

// State is where the mailbox stands at now: planned (chosen, not ordered),
// preparing, ready (prepared, warmup not started), warming, or warm (ready
// to send at full volume).
func (m MailboxOrder) State(now time.Time, cfg Config) MailboxState {
	switch {
	case m.Status == MailboxPlanned:
		return MailboxPlanned
	case m.SandboxReadyAt != nil && !now.Before(*m.SandboxReadyAt):
		return MailboxWarm
	case m.ReadyAt != nil && now.Before(*m.ReadyAt):
		return MailboxPreparing
	case m.Prewarmed:
		return MailboxWarm
	case m.Status == MailboxOrdered:
		return MailboxReady
	case now.Before(m.warmupEnds(cfg)):
		return MailboxWarming
	}
	return MailboxWarm
}

// warmupEnds is when the mailbox's warmup completes (zero when not started).
func (m MailboxOrder) warmupEnds(cfg Config) time.Time {
	if m.WarmupStartedAt == nil {
		return time.Time{}
	}
	return day(*m.WarmupStartedAt).AddDate(0, 0, cfg.WarmupDays)
}

// domainsSQL lists the domains of workspace $1 with their DNS records, as
// collectDomains reads them.
const domainsSQL = `
	SELECT domain, origin, status, currency, yearly_cents, mailbox_cents, coalesce(shelf_mailboxes, 0),
	       registered_on, reputation, card, chosen_at, coalesce(provider, ''), ordered_at, ready_at, sandbox_ready_at,
	       coalesce((SELECT jsonb_agg(jsonb_build_object('Type', r.type, 'Host', r.host, 'Value', r.value)
	                 ORDER BY array_position(ARRAY['MX','SPF','DKIM','DMARC'], r.type))
	                 FROM sending_dns_records r WHERE r.workspace_id = d.workspace_id AND r.domain = d.domain), '[]')
	FROM sending_domains d WHERE workspace_id = $1
	ORDER BY status DESC, chosen_at, position, domain`

func (s *Service) domains(ctx context.Context, db store.DBTX, ws uuid.UUID) ([]Domain, error) {
	return collectDomains(db.Query(ctx, domainsSQL, ws))
}

// collectDomains reads the rows of domainsSQL, or the error of the query
// that gave them.
func collectDomains(rows pgx.Rows, err error) ([]Domain, error) {
	if err != nil {
		return nil, fmt.Errorf("read sending domains: %w", err)
	}
	domains, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Domain, error) {
		var d Domain
		var currency string
		err := r.Scan(&d.Name, &d.Origin, &d.Status, &currency, &d.YearlyPrice.Minor, &d.MailboxPrice.Minor, &d.ShelfMailboxes,
			&d.RegisteredOn, &d.Reputation, &d.Card, &d.ChosenAt, &d.Provider, &d.OrderedAt, &d.ReadyAt, &d.SandboxReadyAt, &d.Records)
		d.YearlyPrice.Currency, d.MailboxPrice.Currency = currency, currency
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read sending domains: %w", err)
	}
	return domains, nil
}

// mailboxesSQL lists the mailboxes of workspace $1, in the order of their
// domains, as collectMailboxes reads them.
const mailboxesSQL = `
	SELECT m.address, m.domain, coalesce(m.sender_name, ''), m.status, m.prewarmed, m.currency, m.monthly_cents,
	       m.card, coalesce(m.provider, ''), m.ordered_at, m.ready_at, m.warmup_started_at, m.sandbox_ready_at
	FROM sending_mailboxes m JOIN sending_domains d USING (workspace_id, domain)
	WHERE m.workspace_id = $1
	ORDER BY d.status DESC, d.chosen_at, d.position, m.domain, m.planned_at, m.position, m.address`

func (s *Service) mailboxes(ctx context.Context, db store.DBTX, ws uuid.UUID) ([]MailboxOrder, error) {
	return collectMailboxes(db.Query(ctx, mailboxesSQL, ws))
}

// collectMailboxes reads the rows of mailboxesSQL, or the error of the
// query that gave them.
func collectMailboxes(rows pgx.Rows, err error) ([]MailboxOrder, error) {
	if err != nil {
		return nil, fmt.Errorf("read sending mailboxes: %w", err)
	}
	mailboxes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MailboxOrder, error) {
		var m MailboxOrder
		err := r.Scan(&m.Address, &m.Domain, &m.SenderName, &m.Status, &m.Prewarmed, &m.MonthlyPrice.Currency, &m.MonthlyPrice.Minor,
			&m.Card, &m.Provider, &m.OrderedAt, &m.ReadyAt, &m.WarmupStartedAt, &m.SandboxReadyAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("read sending mailboxes: %w", err)
	}
	return mailboxes, nil
}

// Source is the source the workspace chose, as recorded.
type Source struct {
	Source   SourceKind
	Text     string // the person's words, for other
	Card     string
	ChosenAt time.Time
}

// sourceSQL reads the source workspace $1 chose, as scanSource scans it.
const sourceSQL = `SELECT ` + sourceColumns + ` FROM sending_setups WHERE workspace_id = $1`

// sourceColumns are the columns of sending_setups that scanSource scans.
const sourceColumns = `source, source_text, source_card, source_chosen_at`

func (s *Service) source(ctx context.Context, db store.DBTX, ws uuid.UUID) (*Source, error) {
	return scanSource(db.QueryRow(ctx, sourceSQL, ws))
}

// scanSource reads the row of sourceSQL, and into more the columns that
// follow: nil when no source is chosen.
func scanSource(row pgx.Row, more ...any) (*Source, error) {
	var src Source
	var source, text, card *string
	var at *time.Time
	err := row.Scan(append([]any{&source, &text, &card, &at}, more...)...)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && source == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sending source: %w", err)
	}
	src.Source, src.ChosenAt = SourceKind(*source), *at
	if text != nil {
		src.Text = *text
	}
	if card != nil {
		src.Card = *card
	}
	return &src, nil
}
