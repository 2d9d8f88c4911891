package webhooks

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// The events a workspace's endpoints receive.
const (
	TypeReplyReceived    = "reply.received"
	TypeLeadInterested   = "lead.interested"
	TypeLeadUnsubscribed = "lead.unsubscribed"
	TypeLeadBounced      = "lead.bounced"
	TypeCampaignPaused   = "campaign.paused"
)

// Types lists every event type, in the order the README lists them.
var Types = []string{TypeReplyReceived, TypeLeadInterested, TypeLeadUnsubscribed, TypeLeadBounced, TypeCampaignPaused}

// Event is one fact to tell the endpoints: its type and its data, which
// becomes the "data" of the body POSTed.
type Event struct {
	Type string
	Data any
}

// Lead is a lead as events name it.
type Lead struct {
	ID        int64  `json:"id,omitempty"`
	Email     string `json:"email"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Company   string `json:"company,omitempty"`
}

// Reply is a reply as events tell it: Classification is one of the
// replies' classifications (interested, not_interested, ...).
type Reply struct {
	MessageID      string    `json:"message_id"`
	From           string    `json:"from"`
	Subject        string    `json:"subject"`
	Classification string    `json:"classification"`
	ReceivedAt     time.Time `json:"received_at"`
	Excerpt        string    `json:"excerpt"`
	CampaignID     string    `json:"campaign_id,omitempty"`
}

// ReplyReceived is a reply kept, with the lead it answers (nil: a reply
// that matched no send).
func ReplyReceived(r Reply, lead *Lead) Event {
	return Event{Type: TypeReplyReceived, Data: struct {
		Reply Reply `json:"reply"`
		Lead  *Lead `json:"lead"`
	}{r, lead}}
}

// LeadInterested is a lead whose reply wants a conversation.
func LeadInterested(lead Lead, r Reply) Event {
	return Event{Type: TypeLeadInterested, Data: struct {
		Lead  Lead  `json:"lead"`
		Reply Reply `json:"reply"`
	}{lead, r}}
}

// LeadUnsubscribed is an address that asked to hear no more (a link or a
// reply), now suppressed.
func LeadUnsubscribed(lead Lead) Event {
	return Event{Type: TypeLeadUnsubscribed, Data: struct {
		Lead Lead `json:"lead"`
	}{lead}}
}

// LeadBounced is an address that bounced for good, now suppressed.
func LeadBounced(lead Lead) Event {
	return Event{Type: TypeLeadBounced, Data: struct {
		Lead Lead `json:"lead"`
	}{lead}}
}

// CampaignPaused is a campaign VibeSell paused by itself, and why.
func CampaignPaused(campaignID, why string) Event {
	return Event{Type: TypeCampaignPaused, Data: struct {
		Campaign struct {
			ID string `json:"id"`
		} `json:"campaign"`
		Why string `json:"why"`
	}{Campaign: struct {
		ID string `json:"id"`
	}{campaignID}, Why: why}}
}

// body is what is POSTed.
type body struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	WorkspaceID uuid.UUID `json:"workspace_id"`
	Data        any       `json:"data"`
}

// newEventID returns "evt_" and a UUIDv7 in hex: ids sort by time.
func newEventID() string {
	id := uuid.Must(uuid.NewV7())
	return "evt_" + hex.EncodeToString(id[:])
}

// Emit records events of workspace ws in tx, the transaction that makes
// them true, and enqueues in it one delivery per enabled endpoint of the
// workspace: the events exist, and are sent, only if tx commits. A nil
// Service emits nothing (a server or test without webhooks), so callers
// make one call, with or without them.
func (s *Service) Emit(ctx context.Context, tx pgx.Tx, ws uuid.UUID, events ...Event) error {
	if s == nil || len(events) == 0 {
		return nil
	}
	now := s.clock.Now().UTC()
	for _, e := range events {
		id := newEventID()
		raw, err := json.Marshal(body{ID: id, Type: e.Type, CreatedAt: now, WorkspaceID: ws, Data: e.Data})
		if err != nil {
			return fmt.Errorf("webhooks: event %s: %w", e.Type, err)
		}
		rows, err := tx.Query(ctx, `
			WITH event AS (INSERT INTO webhook_events (workspace_id, id, type, body, created_at) VALUES ($1, $2, $3, $4, $5))
			INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id)
			SELECT $1, id, $2 FROM webhook_endpoints WHERE workspace_id = $1 AND disabled_at IS NULL
			RETURNING endpoint_id`, ws, id, e.Type, raw, now)
		if err != nil {
			return fmt.Errorf("webhooks: record event %s: %w", e.Type, err)
		}
		endpoints, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("webhooks: record event %s: %w", e.Type, err)
		}
		if err := s.enqueue(ctx, tx, ws, id, endpoints, 1); err != nil {
			return err
		}
	}
	return nil
}

// enqueue inserts the delivery jobs of an event, in tx.
func (s *Service) enqueue(ctx context.Context, tx pgx.Tx, ws uuid.UUID, event string, endpoints []string, send int) error {
	if len(endpoints) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(endpoints))
	for i, ep := range endpoints {
		params[i] = river.InsertManyParams{Args: DeliverArgs{WorkspaceID: ws, EndpointID: ep, EventID: event, Send: send}}
	}
	if _, err := s.jobs.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("webhooks: enqueue the deliveries of %s: %w", event, err)
	}
	return nil
}
