package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/toolkit"
)

// This file holds the approval tools: decide_approval and
// list_pending_approvals, which any approval goes through, and the text
// every tool that opens an approval answers with. The actions that wait
// for one live with their tools (order_sending_setup in sending_order.go)
// and are carried out once approved by their feature's executor
// (sending.NewOrderAction, audience.ImportAction, campaigns.LaunchAction…,
// registered in cmd/server/services.go; billing's plan change in
// cmd/server/billing.go).

// Output shapes of kinds approval and approvals.

type approvalImpact struct {
	What        string    `json:"what" jsonschema:"exactly what will happen, written by VibeSell"`
	Items       []string  `json:"items" jsonschema:"each thing it acts on, one per item (for an order: every domain and every address, with its price); in a list of approvals, only the first 5 (itemsTotal counts them all; list_pending_approvals with approval reads one whole)"`
	ItemsTotal  int       `json:"itemsTotal" jsonschema:"how many things it acts on in all"`
	Who         string    `json:"who" jsonschema:"who is contacted, or that no one is"`
	When        string    `json:"when" jsonschema:"when it happens once approved, and when it is ready"`
	CostOnce    moneyData `json:"costOnce" jsonschema:"what is paid once, when it is carried out"`
	CostMonthly moneyData `json:"costMonthly" jsonschema:"what is paid every month from then on"`
	Renewal     string    `json:"renewal" jsonschema:"what renews, when, and how to stop it"`
	Undo        string    `json:"undo" jsonschema:"whether and how it can be undone"`
	Charged     *string   `json:"charged" jsonschema:"what is charged when, in words, where the two amounts alone would mislead (an order charges the domains' first year and the mailboxes' first month when it is placed); null: costOnce when it is carried out, costMonthly every month from then"`
	Sandbox     bool      `json:"sandbox" jsonschema:"true: the amounts are sandbox amounts, shown as a real order would cost but never charged"`
	PersonOnly  *string   `json:"personOnly" jsonschema:"why only a signed-in person may approve it although it is neither paid nor irreversible, for the person; null otherwise"`
}

type approvalData struct {
	Approval        string            `json:"approval" jsonschema:"the approval id, to pass to decide_approval" pattern:"^ap_[0-9a-f]{16}$"`
	Action          string            `json:"action" jsonschema:"the action it decides: the tool that asked for it, e.g. order_sending_setup"`
	Status          string            `json:"status" enum:"pending,approved,done,not_done,rejected" jsonschema:"pending: waiting for a person's decision; approved: approved and being carried out right now; done: carried out (outcome says what was done); not_done: ended without being carried out (outcome says why: expired, replaced, no longer possible, failed); rejected: a person said no"`
	Summary         string            `json:"summary" jsonschema:"one sentence naming the action"`
	Impact          approvalImpact    `json:"impact" jsonschema:"what exactly will happen, written by VibeSell, never by the assistant"`
	Irreversible    bool              `json:"irreversible" jsonschema:"true when it cannot be undone once carried out"`
	ExpiresAt       time.Time         `json:"expiresAt" jsonschema:"when a pending approval expires: after it, it ends not_done and is never carried out"`
	DecideHere      bool              `json:"decideHere" jsonschema:"true: the person may decide in the card or by telling you (decide_approval), as approveVia says; false: only a signed-in person in the web app at appUrl may approve it (rejecting is allowed anywhere)"`
	ApproveVia      []string          `json:"approveVia" jsonschema:"the ways a pending approval can be approved now: card (the person clicks Approve in the card), conversation (the person tells you and you call decide_approval) and web (a signed-in person at appUrl); empty once it is no longer pending. Rejecting is allowed in every way." uniqueItems:"true"`
	AppURL          string            `json:"appUrl" jsonschema:"the page of this approval in the VibeSell web app, for the person to open and decide"`
	DecidedBy       *string           `json:"decidedBy" jsonschema:"who decided: the signed-in person's email for the web app; by a click in the card or relayed by you (as decidedVia says), the person your connection signed in (\"ada@acme.test, through Claude\"), or \"the person\" when the connection names no one; null until decided, and for an approval that ended undecided"`
	DecidedAt       *time.Time        `json:"decidedAt" jsonschema:"when it was decided; null until decided, and for an approval that ended undecided"`
	DecidedVia      *string           `json:"decidedVia" jsonschema:"where the decision came from: card (clicked in the card, proven by the card's one-time token), conversation (relayed by you, the assistant, through decide_approval) or web (a signed-in person in the web app); null until decided, and for an approval that ended undecided"`
	DecidedHostApps *bool             `json:"decidedHostApps" jsonschema:"for a decision clicked in the card or relayed by you: whether the app it came through declared the MCP Apps extension (can show cards) when it connected; null for the web app, until decided, and when not known"`
	Reason          *string           `json:"reason" jsonschema:"the reason given with the decision; null when none was given"`
	Outcome         *string           `json:"outcome" jsonschema:"once it has ended: what was done, or why it was not done or was rejected; null while pending or being carried out"`
	StartedAt       *time.Time        `json:"startedAt" jsonschema:"when VibeSell began carrying it out; null until then, and for one never carried out"`
	FinishedAt      *time.Time        `json:"finishedAt" jsonschema:"when it ended (done, not done or rejected); null until it has ended"`
	Progress        *approvalProgress `json:"progress" jsonschema:"for an approval the workspace's policy gives several approvers (k of n, stages): how many approved and whom it waits for; null when one person's decision is all it needs"`
	Shown           string            `json:"shown" jsonschema:"the SHA-256 of exactly what this approval shows the person (its summary, impact, amounts and recipients as they read them now): pass it as shown to decide_approval with the person's decision on what you showed them; a decision on what has changed since is refused, naming the change" pattern:"^[0-9a-f]{64}$"`
}

type approvalProgress struct {
	Approvals  int     `json:"approvals" jsonschema:"approvals counted so far; the same person counts once"`
	Needed     int     `json:"needed" jsonschema:"approvals it needs in all"`
	WaitingFor *string `json:"waitingFor" jsonschema:"whom it waits for (a stage of the policy, such as finance, or someone other than the person who asked); null once it waits for no one"`
	Text       string  `json:"text" jsonschema:"the same in words, for the person: 1 of 2 approvals; waiting for finance"`
}

type approvalOutput struct {
	Kind string `json:"kind" enum:"approval"`
	approvalData
}

type approvalsOutput struct {
	Kind       string         `json:"kind" enum:"approvals"`
	Approvals  []approvalData `json:"approvals" jsonschema:"this page of approvals, newest first, each with the first 5 of its items; with approval, exactly that one, whole"`
	NextCursor *string        `json:"nextCursor" jsonschema:"pass as cursor for the next page; null on the last page"`
}

func toApprovalData(a approvals.Approval) approvalData {
	items := a.Impact.Items
	if items == nil {
		items = []string{}
	}
	return approvalData{
		Approval: a.ID, Action: a.Action, Status: string(a.Status), Summary: a.Summary,
		Impact: approvalImpact{
			What: a.Impact.What, Items: items, ItemsTotal: len(items), Who: a.Impact.Who, When: a.Impact.When,
			CostOnce: moneyOf(a.Impact.CostOnce), CostMonthly: moneyOf(a.Impact.CostMonthly),
			Renewal: a.Impact.Renewal, Undo: a.Impact.Undo,
			Charged: strPtr(a.Impact.Charged), Sandbox: a.Impact.Sandbox, PersonOnly: strPtr(a.Impact.PersonOnly),
		},
		Irreversible: a.Irreversible, ExpiresAt: a.ExpiresAt, DecideHere: a.DecideHere, ApproveVia: a.ApproveWays(), AppURL: a.AppURL,
		DecidedBy: a.DecidedBy, DecidedAt: a.DecidedAt, DecidedVia: a.DecidedVia, DecidedHostApps: a.DecidedHostApps, Reason: a.Reason, Outcome: a.Outcome,
		StartedAt: a.StartedAt, FinishedAt: a.FinishedAt, Progress: progressOf(a), Shown: a.ShownHash(),
	}
}

// progressOf is where an approval of several approvers stands; nil for
// one person's decision.
func progressOf(a approvals.Approval) *approvalProgress {
	if !a.Staged() {
		return nil
	}
	p := a.Progress()
	return &approvalProgress{Approvals: p.Approvals, Needed: p.Needed, WaitingFor: strPtr(p.Waiting), Text: p.Text()}
}

// approvalMarkdown writes an approval for the assistant: what it would do,
// where it stands, and exactly what to do next.
func approvalMarkdown(ctx context.Context, a approvals.Approval, lead string) string {
	var b strings.Builder
	if lead != "" {
		b.WriteString(lead + "\n\n")
	}
	fmt.Fprintf(&b, "## Approval %s: %s\n\n", a.ID, a.Summary)
	fmt.Fprintf(&b, "Status: %s\n\n", vibesell.Stop(approvalStatusText(ctx, a)))
	heading := "What will happen"
	if a.Status != approvals.Pending {
		heading = "What was asked"
	}
	fmt.Fprintf(&b, "%s: %s\n", heading, a.Impact.What)
	b.WriteString(bulletList(a.Impact.Items))
	fmt.Fprintf(&b, "\nWho: %s\nWhen: %s\nCost: %s\nRenewal: %s\nCan it be undone: %s\n",
		a.Impact.Who, a.Impact.When, costText(a.Impact), a.Impact.Renewal, a.Impact.Undo)
	if a.Impact.PersonOnly != "" {
		fmt.Fprintf(&b, "Why only a person may approve it: %s\n", a.Impact.PersonOnly)
	}
	if a.Status == approvals.Pending {
		fmt.Fprintf(&b, "Expires: %s. If no one decides by then, nothing is done.\n", vibesell.FormatTimeFor(ctx, a.ExpiresAt))
	}
	fmt.Fprintf(&b, "\nNext: %s\n", approvalNext(a))
	return b.String()
}

// costText says what is charged when: in the feature's words when it
// wrote them, otherwise from the two amounts, marked as sandbox amounts in
// the sandbox.
func costText(im approvals.Impact) string {
	if im.Charged != "" {
		return im.Charged
	}
	if im.CostOnce.IsZero() && im.CostMonthly.IsZero() {
		return "nothing."
	}
	text := fmt.Sprintf("%s when it is carried out, then %s per month.", im.CostOnce, im.CostMonthly)
	if im.Sandbox {
		text += " These are sandbox amounts: nothing is charged."
	}
	return text
}

func approvalStatusText(ctx context.Context, a approvals.Approval) string {
	switch a.Status {
	case approvals.Pending:
		if a.Staged() {
			return "pending, " + a.Progress().Text()
		}
		return "pending, waiting for the person's decision"
	case approvals.Approved:
		return fmt.Sprintf("approved by %s (%s) on %s; VibeSell is carrying it out now", textOf(a.DecidedBy), viaText(a.DecidedVia), vibesell.FormatTimeFor(ctx, *a.DecidedAt))
	case approvals.Done:
		return "done: " + textOf(a.Outcome)
	case approvals.Rejected:
		return "rejected: " + textOf(a.Outcome)
	}
	return "not done: " + textOf(a.Outcome)
}

// viaText says where a decision came from, for the assistant.
func viaText(via *string) string {
	switch textOf(via) {
	case approvals.ViaCard:
		return "clicked in the card"
	case approvals.ViaConversation:
		return "relayed by the assistant"
	case approvals.ViaWeb:
		return "in the web app"
	}
	return textOf(via)
}

func textOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// personOnlyBecause says truly why only a person may approve a: what it
// costs and whether it can be undone (a plan change costs money but can
// be changed back, so it is not said to be final); a free action says
// why in the impact (PersonOnly), shown above this sentence.
func personOnlyBecause(a approvals.Approval) string {
	why := a.WebOnlyBecause()
	if !a.Impact.Paid() && !a.Irreversible {
		why += " (see why above)" // the impact says why this one is
	}
	return why
}

func approvalNext(a approvals.Approval) string {
	switch {
	case a.Status == approvals.Pending && a.DecideHere && a.ClickedOnly:
		return fmt.Sprintf("Put this to the person. This workspace wants approvals of this action made by the person themselves: they approve it by clicking Approve in the card, or in the web app at %s. Do not call decide_approval for it, to approve or to reject (it will refuse): if the person says no, they click Reject in the card or reject it in the web app.", vibesell.PersonOpens(a.AppURL))
	case a.Status == approvals.Pending && !a.DecideHere:
		return fmt.Sprintf("Only a signed-in person can approve this, in the VibeSell web app, because %s. Give the person this link: %s. Do not call decide_approval to approve it (it will refuse). If the person says no, call decide_approval with approval %q, decision \"reject\" and their reason.", personOnlyBecause(a), vibesell.PersonOpens(a.AppURL), a.ID)
	case a.Status == approvals.Pending:
		return fmt.Sprintf("Put this to the person and wait for their decision (they can also decide in the card, or in the web app at %s). When they decide, call decide_approval with approval %q, shown %q (what you showed them) and decision \"approve\" or \"reject\". Never decide for them.", vibesell.PersonOpens(a.AppURL), a.ID, a.ShownHash())
	case a.Status == approvals.Approved:
		return fmt.Sprintf("Nothing to do: it runs in the background. To see the outcome later, call list_pending_approvals, or the person can open %s.", vibesell.PersonOpens(a.AppURL))
	case a.Status == approvals.Done:
		return "Tell the person it is done."
	case a.Status == approvals.Rejected:
		return "Nothing will be done. Ask the person what they would like instead."
	}
	return fmt.Sprintf("Nothing was done. If the person still wants it, call %s again for a new approval.", a.Action)
}

// decide_approval

type decideApprovalInput struct {
	Approval string `json:"approval" jsonschema:"The approval id, from the approval card or list_pending_approvals." example:"ap_3f9a0c12d4e5b678" pattern:"^ap_[0-9a-f]{16}$"`
	Decision string `json:"decision" jsonschema:"The person's decision: approve or reject." example:"reject" enum:"approve,reject"`
	Reason   string `json:"reason,omitempty" jsonschema:"Why, in the person's words; kept in the approval's history. Optional." example:"Too expensive for now" maxLength:"1000"`
	Shown    string `json:"shown,omitempty" jsonschema:"The approval's shown value from the result you showed the person: the decision is recorded on exactly that, and refused if the approval changed since (show it again then). Optional: left out, the decision is recorded on what the approval shows now." example:"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" pattern:"^[0-9a-f]{64}$"`
}

func decideApproval(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[decideApprovalInput, approvalOutput]{
		Name:        vibesell.ToolDecideApproval,
		Title:       "Decide an approval",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.Yes, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Records the person's decision on an approval card (kind approval): approve or reject,
			with an optional reason kept in its history. Approving starts the action (ordering,
			importing, launching…): it runs once, in the background, and this call waits up to 5
			seconds to report the outcome (status done or not_done; approved while still running).
			Rejecting ends it; nothing is done. Call it only with a decision the person gave you;
			never approve on your own initiative. A decision through this tool is always recorded as
			relayed by you (the person's clicks in the card are recorded by the card itself).
			Approvals with decideHere false (paid or irreversible, such as ordering domains and
			mailboxes), or whose approveVia leaves out conversation (the workspace wants the person
			to click), cannot be approved here: the call refuses and says where the person approves.
			Rejecting here is allowed for decideHere false, but not when the workspace wants the
			person to click: then the person rejects in the card or the web app too. A decision is
			taken once: if the approval was already decided (by anyone, anywhere) or has expired,
			the result reports what is on record and this decision is not recorded. Not for asking
			(the action tools open approvals) or for finding approvals (list_pending_approvals).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in decideApprovalInput) (toolkit.Result[approvalOutput], error) {
			r, err := d.Approvals.Relay(ctx, p.WorkspaceID, in.Approval, approvals.Relayed{
				Approve: in.Decision == "approve", Reason: in.Reason, Person: personOf(p), HostApps: hostApps(ctx, d, p), Shown: in.Shown,
			})
			if err != nil {
				return toolkit.Result[approvalOutput]{}, err
			}
			return toolkit.Result[approvalOutput]{Markdown: approvalMarkdown(ctx, r.Approval, relayLead(ctx, r)), Data: approvalOutput{approvalData: toApprovalData(r.Approval)}}, nil
		},
	})
}

// personOf names the person an OAuth connection signed in, for the
// approvals' record; empty for a workspace token or stdio, which stand
// for no one in particular.
func personOf(p auth.Principal) string {
	if p.UserEmail == "" {
		return ""
	}
	return approvals.Person(p.UserEmail, p.ClientName)
}

// relayLead says whether the relayed decision was recorded, and if not,
// what stands instead.
func relayLead(ctx context.Context, r approvals.Relay) string {
	a := r.Approval
	switch {
	case r.Taken && r.Approve && a.Status == approvals.Pending:
		return fmt.Sprintf("Approval counted and recorded: %s. Nothing is done until every approval needed is in.", a.Progress().Text())
	case r.Taken && r.Approve:
		return "Approved and recorded."
	case r.Taken:
		return "Rejected and recorded. Nothing will be done."
	case a.DecidedAt == nil:
		return fmt.Sprintf("Not recorded: this approval had already ended before anyone decided (%s).", textOf(a.Outcome))
	}
	return fmt.Sprintf("Not recorded: this approval was already decided (%s by %s, %s, %s); the first decision stands.",
		decisionWord(a), textOf(a.DecidedBy), viaText(a.DecidedVia), vibesell.FormatTimeFor(ctx, *a.DecidedAt))
}

func decisionWord(a approvals.Approval) string {
	if a.Status == approvals.Rejected {
		return "rejected"
	}
	return "approved"
}

// list_pending_approvals

type listApprovalsInput struct {
	Approval       string `json:"approval,omitempty" jsonschema:"One approval id, to read exactly that approval as it stands now, whatever its status, as a one-item list (includeDecided and limit are then not needed; cursor must be left out). Left out: the list, page by page." example:"ap_3f9a0c12d4e5b678" pattern:"^ap_[0-9a-f]{16}$"`
	IncludeDecided bool   `json:"includeDecided,omitempty" jsonschema:"Also list approvals that have ended (done, not done, rejected), to look up an outcome. Left out or false: only those waiting for a decision or being carried out." example:"false"`
	Limit          int    `json:"limit,omitempty" jsonschema:"How many approvals per page; 20 when left out." example:"20" minimum:"1" maximum:"20"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"Where to continue: the nextCursor of the previous page. Leave it out for the first page." example:"MjAyNi0xMi0wMlQwOTowMDowMFp8YXBfM2Y5YTBjMTJkNGU1YjY3OA" maxLength:"200"`
}

func listPendingApprovals(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[listApprovalsInput, approvalsOutput]{
		Name:        vibesell.ToolListPendingApprovals,
		Title:       "List pending approvals",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.Yes, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeRead},
		Description: `
			Lists the workspace's approvals waiting for a person's decision, and those approved and
			still being carried out, newest first, each with its id, status, summary, impact (what,
			who, cost once and per month), expiry, whether it can be decided here (decideHere) and
			its web app link. With includeDecided it also lists ended ones (done, not done,
			rejected) with their outcome. Paginated: 20 per page by default, continue with
			nextCursor. With approval (an id) it returns exactly that approval as it stands now,
			whatever its status and however old, as a one-item list with no next page; an id that is
			not an approval of this workspace is refused as not found. It reads only; approvals past
			their expiry are shown as not done (expired). Use it to find an approval id for
			decide_approval or to check an outcome. Not for deciding (decide_approval) or asking for
			a new approval (the action tools, such as order_sending_setup).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in listApprovalsInput) (toolkit.Result[approvalsOutput], error) {
			if in.Approval != "" {
				return readApproval(ctx, d, p, in)
			}
			filter := approvals.Open
			if in.IncludeDecided {
				filter = approvals.All
			}
			page, err := d.Approvals.List(ctx, p.WorkspaceID, approvals.ListOptions{Filter: filter, Limit: in.Limit, Cursor: in.Cursor})
			if err != nil {
				return toolkit.Result[approvalsOutput]{}, err
			}
			out := approvalsOutput{Approvals: []approvalData{}, NextCursor: strPtr(page.Next)}
			var b strings.Builder
			what := "waiting for a decision or being carried out"
			if in.IncludeDecided {
				what = "of any status"
			}
			if len(page.Approvals) == 0 {
				fmt.Fprintf(&b, "No approvals %s%s.\n", what, pickText(in.Cursor == "", "", " on this page"))
			} else {
				fmt.Fprintf(&b, "## Approvals %s, newest first\n\n", what)
			}
			for _, a := range page.Approvals {
				out.Approvals = append(out.Approvals, listedApproval(a))
				fmt.Fprintf(&b, "- **%s** (%s): %s Cost: %s Status: %s", a.ID, a.Action, vibesell.Stop(a.Summary),
					costText(a.Impact), vibesell.Stop(approvalStatusText(ctx, a)))
				switch {
				case a.Status == approvals.Pending && !a.DecideHere:
					fmt.Fprintf(&b, " Expires %s. Only a signed-in person can approve it, at %s.", vibesell.FormatTimeFor(ctx, a.ExpiresAt), vibesell.PersonOpens(a.AppURL))
				case a.Status == approvals.Pending && a.ClickedOnly:
					fmt.Fprintf(&b, " Expires %s. The person approves it themselves, by a click in the card or at %s; decide_approval can only reject it.", vibesell.FormatTimeFor(ctx, a.ExpiresAt), vibesell.PersonOpens(a.AppURL))
				case a.Status == approvals.Pending:
					fmt.Fprintf(&b, " Expires %s. The person can decide in the card, in the conversation (decide_approval) or at %s.", vibesell.FormatTimeFor(ctx, a.ExpiresAt), vibesell.PersonOpens(a.AppURL))
				case a.DecidedVia != nil:
					fmt.Fprintf(&b, " Decided %s.", viaText(a.DecidedVia))
				}
				b.WriteString("\n")
			}
			if page.Next != "" {
				fmt.Fprintf(&b, "\nMore on the next page: call list_pending_approvals with cursor %q.\n", page.Next)
			}
			if slices.ContainsFunc(out.Approvals, func(a approvalData) bool { return a.Impact.ItemsTotal > len(a.Impact.Items) }) {
				fmt.Fprintf(&b, "\nA list carries the first %d things each approval acts on; list_pending_approvals with approval (its id) reads one whole.\n", listedItems)
			}
			b.WriteString("\nPut pending approvals to the person; never decide for them. Approve only what they approved, with decide_approval, and only where decideHere is true; otherwise give them the link.\n")
			return toolkit.Result[approvalsOutput]{Markdown: b.String(), Data: out}, nil
		},
	})
}

// listedItems is how many of an approval's items a list carries: an
// order acts on up to 60 domains and addresses, and a page of 20 must
// stay within the bound of a result (vibesell.MaxResultStructured).
const listedItems = 5

// listedApproval is an approval as a list shows it: its first items, and
// how many there are.
func listedApproval(a approvals.Approval) approvalData {
	d := toApprovalData(a)
	if len(d.Impact.Items) > listedItems {
		d.Impact.Items = d.Impact.Items[:listedItems]
	}
	return d
}

// readApproval answers list_pending_approvals for one approval id: that
// approval as it stands now, as a one-item list with no next page.
func readApproval(ctx context.Context, d Deps, p auth.Principal, in listApprovalsInput) (toolkit.Result[approvalsOutput], error) {
	if in.Cursor != "" {
		return toolkit.Result[approvalsOutput]{}, vibesell.Errorf(vibesell.EINVALID,
			"approval reads one approval, which has no pages: leave cursor out (or leave approval out to page through the list).")
	}
	a, err := d.Approvals.Current(ctx, p.WorkspaceID, in.Approval)
	if err != nil {
		return toolkit.Result[approvalsOutput]{}, err
	}
	return toolkit.Result[approvalsOutput]{
		Markdown: approvalMarkdown(ctx, a, ""),
		Data:     approvalsOutput{Approvals: []approvalData{toApprovalData(a)}},
	}, nil
}

// requestLeads are what an approval-opening tool says first: the approval
// it has just asked for, or the same request's approval already running or
// still waiting (asking again returns that one).
type requestLeads struct {
	asked, running, waiting string
}

// requestedApproval is the result of an approval-opening tool.
func requestedApproval(ctx context.Context, a approvals.Approval, created bool, l requestLeads) (toolkit.Result[approvalOutput], error) {
	lead := l.asked
	switch {
	case !created && a.Status == approvals.Approved:
		lead = l.running
	case !created:
		lead = l.waiting
	}
	return toolkit.Result[approvalOutput]{Markdown: approvalMarkdown(ctx, a, lead), Data: approvalOutput{approvalData: toApprovalData(a)}}, nil
}
