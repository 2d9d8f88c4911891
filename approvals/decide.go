package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/proof"
	"vibesell/store"
)

// Decision is a person's answer to an approval.
type Decision struct {
	Approve bool
	// By names who decided: the signed-in person's email in the web app,
	// or what the conversation can tell of them.
	By string
	// ByUser is the signed-in person's account, when there is one.
	ByUser *uuid.UUID
	// Via is where the decision was made: card (clicked, with Token),
	// conversation (relayed by the assistant) or web.
	Via string
	// Token is the card's one-time decision token (package proof), which
	// a decision via the card needs and uses up.
	Token string
	// HostApps is whether the MCP session the decision came through
	// declared the MCP Apps extension; nil when not known.
	HostApps *bool
	// Reason is optional, at most 1000 characters.
	Reason string
	// Shown is the hash of what the decider was shown ([Approval.ShownHash],
	// which the card, the web page and the tools' results carry); a
	// decision on what the approval no longer shows is refused. Empty (a
	// relayed decision that names none): the decision is recorded on what
	// it shows at the decision.
	Shown string
}

// Decide takes a decision about an approval of the workspace, exactly once.
//
// It returns the approval as it stands afterwards and whether this call's
// decision was taken. When taken is false the approval carries the decision
// on record (or its expiry), which may differ from the one asked for: of
// concurrent decisions, on any number of replicas, exactly one is taken.
// Approving enqueues the execution in the same transaction.
//
// Refusals: ENOTFOUND for an approval not in the workspace; EINVALID when
// approving an approval with DecideHere false from anywhere but the web app
// (the sentence gives its AppURL), when approving as relayed an approval
// whose action the workspace wants clicked ([Approval].ClickedOnly), for a
// decision via the card without a token [proof.Redeem] accepts, or for a
// reason over 1000 characters; ECONFLICT when what the approval shows
// changed since the decider saw it (d.Shown), naming what changed.
func (s *Service) Decide(ctx context.Context, ws uuid.UUID, id string, d Decision) (Approval, bool, error) {
	if !validID(id) {
		return Approval{}, false, errNotFound(id)
	}
	switch d.Via {
	case ViaCard:
		if d.Token == "" {
			return Approval{}, false, errors.New("approvals: a decision via the card needs the card's token")
		}
	case ViaConversation, ViaWeb:
	default:
		return Approval{}, false, fmt.Errorf("approvals: unknown decision channel %q", d.Via)
	}
	if strings.TrimSpace(d.By) == "" {
		return Approval{}, false, errors.New("approvals: a decision needs who made it")
	}
	d.Reason = strings.TrimSpace(d.Reason)
	if strings.ContainsFunc(d.Reason, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }) {
		return Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"The reason holds a control character (such as NUL), which cannot be kept. Write it again as plain text.")
	}
	if len([]rune(d.Reason)) > 1000 {
		return Approval{}, false, vibesell.Errorf(vibesell.EINVALID,
			"The reason is %d characters long; keep it to 1,000 at most.", len([]rune(d.Reason)))
	}
	var reason *string
	if d.Reason != "" {
		reason = &d.Reason
	}

	// A status never goes back to pending: an approval decided already is
	// answered from a plain read, without queueing on the row lock. A
	// click's token is used up whatever the approval's status, so that a
	// token works once, always.
	if d.Via != ViaCard {
		if a, err := s.Find(ctx, ws, id); err != nil || a.Status != Pending {
			return a, false, err
		}
	}

	// What it would do may have changed since it opened: brought up to
	// date first, so a decision on what it said before is refused below.
	if err := s.revise(ctx, ws, id); err != nil {
		return Approval{}, false, err
	}

	var out Approval
	var taken bool
	var refused string
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.clock.Now()
		locked, err := s.lockApproval(ctx, tx, ws, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNotFound(id)
		}
		if err != nil {
			return err
		}
		status, expiresAt, decideHere, clickedOnly := string(locked.Status), locked.ExpiresAt, locked.DecideHere, locked.ClickedOnly
		if d.Via == ViaCard {
			if err := proof.Redeem(ctx, tx, s.clock, ws, id, d.Token); err != nil {
				return err
			}
		}
		if status == "pending" && now.Before(expiresAt) {
			if d.Shown, err = s.checkShown(ctx, tx, ws, id, d.Shown); err != nil {
				return err
			}
		}
		switch {
		case status != "pending":
			// Decided before (or expired): the decision on record stands.
		case !now.Before(expiresAt):
			if err := s.expire(ctx, tx, now, expireScope{workspace: &ws, id: &id}); err != nil {
				return err
			}
		case d.Approve && !decideHere && d.Via != ViaWeb:
			if d.Via == ViaConversation {
				d.By, d.ByUser = ActorAssistant, nil // the refused attempt is the assistant's, whoever it relayed
			}
			// Kept in the trail: an attempt to approve a paid or
			// irreversible action outside the web app is worth seeing.
			refused = refusedWeb
			if err := recordRefused(ctx, tx, ws, id, now, status, d, "Only a signed-in person in the web app may approve this."); err != nil {
				return err
			}
		case d.Approve && clickedOnly && d.Via == ViaConversation:
			d.By, d.ByUser = ActorAssistant, nil
			refused = refusedPolicy
			if err := recordRefused(ctx, tx, ws, id, now, status, d,
				"The workspace wants this approved by a click in the card or in the web app, not passed on by the assistant."); err != nil {
				return err
			}
		case clickedOnly && d.Via == ViaConversation:
			// The rule is about who decides, not only who approves: a
			// rejection passed on by the assistant could be the model's
			// own, and would end what the person meant to approve. Not
			// kept in the trail: nothing was at stake.
			refused = refusedPolicyReject
		case d.Approve:
			// A policy of several approvers counts this approval and
			// approves only with the last one needed (stages.go).
			if err := checkReason(ctx, tx, ws, locked.Action, true, reason); err != nil {
				return err
			}
			complete, err := s.countVote(ctx, tx, locked, now, &d, reason)
			if err != nil {
				return err
			}
			if !complete {
				taken = true
				break
			}
			if _, err := tx.Exec(ctx, `UPDATE approvals SET status = 'approved', decided_at = $3, decided_by = $4,
				decided_by_user = $5, decided_via = $6, reason = $7, decided_host_apps = $8 WHERE workspace_id = $1 AND id = $2`,
				ws, id, now, d.By, d.ByUser, d.Via, reason, d.HostApps); err != nil {
				return err
			}
			if err := record(ctx, tx, entry{ws: ws, id: id, at: now, event: "approved", from: ptr(status), to: "approved",
				actor: d.By, actorUser: d.ByUser, via: d.Via, reason: reason, hostApps: d.HostApps, shown: d.Shown}); err != nil {
				return err
			}
			if _, err := s.jobs.InsertTx(ctx, tx, ExecuteArgs{WorkspaceID: ws, ApprovalID: id}, nil); err != nil {
				return fmt.Errorf("enqueue execution: %w", err)
			}
			taken = true
		default:
			if err := checkReason(ctx, tx, ws, locked.Action, false, reason); err != nil {
				return err
			}
			outcome := "Rejected by " + d.By + "."
			if reason != nil {
				outcome = "Rejected by " + d.By + ": " + *reason
			}
			if _, err := tx.Exec(ctx, `UPDATE approvals SET status = 'rejected', decided_at = $3, decided_by = $4,
				decided_by_user = $5, decided_via = $6, reason = $7, finished_at = $3, outcome = $8, decided_host_apps = $9
				WHERE workspace_id = $1 AND id = $2`,
				ws, id, now, d.By, d.ByUser, d.Via, reason, outcome, d.HostApps); err != nil {
				return err
			}
			if err := record(ctx, tx, entry{ws: ws, id: id, at: now, event: "rejected", from: ptr(status), to: "rejected",
				actor: d.By, actorUser: d.ByUser, via: d.Via, reason: reason, hostApps: d.HostApps, shown: d.Shown}); err != nil {
				return err
			}
			taken = true
		}
		out, err = s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`, ws, id))
		return err
	})
	if err != nil {
		return Approval{}, false, refusalOrWrap(err, "decide approval %s", id)
	}
	switch refused {
	case refusedWeb:
		return out, false, vibesell.Errorf(vibesell.EINVALID,
			"This can only be approved by a signed-in person in the web app, because %s. Give the person this link to approve it there: %s. It can still be rejected here.",
			out.WebOnlyBecause(), out.AppURL)
	case refusedPolicy, refusedPolicyReject:
		verb := "Approve"
		if refused == refusedPolicyReject {
			verb = "Reject"
		}
		return out, false, vibesell.Errorf(vibesell.EINVALID,
			"This workspace wants decisions on approvals to %s made by the person themselves: a click on Approve or Reject in the approval card, or in the web app at %s. A decision passed on by the assistant is not taken, a rejection included. Ask the person to click %s in the card, or give them the link.",
			strings.ToLower(ActionLabels.Of(out.Action)), out.AppURL, verb)
	}
	return out, taken, nil
}

// Why an attempt to approve was refused.
const (
	refusedWeb    = "web"    // only a signed-in person in the web app may approve it
	refusedPolicy = "policy" // the workspace wants it clicked or approved in the web app
	// the workspace wants it clicked or decided in the web app, a
	// rejection included
	refusedPolicyReject = "policy_reject"
)

// keptRefusals is how many refused attempts to approve an approval keeps
// as rows of its trail; later ones are counted on the last row, so the
// trail stays a few lines long whatever a client retries.
const keptRefusals = 5

// recordRefused records a refused attempt to approve in the trail: a row
// of its own, or one more on the last row when that row is a refusal by
// the same person from the same place, or when keptRefusals are recorded
// already. The caller holds the approval's row lock, so concurrent
// refusals are counted one after the other.
func recordRefused(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id string, now time.Time, status string, d Decision, why string) error {
	tag, err := tx.Exec(ctx, `WITH refusals AS (
			SELECT seq, actor, via, count(*) OVER () AS n, row_number() OVER (ORDER BY seq DESC) AS latest
			FROM approval_events WHERE workspace_id = $1 AND approval_id = $2 AND event = 'approve_refused'),
		last AS (SELECT max(seq) AS seq FROM approval_events WHERE workspace_id = $1 AND approval_id = $2)
		UPDATE approval_events e SET repeats = e.repeats + 1, last_at = $3
		FROM refusals r, last l
		WHERE e.workspace_id = $1 AND e.approval_id = $2 AND e.seq = r.seq AND r.latest = 1
			AND (r.n >= $6 OR (r.seq = l.seq AND r.actor = $4 AND r.via = $5))`,
		ws, id, now, d.By, d.Via, keptRefusals)
	if err != nil {
		return fmt.Errorf("count refused approval of %s: %w", id, err)
	}
	if tag.RowsAffected() > 0 {
		return nil
	}
	return record(ctx, tx, entry{ws: ws, id: id, at: now, event: "approve_refused", from: ptr(status), to: status,
		actor: d.By, actorUser: d.ByUser, via: d.Via, reason: &why, hostApps: d.HostApps, shown: d.Shown})
}

// WebOnlyBecause says in a few words why an approval must be decided in
// the web app, for a sentence that goes on "…because " it.
func (a Approval) WebOnlyBecause() string {
	paid := a.Impact.Paid()
	switch {
	case paid && a.Irreversible:
		return "it costs money and cannot be undone"
	case paid:
		return "it costs money"
	case a.Irreversible:
		return "it cannot be undone"
	}
	return "it needs a signed-in person's decision"
}

// Relayed is a decision the assistant passes on: the person told it, or
// pressed a button in a card whose host gave the card no token. Either
// way it is recorded as relayed (ViaConversation), never as clicked.
type Relayed struct {
	Approve bool
	Reason  string
	// Person is who decided, when the connection signed them in
	// ([Person]); empty (a workspace token, stdio): [ActorPerson].
	Person string
	// HostApps is whether the MCP session declared the MCP Apps
	// extension; nil when not known.
	HostApps *bool
	// Shown is the hash of what the tool's result showed ([Decision].Shown).
	Shown string
}

// Clicked is a decision clicked in the approval card, proven by the
// card's one-time token.
type Clicked struct {
	Approve  bool
	Reason   string
	Token    string
	Person   string // as in [Relayed]
	HostApps *bool
	Shown    string // the hash of what the card showed ([Decision].Shown)
}

// Person names a person signed in through an OAuth connection, for the
// audit trail: "ada@acme.test, through Claude".
func Person(email, client string) string {
	if client == "" {
		return email
	}
	return email + ", through " + client
}

// Relay is how a relayed or clicked decision ended.
type Relay struct {
	Approval Approval // as it stands after the decision (and the wait)
	// Taken reports whether this decision was recorded. When false, the
	// approval carries the decision on record, or ended undecided.
	Taken   bool
	Approve bool
}

// Relay takes a decision relayed by the assistant, recorded as such.
// Approving waits up to [Deps].RelayWait for the action to end, so that
// the answer usually says what was done. Refusals: those of
// [Service.Decide]; ECONFLICT when the approval was decided before or
// ended undecided, naming what stands and the call that reads it.
func (s *Service) Relay(ctx context.Context, ws uuid.UUID, id string, r Relayed) (Relay, error) {
	out, err := s.decideAndWait(ctx, ws, id, Decision{Approve: r.Approve, By: personOr(r.Person), Via: ViaConversation,
		HostApps: r.HostApps, Reason: r.Reason, Shown: r.Shown})
	if err != nil || out.Taken {
		return out, err
	}
	return Relay{}, errNotTaken(ctx, out.Approval)
}

// errNotTaken is the refusal of a decision that came too late: the one on
// record (or the end without one) stands, and nothing was recorded.
func errNotTaken(ctx context.Context, a Approval) error {
	if a.DecidedAt == nil {
		return vibesell.Errorf(vibesell.ECONFLICT,
			"Not recorded: approval %s had already ended before anyone decided (%s). If the person still wants it, call %s again for a new approval.",
			a.ID, strings.TrimSuffix(deref(a.Outcome), "."), a.Action)
	}
	word := "approved"
	if a.Status == Rejected {
		word = "rejected"
	}
	return vibesell.Errorf(vibesell.ECONFLICT,
		"Not recorded: approval %s was already %s by %s (%s) on %s, and that first decision stands; it is %s now.",
		a.ID, word, deref(a.DecidedBy), ViaLabels.Of(deref(a.DecidedVia)), vibesell.FormatTimeFor(ctx, *a.DecidedAt),
		strings.ToLower(StatusLabels.Of(string(a.Status)))).Then(
		vibesell.Call("Read its outcome, and tell the person.", vibesell.ToolListPendingApprovals, "approval", a.ID))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Click takes a decision clicked in the card, recorded as clicked once
// its token is accepted (and used up). Like [Service.Relay], approving
// waits for the outcome. Refusals: those of [Service.Decide], a token that
// is missing, used, expired or another approval's or workspace's among
// them.
func (s *Service) Click(ctx context.Context, ws uuid.UUID, id string, c Clicked) (Relay, error) {
	if c.Token == "" {
		return Relay{}, vibesell.Errorf(vibesell.EINVALID,
			"A decision from the card needs the card's token. Reload the card, or tell the assistant your decision.")
	}
	return s.decideAndWait(ctx, ws, id, Decision{Approve: c.Approve, By: personOr(c.Person), Via: ViaCard, Token: c.Token,
		HostApps: c.HostApps, Reason: c.Reason, Shown: c.Shown})
}

func personOr(p string) string {
	if p == "" {
		return ActorPerson
	}
	return p
}

func (s *Service) decideAndWait(ctx context.Context, ws uuid.UUID, id string, d Decision) (Relay, error) {
	a, taken, err := s.Decide(ctx, ws, id, d)
	if err != nil {
		return Relay{}, err
	}
	if taken && d.Approve && a.Status != Pending && s.relayWait > 0 { // pending: counted, waiting for more approvers
		if a, err = s.Wait(ctx, ws, a.ID, s.relayWait); err != nil {
			return Relay{}, err
		}
	}
	return Relay{Approval: a, Taken: taken, Approve: d.Approve}, nil
}

// ApproveWays says where a pending approval may be approved now: ViaCard
// (a click in the card), ViaConversation (the assistant relaying the
// person's word) and ViaWeb, as its DecideHere and the workspace's policy
// allow; none once it is not pending. Rejecting is allowed everywhere
// too, except passed on by the assistant under the workspace's policy
// (ClickedOnly), which is about who decides.
func (a Approval) ApproveWays() []string {
	switch {
	case a.Status != Pending:
		return []string{}
	case !a.DecideHere:
		return []string{ViaWeb}
	case a.ClickedOnly:
		return []string{ViaCard, ViaWeb}
	}
	return []string{ViaCard, ViaConversation, ViaWeb}
}

// Tokens issues the card's one-time decision tokens for the pending
// approvals among as, by approval id: what a result showing them carries
// in its _meta for the card.
func (s *Service) Tokens(ctx context.Context, ws uuid.UUID, as ...Approval) (map[string]string, error) {
	var ids []string
	for _, a := range as {
		if a.Status == Pending {
			ids = append(ids, a.ID)
		}
	}
	return proof.Issue(ctx, s.db, s.clock, ws, ids...)
}

// Wait returns the approval once it has ended (done, not done, rejected),
// or as it stands after at most d. It reads PostgreSQL, so it sees an
// execution run by any replica.
func (s *Service) Wait(ctx context.Context, ws uuid.UUID, id string, d time.Duration) (Approval, error) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		a, err := s.Find(ctx, ws, id)
		if err != nil || a.Final() {
			return a, err
		}
		select {
		case <-ctx.Done():
			return a, nil
		case <-deadline.C:
			return s.Find(ctx, ws, id)
		case <-poll.C:
		}
	}
}
