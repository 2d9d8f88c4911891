package approvals

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// DefaultTTL is how long an approval waits for a decision when the action
// does not say.
const DefaultTTL = 72 * time.Hour

var actionName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Request asks for a person's decision about one action.
type Request struct {
	WorkspaceID uuid.UUID
	// Action names the action (the action tool's name, e.g.
	// order_sending_setup); an [Executor] must be registered for it.
	Action string
	// Arguments are what the action will act on, any JSON-encodable value.
	// They are stored canonically (object keys sorted): the same action
	// with the same arguments is one approval while it is pending.
	Arguments any
	// Details are what the executor needs to carry out exactly what is
	// approved (the plan the impact describes), any JSON-encodable value or
	// nil. They are not part of the approval's identity; when they change,
	// the pending approval is superseded like when the impact changes.
	Details any
	// Summary is one sentence naming the action, for lists and titles.
	Summary string
	// Impact is what exactly will happen, written by the server.
	Impact Impact
	// Irreversible says the action cannot be undone; such an approval must
	// have DecideHere false.
	Irreversible bool
	// DecideHere false (paid or irreversible actions) means only a
	// signed-in person in the web app may approve.
	DecideHere bool
	// TTL is how long the approval waits for a decision. Default
	// [DefaultTTL]; at most 30 days.
	TTL time.Duration
	// RequestedBy is the signed-in person the request is made by or for:
	// [Person] for an OAuth connection, the email in the web app; empty
	// when no one is known (a workspace token, stdio). The audit trail
	// records a request from the web app as that person's, and one from a
	// tool as [ActorAssistant]'s, for that person when known.
	RequestedBy string
	// RequestedVia is recorded in the audit trail. Default conversation.
	RequestedVia string
}

// Open returns the pending approval for the request's action and
// arguments (or the approved one being carried out), opening one if there
// is none. created reports whether this call opened it.
//
// When a pending approval exists but what it would do has changed since
// (its summary, impact, irreversibility or where it may be decided), the
// old one ends not done ("superseded") and a new one is opened, so that
// nobody approves a cost or a list that is no longer true. An expired
// pending approval ends not done (expired) first.
//
// Errors are internal: a request without a summary or impact, an
// irreversible action decidable in the conversation, or an action with no
// registered executor are mistakes in the calling tool.
func (s *Service) Open(ctx context.Context, r Request) (a Approval, created bool, err error) {
	requester := personEmail(r.RequestedBy) // before checkRequest words it for the trail
	if err := s.checkRequest(&r); err != nil {
		return Approval{}, false, err
	}
	args, hash, err := canonical(r.Arguments)
	if err != nil {
		return Approval{}, false, fmt.Errorf("approvals: arguments of %s: %w", r.Action, err)
	}
	impact, err := normalizedImpact(r.Impact)
	if err != nil {
		return Approval{}, false, err
	}
	details, _, err := canonical(r.Details)
	if err != nil {
		return Approval{}, false, fmt.Errorf("approvals: details of %s: %w", r.Action, err)
	}
	// A concurrent Open of the same request may insert between our look
	// and our insert; the unique index then makes ours insert nothing, and
	// the next round finds theirs.
	for range 5 {
		a, created, err = s.open(ctx, r, requester, args, hash, impact, details)
		if !errors.Is(err, errRaced) {
			break
		}
	}
	if err != nil {
		return Approval{}, false, fmt.Errorf("open approval for %s: %w", r.Action, err)
	}
	return a, created, nil
}

var errRaced = errors.New("a concurrent call opened the same approval")

func (s *Service) open(ctx context.Context, r Request, requester string, args []byte, hash [32]byte, impact, details []byte) (Approval, bool, error) {
	var out Approval
	var created bool
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.clock.Now()
		pol, err := policyForOpen(ctx, tx, &r, requester)
		if err != nil {
			return err
		}
		if err := s.expire(ctx, tx, now, expireScope{workspace: &r.WorkspaceID, action: &r.Action, hash: hash[:]}); err != nil {
			return err
		}
		existing, err := s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals
			WHERE workspace_id = $1 AND action = $2 AND arguments_hash = $3 AND status = 'pending' FOR UPDATE`,
			r.WorkspaceID, r.Action, hash[:]))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			// The same action may already be approved and running: asking
			// again returns it rather than a second approval of it.
			running, err := s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals
				WHERE workspace_id = $1 AND action = $2 AND arguments_hash = $3 AND status IN ('approved', 'executing')
				ORDER BY created_at DESC LIMIT 1`, r.WorkspaceID, r.Action, hash[:]))
			if err == nil {
				out = running
				return nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		case err != nil:
			return err
		default:
			same, err := sameProposal(existing, r, impact, details)
			if err != nil {
				return err
			}
			if same {
				out = existing
				return nil
			}
		}

		id := newID()
		if existing.ID != "" {
			// What it would do has changed: nobody may approve the old
			// proposal any more.
			outcome := fmt.Sprintf("Not carried out: replaced by %s because what it would do changed before anyone decided.", id)
			if _, err := tx.Exec(ctx, `UPDATE approvals SET status = 'not_done', finished_at = $3, outcome = $4
				WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`, r.WorkspaceID, existing.ID, now, outcome); err != nil {
				return err
			}
			if err := record(ctx, tx, entry{ws: r.WorkspaceID, id: existing.ID, at: now, event: "superseded", from: ptr("pending"), to: "not_done",
				actor: "VibeSell", via: ViaSystem, reason: ptr("What it would do changed; replaced by " + id + ".")}); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO approvals
			(workspace_id, id, action, arguments, arguments_hash, details, summary, impact, irreversible, decide_here, created_at, expires_at,
				requested_by_email, stages, requester_barred)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, nullif($13, ''), $14, $15)
			ON CONFLICT DO NOTHING`,
			r.WorkspaceID, id, r.Action, args, hash[:], details, r.Summary, impact, r.Irreversible, r.DecideHere, now, now.Add(r.TTL),
			pol.requester, pol.stages, pol.barred)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errRaced
		}
		if err := record(ctx, tx, entry{ws: r.WorkspaceID, id: id, at: now, event: "opened", to: "pending",
			actor: r.RequestedBy, via: r.RequestedVia}); err != nil {
			return err
		}
		out, err = s.scanApproval(tx.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`,
			r.WorkspaceID, id))
		if err != nil {
			return err
		}
		created = true
		if err := s.keepShown(ctx, tx, out); err != nil {
			return err
		}
		return s.enqueueReminders(ctx, tx, out)
	})
	return out, created, err
}

func (s *Service) checkRequest(r *Request) error {
	if r.WorkspaceID == uuid.Nil {
		return errors.New("approvals: a request needs a workspace")
	}
	if _, ok := s.executor(r.Action); !ok {
		return fmt.Errorf("approvals: no executor is registered for action %q", r.Action)
	}
	r.Summary = strings.TrimSpace(r.Summary)
	if r.Summary == "" || len(r.Summary) > 2000 {
		return fmt.Errorf("approvals: %s: the summary must be 1 to 2000 characters", r.Action)
	}
	im := r.Impact
	for name, v := range map[string]string{"what": im.What, "who": im.Who, "when": im.When, "renewal": im.Renewal, "undo": im.Undo} {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("approvals: %s: the impact must say %s", r.Action, name)
		}
	}
	for name, m := range map[string]vibesell.Money{"costOnce": im.CostOnce, "costMonthly": im.CostMonthly} {
		if len(m.Currency) != 3 || strings.ToUpper(m.Currency) != m.Currency || m.Minor < 0 {
			return fmt.Errorf("approvals: %s: the impact's %s needs a non-negative amount and an ISO currency code", r.Action, name)
		}
	}
	if r.Irreversible && r.DecideHere {
		return fmt.Errorf("approvals: %s is irreversible, so it must be decided in the web app (DecideHere false)", r.Action)
	}
	if r.TTL == 0 {
		r.TTL = DefaultTTL
	}
	if r.TTL < time.Minute || r.TTL > 30*24*time.Hour {
		return fmt.Errorf("approvals: %s: TTL %s is outside one minute to 30 days", r.Action, r.TTL)
	}
	switch r.RequestedVia {
	case "":
		r.RequestedVia = ViaConversation
	case ViaCard, ViaConversation, ViaWeb:
	default:
		return fmt.Errorf("approvals: unknown RequestedVia %q", r.RequestedVia)
	}
	switch {
	case r.RequestedBy == "":
		r.RequestedBy = ActorAssistant
	case r.RequestedVia != ViaWeb:
		r.RequestedBy = ActorAssistant + " for " + r.RequestedBy
	}
	return nil
}

// canonical encodes v as JSON with object keys sorted and numbers kept
// exactly as written, and returns its SHA-256.
func canonical(v any) ([]byte, [32]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, [32]byte{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, [32]byte{}, err
	}
	out, err := json.Marshal(generic) // maps encode with sorted keys
	if err != nil {
		return nil, [32]byte{}, err
	}
	return out, sha256.Sum256(out), nil
}

// normalizedImpact encodes an impact the way it reads back from the
// database, so that two proposals compare by their bytes.
func normalizedImpact(im Impact) ([]byte, error) {
	if im.Items == nil {
		im.Items = []string{}
	}
	b, err := json.Marshal(im)
	if err != nil {
		return nil, fmt.Errorf("approvals: encode impact: %w", err)
	}
	var back Impact
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, fmt.Errorf("approvals: decode impact: %w", err)
	}
	return json.Marshal(back)
}

func sameProposal(a Approval, r Request, impact, details []byte) (bool, error) {
	stored, err := normalizedImpact(a.Impact)
	if err != nil {
		return false, err
	}
	storedCanon, _, err := canonical(a.Details)
	if err != nil {
		return false, err
	}
	return a.Summary == r.Summary && bytes.Equal(stored, impact) && bytes.Equal(storedCanon, details) &&
		a.Irreversible == r.Irreversible && a.DecideHere == r.DecideHere, nil
}

// expireScope narrows which pending approvals [Service.expire] looks at;
// nil fields do not narrow.
type expireScope struct {
	workspace *uuid.UUID
	id        *string
	action    *string
	hash      []byte
}

// expire ends every pending approval in scope whose expiry has passed, with
// its audit row, in one statement. It returns nothing about them: callers
// read the rows they care about afterwards.
func (s *Service) expire(ctx context.Context, tx store.DBTX, now time.Time, sc expireScope) error {
	_, err := s.expireCount(ctx, tx, now, sc)
	return err
}

func (s *Service) expireCount(ctx context.Context, tx store.DBTX, now time.Time, sc expireScope) (int64, error) {
	tag, err := tx.Exec(ctx, `WITH expired AS (
			UPDATE approvals SET status = 'not_done', finished_at = $1,
				outcome = 'Not carried out: it expired on ' ||
					to_char(expires_at AT TIME ZONE 'UTC', 'Dy FMDD Mon YYYY, HH24:MI') ||
					' UTC before anyone decided.'
			WHERE status = 'pending' AND expires_at <= $1
				AND ($2::uuid IS NULL OR workspace_id = $2)
				AND ($3::text IS NULL OR id = $3)
				AND ($4::text IS NULL OR action = $4)
				AND ($5::bytea IS NULL OR arguments_hash = $5)
			RETURNING workspace_id, id)
		INSERT INTO approval_events (workspace_id, approval_id, at, event, from_status, to_status, actor, via, reason)
		SELECT workspace_id, id, $1, 'expired', 'pending', 'not_done', $6, 'system', 'No one decided before it expired.'
		FROM expired`,
		now, sc.workspace, sc.id, sc.action, sc.hash, ActorVibeSell)
	if err != nil {
		return 0, fmt.Errorf("expire approvals: %w", err)
	}
	return tag.RowsAffected(), nil
}

// refusalOrWrap keeps refusals as they are and wraps anything else.
func refusalOrWrap(err error, format string, args ...any) error {
	if err == nil || vibesell.ErrorCode(err) != vibesell.EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
