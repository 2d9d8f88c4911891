package approvals

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/store"
)

// A stage nobody decides in time is escalated in two steps, each once:
// EscalateAfter after the stage began, its people are reminded; as long
// again after, its fallback approver is asked, and may approve at that
// stage from then on. Both are recorded in the approval's trail.
const (
	stepReminded  = "reminded"
	stepEscalated = "escalated"
)

// askedNow are those of the workspace's people the approval waits for
// now: the current stage's named people (and its fallback once asked),
// or everyone when the stage names no one.
func (a Approval) askedNow(people []string) []string {
	if !a.Staged() {
		return people
	}
	p := a.Progress()
	if p.Stage < 0 {
		return nil
	}
	st := a.stagesOrOne()[p.Stage]
	if len(st.Approvers) == 0 {
		return people
	}
	escalated := slices.Contains(a.Escalated, p.Stage)
	return slices.DeleteFunc(slices.Clone(people), func(e string) bool { return !st.may(strings.ToLower(e), escalated) })
}

// stageStart is when the stage the approval waits for began: when it
// opened, for the first, or when the stage before it got its last
// approval.
func (a Approval) stageStart(p Progress) time.Time {
	start := a.CreatedAt
	for _, v := range a.Votes {
		if v.Approve && v.Stage < p.Stage && v.At.After(start) {
			start = v.At
		}
	}
	return start
}

// EscalateArgs is the periodic job that reminds and escalates stages
// nobody decided in time.
type EscalateArgs struct{}

// Kind names the job in River.
func (EscalateArgs) Kind() string { return "approvals.escalate" }

// InsertOpts keeps one sweep per minute however many replicas enqueue it.
func (EscalateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// EscalateWorker runs [EscalateArgs].
type EscalateWorker struct {
	river.WorkerDefaults[EscalateArgs]
	Service *Service
}

// Work escalates what is due.
func (w *EscalateWorker) Work(ctx context.Context, _ *river.Job[EscalateArgs]) error {
	_, err := w.Service.EscalateDue(ctx)
	return err
}

// escalateBatch bounds one sweep; the next minute's takes the rest.
const escalateBatch = 500

// EscalateDue takes each due step of every pending approval opened under
// stages (a reminder to the stage's people, then the fallback asked) and
// returns how many steps it took. Each step is claimed in the
// approval's row lock before its email is sent, so that replicas and
// retries take it once; a lost email is better than two.
func (s *Service) EscalateDue(ctx context.Context) (int, error) {
	rows, err := s.db.Query(ctx, `SELECT workspace_id, id FROM approvals
		WHERE status = 'pending' AND stages <> '[]' AND expires_at > $1 ORDER BY created_at LIMIT $2`, s.clock.Now(), escalateBatch)
	if err != nil {
		return 0, fmt.Errorf("find approvals to escalate: %w", err)
	}
	type key struct {
		ws uuid.UUID
		id string
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		return k, r.Scan(&k.ws, &k.id)
	})
	if err != nil {
		return 0, fmt.Errorf("find approvals to escalate: %w", err)
	}
	n := 0
	for _, k := range keys {
		took, err := s.escalate(ctx, k.ws, k.id)
		if err != nil {
			return n, err
		}
		n += took
	}
	return n, nil
}

// escalate takes the due steps of one approval.
func (s *Service) escalate(ctx context.Context, ws uuid.UUID, id string) (int, error) {
	type mail struct {
		to            []string
		subject, body string
	}
	var mails []mail
	took := 0
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.clock.Now()
		a, err := s.lockApproval(ctx, tx, ws, id)
		if err != nil {
			return err
		}
		p := a.Progress()
		if a.Status != Pending || !now.Before(a.ExpiresAt) || p.Stage < 0 || p.Stage >= len(a.Stages) {
			return nil
		}
		st := a.Stages[p.Stage]
		after := st.EscalateAfter()
		if after <= 0 {
			return nil
		}
		start := a.stageStart(p)
		steps := []string{stepReminded}
		if st.Fallback != "" {
			steps = append(steps, stepEscalated)
		}
		for i, step := range steps {
			if now.Before(start.Add(after * time.Duration(i+1))) {
				break
			}
			asked := strings.Join(st.Approvers, ", ")
			if step == stepEscalated {
				asked = st.Fallback
			}
			tag, err := tx.Exec(ctx, `INSERT INTO approval_escalations (workspace_id, approval_id, stage, step, at, asked)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, ws, id, p.Stage, step, now, asked)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				continue
			}
			took++
			why := fmt.Sprintf("No one at %s decided within %s: reminded.", st.Name, waitText(after))
			if step == stepEscalated {
				why = fmt.Sprintf("No one at %s decided within %s of the reminder: %s is asked to decide in its place.", st.Name, waitText(after), st.Fallback)
				a.Escalated = append(a.Escalated, p.Stage)
			}
			if err := record(ctx, tx, entry{ws: ws, id: id, at: now, event: step, from: ptr("pending"), to: "pending",
				actor: ActorVibeSell, via: ViaSystem, reason: &why}); err != nil {
				return err
			}
			subject, body := escalationText(ctx, a, st, step)
			to := st.Approvers
			if step == stepEscalated {
				to = []string{st.Fallback}
			}
			mails = append(mails, mail{to: to, subject: subject, body: body})
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("escalate approval %s: %w", id, err)
	}
	if s.mailer == nil {
		return took, nil
	}
	people, err := s.mailer.People(ctx, ws)
	if err != nil {
		return took, fmt.Errorf("read the workspace's people: %w", err)
	}
	for _, m := range mails {
		// A stage naming no one reminds everyone; a person no longer in
		// the workspace is not written to.
		to := people
		if len(m.to) > 0 {
			to = slices.DeleteFunc(slices.Clone(people), func(p string) bool {
				return !slices.ContainsFunc(m.to, func(t string) bool { return strings.EqualFold(t, p) })
			})
		}
		if len(to) == 0 {
			continue
		}
		if err := s.mailer.Send(ctx, ws, to, m.subject, m.body); err != nil {
			s.logger.ErrorContext(ctx, "approval escalation email not sent; it is not sent again", "approval", id, "err", err)
		}
	}
	return took, nil
}

func waitText(d time.Duration) string {
	if d%time.Hour == 0 {
		return vibesell.Plural(int(d/time.Hour), "hour", "hours")
	}
	return vibesell.Plural(int(d/time.Minute), "minute", "minutes")
}

// escalationText writes the reminder to a stage's people, or the request
// to its fallback approver, for a person.
func escalationText(ctx context.Context, a Approval, st Stage, step string) (subject, body string) {
	var b strings.Builder
	if step == stepEscalated {
		subject = "You are asked to approve in place of " + st.Name + ": " + a.Summary
		fmt.Fprintf(&b, "No one at %s decided in time, so you are asked to decide in their place.\n\n", st.Name)
	} else {
		subject = "Reminder, waiting for " + st.Name + ": " + a.Summary
		fmt.Fprintf(&b, "This approval is waiting for %s, and no one has decided yet.\n\n", st.Name)
	}
	fmt.Fprintf(&b, "%s\n\nApprovals so far: %s.\nWhat will happen: %s\nDecide by: %s\n\nApprove or reject it here: %s\n",
		a.Summary, a.Progress().Text(), a.Impact.What, vibesell.FormatTimeFor(ctx, a.ExpiresAt), a.AppURL)
	return subject, b.String()
}
