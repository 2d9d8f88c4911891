// Package featuretest builds the campaigns service on a test database
// with the real services it reads (audience's leads, sending's mailboxes,
// the workspace's sender, the sending engine's counts), and writes the
// rows those features would have written by the time a campaign is
// staged: imported leads and ordered mailboxes. It wires the features as
// the server does, so it stands with the adapters, above every feature it
// imports; the features' own tests import it from there.
package featuretest

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/campaigns"
	"vibesell/cards"
	"vibesell/delivery"
	"vibesell/replies"
	"vibesell/sending"
	"vibesell/workspace"
)

// Env is the campaigns service with what it stands on.
type Env struct {
	Pool       *pgxpool.Pool
	Clock      *vibesell.ManualClock
	Campaigns  *campaigns.Service
	Approvals  *approvals.Service
	Audience   *audience.Service
	Sending    *sending.Service
	Workspaces *workspace.Service
}

// New builds the services on pool with the clock at now, the campaign
// actions registered.
func New(t testing.TB, pool *pgxpool.Pool, now time.Time, cfg campaigns.Config) *Env {
	t.Helper()
	return NewWith(t, pool, now, cfg, sending.Config{})
}

// NewWith is [New] with the sending setup's configuration (a mailbox's
// full volume, for one) and, after the sending setup's mailboxes, the
// mailboxes of more sources (people's own, connected).
func NewWith(t testing.TB, pool *pgxpool.Pool, now time.Time, cfg campaigns.Config, sendingCfg sending.Config, more ...campaigns.Mailboxes) *Env {
	t.Helper()
	env, _ := build(pool, now, cfg, sendingCfg, nil, more)
	return env
}

// NewHeldToPlans is [New] with launches and resumes held to billing's
// default plans, the free plan's limits set to free, and returns that
// billing too (a fake Stripe behind it, so a refusal names the plan to
// move to).
func NewHeldToPlans(t testing.TB, pool *pgxpool.Pool, now time.Time, cfg campaigns.Config, free billing.Limits) (*Env, *billing.Service) {
	t.Helper()
	return build(pool, now, cfg, sending.Config{}, &free, nil)
}

// build builds the services, held to billing's plans with these free
// limits unless free is nil.
func build(pool *pgxpool.Pool, now time.Time, cfg campaigns.Config, sendingCfg sending.Config, free *billing.Limits, more []campaigns.Mailboxes) (*Env, *billing.Service) {
	e := &Env{Pool: pool, Clock: vibesell.NewManualClock(now)}
	clock := e.Clock
	e.Approvals = approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler)})
	var bill *billing.Service
	var limit campaigns.CampaignLimit
	if free != nil {
		bc := billing.DefaultConfig()
		bc.Plans[0].Limits = *free
		bill = billing.New(billing.Deps{
			DB:     pool,
			Config: bc, Stripe: billingtest.NewFakeStripe(clock, bc.Plans), Approvals: e.Approvals, PublicURL: "https://vibesell.example.test",
			Clock: clock, Logger: slog.New(slog.DiscardHandler),
			Meters: map[billing.Metric]billing.Meter{billing.ActiveCampaigns: billing.MeterFunc(campaigns.Running)},
		})
		limit = bill.Limit(billing.ActiveCampaigns)
	}
	e.Workspaces = workspace.New(workspace.Deps{DB: pool, Clock: clock})
	e.Audience = audience.New(audience.Deps{DB: pool, Clock: clock, Approvals: e.Approvals,
		StoryCampaigns: leadCampaigns{e}, StoryMail: replies.NewLeadHistory(replies.LeadHistoryDeps{DB: pool})})
	e.Sending = sending.New(sending.Deps{DB: pool, Clock: clock, Config: sendingCfg, Cards: cards.New(cards.Deps{DB: pool, Clock: clock}),
		Offers: e.Workspaces, Approvals: e.Approvals})
	e.Campaigns = campaigns.New(campaigns.Deps{
		DB:        pool,
		Clock:     clock,
		Config:    cfg,
		Leads:     e.Audience,
		Mailboxes: campaigns.JoinMailboxes(append([]campaigns.Mailboxes{sending.CampaignMailboxes(e.Sending)}, more...)...),
		Senders:   e.Workspaces,
		Approvals: e.Approvals,
		Limit:     limit,
		Counter:   delivery.NewTallies(delivery.TalliesDeps{DB: pool, Unsubscribed: e.Audience.MailSuppressions()}),
		Composer:  delivery.Preview{},
	})
	e.Approvals.Register(vibesell.ToolLaunchCampaign, campaigns.LaunchAction(e.Campaigns))
	e.Approvals.Register(vibesell.ToolStopCampaign, campaigns.StopAction(e.Campaigns))
	e.Approvals.Register(vibesell.ToolResumeCampaign, campaigns.ResumeAction(e.Campaigns))
	return e, bill
}

// leadCampaigns is the campaigns' part of a lead's story, for the
// audience, which is built before the campaigns that read its leads.
type leadCampaigns struct{ e *Env }

func (l leadCampaigns) LeadCampaigns(ctx context.Context, ws uuid.UUID, lead int64) ([]campaigns.LeadCampaign, error) {
	return l.e.Campaigns.LeadCampaigns(ctx, ws, lead)
}

// AddLeads writes leads as an import of the workspace would have.
func (e *Env) AddLeads(t testing.TB, ws uuid.UUID, leads ...vibesell.Lead) {
	t.Helper()
	for _, l := range leads {
		if _, err := e.Pool.Exec(t.Context(), `INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'ap_0000000000000000', $10)`,
			ws, l.Email, l.FirstName, l.LastName, l.Title, l.Company, l.CompanyDomain, l.Country, l.TimeZone, e.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// Mailbox states AddMailbox can write.
const (
	Warm    = "warm"
	Warming = "warming"
)

// AddMailbox writes an ordered sandbox mailbox (and its domain) that is
// warm, or warming since yesterday.
func (e *Env) AddMailbox(t testing.TB, ws uuid.UUID, address, senderName, state string) {
	t.Helper()
	now := e.Clock.Now()
	_, domain, _ := strings.Cut(address, "@")
	ctx := t.Context()
	if _, err := e.Pool.Exec(ctx, `INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at, provider, ordered_at, ready_at)
		VALUES ($1, $2, 'new', 'ordered', 'USD', 1500, 500, 'card', $3, 'sandbox', $3, $3) ON CONFLICT DO NOTHING`, ws, domain, now.AddDate(0, -2, 0)); err != nil {
		t.Fatal(err)
	}
	started := now.AddDate(0, 0, -60)
	if state == Warming {
		started = now.AddDate(0, 0, -1)
	}
	var name *string
	if senderName != "" {
		name = &senderName
	}
	if _, err := e.Pool.Exec(ctx, `INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, provider, ordered_at, ready_at, warmup_started_at)
		VALUES ($1, $2, $3, $4, 'warming', false, 'USD', 500, 'card', $5, 'sandbox', $5, $5, $6)`, ws, address, domain, name, now.AddDate(0, -2, 0), started); err != nil {
		t.Fatal(err)
	}
}

// Decide approves (or rejects) an approval and carries it out at once, as
// the job worker would.
func (e *Env) Decide(t testing.TB, ws uuid.UUID, id string, approve bool, via string) approvals.Approval {
	t.Helper()
	if _, _, err := e.Approvals.Decide(t.Context(), ws, id, approvals.Decision{Approve: approve, By: "ada@acme.test", Via: via}); err != nil {
		t.Fatal(err)
	}
	if approve {
		if err := e.Approvals.Execute(t.Context(), ws, id, 1, approvals.MaxExecutionAttempts); err != nil {
			t.Fatal(err)
		}
	}
	a, err := e.Approvals.Find(t.Context(), ws, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
