package replies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Ways a classification is corrected.
const (
	CorrectedInWeb       = "web"       // a signed-in person in the web app
	CorrectedByAssistant = "assistant" // through a tool, relayed by the assistant
)

// Corrector is who corrects a classification, and from where.
type Corrector struct {
	// By names them for the record: the signed-in person's email in the
	// web app; through the assistant, the person its connection signed in
	// ("ada@acme.test, through Claude"), or the workspace's token, which
	// stands for no one in particular.
	By string
	// User is their account; uuid.Nil for a workspace token.
	User uuid.UUID
	// Via is [CorrectedInWeb] or [CorrectedByAssistant].
	Via string
}

// Correction is one correction of a reply's classification, as kept.
type Correction struct {
	From, To string
	By       string
	Via      string
	At       time.Time
}

// ReplyDetail is one reply with what it answers and how it was
// corrected, for the reply's page.
type ReplyDetail struct {
	Reply ListedReply
	// Sent is the email it answers; nil when it matched none.
	Sent *SentEmail
	// Corrections are the corrections of its classification, oldest
	// first.
	Corrections []Correction
}

// SentEmail is an email of a campaign as the send ledger keeps it.
type SentEmail struct {
	Mailbox   string // the address it went from
	Recipient string
	Step      int
	MessageID string
	At        time.Time // when it was handed over (or tried)
	Status    string
}

// Get returns one reply of the workspace with the email it answers and
// its corrections. Refusal: ENOTFOUND for an id no reply of this
// workspace has.
func (r *Replies) Get(ctx context.Context, ws uuid.UUID, id string) (ReplyDetail, error) {
	reply, err := r.one(ctx, r.db, ws, id)
	if err != nil {
		return ReplyDetail{}, err
	}
	t := ReplyDetail{Reply: reply, Corrections: []Correction{}}
	if reply.Campaign != "" && reply.Step != nil {
		var s SentEmail
		err := r.db.QueryRow(ctx, `SELECT s.mailbox, s.recipient, s.step, s.message_id, coalesce(s.settled_at, s.claimed_at), s.status
			FROM mail_sends s JOIN mail_replies r ON r.workspace_id = s.workspace_id AND r.campaign_id = s.campaign_id AND r.lead_id = s.lead_id AND r.step = s.step
			WHERE r.workspace_id = $1 AND r.id = $2`, ws, reply.ID).Scan(&s.Mailbox, &s.Recipient, &s.Step, &s.MessageID, &s.At, &s.Status)
		switch {
		case err == nil:
			t.Sent = &s
		case !errors.Is(err, pgx.ErrNoRows):
			return ReplyDetail{}, fmt.Errorf("read the email reply %s answers: %w", id, err)
		}
	}
	rows, err := r.db.Query(ctx, `SELECT from_class, to_class, corrected_by, via, corrected_at FROM mail_reply_corrections
		WHERE workspace_id = $1 AND reply_id = $2 ORDER BY corrected_at, id`, ws, reply.ID)
	if err != nil {
		return ReplyDetail{}, fmt.Errorf("read the corrections of reply %s: %w", id, err)
	}
	t.Corrections, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Correction, error) {
		var c Correction
		err := row.Scan(&c.From, &c.To, &c.By, &c.Via, &c.At)
		return c, err
	})
	if err != nil {
		return ReplyDetail{}, fmt.Errorf("read the corrections of reply %s: %w", id, err)
	}
	return t, nil
}

// Correct sets the classification of one reply of the workspace to what
// a person says it is, keeping what the rules read and who corrected it.
// From then on every count and list reads the corrected class: the
// campaign's tallies, the lead's story, the replies waiting for an
// answer, and whether the reply stops the lead's sequence. What already
// happened is not undone (an address suppressed for an unsubscribe
// request stays suppressed). Correcting to the class it has changes
// nothing.
//
// Refusals: EINVALID for a classification that does not exist (the
// sentence lists them) or for bounce (a bounce is the mail server's
// report, read from its headers); ENOTFOUND for a reply this workspace
// does not have.
func (r *Replies) Correct(ctx context.Context, ws uuid.UUID, id, class string, who Corrector) (ListedReply, error) {
	if !slices.Contains(Classifications(), class) {
		return ListedReply{}, vibesell.Errorf(vibesell.EINVALID, "%q is not a classification of replies. Use one of %s.",
			class, vibesell.JoinOr(Classifications()))
	}
	if class == Bounce {
		return ListedReply{}, vibesell.Errorf(vibesell.EINVALID,
			"A reply can't be corrected to bounced: a bounce is a mail server's report that the email was not delivered, read from the report itself. Choose another classification.")
	}
	if who.Via != CorrectedInWeb && who.Via != CorrectedByAssistant {
		return ListedReply{}, fmt.Errorf("correct reply %s: unknown way %q", id, who.Via)
	}
	tx, err := r.db.Begin(ctx)
	if err != nil {
		return ListedReply{}, fmt.Errorf("correct reply %s: %w", id, err)
	}
	defer tx.Rollback(ctx)
	var current string
	err = tx.QueryRow(ctx, `SELECT classification FROM mail_replies WHERE workspace_id = $1 AND id::text = $2 FOR UPDATE`, ws, id).Scan(&current)
	if errors.Is(err, pgx.ErrNoRows) {
		return ListedReply{}, replyNotFound(id)
	}
	if err != nil {
		return ListedReply{}, fmt.Errorf("correct reply %s: %w", id, err)
	}
	if current != class {
		// A reply corrected away from a bounce is no bounce any more; the
		// address it suppressed stays suppressed.
		if _, err := tx.Exec(ctx, `UPDATE mail_replies SET classification = $3, classified_as = coalesce(classified_as, classification),
				corrected_by = $4, corrected_at = now(), bounce = NULL, returns_on = CASE WHEN $3 = 'out_of_office' THEN returns_on END
			WHERE workspace_id = $1 AND id::text = $2`, ws, id, class, who.By); err != nil {
			return ListedReply{}, fmt.Errorf("correct reply %s: %w", id, err)
		}
		var user *uuid.UUID
		if who.User != uuid.Nil {
			user = &who.User
		}
		if _, err := tx.Exec(ctx, `INSERT INTO mail_reply_corrections (workspace_id, reply_id, from_class, to_class, corrected_by, corrected_by_user, via, corrected_at)
			SELECT $1, id, $3, $4, $5, $6, $7, now() FROM mail_replies WHERE workspace_id = $1 AND id::text = $2`,
			ws, id, current, class, who.By, user, who.Via); err != nil {
			return ListedReply{}, fmt.Errorf("correct reply %s: %w", id, err)
		}
	}
	reply, err := r.one(ctx, tx, ws, id)
	if err != nil {
		return ListedReply{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return ListedReply{}, fmt.Errorf("correct reply %s: %w", id, err)
	}
	return reply, nil
}

func replyNotFound(id string) error {
	return vibesell.Errorf(vibesell.ENOTFOUND, "There is no reply %q in this workspace. The list of replies gives each reply's id.", id)
}

type queryer interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// one reads one reply as a list shows it.
func (r *Replies) one(ctx context.Context, q queryer, ws uuid.UUID, id string) (ListedReply, error) {
	if _, err := uuid.Parse(id); err != nil {
		return ListedReply{}, replyNotFound(id)
	}
	rows, err := q.Query(ctx, `SELECT `+listedReplyColumns()+`, true FROM `+listedReplyFrom+` WHERE r.workspace_id = $1 AND r.id = $2`, ws, id)
	if err != nil {
		return ListedReply{}, fmt.Errorf("read reply %s: %w", id, err)
	}
	l, err := pgx.CollectExactlyOneRow(rows, scanListedReply)
	if errors.Is(err, pgx.ErrNoRows) {
		return ListedReply{}, replyNotFound(id)
	}
	if err != nil {
		return ListedReply{}, fmt.Errorf("read reply %s: %w", id, err)
	}
	return l, nil
}
