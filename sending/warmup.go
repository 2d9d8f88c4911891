package sending

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// RampDay is one day of the warmup ramp.
type RampDay struct {
	Day        int // 1 is the first day
	Date       time.Time
	PerMailbox int // warmup emails each mailbox sends that day
	Total      int // across the mailboxes started
}

// Warmup is what start_warmup did.
type Warmup struct {
	Started        []MailboxOrder // warmup started now
	AlreadyWarming []MailboxOrder // started before; left as they are
	NotReady       []MailboxOrder // still being prepared
	Prewarmed      []MailboxOrder // already warm; they need no warmup
	Ramp           []RampDay      // for the mailboxes started now; nil when none were
	StartedOn      *time.Time
	FullVolumeOn   *time.Time // when those started now can send at full volume
	Provider       string
}

// Ramp returns the warmup ramp of n mailboxes starting on start: day 1
// sends RampStart emails a mailbox, each later day RampStep more, up to
// perMailbox.
func (s *Service) Ramp(start time.Time, n, perMailbox int) []RampDay {
	out := make([]RampDay, s.cfg.WarmupDays)
	for i := range out {
		v := min(s.cfg.RampStart+i*s.cfg.RampStep, perMailbox)
		out[i] = RampDay{Day: i + 1, Date: day(start).AddDate(0, 0, i), PerMailbox: v, Total: v * n}
	}
	return out
}

// StartWarmup starts warming up every mailbox that is ready and not warming
// yet. Calling it again starts only mailboxes that became ready since;
// those warming already are left alone.
//
// Refusals (EINVALID): no mailboxes ordered; none ready to start and none
// warming (the text says when they will be ready).
func (s *Service) StartWarmup(ctx context.Context, ws uuid.UUID) (Warmup, error) {
	now := s.clock.Now()
	w := Warmup{Provider: s.provisioner.Name()}
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockSetup(ctx, tx, ws); err != nil {
			return err
		}
		// One statement starts them, so concurrent calls start each
		// mailbox once.
		rows, err := tx.Query(ctx, `
			UPDATE sending_mailboxes SET status = 'warming', warmup_started_at = $2
			WHERE workspace_id = $1 AND status = 'ordered' AND NOT prewarmed AND ready_at <= $2 AND sandbox_ready_at IS NULL
			RETURNING address`, ws, now)
		if err != nil {
			return fmt.Errorf("start warmup: %w", err)
		}
		started, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("start warmup: %w", err)
		}
		if len(started) > 0 {
			if err := s.provisioner.StartWarmup(ctx, started); err != nil {
				return fmt.Errorf("start warmup with %s: %w", s.provisioner.Name(), err)
			}
		}
		all, err := s.mailboxes(ctx, tx, ws)
		if err != nil {
			return err
		}
		for _, m := range all {
			switch {
			case m.Status == MailboxPlanned:
			case m.SandboxReadyAt != nil:
				w.Prewarmed = append(w.Prewarmed, m) // warm already, by the sandbox shortcut
			case m.Status == MailboxWarming && slices.Contains(started, m.Address):
				w.Started = append(w.Started, m)
			case m.Status == MailboxWarming:
				w.AlreadyWarming = append(w.AlreadyWarming, m)
			case m.ReadyAt != nil && now.Before(*m.ReadyAt):
				w.NotReady = append(w.NotReady, m)
			case m.Prewarmed:
				w.Prewarmed = append(w.Prewarmed, m)
			}
		}
		return nil
	})
	if err != nil {
		return Warmup{}, err
	}
	if len(w.Started)+len(w.AlreadyWarming)+len(w.NotReady)+len(w.Prewarmed) == 0 {
		pending, err := s.PendingOrder(ctx, ws)
		if err != nil {
			return Warmup{}, err
		}
		if pending != nil {
			return Warmup{}, vibesell.Errorf(vibesell.EINVALID, "There are no ordered mailboxes to warm up yet. %s Once ordered, the warmup starts by itself when the mailboxes are ready.", pendingOrderSentence(*pending)).Then(
				stepFollowOrder.With("approval", pending.ID))
		}
		return Warmup{}, vibesell.Errorf(vibesell.EINVALID,
			"There are no ordered mailboxes to warm up yet: warmup can start once the mailboxes are ordered and ready.").Then(
			stepOrder)
	}
	if len(w.Started)+len(w.AlreadyWarming) == 0 && len(w.NotReady) > 0 {
		first := *w.NotReady[0].ReadyAt
		for _, m := range w.NotReady {
			if m.ReadyAt.Before(first) {
				first = *m.ReadyAt
			}
		}
		return Warmup{}, vibesell.Errorf(vibesell.EINVALID,
			"None of the mailboxes is ready to warm up yet: the first are ready on %s, and their warmup starts by itself that day (or start it at once on or after that day).", vibesell.FormatDate(first)).Then(
			stepStartWarmup)
	}
	if len(w.Started) > 0 {
		per := s.cfg.EmailsPerMailbox
		if z, err := s.ConfirmedSizing(ctx, ws); err == nil && z != nil {
			per = z.EmailsPerMailbox
		}
		start := day(now)
		full := s.cfg.onOrAfterBusinessDay(start.AddDate(0, 0, s.cfg.WarmupDays))
		w.Ramp = s.Ramp(start, len(w.Started), per)
		w.StartedOn, w.FullVolumeOn = &start, &full
	}
	return w, nil
}
