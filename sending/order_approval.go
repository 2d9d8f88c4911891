package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/approvals"
)

// Ordering goes through an approval: [Service.RequestOrder] opens it with
// the order's terms (what is paid, when, what renews, what cannot be
// undone), and [OrderAction], registered with the approvals service,
// places the order once a person approved it. What an approval stores and
// the web app shows is written for a person; the tools add the next tool
// for the assistant.

// RequestOrder asks for approval to order the setup as it is now: it opens
// an approval (or returns the one already waiting for this same order)
// stating exactly each domain and address with its price. It orders
// nothing itself. requestedBy is the signed-in person it is asked for
// (approvals.Request.RequestedBy), empty when no one is known.
//
// Refusals: those of [Service.PlanOrder]; EPAYMENTREQUIRED when the plan
// does not allow that many more mailboxes; those of the approvals service.
func (s *Service) RequestOrder(ctx context.Context, ws uuid.UUID, requestedBy string) (a approvals.Approval, created bool, err error) {
	if s.approvals == nil {
		return approvals.Approval{}, false, errors.New("sending: no approvals service is wired to ask for an order's approval")
	}
	plan, err := s.PlanOrder(ctx, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if s.limit != nil {
		if err := s.limit.Check(ctx, ws, len(plan.Mailboxes)); err != nil {
			return approvals.Approval{}, false, err
		}
	}
	z, err := s.ConfirmedSizing(ctx, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	req := s.orderRequest(plan, z)
	req.WorkspaceID, req.RequestedBy = ws, requestedBy
	return s.approvals.Open(ctx, req)
}

// PendingOrder returns the order approval waiting for a decision (or
// approved and being placed), or nil.
func (s *Service) PendingOrder(ctx context.Context, ws uuid.UUID) (*approvals.Approval, error) {
	if s.approvals == nil {
		return nil, nil
	}
	page, err := s.approvals.List(ctx, ws, approvals.ListOptions{Filter: approvals.Open, Limit: 100})
	if err != nil {
		return nil, fmt.Errorf("look for a pending order: %w", err)
	}
	for _, a := range page.Approvals {
		if a.Action == vibesell.ToolOrderSendingSetup {
			return &a, nil
		}
	}
	return nil, nil
}

// orderDetails is exactly what an order approval covers. The executor
// orders only if the plan is still this, so the person pays for what they
// approved and nothing else. Its JSON is stored with each approval: it
// never changes shape.
type orderDetails struct {
	Provider  string        `json:"provider"`
	Currency  string        `json:"currency"`
	Domains   []orderDomain `json:"domains"`
	Mailboxes []orderBox    `json:"mailboxes"`
}

type orderDomain struct {
	Name        string `json:"name"`
	Origin      Origin `json:"origin"`
	YearlyCents int64  `json:"yearlyCents"`
}

type orderBox struct {
	Address      string `json:"address"`
	MonthlyCents int64  `json:"monthlyCents"`
}

func detailsOf(plan OrderPlan) orderDetails {
	d := orderDetails{Provider: plan.Provider, Currency: plan.MonthlyCost.Currency, Domains: []orderDomain{}, Mailboxes: []orderBox{}}
	for _, dm := range plan.Domains {
		d.Domains = append(d.Domains, orderDomain{Name: dm.Name, Origin: dm.Origin, YearlyCents: dm.YearlyPrice.Minor})
	}
	for _, m := range plan.Mailboxes {
		d.Mailboxes = append(d.Mailboxes, orderBox{Address: m.Address, MonthlyCents: m.MonthlyPrice.Minor})
	}
	return d
}

func (d orderDetails) equal(o orderDetails) bool {
	return d.Provider == o.Provider && d.Currency == o.Currency && slices.Equal(d.Domains, o.Domains) && slices.Equal(d.Mailboxes, o.Mailboxes)
}

// orderRequest writes the approval of an order plan: its impact is the
// only description of the order the person sees before paying, so it is
// written for them.
func (s *Service) orderRequest(plan OrderPlan, z *Sizing) approvals.Request {
	sandbox := plan.Provider == SandboxName
	var newDomains, warmed int
	var items []string
	for _, dm := range plan.Domains {
		kind := "new domain, registered for the workspace"
		if dm.Origin == OriginWarmed {
			kind, warmed = "already-warmed domain, ready to send from", warmed+1
		} else {
			newDomains++
		}
		items = append(items, fmt.Sprintf("%s: %s, %s per year%s", dm.Name, kind, dm.YearlyPrice, sandboxAmount(sandbox)))
	}
	for _, m := range plan.Mailboxes {
		items = append(items, fmt.Sprintf("%s: mailbox%s, %s per month%s", m.Address, MailboxTraits(m.SenderName, m.Prewarmed), m.MonthlyPrice, sandboxAmount(sandbox)))
	}

	var what []string
	if newDomains > 0 {
		what = append(what, "registers "+vibesell.Plural(newDomains, "new domain", "new domains"))
	}
	if warmed > 0 {
		what = append(what, "takes over "+vibesell.Plural(warmed, "already-warmed domain", "already-warmed domains"))
	}
	doms, boxes := domainsCounted(len(plan.Domains)), mailboxesCounted(len(plan.Mailboxes))
	what = append(what, "creates "+boxes.Count()+" on "+doms.Them())
	whatText := fmt.Sprintf("Orders the sending setup from %s: %s.", providerText(plan.Provider), vibesell.JoinAnd(what))
	if sandbox {
		whatText += " This is the sandbox: nothing real is registered, created or billed, and every amount here is a sandbox amount that is never charged."
	}
	if gap := capacityOf(z, plan.Domains, plan.Mailboxes, s.cfg); gap != nil && gap.Off() {
		whatText += " " + gap.Sentence()
	}

	when := fmt.Sprintf("Ordered as soon as it is approved. Ready on %s", vibesell.FormatDate(plan.ReadyOn))
	if plan.FullVolumeOn.After(plan.ReadyOn) {
		when += fmt.Sprintf("; the warmup then starts by itself, and %s can send at full volume from %s.", allAddresses(boxes), vibesell.FormatDate(plan.FullVolumeOn))
	} else {
		when += fmt.Sprintf("; %s can send at full volume from %s.", allAddresses(boxes), vibesell.FormatDate(plan.FullVolumeOn))
	}

	// The first charge is one figure, computed once: the cost now and
	// every sentence that names it say the same amount.
	now := plan.FirstCharge()
	renewal := fmt.Sprintf("It renews automatically until cancelled: %s every year (%s per year) and %s every month (%s per month). Charged when it is ordered: %s first year (%s) and %s first month (%s). To cancel, contact support.",
		doms.The(), plan.YearlyCost, boxes.The(), plan.MonthlyCost, doms.Of(), plan.YearlyCost, boxes.Of(), plan.MonthlyCost)
	charged := fmt.Sprintf("%s when it is ordered (%s first year, %s, and %s first month, %s), then %s per month for %s and %s per year for %s.",
		now, doms.Of(), plan.YearlyCost, boxes.Of(), plan.MonthlyCost, plan.MonthlyCost, boxes.The(), plan.YearlyCost, doms.The())
	undo := fmt.Sprintf("It cannot be undone: once ordered, %s %s registered for a year and %s not refunded, and mailbox months already paid are not refunded.", doms.The(), doms.Are(), doms.Are())
	if sandbox {
		renewal = fmt.Sprintf("In the sandbox nothing renews and nothing is charged; a real order would renew %s every year (%s per year) and %s every month (%s per month).",
			doms.The(), plan.YearlyCost, boxes.The(), plan.MonthlyCost)
		undo = "Nothing real is ordered in the sandbox, so nothing is paid or kept."
		charged = "Nothing: this is the sandbox, and every amount here is a sandbox amount that is never charged. A real order would charge " + charged
	}
	return approvals.Request{
		Action:    vibesell.ToolOrderSendingSetup,
		Arguments: struct{}{}, // one order of the workspace's picks; the plan itself is in Details
		Details:   detailsOf(plan),
		Summary:   fmt.Sprintf("Order the sending setup: %s and %s", doms.Count(), boxes.Count()),
		Impact: approvals.Impact{
			What:        whatText,
			Items:       items,
			Who:         "No one is contacted: this prepares the addresses the workspace's emails will go out from.",
			When:        when,
			CostOnce:    now,
			CostMonthly: plan.MonthlyCost,
			Renewal:     renewal,
			Undo:        undo,
			Charged:     charged,
			Sandbox:     sandbox,
		},
		// Only a real order is irreversible: in the sandbox nothing is
		// registered or paid, so nothing is lost by approving.
		Irreversible: !sandbox,
		DecideHere:   false,
	}
}

// allAddresses names every address of an order, agreeing with the count.
func allAddresses(boxes counted) string {
	if boxes.n == 1 {
		return "the address"
	}
	return "all addresses"
}

func sandboxAmount(sandbox bool) string {
	if sandbox {
		return " (a sandbox amount: nothing is charged)"
	}
	return ""
}

func providerText(p string) string {
	if p == SandboxName {
		return "the sandbox provider"
	}
	return p
}

// MailboxTraits describes a mailbox after its address, the same way in
// every text: ", signed Ada Lovelace, already warmed up".
func MailboxTraits(senderName string, prewarmed bool) string {
	var out string
	if senderName != "" {
		out += ", signed " + senderName
	}
	if prewarmed {
		out += ", already warmed up"
	}
	return out
}

// OrderAction carries out an approved order: register it with the
// approvals service under order_sending_setup.
//
// Before acting it re-checks that the order can still be placed and that
// the plan is exactly the one approved (same domains, addresses and
// prices); otherwise the approval ends not done with why. An attempt
// resumed after a crash first looks whether the order was already placed,
// so that it is not placed twice.
type OrderAction struct{ s *Service }

// NewOrderAction returns the executor of s's order approvals.
func NewOrderAction(s *Service) *OrderAction { return &OrderAction{s: s} }

var _ approvals.Executor = (*OrderAction)(nil)

// errOrderChanged is the outcome of an approval whose order changed since
// it was approved.
var errOrderChanged = vibesell.Errorf(vibesell.ECONFLICT,
	"the sending setup changed after this was approved (the picked domains, addresses or prices are different now), so nothing was ordered. Ask the assistant to order the current setup; it will ask for a new approval.")

// Check refuses when the approved order can no longer be placed as it was
// approved.
func (o *OrderAction) Check(ctx context.Context, ex approvals.Execution) error {
	want, err := approvedOrder(ex)
	if err != nil {
		return err
	}
	plan, err := o.s.PlanOrder(ctx, ex.Approval.WorkspaceID)
	if err != nil {
		return asApproved(err)
	}
	if !detailsOf(plan).equal(want) {
		return errOrderChanged
	}
	return nil
}

// Execute places the order and says, for a person, what was ordered.
func (o *OrderAction) Execute(ctx context.Context, ex approvals.Execution) (string, error) {
	want, err := approvedOrder(ex)
	if err != nil {
		return "", err
	}
	ws := ex.Approval.WorkspaceID
	if ex.Resumed {
		done, readyOn, orderedAt, err := o.s.alreadyOrdered(ctx, ws, want)
		if err != nil {
			return "", err
		}
		if done {
			return orderDoneText(want, readyOn, orderedAt), nil
		}
	}
	plan, err := o.s.PlaceOrder(ctx, ws, &PlaceOptions{
		Key: ex.IdempotencyKey,
		Expect: func(plan OrderPlan) error {
			if !detailsOf(plan).equal(want) {
				return errOrderChanged
			}
			return nil
		},
	})
	if err != nil {
		return "", asApproved(err)
	}
	return orderDoneText(detailsOf(plan), plan.ReadyOn, o.s.clock.Now()), nil
}

// asApproved says why an approved order cannot be placed: with nothing
// left to order, someone ordered or dropped the picks since the approval,
// which is a change of the setup, not a request to pick again.
func asApproved(err error) error {
	if errors.Is(err, errNothingToOrder) || errors.As(err, new(allOrdered)) {
		return errOrderChanged
	}
	return err
}

func approvedOrder(ex approvals.Execution) (orderDetails, error) {
	var want orderDetails
	if err := json.Unmarshal(ex.Approval.Details, &want); err != nil {
		return orderDetails{}, fmt.Errorf("read approved order %s: %w", ex.Approval.ID, err)
	}
	return want, nil
}

// alreadyOrdered reports whether every domain and mailbox of the approved
// order is recorded as ordered (a crash came after the order was placed),
// with the day they are ready and when they were ordered.
func (s *Service) alreadyOrdered(ctx context.Context, ws uuid.UUID, want orderDetails) (bool, time.Time, time.Time, error) {
	st, err := s.Summary(ctx, ws)
	if err != nil {
		return false, time.Time{}, time.Time{}, err
	}
	var ready, ordered time.Time
	for _, dm := range want.Domains {
		i := slices.IndexFunc(st.Domains, func(x DomainStatus) bool { return x.Name == dm.Name })
		if i < 0 || st.Domains[i].Status == DomainChosen {
			return false, time.Time{}, time.Time{}, nil
		}
		if r := st.Domains[i].ReadyAt; r != nil && r.After(ready) {
			ready = *r
		}
		if o := st.Domains[i].OrderedAt; o != nil && o.After(ordered) {
			ordered = *o
		}
	}
	for _, m := range want.Mailboxes {
		i := slices.IndexFunc(st.Mailboxes, func(x MailboxStatus) bool { return x.Address == m.Address })
		if i < 0 || st.Mailboxes[i].Status == MailboxPlanned {
			return false, time.Time{}, time.Time{}, nil
		}
	}
	return true, ready, ordered, nil
}

// orderDoneText is the outcome of a placed order, for a person. It is
// the approval's record, read long after it was written (the addresses
// are ready and warm by then): it says what was done and when, in the past
// tense, and where the setup stands now is read from the setup, never
// from here.
func orderDoneText(d orderDetails, readyOn, orderedAt time.Time) string {
	var names, boxes []string
	for _, dm := range d.Domains {
		names = append(names, dm.Name)
	}
	for _, m := range d.Mailboxes {
		boxes = append(boxes, m.Address)
	}
	mailboxes := mailboxesCounted(len(boxes))
	text := fmt.Sprintf("Ordered from %s on %s: %s, with %s (%s). When ordered, %s %s due to be ready on %s, %s warmup then starting by itself; the Sending page shows where %s %s now.",
		providerText(d.Provider), vibesell.FormatTime(orderedAt), vibesell.JoinAnd(names), mailboxes.Count(), strings.Join(boxes, ", "),
		mailboxes.They(), mailboxes.Were(), vibesell.FormatDate(readyOn), mailboxes.pick("its", "their"), mailboxes.They(), mailboxes.pick("stands", "stand"))
	if d.Provider == SandboxName {
		text += " Sandbox: nothing real was registered, created or billed."
	}
	return text
}
