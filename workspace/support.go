package workspace

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Ticket is a support request as stored. Tickets stay on this server:
// the workspace's people see them in the web app, and the operator with
// `server support list`.
type Ticket struct {
	ID        uuid.UUID
	Workspace string // the workspace's slug
	Number    int64
	Topic     string
	Message   string
	ReplyTo   string // may be empty: answer in the web app only
	Status    string
	CreatedAt time.Time
}

// TicketTopics lists what a ticket can be about.
var TicketTopics = []string{"sending", "leads", "campaigns", "billing", "account", "bug", "other"}

// OpenTicket stores a support request. Refusals: EINVALID for an empty or
// over-long message or a malformed reply address.
func (s *Service) OpenTicket(ctx context.Context, ws uuid.UUID, topic, message, replyTo string) (Ticket, error) {
	message = strings.TrimSpace(message)
	if message == "" {
		return Ticket{}, vibesell.Errorf(vibesell.EINVALID, "Say what went wrong or what you need, in the person's words.")
	}
	if len([]rune(message)) > 5000 {
		return Ticket{}, vibesell.Errorf(vibesell.EINVALID, "A support message can be at most 5,000 characters long; this one is %d.", len([]rune(message)))
	}
	replyTo = strings.TrimSpace(replyTo)
	var reply *string
	if replyTo != "" {
		addr, err := mail.ParseAddress(replyTo)
		if err != nil || addr.Name != "" {
			return Ticket{}, vibesell.Errorf(vibesell.EINVALID, "%q is not an email address; give one like sam@acme.com, or leave it out.", replyTo)
		}
		replyTo = addr.Address
		reply = &replyTo
	}
	t := Ticket{ID: uuid.New(), Topic: topic, Message: message, ReplyTo: replyTo}
	err := s.db.QueryRow(ctx,
		`INSERT INTO support_tickets (workspace_id, id, topic, message, reply_to, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6)
		 RETURNING number, status, created_at, (SELECT slug FROM workspaces WHERE id = $1)`,
		ws, t.ID, topic, message, reply, s.clock.Now()).Scan(&t.Number, &t.Status, &t.CreatedAt, &t.Workspace)
	if err != nil {
		return Ticket{}, fmt.Errorf("open ticket: %w", err)
	}
	return t, nil
}

// openTicketsSQL counts the open tickets of workspace $1.
const openTicketsSQL = `SELECT count(*) FROM support_tickets WHERE workspace_id = $1 AND status = 'open'`

// OpenTickets counts the workspace's tickets that are still open.
func (s *Service) OpenTickets(ctx context.Context, ws uuid.UUID) (int, error) {
	return scanOpenTickets(s.db.QueryRow(ctx, openTicketsSQL, ws))
}

func scanOpenTickets(row pgx.Row) (int, error) {
	var n int
	if err := row.Scan(&n); err != nil {
		return 0, fmt.Errorf("count tickets: %w", err)
	}
	return n, nil
}

// Reference is how a ticket is quoted: "VS-1001".
func (t Ticket) Reference() string { return fmt.Sprintf("VS-%d", t.Number) }

// ticketsSQL reads tickets, newest first, with their workspace's slug:
// those of workspace $1, or of every workspace when $1 is null.
const ticketsSQL = `SELECT t.id, w.slug, t.number, t.topic, t.message, coalesce(t.reply_to, ''), t.status, t.created_at
	FROM support_tickets t JOIN workspaces w ON w.id = t.workspace_id
	WHERE $1::uuid IS NULL OR t.workspace_id = $1
	ORDER BY t.created_at DESC, t.number DESC LIMIT $2`

// maxTicketsListed bounds a list of tickets; older ones stay stored.
const maxTicketsListed = 200

// Tickets returns the workspace's support tickets, newest first (at most
// 200).
func (s *Service) Tickets(ctx context.Context, ws uuid.UUID) ([]Ticket, error) {
	return s.tickets(ctx, &ws)
}

// EveryTicket returns the support tickets of every workspace of this
// server, newest first (at most 200): what its operator answers. It is the
// one read that spans workspaces, for the operator's command line only.
func (s *Service) EveryTicket(ctx context.Context) ([]Ticket, error) {
	return s.tickets(ctx, nil)
}

func (s *Service) tickets(ctx context.Context, ws *uuid.UUID) ([]Ticket, error) {
	rows, err := s.db.Query(ctx, ticketsSQL, ws, maxTicketsListed)
	if err != nil {
		return nil, fmt.Errorf("list tickets: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Ticket, error) {
		var t Ticket
		err := r.Scan(&t.ID, &t.Workspace, &t.Number, &t.Topic, &t.Message, &t.ReplyTo, &t.Status, &t.CreatedAt)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tickets: %w", err)
	}
	return list, nil
}
