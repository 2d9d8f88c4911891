package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"vibesell/toolkit"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/sending"
)

// order_sending_setup

func orderSendingSetup(d Deps) toolkit.Tool {
	return toolkit.Define(toolkit.Spec[struct{}, approvalOutput]{
		Name:  "order_sending_setup",
		Title: "Order the sending setup",
		Description: "Asks for approval to order the sending setup the person chose: register the picked new domains (or take the picked already-warmed ones off the shelf) and create the planned mailboxes on them. " +
			"It orders nothing itself: it returns an approval card (kind approval, status pending) stating exactly each domain and each address with its price, the one-time cost (the domains' first year, e.g. USD 15.00 per .com domain), the monthly cost (USD 5.00 per new mailbox, USD 10.00 per already-warmed one), when they will be ready, and that they renew until cancelled. " +
			"Ordering costs money and cannot be undone, so only a signed-in person in the web app can approve it (decideHere false): give the person appUrl; rejecting is allowed here with decide_approval. " +
			"Once approved it is ordered once, through the configured provider (the sandbox unless configured otherwise: then nothing real is registered or billed), and get_sending_setup shows the domains and addresses in preparation. " +
			"Calling it again while its approval is pending returns the same approval; if the picks or prices changed meanwhile, the old approval is replaced by a new one. " +
			"It refuses, listing every missing step at once, when no sending source is chosen, no sizing is confirmed, no domains are picked, a picked domain has no addresses, or a name is no longer available. " +
			"Use it after propose_email settled. Not for seeing what is set up (get_sending_setup) or for deciding (decide_approval, the web app).",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[approvalOutput], error) {
			plan, err := orderPreconditions(ctx, d.Sending, p)
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			req := orderRequest(plan)
			req.WorkspaceID = p.WorkspaceID
			req.RequestedBy = "the assistant, via the connector of workspace " + p.WorkspaceSlug
			a, created, err := d.Approvals.Open(ctx, req)
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			lead := "Nothing is ordered yet: this asks for the person's approval."
			switch {
			case !created && a.Status == approvals.Approved:
				lead = "This order is already approved and being placed now; here is its approval."
			case !created:
				lead = "This order is already waiting for a decision; here is the same approval. Nothing is ordered yet."
			}
			return toolkit.Result[approvalOutput]{Markdown: approvalMarkdown(a, lead), Data: approvalOutput{approvalData: toApprovalData(a)}}, nil
		},
	})
}

// orderPreconditions returns the order plan, or a refusal listing every
// step still missing.
func orderPreconditions(ctx context.Context, s *sending.Service, p auth.Principal) (sending.OrderPlan, error) {
	st, err := s.Summary(ctx, p.WorkspaceID)
	if err != nil {
		return sending.OrderPlan{}, err
	}
	var blockers []string
	add := func(b string) {
		if !slices.Contains(blockers, b) {
			blockers = append(blockers, b)
		}
	}
	if st.Source == nil {
		add(fmt.Sprintf("no sending source is chosen (call %s)", sending.ToolChooseSource))
	}
	if st.Sizing == nil {
		add(fmt.Sprintf("no sizing is confirmed (call %s, then %s once the person agrees)", sending.ToolSize, sending.ToolConfirmSizing))
	}
	var chosen, ordered int
	for _, dm := range st.Domains {
		switch dm.Status {
		case "chosen":
			chosen++
			if !slices.ContainsFunc(st.Mailboxes, func(m sending.MailboxStatus) bool { return m.Domain == dm.Name && m.Status == "planned" }) {
				add(fmt.Sprintf("%s has no addresses yet (call %s)", dm.Name, sending.ToolProposeEmail))
			}
		default:
			ordered++
		}
	}
	if chosen == 0 {
		if ordered > 0 && len(blockers) == 0 {
			return sending.OrderPlan{}, vibesell.Errorf(vibesell.ECONFLICT,
				"Everything picked is already ordered (%s). Call %s to follow it; to add more, pick domains with %s or %s first.",
				pluralize(ordered, "domain", "domains"), sending.ToolGetSetup, sending.ToolProposeDomains, sending.ToolProposeWarmed)
		}
		add(fmt.Sprintf("no domains are picked (call %s or %s)", sending.ToolProposeDomains, sending.ToolProposeWarmed))
	}
	plan, err := s.PlanOrder(ctx, p.WorkspaceID)
	if err != nil {
		if vibesell.ErrorCode(err) == vibesell.EINTERNAL {
			return sending.OrderPlan{}, err
		}
		// Fold PlanOrder's blockers into this list so the person hears
		// every missing step at once.
		var blocked *sending.OrderBlocked
		if errors.As(err, &blocked) {
			for _, b := range blocked.Blockers {
				add(b)
			}
		} else if chosen > 0 || len(blockers) == 0 {
			add(strings.TrimSuffix(vibesell.ErrorMessage(err), "."))
		}
	}
	if len(blockers) > 0 {
		return sending.OrderPlan{}, vibesell.Errorf(vibesell.EINVALID, "The sending setup cannot be ordered yet: %s.", strings.Join(blockers, "; "))
	}
	return plan, nil
}

// orderDetails is exactly what an order approval covers. The executor
// orders only if the plan is still this, so the person pays for what they
// approved and nothing else.
type orderDetails struct {
	Provider  string        `json:"provider"`
	Currency  string        `json:"currency"`
	Domains   []orderDomain `json:"domains"`
	Mailboxes []orderBox    `json:"mailboxes"`
}

type orderDomain struct {
	Name        string `json:"name"`
	Origin      string `json:"origin"`
	YearlyCents int64  `json:"yearlyCents"`
}

type orderBox struct {
	Address      string `json:"address"`
	MonthlyCents int64  `json:"monthlyCents"`
}

func detailsOf(plan sending.OrderPlan) orderDetails {
	d := orderDetails{Provider: plan.Provider, Currency: plan.MonthlyCost.Currency, Domains: []orderDomain{}, Mailboxes: []orderBox{}}
	for _, dm := range plan.Domains {
		d.Domains = append(d.Domains, orderDomain{Name: dm.Name, Origin: dm.Origin, YearlyCents: dm.YearlyPrice.Cents})
	}
	for _, m := range plan.Mailboxes {
		d.Mailboxes = append(d.Mailboxes, orderBox{Address: m.Address, MonthlyCents: m.MonthlyPrice.Cents})
	}
	return d
}

func centsMoney(m sending.Money) vibesell.Money {
	return vibesell.NewMoney(m.Cents, m.Currency)
}

// orderRequest writes the approval of an order plan: its impact is the
// only description of the order the person sees before paying.
func orderRequest(plan sending.OrderPlan) approvals.Request {
	var newDomains, warmed int
	var items []string
	for _, dm := range plan.Domains {
		kind := "new domain, registered for the workspace"
		if dm.Origin == "warmed" {
			kind, warmed = "already-warmed domain, taken off the shelf", warmed+1
		} else {
			newDomains++
		}
		items = append(items, fmt.Sprintf("%s: %s, %s per year", dm.Name, kind, dm.YearlyPrice))
	}
	for _, m := range plan.Mailboxes {
		items = append(items, fmt.Sprintf("%s: mailbox%s, %s per month", m.Address, mailboxTraits(m.SenderName, m.Prewarmed), m.MonthlyPrice))
	}

	var what []string
	if newDomains > 0 {
		what = append(what, "registers "+pluralize(newDomains, "new domain", "new domains"))
	}
	if warmed > 0 {
		what = append(what, "takes "+pluralize(warmed, "already-warmed domain", "already-warmed domains")+" off the shelf")
	}
	what = append(what, "creates "+pluralize(len(plan.Mailboxes), "mailbox", "mailboxes")+" on them")
	whatText := fmt.Sprintf("Orders the sending setup from %s: %s.", providerText(plan.Provider), joinAnd(what))
	if plan.Provider == sending.SandboxName {
		whatText += " This is the sandbox: nothing real is registered, created or billed."
	}

	when := fmt.Sprintf("Ordered as soon as it is approved. Ready on %s; all addresses can send at full volume from %s", formatDate(plan.ReadyOn), formatDate(plan.FullVolumeOn))
	if plan.FullVolumeOn.After(plan.ReadyOn) {
		when += " (after their warmup)"
	}
	when += "."

	return approvals.Request{
		Action:    sending.ToolOrder,
		Arguments: struct{}{}, // one order of the workspace's picks; the plan itself is in Details
		Details:   detailsOf(plan),
		Summary: fmt.Sprintf("Order the sending setup: %s and %s", pluralize(len(plan.Domains), "domain", "domains"),
			pluralize(len(plan.Mailboxes), "mailbox", "mailboxes")),
		Impact: approvals.Impact{
			What:        whatText,
			Items:       items,
			Who:         "No one is contacted: this prepares the addresses the workspace's emails will go out from.",
			When:        when,
			CostOnce:    centsMoney(plan.YearlyCost),
			CostMonthly: centsMoney(plan.MonthlyCost),
			Renewal: fmt.Sprintf("It renews automatically until cancelled: the domains every year (%s per year) and the mailboxes every month (%s per month). To cancel, contact support (contact_support).",
				plan.YearlyCost, plan.MonthlyCost),
			Undo: "It cannot be undone: once ordered, the domains are registered for a year and are not refunded, and mailbox months already paid are not refunded.",
		},
		Irreversible: true,
		DecideHere:   false,
	}
}

func providerText(p string) string {
	if p == sending.SandboxName {
		return "the sandbox provider"
	}
	return p
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// OrderSendingSetupAction carries out an approved order_sending_setup:
// register it with the approvals service under [sending.ToolOrder].
//
// Before acting it re-checks that the order can still be placed and that
// the plan is exactly the one approved (same domains, addresses and
// prices); otherwise the approval ends not done with why. An attempt
// resumed after a crash first looks whether the order was already placed,
// so that it is not placed twice.
func OrderSendingSetupAction(s *sending.Service) approvals.Executor {
	approved := func(ex approvals.Execution) (orderDetails, error) {
		var want orderDetails
		err := json.Unmarshal(ex.Approval.Details, &want)
		return want, err
	}
	return approvals.ExecutorFuncs{
		CheckFunc: func(ctx context.Context, ex approvals.Execution) error {
			want, err := approved(ex)
			if err != nil {
				return fmt.Errorf("read approved order: %w", err)
			}
			plan, err := s.PlanOrder(ctx, ex.Approval.WorkspaceID)
			if err != nil {
				return err
			}
			if !sameOrder(detailsOf(plan), want) {
				return vibesell.Errorf(vibesell.ECONFLICT,
					"the sending setup changed after this was approved (the picked domains, addresses or prices are different now), so nothing was ordered. Call %s again to ask for approval of the current setup.",
					sending.ToolOrder)
			}
			return nil
		},
		ExecuteFunc: func(ctx context.Context, ex approvals.Execution) (string, error) {
			want, err := approved(ex)
			if err != nil {
				return "", fmt.Errorf("read approved order: %w", err)
			}
			if ex.Resumed {
				done, readyOn, err := alreadyOrdered(ctx, s, ex, want)
				if err != nil {
					return "", err
				}
				if done {
					return orderDoneText(want, readyOn), nil
				}
			}
			plan, err := s.PlaceOrder(ctx, ex.Approval.WorkspaceID, &sending.PlaceOptions{
				Key: "approval:" + ex.Approval.ID,
				Expect: func(plan sending.OrderPlan) error {
					if !sameOrder(detailsOf(plan), want) {
						return vibesell.Errorf(vibesell.ECONFLICT,
							"the sending setup changed after this was approved, so nothing was ordered. Call %s again to ask for approval of the current setup.",
							sending.ToolOrder)
					}
					return nil
				},
			})
			if err != nil {
				return "", err
			}
			return orderDoneText(detailsOf(plan), plan.ReadyOn), nil
		},
	}
}

func sameOrder(a, b orderDetails) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// alreadyOrdered reports whether every domain and mailbox of the approved
// order is recorded as ordered: a crash came after the order was placed.
func alreadyOrdered(ctx context.Context, s *sending.Service, ex approvals.Execution, want orderDetails) (bool, time.Time, error) {
	st, err := s.Summary(ctx, ex.Approval.WorkspaceID)
	if err != nil {
		return false, time.Time{}, err
	}
	var ready time.Time
	for _, dm := range want.Domains {
		i := slices.IndexFunc(st.Domains, func(x sending.DomainStatus) bool { return x.Name == dm.Name })
		if i < 0 || st.Domains[i].Status == "chosen" {
			return false, time.Time{}, nil
		}
		if r := st.Domains[i].ReadyAt; r != nil && r.After(ready) {
			ready = *r
		}
	}
	for _, m := range want.Mailboxes {
		i := slices.IndexFunc(st.Mailboxes, func(x sending.MailboxStatus) bool { return x.Address == m.Address })
		if i < 0 || st.Mailboxes[i].Status == "planned" {
			return false, time.Time{}, nil
		}
	}
	return true, ready, nil
}

func orderDoneText(d orderDetails, readyOn time.Time) string {
	var names, boxes []string
	for _, dm := range d.Domains {
		names = append(names, dm.Name)
	}
	for _, m := range d.Mailboxes {
		boxes = append(boxes, m.Address)
	}
	text := fmt.Sprintf("Ordered from %s: %s, with %s (%s). They are being prepared and are ready on %s; %s shows their progress.",
		providerText(d.Provider), joinAnd(names), pluralize(len(boxes), "mailbox", "mailboxes"), strings.Join(boxes, ", "), formatDate(readyOn), sending.ToolGetSetup)
	if d.Provider == sending.SandboxName {
		text += " Sandbox: nothing real was registered, created or billed."
	}
	return text
}
