// Package campaigns is what to say and when: sequences of emails with
// merge fields, the check of the first email, campaigns (leads, one
// approved sequence version, mailboxes and a schedule), their estimate,
// and the launch, stop and resume that wait for a person's approval. The
// sending engine sends what a launched campaign schedules; it checks the
// campaign's status in the transaction of each send ([SendAllowed]).
package campaigns

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
	"vibesell/workspace"
)

// Leads reads the workspace's imported leads (the audience feature).
type Leads interface {
	// ImportedLeads returns every imported lead that may be written to
	// (not suppressed), oldest first.
	ImportedLeads(ctx context.Context, ws uuid.UUID) ([]vibesell.Lead, error)
	// ImportedLead returns the one with that address; ENOTFOUND otherwise.
	ImportedLead(ctx context.Context, ws uuid.UUID, email string) (vibesell.Lead, error)
}

// Mailbox is a sending address of the workspace, as the sending feature
// sees it now.
type Mailbox struct {
	Address    string
	SenderName string // "" when it has none of its own
	// State is planned, preparing, ready (warmup not started), warming or
	// warm; only a warm mailbox may send a campaign.
	State string
	// DailyLimit is the most emails it may send a day at its warmup stage
	// now: full volume when warm, the day's warmup volume while warming,
	// 0 before.
	DailyLimit int
	// FullVolume is the most it may send a day once warm.
	FullVolume int
}

// Mailboxes reads the workspace's sending addresses (the sending feature).
type Mailboxes interface {
	Mailboxes(ctx context.Context, ws uuid.UUID) ([]Mailbox, error)
}

// JoinMailboxes offers every source's mailboxes, in the order given: the
// mailboxes ordered through the sending setup, then those people
// connected of their own.
func JoinMailboxes(sources ...Mailboxes) Mailboxes { return joined(sources) }

type joined []Mailboxes

func (j joined) Mailboxes(ctx context.Context, ws uuid.UUID) ([]Mailbox, error) {
	var out []Mailbox
	for _, src := range j {
		list, err := src.Mailboxes(ctx, ws)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// Senders reads and writes who the workspace's emails come from (the
// workspace feature).
type Senders interface {
	Sender(ctx context.Context, ws uuid.UUID) (workspace.Sender, error)
}

// CampaignLimit is the plan's limit on campaigns running at once
// (scheduled or sending; [Running] counts them); billing's
// (billing.Service.Limit(billing.ActiveCampaigns)) is one, wired in
// cmd/server as [Deps].Limit.
type CampaignLimit interface {
	// Check refuses (EPAYMENTREQUIRED, written for the assistant: the
	// limit, the usage and the way up) when the plan does not allow n more
	// running campaigns now.
	Check(ctx context.Context, ws uuid.UUID, n int) error
	// Use refuses the same way, written for a person, or lets n more
	// through, in tx: the transaction that sets them running, before it
	// does. It holds the workspace's plan locked until tx ends, so two
	// launches cannot both take the last running campaign.
	Use(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error
}

// Running counts the campaigns of workspace ws that are running
// (scheduled or sending), on db: the meter of the plan's limit, read in
// the transaction that launches or resumes one.
func Running(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM campaigns WHERE workspace_id = $1 AND status IN ('scheduled', 'sending')`, ws).Scan(&n); err != nil {
		return 0, fmt.Errorf("count running campaigns of workspace %s: %w", ws, err)
	}
	return n, nil
}

// Config is what an installation decides about campaigns.
type Config struct {
	// ReplyRateLow and ReplyRateHigh (percent) bound the replies an
	// estimate expects; defaults 1 and 3, the usual range of cold email.
	ReplyRateLow, ReplyRateHigh float64
	// MaxDailyEmails is the most emails a workspace may schedule a day
	// across its campaigns: the installation's limit, whatever the plan
	// (plans limit emails a month, which billing counts). Default 1,000.
	MaxDailyEmails int
	// Currency is the currency an approval's cost (none) is shown in.
	// Default USD.
	Currency string
}

// Service is the campaigns feature.
type Service struct {
	// counter counts what the sending engine recorded; nil: no engine.
	counter Counter
	// composer composes emails as the sending engine does (package mail).
	composer  Composer
	db        *pgxpool.Pool
	clock     vibesell.Clock
	cfg       Config
	leads     Leads
	mailboxes Mailboxes
	senders   Senders
	approvals *approvals.Service
	limit     CampaignLimit // nil: not held to a plan
}

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Clock tells the time of launches and sends. Default: the system
	// clock.
	Clock     vibesell.Clock
	Config    Config
	Leads     Leads
	Mailboxes Mailboxes
	Senders   Senders
	// Approvals opens the approvals of launch, stop and resume; it must
	// have [LaunchAction], [StopAction] and [ResumeAction] registered
	// under their tool names.
	Approvals *approvals.Service
	// Limit holds launches and resumes to the plan. Nil (tests of other
	// things): they are not limited.
	Limit CampaignLimit
	// Counter makes metrics come from what the sending engine recorded.
	// Nil: a server without the engine.
	Counter Counter
	// Composer composes previews as the sending engine composes emails.
	Composer Composer
}

// New returns the campaigns service.
func New(d Deps) *Service {
	cfg, clock := d.Config, d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	if cfg.ReplyRateLow <= 0 || cfg.ReplyRateHigh < cfg.ReplyRateLow {
		cfg.ReplyRateLow, cfg.ReplyRateHigh = 1, 3
	}
	if cfg.MaxDailyEmails <= 0 {
		cfg.MaxDailyEmails = 1000
	}
	if cfg.Currency == "" {
		cfg.Currency = "USD"
	}
	return &Service{db: d.DB, clock: clock, cfg: cfg, leads: d.Leads, mailboxes: d.Mailboxes, senders: d.Senders, approvals: d.Approvals,
		limit: d.Limit, counter: d.Counter, composer: d.Composer}
}

// Config returns the service's configuration, defaults filled in.
func (s *Service) Config() Config { return s.cfg }

func newID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return prefix + hex.EncodeToString(b)
}
