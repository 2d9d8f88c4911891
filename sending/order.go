package sending

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"vibesell"
	"vibesell/store"
)

// OrderPlan is what ordering the sending setup would do now: the picked
// domains to register or take off the shelf, the planned mailboxes to
// create, what it costs and when it is ready. order_sending_setup shows it
// on its approval; [Service.PlaceOrder] carries it out.
type OrderPlan struct {
	Domains      []Domain
	Mailboxes    []MailboxOrder
	YearlyCost   vibesell.Money // the domains, per year
	MonthlyCost  vibesell.Money // the mailboxes, per month
	ReadyOn      time.Time
	FullVolumeOn time.Time
	Provider     string
}

// FirstCharge is what ordering the plan charges when it is placed: the
// domains' first year and the mailboxes' first month.
func (p OrderPlan) FirstCharge() vibesell.Money { return firstCharge(p.YearlyCost, p.MonthlyCost) }

// firstCharge is the one place the charge of an order is worked out from
// its yearly and monthly amounts: every text that names it, and the
// approval's cost now, take it from here.
func firstCharge(yearly, monthly vibesell.Money) vibesell.Money { return yearly.Plus(monthly) }

// PlanOrder returns what ordering would do now, checking that it can be
// done: a source is chosen, a sizing confirmed, domains are picked, each
// has addresses, new names are still available and warmed ones still on
// the shelf.
//
// Refusals: ECONFLICT when everything picked is ordered already; an
// [*OrderBlocked] (EINVALID) listing every missing step at once otherwise.
func (s *Service) PlanOrder(ctx context.Context, ws uuid.UUID) (OrderPlan, error) {
	st, err := s.Summary(ctx, ws)
	if err != nil {
		return OrderPlan{}, err
	}
	var blocked OrderBlocked
	if st.Source == nil {
		blocked.add("no sending source is chosen", stepChooseSource)
	}
	if st.Sizing == nil {
		blocked.add("no sizing is confirmed", stepsSizing...)
	}
	if chosen := st.DomainCount(DomainChosen); chosen == 0 {
		if ordered := len(st.Domains); ordered > 0 && len(blocked.Blockers) == 0 {
			return OrderPlan{}, allOrdered{vibesell.Errorf(vibesell.ECONFLICT,
				"Everything picked is already ordered (%s).", vibesell.Plural(ordered, "domain", "domains")).Then(
				stepSeeSetup,
				stepPickNew, stepPickWarmed)}
		}
		blocked.add("no domains are picked", stepPickNew, stepPickWarmed)
		return OrderPlan{}, &blocked
	}
	plan, err := s.readPlan(ctx, s.db, ws)
	if err != nil {
		return OrderPlan{}, err
	}
	if err := s.checkPlan(ctx, ws, plan, &blocked); err != nil {
		return OrderPlan{}, err
	}
	if len(blocked.Blockers) > 0 {
		return OrderPlan{}, &blocked
	}
	return plan, nil
}

// readPlan reads the domains and mailboxes in one round trip, on db: the
// pool, or the transaction that holds the setup's lock.
func (s *Service) readPlan(ctx context.Context, db store.DBTX, ws uuid.UUID) (OrderPlan, error) {
	var domains []Domain
	var mailboxes []MailboxOrder
	b := &pgx.Batch{}
	b.Queue(domainsSQL, ws).Query(func(rows pgx.Rows) (err error) {
		domains, err = collectDomains(rows, nil)
		return err
	})
	b.Queue(mailboxesSQL, ws).Query(func(rows pgx.Rows) (err error) {
		mailboxes, err = collectMailboxes(rows, nil)
		return err
	})
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return OrderPlan{}, fmt.Errorf("read order plan: %w", err)
	}
	plan := OrderPlan{YearlyCost: s.money(0), MonthlyCost: s.money(0), Provider: s.provisioner.Name()}
	now := s.clock.Now()
	for _, d := range domains {
		if d.Status != DomainChosen {
			continue
		}
		plan.Domains = append(plan.Domains, d)
		plan.YearlyCost = plan.YearlyCost.Plus(d.YearlyPrice)
		source := SourceOwnNames
		if d.Origin == OriginWarmed {
			source = SourceAlreadyWarmed
		}
		t := s.timeline(now, source)
		if t.ReadyOn.After(plan.ReadyOn) {
			plan.ReadyOn = t.ReadyOn
		}
		if t.FullVolumeOn.After(plan.FullVolumeOn) {
			plan.FullVolumeOn = t.FullVolumeOn
		}
	}
	for _, m := range mailboxes {
		if m.Status == MailboxPlanned {
			plan.Mailboxes = append(plan.Mailboxes, m)
			plan.MonthlyCost = plan.MonthlyCost.Plus(m.MonthlyPrice)
		}
	}
	return plan, nil
}

// checkPlan adds to blocked what stands between plan and an order: a
// domain without addresses, a name taken or a shelf domain sold since it
// was picked.
func (s *Service) checkPlan(ctx context.Context, ws uuid.UUID, plan OrderPlan, blocked *OrderBlocked) error {
	var newNames []string
	for _, d := range plan.Domains {
		if !slices.ContainsFunc(plan.Mailboxes, func(m MailboxOrder) bool { return m.Domain == d.Name }) {
			blocked.add(d.Name+" has no addresses yet", stepAddresses)
		}
		if d.Origin == OriginNew {
			newNames = append(newNames, d.Name)
		}
	}
	if len(newNames) > 0 {
		quotes, err := s.quote(ctx, ws, newNames)
		if err != nil {
			return err
		}
		for _, c := range quotes.Quotes {
			switch {
			case c.Available == nil:
				blocked.add(fmt.Sprintf("%s could not be checked just now (%s)", c.Domain, c.Reason))
			case !*c.Available:
				blocked.add(c.Domain+" was registered by someone else since it was picked", stepPickNew)
			}
		}
	}
	shelf, err := s.shelfNow(ctx)
	if err != nil {
		return err
	}
	for _, d := range plan.Domains {
		if d.Origin == OriginWarmed && !slices.ContainsFunc(shelf, func(it ShelfItem) bool { return it.Domain == d.Name }) {
			blocked.add(d.Name+" is no longer on offer among the already-warmed domains", stepPickWarmed)
		}
	}
	return nil
}

// allOrdered is the refusal of an order when everything picked is ordered
// already; it is a *vibesell.Error (ECONFLICT) to everyone else.
type allOrdered struct{ refusal *vibesell.Error }

func (e allOrdered) Error() string { return e.refusal.Message }

func (e allOrdered) Unwrap() error { return e.refusal }

// errNothingToOrder refuses an order with nothing picked.
var errNothingToOrder = vibesell.Errorf(vibesell.EINVALID,
	"There is nothing to order: no domains are picked.").Then(stepPickNew, stepPickWarmed, stepAddresses)

// OrderBlocked is the refusal that lists everything standing between the
// setup and an order, every one at once.
// Each blocker is a clause ("getacme.com has no addresses yet") and the
// steps that clear it.
type OrderBlocked struct {
	Blockers []vibesell.Blocker
}

func (e *OrderBlocked) add(what string, next ...vibesell.Next) {
	if !slices.ContainsFunc(e.Blockers, func(b vibesell.Blocker) bool { return b.What == what }) {
		e.Blockers = append(e.Blockers, vibesell.Blocker{What: what, Next: next})
	}
}

func (e *OrderBlocked) Error() string { return e.refusal().Message }

// Unwrap makes it a refusal (EINVALID) for vibesell.ErrorCode and friends.
func (e *OrderBlocked) Unwrap() error { return e.refusal() }

// refusal lists the blockers in one sentence and their steps once each.
func (e *OrderBlocked) refusal() *vibesell.Error {
	what := make([]string, len(e.Blockers))
	for i, b := range e.Blockers {
		what[i] = b.What
	}
	return &vibesell.Error{Code: vibesell.EINVALID, Message: fmt.Sprintf("The sending setup cannot be ordered yet: %s.", strings.Join(what, "; ")), Next: vibesell.StepsOf(e.Blockers)}
}

// PlaceOptions make an order safe to run from an approval. A nil
// *PlaceOptions orders whatever is planned, with no key.
type PlaceOptions struct {
	// Key identifies this order to the provider: asking twice with one key
	// (a worker that crashed after the provider accepted) orders once.
	Key string
	// Expect, when set, is checked against the plan under the setup's lock,
	// just before ordering: the person pays for exactly what they approved,
	// even if a pick changes at the same moment.
	Expect func(OrderPlan) error
}

// PlaceOrder orders the sending setup: the provider registers the picked
// domains (or hands over the warmed ones) and creates the planned
// mailboxes; they are recorded as ordered with the day they are ready and
// the DNS records to expect. Run it only once a person has approved the
// order (order_sending_setup's approval runs it); it is all or nothing.
//
// Refusals: those of [Service.PlanOrder] (an [*OrderBlocked] listing every
// blocker); what opts.Expect returns; EPAYMENTREQUIRED, written for a
// person, when the plan does not allow that many more mailboxes;
// ECONFLICT when another workspace ordered one of the domains at the same
// moment.
func (s *Service) PlaceOrder(ctx context.Context, ws uuid.UUID, opts *PlaceOptions) (OrderPlan, error) {
	if opts == nil {
		opts = &PlaceOptions{}
	}
	var plan OrderPlan
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockSetup(ctx, tx, ws); err != nil {
			return err
		}
		var err error
		if plan, err = s.readPlan(ctx, tx, ws); err != nil {
			return err
		}
		if len(plan.Domains) == 0 {
			return errNothingToOrder
		}
		var blocked OrderBlocked
		if err := s.checkPlan(ctx, ws, plan, &blocked); err != nil {
			return err
		}
		if len(blocked.Blockers) > 0 {
			return &blocked
		}
		if opts.Expect != nil {
			if err := opts.Expect(plan); err != nil {
				return err
			}
		}
		// The plan's limit is checked and used under its lock, before the
		// provider is asked: two orders never both take the last mailbox.
		if s.limit != nil {
			if err := s.limit.Use(ctx, tx, ws, len(plan.Mailboxes)); err != nil {
				return err
			}
		}
		orders := make([]DomainOrder, len(plan.Domains))
		for i, d := range plan.Domains {
			orders[i] = DomainOrder{Domain: d.Name, Warmed: d.Origin == OriginWarmed}
			for _, m := range plan.Mailboxes {
				if m.Domain == d.Name {
					orders[i].Addresses = append(orders[i].Addresses, m.Address)
				}
			}
		}
		// The provider is called inside the transaction: if recording
		// fails, the order is not acknowledged and is retried whole.
		receipts, err := s.provisioner.Order(ctx, opts.Key, orders)
		if err != nil {
			return fmt.Errorf("order from %s: %w", s.provisioner.Name(), err)
		}
		now := s.clock.Now()
		for _, r := range receipts {
			if _, err := tx.Exec(ctx, `
				UPDATE sending_domains SET status = 'ordered', provider = $3, ordered_at = $4, ready_at = $5
				WHERE workspace_id = $1 AND domain = $2 AND status = 'chosen'`,
				ws, r.Domain, s.provisioner.Name(), now, r.ReadyAt); err != nil {
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) && pgErr.Code == "23505" {
					return vibesell.Errorf(vibesell.ECONFLICT, "%s was ordered by someone else a moment ago. Pick another domain, then order again.", r.Domain)
				}
				return fmt.Errorf("record ordered domain %s: %w", r.Domain, err)
			}
			for _, rec := range r.Records {
				if rec.Type == "DKIM" && s.dkimRecord != nil {
					if rec, err = s.dkimRecord(ctx, ws, r.Domain); err != nil {
						return fmt.Errorf("the DKIM key of %s: %w", r.Domain, err)
					}
				}
				if _, err := tx.Exec(ctx, `
					INSERT INTO sending_dns_records (workspace_id, domain, type, host, value) VALUES ($1, $2, $3, $4, $5)
					ON CONFLICT (workspace_id, domain, type) DO UPDATE SET host = EXCLUDED.host, value = EXCLUDED.value`,
					ws, r.Domain, rec.Type, rec.Host, rec.Value); err != nil {
					return fmt.Errorf("record DNS records of %s: %w", r.Domain, err)
				}
			}
			if _, err := tx.Exec(ctx, `
				UPDATE sending_mailboxes SET status = 'ordered', provider = $3, ordered_at = $4, ready_at = $5
				WHERE workspace_id = $1 AND domain = $2 AND status = 'planned'`,
				ws, r.Domain, s.provisioner.Name(), now, r.ReadyAt); err != nil {
				return fmt.Errorf("record ordered mailboxes of %s: %w", r.Domain, err)
			}
		}
		return nil
	})
	if err != nil {
		return OrderPlan{}, err
	}
	return plan, nil
}

// OrderedMailboxes counts the mailboxes workspace ws has ordered (being
// prepared, ready, warming or warm; not those only planned), on db: the
// meter of the plan's mailbox limit, read in the transaction that orders.
func OrderedMailboxes(ctx context.Context, db store.DBTX, ws uuid.UUID) (int, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM sending_mailboxes WHERE workspace_id = $1 AND status <> 'planned'`, ws).Scan(&n); err != nil {
		return 0, fmt.Errorf("count ordered mailboxes of workspace %s: %w", ws, err)
	}
	return n, nil
}
