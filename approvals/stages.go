package approvals

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Stage is one step of a policy's approvals: Needed distinct people of
// Approvers (anyone in the workspace when none are named) approve it
// before the next stage is asked.
type Stage struct {
	// Name says who the stage waits for, in "waiting for finance".
	Name string `json:"name"`
	// Approvers are the people who may approve at this stage, by the
	// email they sign in with; none: anyone in the workspace.
	Approvers []string `json:"approvers"`
	// Needed is how many distinct people must approve; at least 1.
	Needed int `json:"needed"`
	// Above, when set, asks this stage only of approvals whose amount
	// ([Impact].Amount) is above it, in its currency; an amount in
	// another currency is asked it too, as nothing compares them.
	Above *vibesell.Money `json:"above,omitempty"`
	// Fallback is asked to decide in the stage's place when no one
	// decided it within EscalateAfterMinutes (after its reminder).
	Fallback string `json:"fallback,omitempty"`
	// EscalateAfterMinutes is how long the stage waits before its
	// approvers are reminded, and as long again before Fallback is asked;
	// 0: never.
	EscalateAfterMinutes int `json:"escalateAfterMinutes,omitempty"`
}

// EscalateAfter is EscalateAfterMinutes as a duration.
func (st Stage) EscalateAfter() time.Duration {
	return time.Duration(st.EscalateAfterMinutes) * time.Minute
}

// may reports whether person may approve at the stage: one of its named
// people, anyone when it names none, or its fallback once asked.
func (st Stage) may(person string, escalated bool) bool {
	return len(st.Approvers) == 0 || slices.Contains(st.Approvers, person) || (escalated && st.Fallback == person)
}

// Amount is what an approval's action costs, for a stage asked only above
// an amount: what it charges once plus its first month.
func (i Impact) Amount() vibesell.Money {
	m := i.CostOnce
	if m.Currency == "" {
		m.Currency = i.CostMonthly.Currency
	}
	if i.CostMonthly.Currency == m.Currency {
		m.Minor += i.CostMonthly.Minor
	}
	return m
}

// Vote is one person's approval (or rejection) at a stage.
type Vote struct {
	Stage   int       `json:"stage"`
	Voter   string    `json:"voter"` // whose approval it is
	By      string    `json:"by"`    // who decided: the voter, or "X for Y"
	Approve bool      `json:"approve"`
	Reason  *string   `json:"reason"`
	Via     string    `json:"via"`
	At      time.Time `json:"at"`
}

// Progress is where an approval with several approvers stands.
type Progress struct {
	Approvals int // approvals counted so far, in the stages it is asked
	Needed    int // approvals it needs in all
	// Stage is the index in [Approval].Stages of the stage it waits for;
	// -1 when it waits for none.
	Stage int
	// Waiting says who it waits for: "finance", "someone other than
	// ada@acme.test"; empty when it waits for no one.
	Waiting string
	// Asked are the stages asked of this approval (those above an amount
	// only when it is), by their index in [Approval].Stages.
	Asked []int
}

// Text says it for a person: "1 of 2 approvals; waiting for finance".
func (p Progress) Text() string {
	t := fmt.Sprintf("%d of %s", p.Approvals, vibesell.Plural(p.Needed, "approval", "approvals"))
	if p.Waiting != "" {
		t += "; waiting for " + p.Waiting
	}
	return t
}

// Staged reports whether the approval was opened under a policy of
// several approvers, stages or the requester barred: its progress is
// worth showing, and each approval is a vote of a known person.
func (a Approval) Staged() bool { return len(a.Stages) > 0 || a.RequesterBarred }

// stagesOrOne are the approval's stages, or the one stage of before.
func (a Approval) stagesOrOne() []Stage {
	if len(a.Stages) == 0 {
		return []Stage{{Name: "a person's approval", Needed: 1}}
	}
	return a.Stages
}

// Progress says how many approvals are counted, how many it needs and
// whom it waits for.
func (a Approval) Progress() Progress {
	p := Progress{Stage: -1}
	amount := a.Impact.Amount()
	stages := a.stagesOrOne()
	for i, st := range stages {
		if st.Above != nil && st.Above.Currency == amount.Currency && amount.Minor <= st.Above.Minor {
			continue
		}
		p.Asked = append(p.Asked, i)
		got := min(a.approvalsAt(i), st.Needed)
		p.Approvals += got
		p.Needed += st.Needed
		if got < st.Needed && p.Stage < 0 {
			p.Stage = i
			p.Waiting = waitingFor(st, st.Needed-got)
		}
	}
	if p.Stage < 0 && a.RequesterBarred && a.RequestedByEmail != "" && !a.approvedByOther() {
		p.Stage = p.Asked[len(p.Asked)-1]
		p.Waiting = "someone other than " + a.RequestedByEmail
	}
	return p
}

func waitingFor(st Stage, more int) string {
	if more > 1 {
		return fmt.Sprintf("%d more from %s", more, st.Name)
	}
	return st.Name
}

func (a Approval) approvalsAt(stage int) int {
	n := 0
	for _, v := range a.Votes {
		if v.Stage == stage && v.Approve {
			n++
		}
	}
	return n
}

func (a Approval) approvedByOther() bool {
	return slices.ContainsFunc(a.Votes, func(v Vote) bool { return v.Approve && v.Voter != a.RequestedByEmail })
}

// personEmail is the email of the person a decision or request names
// ("ada@acme.test", "ada@acme.test, through Claude"), lowercased; empty
// when it names no one (the person, the assistant).
func personEmail(who string) string {
	email, _, _ := strings.Cut(who, ", through ")
	email = strings.ToLower(strings.TrimSpace(email))
	if !strings.Contains(email, "@") || strings.ContainsAny(email, " ,") {
		return ""
	}
	return email
}

// lockApproval locks an approval's row, then reads it whole. Two
// statements: in READ COMMITTED, a statement that waited for the lock
// reads the locked row anew but its sub-selects (the votes) as they stood
// when it began, which would miss the vote of the decision it waited for.
func (s *Service) lockApproval(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id string) (Approval, error) {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM approvals WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, ws, id); err != nil {
		return Approval{}, err
	}
	return s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`, ws, id))
}

// countVote records an approval by d's person at the stage the approval
// waits for, under the approval's row lock, and reports whether it was
// the last one needed. An approval opened under no policy of several
// approvers needs no vote: the one approval completes it, as before. d.By
// becomes "X for Y" when a delegate approves in Y's place. Refusals
// (EINVALID): an approver VibeSell cannot name, someone the stage does not
// ask, the same person at a second stage, the requester approving alone,
// or the same person twice (counted once).
func (s *Service) countVote(ctx context.Context, tx pgx.Tx, a Approval, now time.Time, d *Decision, reason *string) (bool, error) {
	if !a.Staged() {
		return true, nil
	}
	person := personEmail(d.By)
	if person == "" {
		return false, vibesell.Errorf(vibesell.EINVALID,
			"This needs %s, so each approver must be known by name: approve it in the web app at %s, or from a connection signed in as the person.",
			a.Progress().Text(), a.AppURL)
	}
	p := a.Progress()
	if p.Stage < 0 {
		return true, nil // complete already: the caller's status check keeps this from happening
	}
	st := a.stagesOrOne()[p.Stage]
	voter := person
	if !st.may(person, slices.Contains(a.Escalated, p.Stage)) {
		for_, err := delegatorAt(ctx, tx, a, st, p.Stage, person, now)
		if err != nil {
			return false, err
		}
		if for_ == "" {
			return false, vibesell.Errorf(vibesell.EINVALID,
				"This approval is waiting for %s (%s), and %s is not one of them, so the approval is not counted.",
				p.Waiting, vibesell.JoinOr(append(slices.Clone(st.Approvers), fallbackIf(st, slices.Contains(a.Escalated, p.Stage))...)), person)
		}
		voter = for_
		d.By = person + " for " + for_
	}
	for _, v := range a.Votes {
		switch {
		case v.Voter == voter && v.Stage == p.Stage:
			return false, vibesell.Errorf(vibesell.EINVALID,
				"%s's approval is already counted, once: %s.", voter, p.Text())
		case v.Voter == voter && v.Approve:
			return false, vibesell.Errorf(vibesell.EINVALID,
				"%s approved an earlier stage already; %s needs someone else: %s.", voter, p.Waiting, p.Text())
		}
	}
	a.Votes = append(a.Votes, Vote{Stage: p.Stage, Voter: voter, By: d.By, Approve: true, Reason: reason, Via: d.Via, At: now})
	// A requester barred from approving alone is counted, and the
	// approval then waits for someone else (Progress says whom).
	after := a.Progress()
	if err := insertVote(ctx, tx, a, a.Votes[len(a.Votes)-1]); err != nil {
		return false, err
	}
	if after.Stage > p.Stage {
		// The stage is approved: the next one's people are emailed.
		if _, err := s.jobs.InsertTx(ctx, tx, RemindArgs{WorkspaceID: a.WorkspaceID, ApprovalID: a.ID, Reminder: ReminderStage(after.Stage)}, nil); err != nil {
			return false, fmt.Errorf("enqueue the email of %s's next stage: %w", a.ID, err)
		}
	}
	if after.Stage >= 0 {
		// Counted, and still waiting: the trail says so, and the row's
		// count moves the workspace's context stamp.
		if err := record(ctx, tx, entry{ws: a.WorkspaceID, id: a.ID, at: now, event: "vote", from: ptr("pending"), to: "pending",
			actor: d.By, actorUser: d.ByUser, via: d.Via, reason: ptr("Approval counted: " + after.Text() + "."), shown: d.Shown}); err != nil {
			return false, err
		}
	}
	return after.Stage < 0, nil
}

func fallbackIf(st Stage, escalated bool) []string {
	if escalated && st.Fallback != "" {
		return []string{st.Fallback}
	}
	return nil
}

func insertVote(ctx context.Context, tx pgx.Tx, a Approval, v Vote) error {
	tag, err := tx.Exec(ctx, `INSERT INTO approval_votes (workspace_id, approval_id, stage, voter, by, approve, reason, via, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
		a.WorkspaceID, a.ID, v.Stage, v.Voter, v.By, v.Approve, v.Reason, v.Via, v.At)
	if err != nil {
		return fmt.Errorf("count the approval of %s: %w", a.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return vibesell.Errorf(vibesell.EINVALID, "%s's approval is already counted, once.", v.Voter)
	}
	if _, err := tx.Exec(ctx, `UPDATE approvals SET votes = votes + 1 WHERE workspace_id = $1 AND id = $2`, a.WorkspaceID, a.ID); err != nil {
		return fmt.Errorf("count the approval of %s: %w", a.ID, err)
	}
	return nil
}

// checkReason refuses a decision without the reason the action's policy
// asks for.
func checkReason(ctx context.Context, tx pgx.Tx, ws uuid.UUID, action string, approve bool, reason *string) error {
	if reason != nil {
		return nil
	}
	p, err := policyOf(ctx, tx, ws, action)
	if err != nil {
		return err
	}
	switch {
	case approve && p.ReasonToApprove:
		return vibesell.Errorf(vibesell.EINVALID, "This workspace asks for a reason to approve %s: give one with the decision.", strings.ToLower(ActionLabels.Of(action)))
	case !approve && p.ReasonToReject:
		return vibesell.Errorf(vibesell.EINVALID, "This workspace asks for a reason to reject %s: give one with the decision.", strings.ToLower(ActionLabels.Of(action)))
	}
	return nil
}

// openPolicy is what an approval keeps of its action's policy when it
// opens.
type openPolicy struct {
	stages    []byte // JSON array
	barred    bool
	requester string // the requester's email, lowercased; empty when no one is known
}

// policyForOpen applies the action's policy to a request, in the
// transaction that opens it: its expiry, web only, and the stages and the
// requester rule the approval keeps.
func policyForOpen(ctx context.Context, tx pgx.Tx, r *Request, requester string) (openPolicy, error) {
	p, err := policyOf(ctx, tx, r.WorkspaceID, r.Action)
	if err != nil {
		return openPolicy{}, err
	}
	if p.TTL > 0 {
		r.TTL = p.TTL
	}
	if p.Where == DecideWeb {
		r.DecideHere = false
	}
	stages := []byte("[]")
	if len(p.Stages) > 0 {
		if stages, err = json.Marshal(p.Stages); err != nil {
			return openPolicy{}, fmt.Errorf("encode stages: %w", err)
		}
	}
	return openPolicy{stages: stages, barred: p.RequesterBarred, requester: requester}, nil
}
