package approvals

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Delegation is a person away naming who decides approvals in their place
// until a date: the delegate's approval counts as theirs, recorded as
// "delegate for person".
type Delegation struct {
	Person   string
	Delegate string
	Until    time.Time
	SetAt    time.Time
}

// Active reports whether the delegate may still decide at now.
func (d Delegation) Active(now time.Time) bool { return now.Before(d.Until) }

// SetDelegate names delegate to decide in person's place until until.
// person is the signed-in person setting it. Refusals (EINVALID): a
// delegate who is not an email address, the person themselves, a date
// not ahead, or more than 90 days ahead, or, when VibeSell can list the
// workspace's people ([Deps].Mailer), someone not among them.
func (s *Service) SetDelegate(ctx context.Context, ws uuid.UUID, person, delegate string, until time.Time) error {
	person, delegate = strings.ToLower(strings.TrimSpace(person)), strings.ToLower(strings.TrimSpace(delegate))
	now := s.clock.Now()
	switch {
	case person == "":
		return errors.New("approvals: a delegation needs the person who is away")
	case !strings.Contains(delegate, "@"):
		return vibesell.Errorf(vibesell.EINVALID, "Name who decides in your place by the email address they sign in with.")
	case delegate == person:
		return vibesell.Errorf(vibesell.EINVALID, "Name someone else to decide in your place.")
	case !until.After(now):
		return vibesell.Errorf(vibesell.EINVALID, "The date your delegate decides until must be ahead.")
	case until.After(now.Add(90 * 24 * time.Hour)):
		return vibesell.Errorf(vibesell.EINVALID, "A delegate decides in your place for 90 days at most.")
	}
	if s.mailer != nil {
		people, err := s.mailer.People(ctx, ws)
		if err != nil {
			return fmt.Errorf("read the workspace's people: %w", err)
		}
		if !slices.ContainsFunc(people, func(p string) bool { return strings.EqualFold(p, delegate) }) {
			return vibesell.Errorf(vibesell.EINVALID, "%s is not one of this workspace's people, so they cannot decide in your place.", delegate)
		}
	}
	_, err := s.db.Exec(ctx, `INSERT INTO approval_delegations (workspace_id, person, delegate, until, set_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (workspace_id, person) DO UPDATE SET delegate = $3, until = $4, set_at = $5`, ws, person, delegate, until, now)
	if err != nil {
		return fmt.Errorf("set the delegate of %s: %w", person, err)
	}
	return nil
}

// EndDelegation ends person's delegation now, if there is one.
func (s *Service) EndDelegation(ctx context.Context, ws uuid.UUID, person string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM approval_delegations WHERE workspace_id = $1 AND person = $2`, ws, strings.ToLower(person))
	if err != nil {
		return fmt.Errorf("end the delegation of %s: %w", person, err)
	}
	return nil
}

// Delegations returns the workspace's delegations still active, and
// those ended less than a day ago, by person.
func (s *Service) Delegations(ctx context.Context, ws uuid.UUID) ([]Delegation, error) {
	rows, err := s.db.Query(ctx, `SELECT person, delegate, until, set_at FROM approval_delegations
		WHERE workspace_id = $1 AND until > $2 ORDER BY person`, ws, s.clock.Now().Add(-24*time.Hour))
	if err != nil {
		return nil, fmt.Errorf("read delegations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delegation, error) {
		var d Delegation
		return d, r.Scan(&d.Person, &d.Delegate, &d.Until, &d.SetAt)
	})
	if err != nil {
		return nil, fmt.Errorf("read delegations: %w", err)
	}
	return out, nil
}

// delegatorAt returns whom delegate may approve for at the stage now: one
// of the stage's people (its fallback, once asked) who named delegate
// until a later moment and has not approved at it yet; empty when none.
func delegatorAt(ctx context.Context, tx pgx.Tx, a Approval, st Stage, stage int, delegate string, now time.Time) (string, error) {
	mayFor := slices.Clone(st.Approvers)
	if slices.Contains(a.Escalated, stage) && st.Fallback != "" {
		mayFor = append(mayFor, st.Fallback)
	}
	if len(mayFor) == 0 {
		return "", nil
	}
	rows, err := tx.Query(ctx, `SELECT person FROM approval_delegations
		WHERE workspace_id = $1 AND delegate = $2 AND until > $3 AND person = ANY($4) ORDER BY person`,
		a.WorkspaceID, delegate, now, mayFor)
	if err != nil {
		return "", fmt.Errorf("read delegations: %w", err)
	}
	people, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("read delegations: %w", err)
	}
	for _, p := range people {
		if !slices.ContainsFunc(a.Votes, func(v Vote) bool { return v.Voter == p && v.Stage == stage }) {
			return p, nil
		}
	}
	return "", nil
}
