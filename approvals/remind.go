package approvals

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/store"
)

// Mailer is the product's mail path to a workspace's own people (not a
// campaign's leads): cmd/server builds one on the accounts and the mail
// package. Reminders are sent only with one ([Deps].Mailer).
type Mailer interface {
	// People returns the email addresses of the workspace's people.
	People(ctx context.Context, ws uuid.UUID) ([]string, error)
	// Send sends one email to each address of workspace ws's people.
	Send(ctx context.Context, ws uuid.UUID, to []string, subject, body string) error
}

// DefaultRemindBefore is [Deps].RemindBefore when not set.
const DefaultRemindBefore = 24 * time.Hour

// The emails about an approval only a signed-in person may approve.
const (
	ReminderOpened   = "opened"   // when it opens: what it is and where to decide
	ReminderExpiring = "expiring" // RemindBefore its expiry, while still pending
)

// stageReminder is the email to a stage's people once the stage before
// it is approved: "stage 1" for the second stage (stages count from 0).
var stageReminder = regexp.MustCompile(`^stage [1-9][0-9]?$`)

// ReminderStage names the email to the people of stage i (from 0).
func ReminderStage(i int) string { return fmt.Sprintf("stage %d", i) }

// RemindArgs is the job that emails the workspace's people about an
// approval that only the web app may approve: one job per approval and
// kind (unique by its arguments), whose work claims the reminder's row
// before sending, so that retries, replicas and duplicate jobs send it
// once at most.
type RemindArgs struct {
	WorkspaceID uuid.UUID `json:"workspace_id"`
	ApprovalID  string    `json:"approval_id"`
	Reminder    string    `json:"reminder"`
}

// Kind names the job in River.
func (RemindArgs) Kind() string { return "approvals.remind" }

// InsertOpts makes a second job for the same approval and reminder a no-op.
func (RemindArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RemindWorker runs [RemindArgs].
type RemindWorker struct {
	river.WorkerDefaults[RemindArgs]
	Service *Service
}

// Work sends the reminder, unless it was sent or the approval no longer
// waits for a decision.
func (w *RemindWorker) Work(ctx context.Context, job *river.Job[RemindArgs]) error {
	_, err := w.Service.Remind(ctx, job.Args.WorkspaceID, job.Args.ApprovalID, job.Args.Reminder)
	return err
}

// enqueueReminders asks, in the transaction that opened the approval, for
// its email now and its reminder RemindBefore its expiry (when that is
// still ahead).
func (s *Service) enqueueReminders(ctx context.Context, tx pgx.Tx, a Approval) error {
	if a.DecideHere && !a.Staged() {
		return nil // decided in the conversation, by the one person in it
	}
	if _, err := s.jobs.InsertTx(ctx, tx, RemindArgs{WorkspaceID: a.WorkspaceID, ApprovalID: a.ID, Reminder: ReminderOpened}, nil); err != nil {
		return fmt.Errorf("enqueue the email of %s: %w", a.ID, err)
	}
	at := a.ExpiresAt.Add(-s.remindBefore)
	if !at.After(a.CreatedAt) {
		return nil
	}
	if _, err := s.jobs.InsertTx(ctx, tx, RemindArgs{WorkspaceID: a.WorkspaceID, ApprovalID: a.ID, Reminder: ReminderExpiring},
		&river.InsertOpts{ScheduledAt: at}); err != nil {
		return fmt.Errorf("enqueue the reminder of %s: %w", a.ID, err)
	}
	return nil
}

// Remind emails the workspace's people about an approval (reminder is
// ReminderOpened or ReminderExpiring) and reports whether it sent it. It
// sends nothing when the approval is no longer pending, when this
// reminder was claimed before (by any replica), when the workspace has
// no people, or without a [Deps].Mailer. The claim is committed before
// sending: a failure after it is not retried, as a lost reminder is
// better than two.
func (s *Service) Remind(ctx context.Context, ws uuid.UUID, id, reminder string) (bool, error) {
	if reminder != ReminderOpened && reminder != ReminderExpiring && !stageReminder.MatchString(reminder) {
		return false, fmt.Errorf("approvals: unknown reminder %q", reminder)
	}
	if s.mailer == nil {
		return false, nil
	}
	all, err := s.mailer.People(ctx, ws)
	if err != nil || len(all) == 0 {
		return false, err
	}
	people := all
	var a Approval
	claimed := false
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		// The row lock orders the claim with any decision being taken.
		a, err = s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, ws, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if a.Status != Pending || !s.clock.Now().Before(a.ExpiresAt) {
			return nil
		}
		if people = a.askedNow(all); len(people) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `INSERT INTO approval_reminders (workspace_id, approval_id, kind, sent_at, recipients)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, ws, id, reminder, s.clock.Now(), len(people))
		claimed = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claim the %s email of %s: %w", reminder, id, err)
	}
	if !claimed {
		return false, nil
	}
	subject, body := reminderText(ctx, a, reminder, s.clock.Now())
	if err := s.mailer.Send(ctx, ws, people, subject, body); err != nil {
		s.logger.ErrorContext(ctx, "approval email not sent; it is not sent again", "approval", id, "reminder", reminder, "err", err)
		return false, nil
	}
	return true, nil
}

// reminderText writes the email: what waits, what it will do, what it
// costs, and the link to decide it, for a person.
func reminderText(ctx context.Context, a Approval, reminder string, now time.Time) (subject, body string) {
	subject = "Waiting for your approval: " + a.Summary
	lead := "An action in your VibeSell workspace waits for a signed-in person's approval."
	if stageReminder.MatchString(reminder) {
		p := a.Progress()
		subject = "Your turn to approve (" + p.Text() + "): " + a.Summary
		lead = "The approvals before yours are in; this now waits for " + p.Waiting + "."
	}
	if reminder == ReminderExpiring {
		subject = "Reminder, expires " + vibesell.FormatTimeFor(ctx, a.ExpiresAt) + ": " + a.Summary
		lead = "This approval still waits for a decision, and expires soon. If no one decides, nothing is done."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n", lead, a.Summary)
	if a.Staged() {
		fmt.Fprintf(&b, "Approvals so far: %s.\n\n", a.Progress().Text())
	}
	fmt.Fprintf(&b, "What will happen: %s\n", a.Impact.What)
	for _, it := range a.Impact.Items {
		fmt.Fprintf(&b, "  - %s\n", it)
	}
	fmt.Fprintf(&b, "Who: %s\nWhen: %s\n", a.Impact.Who, a.Impact.When)
	cost := a.Impact.Charged
	if cost == "" {
		cost = fmt.Sprintf("%s now, %s a month", a.Impact.CostOnce, a.Impact.CostMonthly)
		if a.Impact.Sandbox {
			cost += " (sandbox amounts: nothing is charged)"
		}
	}
	fmt.Fprintf(&b, "Cost: %s\nCan it be undone: %s\n", cost, a.Impact.Undo)
	fmt.Fprintf(&b, "Decide by: %s\n\nApprove or reject it here: %s\n", vibesell.FormatTimeFor(ctx, a.ExpiresAt), a.AppURL)
	return subject, b.String()
}
