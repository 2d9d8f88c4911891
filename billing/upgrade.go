package billing

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
)

// How a plan change is carried out.
const (
	changeNow         = "now"           // to a dearer plan: at once, the rest of the period charged now
	changeAtPeriodEnd = "at_period_end" // to a cheaper paid plan: when the period ends
	cancelAtPeriodEnd = "cancel"        // to the free plan: the subscription ends with the period
)

// changeDetails are exactly what a plan-change approval covers; the
// executor acts only while they still hold.
type changeDetails struct {
	From          string         `json:"from"`
	To            string         `json:"to"`
	How           string         `json:"how"`
	Subscription  string         `json:"subscription"`
	Item          string         `json:"item"`
	FromPrice     string         `json:"fromPrice"`
	ToPrice       string         `json:"toPrice"`
	PeriodEnd     time.Time      `json:"periodEnd"`
	ProrationDate time.Time      `json:"prorationDate"`
	ChargeNow     vibesell.Money `json:"chargeNow"`
}

// changeTTL is how long a plan change waits for a decision: the amount
// charged now is worked out as of the hour it was asked in, so it must be
// decided soon after.
const changeTTL = 24 * time.Hour

// RequestChange asks for a person's approval to move the workspace to plan
// planID (upgrade_plan), and returns the approval: pending, or the one
// already pending for the same plan. A dearer plan applies at once and
// charges the rest of the period now, as Stripe previews it; a cheaper one
// applies when the period ends and says what stops working; the free plan
// ends the subscription with the period. Paid, so only a signed-in person
// in the web app may approve it.
//
// Refusals: billing not configured; an unknown plan; not subscribed
// (start_checkout first); already on the plan, or already moving to it; a
// payment failing.
func (s *Service) RequestChange(ctx context.Context, ws uuid.UUID, planID, requestedBy string) (approvals.Approval, bool, error) {
	if !s.Configured() {
		return approvals.Approval{}, false, s.errNotConfigured()
	}
	to, ok := s.plan(planID)
	if !ok {
		return approvals.Approval{}, false, s.unknownPlan(planID)
	}
	a, err := s.readAccount(ctx, s.db, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	from := s.planOf(a)
	switch {
	case !a.Subscribed() && to.Free():
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "The workspace is already on the %s plan.", to.Name)
	case !a.Subscribed():
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"The workspace has no paid subscription to change yet.").Then(
			vibesell.Call(fmt.Sprintf("Subscribe to the %s plan.", to.Name), vibesell.ToolStartCheckout, "plan", to.ID))
	case from.ID == to.ID && !a.CancelAtPeriodEnd:
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "The workspace is already on the %s plan.", to.Name)
	case a.PendingPlanID == to.ID || (to.Free() && a.CancelAtPeriodEnd):
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT,
			"The workspace already moves to the %s plan on %s.", to.Name, vibesell.FormatDate(*a.PeriodEnd))
	case a.CancelAtPeriodEnd || a.PendingPlanID != "":
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT,
			"A change of plan is already scheduled for the end of this period.").Then(
			vibesell.Next{Do: "Undo it in the billing portal first, then ask again.", Tool: vibesell.ToolOpenBillingPortal})
	case a.Status != "active" && a.Status != "trialing":
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EPAYMENTREQUIRED,
			"The subscription's last payment failed (status %s), so the plan cannot be changed now.",
			strings.ReplaceAll(a.Status, "_", " ")).Then(vibesell.Next{Do: "Update the card in the billing portal first.", Tool: vibesell.ToolOpenBillingPortal})
	}
	now := s.clock.Now()
	d := changeDetails{
		From: from.ID, To: to.ID, Subscription: a.SubscriptionID, Item: a.SubscriptionItem,
		FromPrice: a.SubscriptionPrice, ToPrice: to.StripePrice, ChargeNow: vibesell.NewMoney(0, to.Price.Currency),
	}
	if a.PeriodEnd != nil {
		d.PeriodEnd = *a.PeriodEnd
	}
	sub := Subscription{ID: a.SubscriptionID, Customer: a.Customer, ItemID: a.SubscriptionItem, Price: a.SubscriptionPrice, PeriodEnd: d.PeriodEnd}
	var impact approvals.Impact
	switch {
	case to.Free():
		d.How = cancelAtPeriodEnd
		impact = s.downgradeImpact(ctx, ws, from, to, d)
	case to.Price.Minor > from.Price.Minor:
		d.How = changeNow
		// Prorated as of the start of this hour: asking again within the
		// hour gives the same amount (and the same pending approval), and
		// the change is made as of that same moment, so the charge is
		// exactly the one approved.
		d.ProrationDate = now.UTC().Truncate(time.Hour)
		if a.PeriodEnd != nil && d.ProrationDate.Before(a.PeriodEnd.AddDate(0, -1, 0)) {
			// Subscribed within this hour (the period of a monthly plan
			// started less than an hour ago): Stripe prorates only from
			// the period's start.
			d.ProrationDate = now.UTC().Truncate(time.Second)
		}
		inv, err := s.stripe.PreviewChange(ctx, sub, to.StripePrice, d.ProrationDate)
		if err != nil {
			return approvals.Approval{}, false, err
		}
		d.ChargeNow = inv.AmountDue
		impact = upgradeImpact(ctx, from, to, d)
	default:
		d.How = changeAtPeriodEnd
		impact = s.downgradeImpact(ctx, ws, from, to, d)
	}
	return s.approvals.Open(ctx, approvals.Request{
		WorkspaceID:  ws,
		Action:       vibesell.ToolUpgradePlan,
		Arguments:    map[string]string{"plan": to.ID},
		Details:      d,
		Summary:      fmt.Sprintf("Change the plan from %s to %s", from.Name, to.Name),
		Impact:       impact,
		Irreversible: false,
		DecideHere:   false, // it costs money
		TTL:          changeTTL,
		RequestedBy:  requestedBy,
	})
}

func limitChanges(from, to Plan) []string {
	var items []string
	for _, m := range Metrics {
		period := ""
		if m.monthly() {
			period = " per month"
		}
		items = append(items, fmt.Sprintf("%s%s, instead of %s", m.noun(to.Limits.of(m)), period, vibesell.Count(from.Limits.of(m))))
	}
	return items
}

func upgradeImpact(ctx context.Context, from, to Plan, d changeDetails) approvals.Impact {
	return approvals.Impact{
		What: fmt.Sprintf("Moves the workspace from the %s plan (%s per month) to the %s plan (%s per month) right away. Stripe charges %s now to the card on file for the rest of the current period, and the new limits apply at once:",
			from.Name, from.Price, to.Name, to.Price, d.ChargeNow),
		Items: limitChanges(from, to),
		Who:   "No one is contacted. The card on file is charged.",
		When: fmt.Sprintf("As soon as it is approved, with the amount for the rest of the period worked out as of %s; from %s the plan renews at %s per month.",
			vibesell.FormatTimeFor(ctx, d.ProrationDate), vibesell.FormatDate(d.PeriodEnd), to.Price),
		CostOnce:    d.ChargeNow,
		CostMonthly: to.Price,
		Renewal:     fmt.Sprintf("It renews every month at %s until cancelled in the billing portal.", to.Price),
		Undo:        fmt.Sprintf("The plan can be changed again at any time, back to %s as well (a cheaper plan takes effect when a period ends). The %s charged now is not refunded.", from.Name, d.ChargeNow),
	}
}

// downgradeImpact says what changes at the period's end and what stops
// working then, if the workspace uses more than the lower plan allows.
func (s *Service) downgradeImpact(ctx context.Context, ws uuid.UUID, from, to Plan, d changeDetails) approvals.Impact {
	items := limitChanges(from, to)
	for _, m := range Metrics {
		used, ok, err := s.used(ctx, s.db, ws, m)
		if err != nil {
			s.logger.WarnContext(ctx, "usage for a downgrade", "workspace", ws.String(), "metric", string(m), "err", err)
			continue
		}
		if limit := to.Limits.of(m); ok && used > limit {
			items = append(items, fmt.Sprintf("Over the %s plan's limit: the workspace has %s and %s allows %s, so no more can be added until it is under the limit.",
				to.Name, m.noun(used), to.Name, vibesell.Count(limit)))
		}
	}
	what := fmt.Sprintf("Moves the workspace from the %s plan (%s per month) to the %s plan (%s per month) when the current period ends; until then nothing changes. The limits become:",
		from.Name, from.Price, to.Name, to.Price)
	renewal := fmt.Sprintf("From %s it renews every month at %s until cancelled in the billing portal.", vibesell.FormatDate(d.PeriodEnd), to.Price)
	if to.Free() {
		what = fmt.Sprintf("Ends the %s subscription (%s per month) when the current period ends; the workspace then returns to the %s plan, which costs nothing. The limits become:",
			from.Name, from.Price, to.Name)
		renewal = "Nothing renews: no more invoices after the current period."
	}
	return approvals.Impact{
		What:        what,
		Items:       items,
		Who:         "No one is contacted. Nothing is charged now.",
		When:        fmt.Sprintf("On %s, when the current period ends.", vibesell.FormatDate(d.PeriodEnd)),
		CostOnce:    vibesell.NewMoney(0, from.Price.Currency),
		CostMonthly: to.Price,
		Renewal:     renewal,
		Undo:        fmt.Sprintf("Until %s the change can be called off in the billing portal; after it, the plan can be changed again at any time. Nothing already paid is refunded.", vibesell.FormatDate(d.PeriodEnd)),
	}
}

// ChangeExecutor carries out approved plan changes: register it with the
// approvals service under vibesell.ToolUpgradePlan. It acts only while the
// subscription is still the one approved (same plan, same period), and
// asks Stripe with the approval's idempotency key, so an attempt resumed
// after a crash changes the plan once.
func (s *Service) ChangeExecutor() approvals.Executor {
	details := func(ex approvals.Execution) (changeDetails, error) {
		var d changeDetails
		if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
			return d, fmt.Errorf("read approved plan change: %w", err)
		}
		return d, nil
	}
	still := func(ctx context.Context, ex approvals.Execution, d changeDetails) error {
		if !s.Configured() {
			return s.errNotConfigured()
		}
		a, err := s.readAccount(ctx, s.db, ex.Approval.WorkspaceID)
		if err != nil {
			return err
		}
		if a.SubscriptionID != d.Subscription || a.SubscriptionPrice != d.FromPrice || !a.Subscribed() ||
			a.PeriodEnd == nil || !a.PeriodEnd.Equal(d.PeriodEnd) || a.CancelAtPeriodEnd || a.PendingPlanID != "" {
			return vibesell.Errorf(vibesell.ECONFLICT,
				"the subscription changed after this was asked (another plan, a new period, or a change already scheduled), so the plan was not changed and nothing was charged. Ask for the change again to see what it costs now.")
		}
		return nil
	}
	return approvals.ExecutorFuncs{
		CheckFunc: func(ctx context.Context, ex approvals.Execution) error {
			d, err := details(ex)
			if err != nil {
				return err
			}
			return still(ctx, ex, d)
		},
		ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
			d, err := details(ex)
			if err != nil {
				return "", err
			}
			if !ex.Resumed {
				if err := still(ctx, ex, d); err != nil {
					return "", err
				}
			}
			return s.change(ctx, ex.Approval.WorkspaceID, d, ex.IdempotencyKey)
		},
	}
}

func (s *Service) change(ctx context.Context, ws uuid.UUID, d changeDetails, key string) (string, error) {
	from, _ := s.plan(d.From)
	to, ok := s.plan(d.To)
	if !ok {
		return "", vibesell.Errorf(vibesell.ECONFLICT, "the %s plan is no longer offered, so nothing was changed.", d.To)
	}
	sub := Subscription{ID: d.Subscription, ItemID: d.Item, Price: d.FromPrice, PeriodEnd: d.PeriodEnd}
	var text string
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		a, err := s.lockAccount(ctx, tx, ws)
		if err != nil {
			return err
		}
		sub.Customer = a.Customer
		switch d.How {
		case changeNow:
			updated, err := s.stripe.ChangeNow(ctx, sub, d.ToPrice, d.ProrationDate, key)
			if err != nil {
				return err
			}
			text = fmt.Sprintf("The workspace is on the %s plan now (%s per month); %s was charged for the rest of the period.", to.Name, to.Price, d.ChargeNow)
			return s.recordSubscription(ctx, tx, a, updated)
		case changeAtPeriodEnd:
			if err := s.stripe.ChangeAtPeriodEnd(ctx, sub, d.ToPrice, key); err != nil {
				return err
			}
			text = fmt.Sprintf("The workspace moves from the %s plan to the %s plan (%s per month) on %s; until then nothing changes.",
				from.Name, to.Name, to.Price, vibesell.FormatDate(d.PeriodEnd))
		case cancelAtPeriodEnd:
			updated, err := s.stripe.CancelAtPeriodEnd(ctx, sub, key)
			if err != nil {
				return err
			}
			if err := s.recordSubscription(ctx, tx, a, updated); err != nil {
				return err
			}
			text = fmt.Sprintf("The %s subscription ends on %s; the workspace is then on the %s plan and no more invoices come.",
				from.Name, vibesell.FormatDate(d.PeriodEnd), to.Name)
		default:
			return fmt.Errorf("unknown plan change %q", d.How)
		}
		if _, err := tx.Exec(ctx, `UPDATE billing_accounts SET pending_plan = $2 WHERE workspace_id = $1`, ws, nullIf(d.How != changeNow, d.To)); err != nil {
			return fmt.Errorf("record pending plan of workspace %s: %w", ws, err)
		}
		return nil
	})
	return text, err
}

func nullIf(keep bool, v string) *string {
	if !keep {
		return nil
	}
	return &v
}
