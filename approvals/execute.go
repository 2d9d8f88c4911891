package approvals

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/store"
)

// Execution is what an [Executor] gets to carry out one approved action.
type Execution struct {
	Approval Approval
	// IdempotencyKey is the same on every attempt of this approval
	// ("approval:ap_…"). Everything the executor asks of the outside world
	// (a provider order, a charge) must carry it, so that an attempt
	// resumed after a crash does not act twice.
	IdempotencyKey string
	// Attempt counts from 1.
	Attempt int
	// Resumed is true when an earlier attempt had begun acting (the
	// approval was marked executing) and did not finish: work already done
	// under IdempotencyKey counts as done, and preconditions are not
	// checked again.
	Resumed bool
}

// Executor carries out one kind of action once it is approved.
//
// Check runs just before the first attempt acts, and re-checks the
// action's preconditions against what is true now (the plan still allows
// it, the thing to order is still available…). A refusal
// (*vibesell.Error) ends the approval not done with the refusal's sentence
// as the reason; any other error is retried.
//
// Execute acts, idempotently by [Execution].IdempotencyKey, and returns a
// sentence saying what was done. A refusal ends the approval not done with
// its sentence (nothing was done); any other error is retried, up to
// [MaxExecutionAttempts] attempts in all.
type Executor interface {
	Check(ctx context.Context, ex Execution) error
	Execute(ctx context.Context, ex Execution) (string, error)
}

// ExecutorFuncs makes an [Executor] of two functions; a nil CheckFunc
// checks nothing.
type ExecutorFuncs struct {
	CheckFunc   func(ctx context.Context, ex Execution) error
	ExecuteFunc func(ctx context.Context, ex Execution) (string, error)
}

// Check calls CheckFunc.
func (f ExecutorFuncs) Check(ctx context.Context, ex Execution) error {
	if f.CheckFunc == nil {
		return nil
	}
	return f.CheckFunc(ctx, ex)
}

// Execute calls ExecuteFunc.
func (f ExecutorFuncs) Execute(ctx context.Context, ex Execution) (string, error) {
	return f.ExecuteFunc(ctx, ex)
}

// MaxExecutionAttempts bounds the retries of a failing execution (River's
// backoff makes 8 attempts span about an hour and a half).
const MaxExecutionAttempts = 8

// ExecuteArgs is the job that carries out one approved approval. It is
// unique per approval for as long as River keeps the job, and the approval's
// status makes any duplicate a no-op after that.
type ExecuteArgs struct {
	WorkspaceID uuid.UUID `json:"workspace_id"`
	ApprovalID  string    `json:"approval_id"`
}

// Kind names the job in River.
func (ExecuteArgs) Kind() string { return "approvals.execute" }

// InsertOpts makes the job unique per approval.
func (ExecuteArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: MaxExecutionAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ExecutionTimeout bounds one attempt at carrying out an approval. An
// executor's calls to the outside world each have their own, shorter
// timeouts (a registry lookup, a provider order), so a minute is ample;
// a slower attempt is cut and retried with the same idempotency key.
const ExecutionTimeout = time.Minute

// RescueStuckJobsAfter is the River client setting (Config.
// RescueStuckJobsAfter) chosen with [ExecutionTimeout]: a job still
// running this long after it started belongs to a worker that died (kill
// -9, a lost machine), and River makes it available again. River's default
// is an hour, during which the web app says the approval is being carried
// out. It must exceed the longest job timeout, or River would start a job
// again while its first attempt still runs; the 30 s beyond
// [ExecutionTimeout] let an attempt cut at its timeout record its outcome.
// River's rescuer looks every 30 s, so a crashed execution is taken up
// again within about two minutes of the crash.
const RescueStuckJobsAfter = ExecutionTimeout + 30*time.Second

// ExecuteWorker runs [ExecuteArgs].
type ExecuteWorker struct {
	river.WorkerDefaults[ExecuteArgs]
	Service *Service
	// JobTimeout bounds one attempt. Default [ExecutionTimeout].
	JobTimeout time.Duration
}

// Timeout bounds one attempt.
func (w *ExecuteWorker) Timeout(*river.Job[ExecuteArgs]) time.Duration {
	if w.JobTimeout > 0 {
		return w.JobTimeout
	}
	return ExecutionTimeout
}

// Work carries out the approval; see [Service.Execute].
func (w *ExecuteWorker) Work(ctx context.Context, job *river.Job[ExecuteArgs]) error {
	return w.Service.Execute(ctx, job.Args.WorkspaceID, job.Args.ApprovalID, job.Attempt, job.MaxAttempts)
}

// Execute carries out an approved approval: the body of [ExecuteWorker].
// It re-checks expiry and preconditions, marks the approval executing,
// calls the action's executor and records the outcome. It does nothing for
// an approval that is not approved (already finished, or never approved),
// so running it twice acts once. An error means "retry"; on the last
// attempt a failure ends the approval not done instead.
func (s *Service) Execute(ctx context.Context, ws uuid.UUID, id string, attempt, maxAttempts int) error {
	a, err := s.Find(ctx, ws, id)
	if err != nil {
		if vibesell.ErrorCode(err) == vibesell.ENOTFOUND {
			return nil // the workspace was deleted
		}
		return err
	}
	if a.Status != Approved {
		return nil
	}
	lastAttempt := attempt >= maxAttempts
	resumed := a.StartedAt != nil
	ex, ok := s.executor(a.Action)
	if !ok {
		err := fmt.Errorf("no executor is registered for action %q", a.Action)
		if lastAttempt {
			return s.finishFailed(ctx, a, resumed, err)
		}
		return err
	}
	exn := Execution{Approval: a, IdempotencyKey: "approval:" + a.ID, Attempt: attempt, Resumed: resumed}

	if !resumed {
		now := s.clock.Now()
		if !now.Before(a.ExpiresAt) {
			return s.finish(ctx, a, "approved", NotDone, "not_done", fmt.Sprintf(
				"Not carried out: the approval expired on %s before it could start. Nothing was done.", vibesell.FormatTimeFor(ctx, a.ExpiresAt)))
		}
		if err := ex.Check(ctx, exn); err != nil {
			if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
				return s.finish(ctx, a, "approved", NotDone, "not_done", "Not carried out: "+vibesell.ErrorForPerson(err))
			}
			if lastAttempt {
				return s.finishFailed(ctx, a, resumed, err)
			}
			return fmt.Errorf("check %s %s: %w", a.Action, a.ID, err)
		}
		// Durably "executing" before acting: from here on, a crash resumes
		// with the same idempotency key instead of starting over.
		var marked bool
		err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE approvals SET status = 'executing', started_at = $3
				WHERE workspace_id = $1 AND id = $2 AND status = 'approved' AND started_at IS NULL`, ws, id, now)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			marked = true
			return record(ctx, tx, entry{ws: ws, id: id, at: now, event: "executing", from: ptr("approved"), to: "executing",
				actor: ActorVibeSell, via: ViaSystem})
		})
		if err != nil {
			return fmt.Errorf("mark %s executing: %w", id, err)
		}
		if !marked {
			return nil // another worker took it
		}
	}

	text, err := ex.Execute(ctx, exn)
	switch {
	case err == nil:
		return s.finish(ctx, a, "executing", Done, "done", text)
	case vibesell.ErrorCode(err) != vibesell.EINTERNAL:
		return s.finish(ctx, a, "executing", NotDone, "not_done", "Not carried out: "+vibesell.ErrorForPerson(err))
	case lastAttempt:
		return s.finishFailed(ctx, a, true, err)
	}
	return fmt.Errorf("execute %s %s (attempt %d): %w", a.Action, a.ID, attempt, err)
}

// finish records the end of an execution, if the approval is still where
// this execution left it.
func (s *Service) finish(ctx context.Context, a Approval, from string, to Status, event, outcome string) error {
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.clock.Now()
		tag, err := tx.Exec(ctx, `UPDATE approvals SET status = $4, finished_at = $5, outcome = $6
			WHERE workspace_id = $1 AND id = $2 AND status = $3`, a.WorkspaceID, a.ID, from, string(to), now, outcome)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		return record(ctx, tx, entry{ws: a.WorkspaceID, id: a.ID, at: now, event: event, from: &from, to: string(to),
			actor: ActorVibeSell, via: ViaSystem, reason: &outcome})
	})
	if err != nil {
		return fmt.Errorf("record outcome of %s: %w", a.ID, err)
	}
	return nil
}

// finishFailed ends an approval whose execution kept failing. The cause
// goes to the log; the person reads a sentence and a reference.
func (s *Service) finishFailed(ctx context.Context, a Approval, started bool, cause error) error {
	s.logger.ErrorContext(ctx, "approval execution failed for good", "approval", a.ID, "action", a.Action,
		"workspace", a.WorkspaceID.String(), "err", cause)
	from := "approved"
	outcome := fmt.Sprintf("Not carried out: VibeSell could not do it after %d attempts and stopped trying. Nothing was done. Contact support and quote %s.", MaxExecutionAttempts, a.ID)
	if started {
		from = "executing"
		outcome = fmt.Sprintf("Not completed: VibeSell could not finish it after %d attempts and stopped trying; part of it may have been done. Contact support and quote %s.", MaxExecutionAttempts, a.ID)
	}
	if err := s.finish(ctx, a, from, NotDone, "not_done", outcome); err != nil {
		return err
	}
	return nil
}
