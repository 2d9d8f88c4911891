package approvals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// This file holds what an approval shows the person deciding it, and the
// proof of it: every decision names the version its decider saw (the
// SHA-256 of its Shown document, which the card, the web page and the
// tools' results carry), a decision on a version that is no longer the
// approval's is refused, and the changes between the two are listed.

// Shown is the one document of what an approval shows the person who
// decides it: the action, the summary and the impact with its amounts and
// recipients, in the words the card and the web page render. It is built
// from the approval's row alone ([Approval.Shown]), so the card's data,
// the web page and the check of a decision read the same thing.
type Shown struct {
	Approval     string   `json:"approval"`
	Action       string   `json:"action"` // as the person reads it ("Launch a campaign")
	Summary      string   `json:"summary"`
	What         string   `json:"what"`
	Items        []string `json:"items"`
	Who          string   `json:"who"`
	When         string   `json:"when"`
	CostOnce     string   `json:"costOnce"` // as written for a person: "€12.00"
	CostMonthly  string   `json:"costMonthly"`
	Charged      string   `json:"charged"`
	Sandbox      bool     `json:"sandbox"`
	Renewal      string   `json:"renewal"`
	Undo         string   `json:"undo"`
	PersonOnly   string   `json:"personOnly"`
	Irreversible bool     `json:"irreversible"`
}

// Shown returns the document the approval shows as it stands.
func (a Approval) Shown() Shown {
	items := a.Impact.Items
	if items == nil {
		items = []string{}
	}
	return Shown{
		Approval: a.ID, Action: ActionLabels.Of(a.Action), Summary: a.Summary,
		What: a.Impact.What, Items: items, Who: a.Impact.Who, When: a.Impact.When,
		CostOnce: a.Impact.CostOnce.String(), CostMonthly: a.Impact.CostMonthly.String(),
		Charged: a.Impact.Charged, Sandbox: a.Impact.Sandbox, Renewal: a.Impact.Renewal, Undo: a.Impact.Undo,
		PersonOnly: a.Impact.PersonOnly, Irreversible: a.Irreversible,
	}
}

// ShownHash is the SHA-256, in hex, of what the approval shows now: the
// value the card and the web page send back with a decision.
func (a Approval) ShownHash() string { return a.Shown().Hash() }

// Hash is the document's SHA-256 in hex, over its JSON encoding (fields
// in their declared order, so the same document always hashes the same).
func (d Shown) Hash() string {
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("approvals: encode a shown document: %v", err)) // strings and booleans always encode
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Changes lists, for a person, what differs in d from before: one
// sentence each, in the order the page shows them.
func (d Shown) Changes(before Shown) []string {
	var out []string
	text := func(name, was, now string) {
		if was != now {
			out = append(out, fmt.Sprintf("%s was “%s” and is now “%s”", name, was, now))
		}
	}
	text("The summary", before.Summary, d.Summary)
	text("What will happen", before.What, d.What)
	var added, removed []string
	for _, it := range d.Items {
		if !slices.Contains(before.Items, it) {
			added = append(added, "“"+it+"”")
		}
	}
	for _, it := range before.Items {
		if !slices.Contains(d.Items, it) {
			removed = append(removed, "“"+it+"”")
		}
	}
	if len(removed) > 0 {
		out = append(out, "no longer listed: "+vibesell.JoinAnd(removed))
	}
	if len(added) > 0 {
		out = append(out, "newly listed: "+vibesell.JoinAnd(added))
	}
	text("Who is contacted", before.Who, d.Who)
	text("When", before.When, d.When)
	text("The cost now", before.CostOnce, d.CostOnce)
	text("The cost per month", before.CostMonthly, d.CostMonthly)
	text("What is charged", before.Charged, d.Charged)
	if before.Sandbox != d.Sandbox {
		out = append(out, map[bool]string{true: "the amounts are now sandbox amounts", false: "the amounts are no longer sandbox amounts"}[d.Sandbox])
	}
	text("The renewal", before.Renewal, d.Renewal)
	text("Whether it can be undone", before.Undo, d.Undo)
	text("Who can approve it", before.PersonOnly, d.PersonOnly)
	if before.Irreversible != d.Irreversible {
		out = append(out, map[bool]string{true: "it can no longer be undone", false: "it can now be undone"}[d.Irreversible])
	}
	return out
}

// Reviser is an [Executor] whose approval's content can go stale while it
// waits: what it would do depends on something a person can change after
// it opened (a campaign staged again with other leads before its launch is
// decided). Revise says what the approval would ask for now; the approval
// is revised in place before it is shown in full and before any decision,
// so a decision on what it said before is refused.
type Reviser interface {
	// Revise rebuilds the approval's summary, impact and details from
	// what is true now. A refusal leaves the approval as it is (the
	// executor's Check refuses at execution if it must).
	Revise(ctx context.Context, a Approval) (Revision, error)
}

// Revision is what an approval would ask for now.
type Revision struct {
	Summary string
	Impact  Impact
	Details any
}

// Revise brings a pending approval up to date with what it would do now,
// when its action can go stale ([Reviser]), and keeps the new version of
// what it shows. Anything else is left as it is.
func (s *Service) revise(ctx context.Context, ws uuid.UUID, id string) error {
	a, err := s.Find(ctx, ws, id)
	if err != nil || a.Status != Pending || !s.clock.Now().Before(a.ExpiresAt) {
		return err
	}
	ex, _ := s.executor(a.Action)
	rv, ok := ex.(Reviser)
	if !ok {
		return nil
	}
	r, err := rv.Revise(ctx, a)
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return nil
		}
		return fmt.Errorf("revise approval %s: %w", id, err)
	}
	impact, err := normalizedImpact(r.Impact)
	if err != nil {
		return err
	}
	details, _, err := canonical(r.Details)
	if err != nil {
		return fmt.Errorf("revise approval %s: details: %w", id, err)
	}
	same, err := sameProposal(a, Request{Summary: strings.TrimSpace(r.Summary), Irreversible: a.Irreversible, DecideHere: a.DecideHere}, impact, details)
	if err != nil || same {
		return err
	}
	return store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		// Only the version read above is revised: a decision or another
		// revision in between wins.
		cur, err := s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals
			WHERE workspace_id = $1 AND id = $2 AND status = 'pending' FOR UPDATE`, ws, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil || cur.ShownHash() != a.ShownHash() || !jsonEqual(cur.Details, a.Details) {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE approvals SET summary = $3, impact = $4, details = $5 WHERE workspace_id = $1 AND id = $2`,
			ws, id, strings.TrimSpace(r.Summary), impact, details); err != nil {
			return fmt.Errorf("revise approval %s: %w", id, err)
		}
		now, err := s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`, ws, id))
		if err != nil {
			return err
		}
		return s.keepShown(ctx, tx, now)
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	x, _, errX := canonical(a)
	y, _, errY := canonical(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

// keepShown keeps the version of what a shows now, so that a decision
// made on it later can be told what changed since. Each version is a
// record of the workspace's audit chain too (migration 00351).
func (s *Service) keepShown(ctx context.Context, tx pgx.Tx, a Approval) error {
	doc := a.Shown()
	_, err := tx.Exec(ctx, `INSERT INTO approval_shown (workspace_id, approval_id, hash, document, at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, a.WorkspaceID, a.ID, doc.Hash(), doc, s.clock.Now())
	if err != nil {
		return fmt.Errorf("keep what %s shows: %w", a.ID, err)
	}
	return nil
}

// checkShown compares, under the approval's row lock, the version its
// decider saw (seen; "" when the decision names none, as a relayed one
// may) with what the approval shows now, and returns the version the
// decision is made on. A decision on another version is refused
// (ECONFLICT), naming what changed since.
func (s *Service) checkShown(ctx context.Context, tx pgx.Tx, ws uuid.UUID, id, seen string) (string, error) {
	a, err := s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`, ws, id))
	if err != nil {
		return "", err
	}
	now := a.Shown()
	hash := now.Hash()
	if seen == "" || seen == hash {
		return hash, nil
	}
	var before Shown
	err = tx.QueryRow(ctx, `SELECT document FROM approval_shown WHERE workspace_id = $1 AND approval_id = $2 AND hash = $3`,
		ws, id, seen).Scan(&before)
	var changes []string
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return "", fmt.Errorf("read what %s showed: %w", id, err)
	default:
		changes = now.Changes(before)
	}
	return "", errChanged(id, changes)
}

// errChanged is the refusal of a decision made on what an approval showed
// before it changed.
func errChanged(id string, changes []string) error {
	what := "What it would do is not what was shown when this decision was made."
	if len(changes) > 0 {
		what = "Since it was shown: " + strings.Join(changes, "; ") + "."
	}
	return vibesell.Errorf(vibesell.ECONFLICT,
		"This changed since you saw it, so the decision was not recorded. %s", what).Then(
		vibesell.Call("Look at the approval again as it is now, then decide.", vibesell.ToolListPendingApprovals, "approval", id))
}

// IsChanged reports whether err is the refusal of a decision made on what
// an approval showed before it changed.
func IsChanged(err error) bool {
	var e *vibesell.Error
	return errors.As(err, &e) && e.Code == vibesell.ECONFLICT && strings.HasPrefix(e.Message, "This changed since you saw it")
}

// ShownVersions returns how many versions of what the approval showed were
// kept: more than one when it changed while it waited.
func (s *Service) ShownVersions(ctx context.Context, ws uuid.UUID, id string) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM approval_shown WHERE workspace_id = $1 AND approval_id = $2`, ws, id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count versions of %s: %w", id, err)
	}
	return n, nil
}
