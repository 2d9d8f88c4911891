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

// Ticket is a support request as stored.
type Ticket struct {
	ID        uuid.UUID
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
		`INSERT INTO support_tickets (workspace_id, id, topic, message, reply_to)
		 VALUES ($1, $2, $3, $4, $5) RETURNING number, status, created_at`,
		ws, t.ID, topic, message, reply).Scan(&t.Number, &t.Status, &t.CreatedAt)
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
