package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"vibesell"
	"vibesell/store"
)

// WebhookPath is where Stripe calls with events.
const WebhookPath = "/stripe/webhook"

// webhookTolerance is how old a signed call may be: older ones are
// refused, so a recorded call cannot be replayed later.
const webhookTolerance = 5 * time.Minute

// maxWebhookBody bounds what is read of one call; Stripe's events are a
// few kilobytes.
const maxWebhookBody = 1 << 20

// WebhookHandler answers Stripe's webhook calls at [WebhookPath]:
//
//   - 400 for a call whose signature does not verify on the raw body,
//     whose signature is older than five minutes, whose header has more
//     than one timestamp, or whose event holds a NUL character: nothing is
//     applied;
//   - 200 once the event is applied, and for an event already applied (it
//     is recorded in the transaction of its effect, so a redelivery
//     changes nothing) or of a type billing does not act on;
//   - 500 when applying failed: Stripe delivers it again later.
//
// Events do not carry the truth about a subscription in the order they
// arrive: each one makes billing read the subscription from Stripe as it
// is now, so late or reordered events leave the latest state.
func (s *Service) WebhookHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "Stripe webhooks are POSTed.", http.StatusMethodNotAllowed)
			return
		}
		if s.cfg.WebhookSecret == "" || !s.Configured() {
			http.Error(w, "Stripe webhooks are not configured on this server (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET).", http.StatusServiceUnavailable)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
		if err != nil {
			http.Error(w, "Could not read the request body.", http.StatusBadRequest)
			return
		}
		if len(body) > maxWebhookBody {
			http.Error(w, "The event is too large.", http.StatusRequestEntityTooLarge)
			return
		}
		ev, err := s.verify(body, r.Header.Get("Stripe-Signature"))
		if err != nil {
			s.logger.WarnContext(r.Context(), "stripe webhook refused", "err", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		applied, err := s.ApplyEvent(r.Context(), ev)
		if err != nil {
			ref := vibesell.NewRef()
			s.logger.ErrorContext(r.Context(), "stripe webhook failed", "ref", ref, "event", ev.ID, "type", string(ev.Type), "err", err)
			http.Error(w, "Applying the event failed (ref "+ref+"); deliver it again later.", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, applied+"\n")
	})
}

// verify checks the signature on the raw body and that it was made within
// the tolerance by billing's clock.
func (s *Service) verify(body []byte, header string) (stripe.Event, error) {
	// The API version of an event is the webhook endpoint's; only ids are
	// read from it (the subscription is read again with the client's own
	// version), so a different version does no harm.
	ev, err := webhook.ConstructEventWithOptions(body, header, s.cfg.WebhookSecret,
		webhook.ConstructEventOptions{IgnoreTolerance: true, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return stripe.Event{}, fmt.Errorf("signature: %w", err)
	}
	signed, err := signedAt(header)
	if err != nil {
		return stripe.Event{}, fmt.Errorf("signature: %w", err)
	}
	if age := s.clock.Now().Sub(signed); age > webhookTolerance || age < -webhookTolerance {
		return stripe.Event{}, fmt.Errorf("signature: %w (signed %s ago)", webhook.ErrTooOld, age.Round(time.Second))
	}
	// PostgreSQL's text holds no NUL: an event that carries one (in its
	// id, a customer…) could never be recorded, and no event of Stripe's
	// does. It is refused here rather than failing as ours later.
	if holdsNUL(body) {
		return stripe.Event{}, errors.New("the event holds a NUL character (\\u0000), which no Stripe event has")
	}
	return ev, nil
}

// signedAt returns the one timestamp of a Stripe-Signature header. stripe-go
// checks the signature against the last t= of the header; a header with
// two could pair a fresh t= (for the age) with an old signature (checked
// against the other), so it is refused: Stripe sends one.
func signedAt(header string) (time.Time, error) {
	var stamps []string
	for _, part := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			stamps = append(stamps, v)
		}
	}
	if len(stamps) != 1 {
		return time.Time{}, fmt.Errorf("%w: it has %d timestamps (t=), Stripe sends one", webhook.ErrInvalidHeader, len(stamps))
	}
	sec, err := strconv.ParseInt(stamps[0], 10, 64)
	if err != nil {
		return time.Time{}, webhook.ErrInvalidHeader
	}
	return time.Unix(sec, 0), nil
}

// holdsNUL reports whether a JSON document has a string (or a key)
// holding U+0000; a document that does not decode holds none for this.
func holdsNUL(body []byte) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return strings.ContainsRune(v, 0)
		case []any:
			return slices.ContainsFunc(v, walk)
		case map[string]any:
			for k, e := range v {
				if strings.ContainsRune(k, 0) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// What ApplyEvent did with an event.
const (
	EventApplied   = "applied"
	EventDuplicate = "already applied"
	EventIgnored   = "ignored"
)

// eventRef is what an event points at: the workspace, its customer, the
// subscription to read again, the checkout session.
type eventRef struct {
	workspace    uuid.UUID
	customer     string
	subscription string
	session      string
}

func (s *Service) refOf(ev stripe.Event) (eventRef, bool, error) {
	var ref eventRef
	if ev.Data == nil {
		return ref, false, nil
	}
	switch ev.Type {
	case "checkout.session.completed", "checkout.session.expired":
		var cs stripe.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &cs); err != nil {
			return ref, false, fmt.Errorf("read checkout session of %s: %w", ev.ID, err)
		}
		ref.workspace = parseWorkspace(cs.ClientReferenceID, cs.Metadata[metadataWorkspace])
		ref.session = cs.ID
		if cs.Customer != nil {
			ref.customer = cs.Customer.ID
		}
		if cs.Subscription != nil {
			ref.subscription = cs.Subscription.ID
		}
	case "customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted":
		var sub stripe.Subscription
		if err := json.Unmarshal(ev.Data.Raw, &sub); err != nil {
			return ref, false, fmt.Errorf("read subscription of %s: %w", ev.ID, err)
		}
		ref.workspace = parseWorkspace(sub.Metadata[metadataWorkspace])
		ref.subscription = sub.ID
		if sub.Customer != nil {
			ref.customer = sub.Customer.ID
		}
	case "invoice.paid", "invoice.payment_failed":
		var inv stripe.Invoice
		if err := json.Unmarshal(ev.Data.Raw, &inv); err != nil {
			return ref, false, fmt.Errorf("read invoice of %s: %w", ev.ID, err)
		}
		if inv.Customer != nil {
			ref.customer = inv.Customer.ID
		}
		if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil {
			d := inv.Parent.SubscriptionDetails
			ref.workspace = parseWorkspace(d.Metadata[metadataWorkspace])
			if d.Subscription != nil {
				ref.subscription = d.Subscription.ID
			}
		}
	default:
		return ref, false, nil
	}
	return ref, true, nil
}

func parseWorkspace(candidates ...string) uuid.UUID {
	for _, c := range candidates {
		if ws, err := uuid.Parse(c); err == nil {
			return ws
		}
	}
	return uuid.Nil
}

// ApplyEvent applies one verified Stripe event, once: the event's id is
// recorded in the transaction of its effect. It returns [EventApplied],
// [EventDuplicate] or [EventIgnored] (a type billing does not act on, or
// an event about no workspace of this server).
func (s *Service) ApplyEvent(ctx context.Context, ev stripe.Event) (string, error) {
	ref, known, err := s.refOf(ev)
	if err != nil {
		return "", err
	}
	if known && ref.workspace == uuid.Nil && ref.customer != "" {
		err := s.db.QueryRow(ctx, `SELECT workspace_id FROM billing_accounts WHERE stripe_customer = $1`, ref.customer).Scan(&ref.workspace)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("find workspace of customer %s: %w", ref.customer, err)
		}
	}
	if known && ref.workspace == uuid.Nil {
		s.logger.WarnContext(ctx, "stripe event about no workspace of this server", "event", ev.ID, "type", string(ev.Type), "customer", ref.customer)
		known = false
	}
	outcome := EventApplied
	if !known {
		outcome = EventIgnored
	}
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var ws *uuid.UUID
		if known {
			ws = &ref.workspace
		}
		tag, err := tx.Exec(ctx, `INSERT INTO stripe_events (id, type, workspace_id, created_at, received_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (id) DO NOTHING`, ev.ID, string(ev.Type), ws, time.Unix(ev.Created, 0).UTC(), s.clock.Now())
		if err != nil {
			return fmt.Errorf("record event %s: %w", ev.ID, err)
		}
		if tag.RowsAffected() == 0 {
			outcome = EventDuplicate
			return nil
		}
		if !known {
			return nil
		}
		account, err := s.lockAccount(ctx, tx, ref.workspace)
		if vibesell.ErrorCode(err) == vibesell.ENOTFOUND {
			outcome = EventIgnored // the workspace was deleted
			return nil
		}
		if err != nil {
			return err
		}
		if account.Customer == "" && ref.customer != "" {
			if _, err := tx.Exec(ctx, `UPDATE billing_accounts SET stripe_customer = $2 WHERE workspace_id = $1`, ref.workspace, ref.customer); err != nil {
				return fmt.Errorf("record customer of workspace %s: %w", ref.workspace, err)
			}
			account.Customer = ref.customer
		}
		return s.applyEffect(ctx, tx, ev, ref, account)
	})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			// Another delivery of the same event committed first.
			return EventDuplicate, nil
		}
		return "", err
	}
	return outcome, nil
}

func (s *Service) applyEffect(ctx context.Context, tx pgx.Tx, ev stripe.Event, ref eventRef, account Account) error {
	ws := ref.workspace
	switch ev.Type {
	case "checkout.session.completed":
		if _, err := tx.Exec(ctx, `UPDATE billing_checkouts SET status = 'complete' WHERE workspace_id = $1 AND session_id = $2`, ws, ref.session); err != nil {
			return fmt.Errorf("complete checkout %s: %w", ref.session, err)
		}
		if err := s.expireOtherCheckouts(ctx, tx, ws); err != nil {
			return err
		}
	case "checkout.session.expired":
		if _, err := tx.Exec(ctx, `UPDATE billing_checkouts SET status = 'expired' WHERE workspace_id = $1 AND session_id = $2 AND status = 'open'`, ws, ref.session); err != nil {
			return fmt.Errorf("expire checkout %s: %w", ref.session, err)
		}
		return nil
	}
	if ref.subscription == "" {
		return nil
	}
	sub, err := s.stripe.Subscription(ctx, ref.subscription)
	if err != nil {
		return err
	}
	if err := s.recordSubscription(ctx, tx, account, sub); err != nil {
		return err
	}
	switch ev.Type {
	case "invoice.payment_failed":
		// Shown until the subscription is in good standing again.
		if sub.Status != "active" && sub.Status != "trialing" {
			if _, err := tx.Exec(ctx, `UPDATE billing_accounts SET payment_failed_at = coalesce(payment_failed_at, $2) WHERE workspace_id = $1`,
				ws, time.Unix(ev.Created, 0).UTC()); err != nil {
				return fmt.Errorf("record failed payment of workspace %s: %w", ws, err)
			}
		}
	}
	return nil
}

// expireOtherCheckouts closes the workspace's other open checkout
// sessions (of other plans) once one is paid: paying a second one would
// start a second subscription and charge twice.
func (s *Service) expireOtherCheckouts(ctx context.Context, tx pgx.Tx, ws uuid.UUID) error {
	rows, err := tx.Query(ctx, `SELECT session_id FROM billing_checkouts WHERE workspace_id = $1 AND status = 'open'`, ws)
	if err != nil {
		return fmt.Errorf("read open checkouts: %w", err)
	}
	open, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read open checkouts: %w", err)
	}
	for _, id := range open {
		if err := s.stripe.ExpireCheckout(ctx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE billing_checkouts SET status = 'expired' WHERE session_id = $1`, id); err != nil {
			return fmt.Errorf("expire checkout %s: %w", id, err)
		}
	}
	return nil
}

// grantsPlan reports whether a subscription in this status gives the
// workspace its plan: while a renewal is being retried (past_due) it keeps
// it; unpaid, incomplete or ended, it is back on the free plan's limits.
func grantsPlan(status string) bool {
	return status == "active" || status == "trialing" || status == "past_due"
}

// recordSubscription writes sub, as Stripe has it now, onto the account
// the caller has locked.
func (s *Service) recordSubscription(ctx context.Context, tx pgx.Tx, a Account, sub Subscription) error {
	if sub.WorkspaceID != uuid.Nil && sub.WorkspaceID != a.WorkspaceID {
		s.logger.ErrorContext(ctx, "stripe subscription names another workspace; not applied", "subscription", sub.ID,
			"workspace", a.WorkspaceID.String(), "names", sub.WorkspaceID.String())
		return nil
	}
	ended := sub.Status == "canceled" || sub.Status == "incomplete_expired"
	if a.SubscriptionID != "" && a.SubscriptionID != sub.ID && a.Subscribed() {
		if !ended {
			// A second subscription for one workspace (two checkouts
			// paid): the first stays in charge; someone must refund.
			s.logger.ErrorContext(ctx, "a second active stripe subscription for one workspace; refund it in Stripe", "workspace", a.WorkspaceID.String(),
				"kept", a.SubscriptionID, "second", sub.ID)
		}
		return nil
	}
	now := s.clock.Now()
	if ended {
		_, err := tx.Exec(ctx, `UPDATE billing_accounts SET plan = $2, status = 'active', subscription_id = NULL, subscription_item = NULL,
			subscription_price = NULL, cancel_at_period_end = false, period_end = NULL, pending_plan = NULL, payment_failed_at = NULL, updated_at = $3
			WHERE workspace_id = $1`, a.WorkspaceID, FreePlanID, now)
		if err != nil {
			return fmt.Errorf("end subscription of workspace %s: %w", a.WorkspaceID, err)
		}
		return nil
	}
	plan := FreePlanID
	if grantsPlan(sub.Status) {
		p, ok := s.planByPrice(sub.Price)
		if !ok {
			return fmt.Errorf("subscription %s is on price %s, which no configured plan is sold as", sub.ID, sub.Price)
		}
		plan = p.ID
	}
	var periodEnd *time.Time
	if !sub.PeriodEnd.IsZero() {
		periodEnd = &sub.PeriodEnd
	}
	_, err := tx.Exec(ctx, `UPDATE billing_accounts SET plan = $2, status = $3, subscription_id = $4, subscription_item = $5,
		subscription_price = $6, cancel_at_period_end = $7, period_end = $8,
		pending_plan = CASE WHEN pending_plan = $2 THEN NULL ELSE pending_plan END,
		payment_failed_at = CASE WHEN $3 IN ('active', 'trialing') THEN NULL ELSE payment_failed_at END,
		stripe_customer = coalesce(stripe_customer, nullif($9, '')), updated_at = $10
		WHERE workspace_id = $1`,
		a.WorkspaceID, plan, sub.Status, sub.ID, sub.ItemID, sub.Price, sub.CancelAtPeriodEnd, periodEnd, sub.Customer, now)
	if err != nil {
		return fmt.Errorf("record subscription %s of workspace %s: %w", sub.ID, a.WorkspaceID, err)
	}
	return nil
}
