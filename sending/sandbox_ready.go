package sending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// SandboxShortcutLabel is what every view of the setup says of a domain or
// mailbox the sandbox shortcut made ready and warm.
const SandboxShortcutLabel = "Made ready and warm at once: a sandbox shortcut, not a real warmup"

// SandboxReadiness is what [Service.SandboxReady] did.
type SandboxReadiness struct {
	// Domains and Mailboxes are the ordered ones made ready (and, for
	// mailboxes, warm) by this call; those the shortcut had already made
	// ready are not counted again.
	Domains   []string
	Mailboxes []string
	// Already counts the mailboxes an earlier shortcut made warm.
	Already int
	At      time.Time
}

// SandboxReady makes every ordered sandbox domain ready and every ordered
// sandbox mailbox ready and warm now, instead of waiting out preparation
// and warmup, so a new user sees the sending engine run at once. Each is
// marked as a sandbox shortcut, which every view of the setup shows.
// Calling it again changes nothing already made ready.
//
// Refusals: EINVALID when the server orders from a real provider (nothing
// can be made ready but by the provider and the warmup), or when nothing
// is ordered yet.
func (s *Service) SandboxReady(ctx context.Context, ws uuid.UUID) (SandboxReadiness, error) {
	if !s.Sandbox() {
		return SandboxReadiness{}, vibesell.Errorf(vibesell.EINVALID,
			"This server sets up domains and mailboxes with a real provider (%s): they are ready once the provider has prepared them, and warm once their warmup is over. The shortcut exists only in the sandbox.", s.provisioner.Name())
	}
	now := s.clock.Now()
	r := SandboxReadiness{At: now}
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockSetup(ctx, tx, ws); err != nil {
			return err
		}
		var err error
		r.Domains, err = collectStrings(tx.Query(ctx, `
			UPDATE sending_domains SET ready_at = least(ready_at, $2), sandbox_ready_at = $2
			 WHERE workspace_id = $1 AND status = 'ordered' AND provider = $3 AND sandbox_ready_at IS NULL
			RETURNING domain`, ws, now, SandboxName))
		if err != nil {
			return fmt.Errorf("sandbox shortcut: domains: %w", err)
		}
		r.Mailboxes, err = collectStrings(tx.Query(ctx, `
			UPDATE sending_mailboxes SET ready_at = least(ready_at, $2), sandbox_ready_at = $2
			 WHERE workspace_id = $1 AND status <> 'planned' AND provider = $3 AND sandbox_ready_at IS NULL
			RETURNING address`, ws, now, SandboxName))
		if err != nil {
			return fmt.Errorf("sandbox shortcut: mailboxes: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM sending_mailboxes WHERE workspace_id = $1 AND sandbox_ready_at IS NOT NULL`, ws).Scan(&r.Already); err != nil {
			return fmt.Errorf("sandbox shortcut: %w", err)
		}
		r.Already -= len(r.Mailboxes)
		return nil
	})
	if err != nil {
		return SandboxReadiness{}, err
	}
	if len(r.Domains) == 0 && len(r.Mailboxes) == 0 && r.Already == 0 {
		return SandboxReadiness{}, vibesell.Errorf(vibesell.EINVALID,
			"Nothing is ordered yet, so there is nothing to make ready. Order the sending setup first (the assistant asks for its approval), then use the shortcut.")
	}
	return r, nil
}

// SandboxShortcuts is how many of the setup's mailboxes the sandbox
// shortcut made ready and warm.
func (st Setup) SandboxShortcuts() int {
	n := 0
	for _, m := range st.Mailboxes {
		if m.SandboxReadyAt != nil {
			n++
		}
	}
	return n
}

// Sentence says what the shortcut did, for a person.
func (r SandboxReadiness) Sentence() string {
	return ShortcutSentence(len(r.Domains), len(r.Mailboxes), r.Already)
}

// ShortcutSentence says what a shortcut that made domains and mailboxes
// ready did, already counting those an earlier one made.
func ShortcutSentence(domains, mailboxes, already int) string {
	if mailboxes == 0 && domains == 0 {
		return fmt.Sprintf("Nothing more to do: the sandbox shortcut already made %s ready and warm.", vibesell.Plural(already, "mailbox", "mailboxes"))
	}
	boxes := mailboxesCounted(mailboxes)
	if mailboxes == 0 {
		return fmt.Sprintf("Made %s ready at once: a sandbox shortcut.", domainsCounted(domains).Count())
	}
	return fmt.Sprintf("Made %s and %s ready, and %s warm, at once: a sandbox shortcut. %s can send at full volume now.",
		domainsCounted(domains).Count(), boxes.Count(), boxes.The(), capital(boxes.They()))
}

func collectStrings(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
