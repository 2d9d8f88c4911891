package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// Metric names one limit of a plan.
type Metric string

// The limits a plan sets.
const (
	Mailboxes       Metric = "mailboxes"        // mailboxes ordered, at any one time
	Leads           Metric = "leads"            // leads imported this calendar month
	ActiveCampaigns Metric = "active_campaigns" // campaigns running now
	Emails          Metric = "emails"           // emails sent this calendar month
)

// Metrics are every limit, in the order they are shown.
var Metrics = []Metric{Mailboxes, Leads, ActiveCampaigns, Emails}

// monthly reports whether the metric counts per calendar month rather than
// what exists now.
func (m Metric) monthly() bool { return m == Leads || m == Emails }

func (l Limits) of(m Metric) int {
	switch m {
	case Mailboxes:
		return l.Mailboxes
	case Leads:
		return l.LeadsPerMonth
	case ActiveCampaigns:
		return l.ActiveCampaigns
	case Emails:
		return l.EmailsPerMonth
	}
	panic(fmt.Sprintf("billing: unknown metric %q", m))
}

// noun writes n of the metric: "1 mailbox", "2,500 leads".
func (m Metric) noun(n int) string {
	switch m {
	case Mailboxes:
		return vibesell.Plural(n, "mailbox", "mailboxes")
	case Leads:
		return vibesell.Plural(n, "lead", "leads")
	case ActiveCampaigns:
		return vibesell.Plural(n, "active campaign", "active campaigns")
	case Emails:
		return vibesell.Plural(n, "email", "emails")
	}
	return vibesell.Count(n) + " " + string(m)
}

// Meter counts what a limit counts for a workspace, on db: the caller's
// transaction when a limit is checked, so the count includes what the
// caller already wrote and excludes nothing another caller committed
// before the billing lock was granted.
type Meter interface {
	Used(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error)
}

// MeterFunc makes a [Meter] of a function.
type MeterFunc func(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error)

// Used calls f.
func (f MeterFunc) Used(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error) {
	return f(ctx, db, ws)
}

type countedMeter struct{}

func (countedMeter) Used(context.Context, store.DBTX, uuid.UUID) (int, error) {
	panic("billing: Counted is read by the service itself")
}

// Counted is the meter of a monthly limit (leads, emails): billing keeps
// the count of what [Service.Use] let through. Register it once the
// feature calls Use for every use, so that get_plans_and_billing shows the
// count instead of "not counted".
var Counted Meter = countedMeter{}

// monthStart is the first moment of t's calendar month in UTC, when
// monthly limits start again.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// used reads how much of metric the workspace uses; ok is false when
// nothing counts it on this server.
func (s *Service) used(ctx context.Context, db store.DBTX, ws uuid.UUID, m Metric) (n int, ok bool, err error) {
	meter := s.meters[m]
	switch {
	case meter == nil:
		return 0, false, nil
	case meter == Counted:
		n, err := s.counted(ctx, db, ws, m)
		return n, err == nil, err
	}
	n, err = meter.Used(ctx, db, ws)
	if err != nil {
		return 0, false, fmt.Errorf("count %s of workspace %s: %w", m, ws, err)
	}
	return n, true, nil
}

// counted reads this month's count of a monthly metric, kept by Use.
func (s *Service) counted(ctx context.Context, db store.DBTX, ws uuid.UUID, m Metric) (int, error) {
	var n int
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT used FROM billing_usage WHERE workspace_id = $1 AND metric = $2 AND period = $3), 0)`,
		ws, string(m), monthStart(s.clock.Now())).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read %s used by workspace %s: %w", m, ws, err)
	}
	return n, nil
}

// Use checks that workspace ws's plan allows n more of metric and records
// the use, in tx: the caller's transaction, which also writes what is
// used (the ordered mailboxes, the imported leads), so that the check and
// the use commit together or not at all. It locks the workspace's billing
// row until tx ends: concurrent uses of one workspace run one after the
// other, so two calls can never both pass the last unit.
//
// For a monthly limit (leads, emails) Use adds n to this month's count;
// for a limit on what exists (mailboxes, active campaigns), the caller's
// own rows are the count, read by the limit's [Meter].
//
// Refusals: EPAYMENTREQUIRED with the limit, the usage and the way up.
func (s *Service) Use(ctx context.Context, tx pgx.Tx, ws uuid.UUID, m Metric, n int) error {
	if n <= 0 {
		return nil
	}
	account, used, err := s.lockUsage(ctx, tx, ws, m)
	if err != nil {
		return err
	}
	plan := s.planOf(account)
	limit := plan.Limits.of(m)
	if used+n > limit {
		return s.overLimit(account, plan, m, used, n, limit)
	}
	if m.counted(s.meters) {
		if _, err := tx.Exec(ctx, `INSERT INTO billing_usage AS u (workspace_id, metric, period, used) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, metric, period) DO UPDATE SET used = u.used + EXCLUDED.used`,
			ws, string(m), monthStart(s.clock.Now()), n); err != nil {
			return fmt.Errorf("record %s used by workspace %s: %w", m, ws, err)
		}
	}
	return nil
}

// counted reports whether billing keeps the count of m itself: a monthly
// limit is counted by Use whether or not its meter is registered yet (the
// registration only says the count is complete enough to show); a limit
// on what exists needs its feature's meter.
func (m Metric) counted(meters map[Metric]Meter) bool {
	return m.monthly() && (meters[m] == nil || meters[m] == Counted)
}

// lockUsage locks the workspace's billing until tx ends and reads how
// much of m it uses.
func (s *Service) lockUsage(ctx context.Context, tx pgx.Tx, ws uuid.UUID, m Metric) (Account, int, error) {
	account, err := s.lockAccount(ctx, tx, ws)
	if err != nil {
		return Account{}, 0, err
	}
	var used int
	if m.counted(s.meters) {
		used, err = s.counted(ctx, tx, ws, m)
	} else {
		var ok bool
		used, ok, err = s.used(ctx, tx, ws, m)
		if err == nil && !ok {
			err = fmt.Errorf("billing: no meter counts %s", m)
		}
	}
	if err != nil {
		return Account{}, 0, err
	}
	return account, used, nil
}

// Check says, without recording anything, whether workspace ws's plan
// allows n more of metric now: for refusing early, before a person is
// asked to approve something the plan would not allow. It is only a
// forecast; the transaction that uses must still call [Service.Use].
//
// Refusals: EPAYMENTREQUIRED, as Use's.
func (s *Service) Check(ctx context.Context, ws uuid.UUID, m Metric, n int) error {
	if n <= 0 {
		return nil
	}
	account, err := s.readAccount(ctx, s.db, ws)
	if err != nil {
		return err
	}
	var used int
	if m.monthly() {
		used, err = s.counted(ctx, s.db, ws, m)
	} else {
		var ok bool
		if used, ok, err = s.used(ctx, s.db, ws, m); err == nil && !ok {
			return nil // not counted here: nothing to forecast
		}
	}
	if err != nil {
		return err
	}
	plan := s.planOf(account)
	if limit := plan.Limits.of(m); used+n > limit {
		return s.overLimit(account, plan, m, used, n, limit)
	}
	return nil
}

// overLimit writes the refusal: the limit, the usage and the way up, the
// plan to change to as its step (the assistant's tool, the person's
// billing page).
func (s *Service) overLimit(a Account, plan Plan, m Metric, used, n, limit int) error {
	period := ""
	if m.monthly() {
		period = " this month"
	}
	refusal := vibesell.Errorf(vibesell.EPAYMENTREQUIRED, "The %s plan allows %s%s; %s in use, so %s more would go over.",
		plan.Name, m.noun(limit), period, vibesell.Count(used), vibesell.Count(n))
	var up *Plan
	for _, p := range s.cfg.Plans {
		if p.Price.Minor > plan.Price.Minor && p.Limits.of(m) >= used+n {
			up = &p
			break
		}
	}
	switch {
	case !s.Configured():
		refusal.Message += " Billing is not configured on this server: whoever runs it can raise the limits."
	case up == nil:
		refusal.Message += " No plan allows that many."
		refusal.Next = []vibesell.Next{{Do: "Contact support to talk about more.", Tool: vibesell.ToolContactSupport}}
	default:
		refusal.Message += fmt.Sprintf(" The %s plan allows %s for %s per month.", up.Name, m.noun(up.Limits.of(m)), up.Price)
		if a.Subscribed() {
			refusal.Next = []vibesell.Next{vibesell.Call(fmt.Sprintf("Change to the %s plan.", up.Name), vibesell.ToolUpgradePlan, "plan", up.ID)}
		} else {
			refusal.Next = []vibesell.Next{vibesell.Call(fmt.Sprintf("Subscribe to the %s plan.", up.Name), vibesell.ToolStartCheckout, "plan", up.ID)}
		}
	}
	return refusal
}

// Limit is one limit of the plan, as a feature that uses it sees it: the
// feature declares the small interface it needs (audience's leads,
// sending's mailboxes, campaigns' running campaigns) and cmd/server hands
// it [Service.Limit].
type Limit struct {
	s *Service
	m Metric
}

// Limit returns the limit m of every workspace's plan.
func (s *Service) Limit(m Metric) Limit { return Limit{s, m} }

// Check refuses when the workspace's plan does not allow n more now: when
// an action is asked for, before a person is asked to approve it. See
// [Service.Check].
func (l Limit) Check(ctx context.Context, ws uuid.UUID, n int) error {
	return l.s.Check(ctx, ws, l.m, n)
}

// Use records n more in tx, the transaction that carries the action out,
// or refuses when the plan does not allow them; see [Service.Use].
func (l Limit) Use(ctx context.Context, tx pgx.Tx, ws uuid.UUID, n int) error {
	return l.s.Use(ctx, tx, ws, l.m, n)
}

// Left locks the workspace's billing until tx ends, as [Limit.Use] does,
// and returns how many more the plan allows now: for an action that does
// what fits (an import stops at the monthly limit).
func (l Limit) Left(ctx context.Context, tx pgx.Tx, ws uuid.UUID) (int, error) {
	account, used, err := l.s.lockUsage(ctx, tx, ws, l.m)
	if err != nil {
		return 0, err
	}
	return max(l.s.planOf(account).Limits.of(l.m)-used, 0), nil
}

// Describe writes, for a person, what n more use of the plan's limit now:
// a line of an approval's impact, such as "Plan: 3 of the 250 leads the
// Free plan allows this month (0 imported before); 247 left after it".
func (l Limit) Describe(ctx context.Context, ws uuid.UUID, n int) (string, error) {
	account, err := l.s.readAccount(ctx, l.s.db, ws)
	if err != nil {
		return "", err
	}
	used, ok := 0, true
	if l.m.counted(l.s.meters) {
		used, err = l.s.counted(ctx, l.s.db, ws, l.m)
	} else {
		used, ok, err = l.s.used(ctx, l.s.db, ws, l.m)
	}
	if err != nil {
		return "", err
	}
	plan := l.s.planOf(account)
	limit := plan.Limits.of(l.m)
	period := ""
	if l.m.monthly() {
		period = " this month"
	}
	if !ok {
		return fmt.Sprintf("Plan: the %s plan allows %s%s", plan.Name, l.m.noun(limit), period), nil
	}
	return fmt.Sprintf("Plan: %s of the %s the %s plan allows%s (%s in use before it); %s left after it",
		vibesell.Count(n), l.m.noun(limit), plan.Name, period, vibesell.Count(used), vibesell.Count(max(limit-used-n, 0))), nil
}
