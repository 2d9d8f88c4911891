package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/outbound"
	"vibesell/store"
)

// Statuses of a delivery.
const (
	Pending   = "pending"   // not tried yet
	Delivered = "delivered" // the endpoint answered 2xx
	Failing   = "failing"   // failed, tried again later
	Failed    = "failed"    // given up (or its endpoint disabled)
)

// DeliverArgs is the job that POSTs one event to one endpoint. It is
// unique by its arguments: the event is enqueued once per endpoint
// whichever replica emits or works it. Send moves with each "send
// again", which is a new job.
type DeliverArgs struct {
	WorkspaceID uuid.UUID `json:"workspace_id"`
	EndpointID  string    `json:"endpoint_id"`
	EventID     string    `json:"event_id"`
	Send        int       `json:"send"`
}

// Kind names the job in River.
func (DeliverArgs) Kind() string { return "webhooks.deliver" }

// InsertOpts: one job per endpoint, event and send; the day of retries,
// not a count, ends the attempts.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 200, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// DeliverWorker runs [DeliverArgs].
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	Service *Service
}

// Work delivers the event; an error has River try again after the
// service's backoff.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	return w.Service.deliver(ctx, job.Args)
}

// NextRetry is the service's backoff after the attempt that failed.
func (w *DeliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	return time.Now().Add(w.Service.backoff(job.Attempt))
}

// Timeout bounds one attempt a little beyond its POST.
func (w *DeliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.Service.timeout + 10*time.Second
}

// AddWorkers registers the delivery worker and the hourly prune of the
// events past [Kept].
func AddWorkers(workers *river.Workers, s *Service) []*river.PeriodicJob {
	river.AddWorker(workers, &DeliverWorker{Service: s})
	return store.AddSweep[PruneArgs](workers, time.Hour, func(ctx context.Context) error {
		_, err := s.Prune(ctx)
		return err
	}, 0)
}

// Kept is how long events and their delivery logs are kept: longer than
// a day of retries, long enough to send one again after a fix.
const Kept = 30 * 24 * time.Hour

// PruneArgs is the hourly job that forgets the events past [Kept].
type PruneArgs struct{}

// Kind names the job in River.
func (PruneArgs) Kind() string { return "webhooks.prune" }

// InsertOpts runs one prune an hour, however many replicas schedule it.
func (PruneArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour}}
}

// Prune forgets the events (and their deliveries) older than [Kept], in
// every workspace, and says how many.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM webhook_events WHERE created_at < $1`, s.clock.Now().Add(-Kept))
	if err != nil {
		return 0, fmt.Errorf("prune the webhook events: %w", err)
	}
	return tag.RowsAffected(), nil
}

// deliver POSTs one event to one endpoint and records the outcome.
func (s *Service) deliver(ctx context.Context, a DeliverArgs) error {
	var url, status string
	var sealed, body []byte
	var typ string
	var sends int
	var disabled bool
	err := s.db.QueryRow(ctx, `SELECT e.url, e.secret_sealed, e.disabled_at IS NOT NULL, d.status, d.sends, v.type, v.body::text
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
		JOIN webhook_events v ON v.workspace_id = d.workspace_id AND v.id = d.event_id
		WHERE d.workspace_id = $1 AND d.endpoint_id = $2 AND d.event_id = $3`, a.WorkspaceID, a.EndpointID, a.EventID).
		Scan(&url, &sealed, &disabled, &status, &sends, &typ, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the endpoint was deleted
	}
	if err != nil {
		return fmt.Errorf("read the delivery of %s to %s: %w", a.EventID, a.EndpointID, err)
	}
	// Sent already, or superseded by a "send again": nothing to do.
	if sends != a.Send || status == Delivered {
		return nil
	}
	if disabled {
		_, err := s.db.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', last_error = 'Not sent: the endpoint is disabled.'
			WHERE workspace_id = $1 AND endpoint_id = $2 AND event_id = $3 AND status <> 'delivered'`, a.WorkspaceID, a.EndpointID, a.EventID)
		return err
	}
	secret, err := s.secret.OpenCredentials(sealed, aad(a.WorkspaceID, a.EndpointID))
	if err != nil {
		return river.JobCancel(fmt.Errorf("open the secret of endpoint %s: %w", a.EndpointID, err))
	}
	failure := s.post(ctx, a, url, string(secret), typ, body)
	now := s.clock.Now()
	if failure == "" {
		_, err := s.db.Exec(ctx, `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_attempt_at = $4,
			delivered_at = $4, last_error = NULL, first_failed_at = NULL
			WHERE workspace_id = $1 AND endpoint_id = $2 AND event_id = $3`, a.WorkspaceID, a.EndpointID, a.EventID, now)
		if err != nil {
			// Delivered but not recorded: not tried again, which would
			// deliver it twice.
			s.logger.ErrorContext(ctx, "a webhook delivered could not be recorded", "event", a.EventID, "endpoint", a.EndpointID, "err", err)
		}
		return nil
	}
	var givenUp, disabledNow bool
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var firstFailed time.Time
		if err := tx.QueryRow(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = $4, last_error = $5,
			first_failed_at = coalesce(first_failed_at, $4), status = 'failing'
			WHERE workspace_id = $1 AND endpoint_id = $2 AND event_id = $3 RETURNING first_failed_at`,
			a.WorkspaceID, a.EndpointID, a.EventID, now, failure).Scan(&firstFailed); err != nil {
			return err
		}
		if now.Sub(firstFailed) < s.giveUpAfter {
			return nil
		}
		givenUp = true
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed' WHERE workspace_id = $1 AND endpoint_id = $2 AND event_id = $3`,
			a.WorkspaceID, a.EndpointID, a.EventID); err != nil {
			return err
		}
		// The endpoint has failed for a day when nothing reached it since
		// this delivery first failed.
		tag, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = $3, disabled_reason = $4
			WHERE workspace_id = $1 AND id = $2 AND disabled_at IS NULL AND NOT EXISTS (SELECT 1 FROM webhook_deliveries
				WHERE workspace_id = $1 AND endpoint_id = $2 AND delivered_at >= $5)`,
			a.WorkspaceID, a.EndpointID, now, "Disabled by VibeSell after a day of failed deliveries. The last one: "+failure, firstFailed)
		disabledNow = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return fmt.Errorf("record the failed delivery of %s to %s: %w", a.EventID, a.EndpointID, err)
	}
	if disabledNow {
		s.tellDisabled(ctx, a.WorkspaceID, url, failure)
	}
	if givenUp {
		return river.JobCancel(errors.New(failure))
	}
	return errors.New(failure)
}

// post sends the event and returns "" when the endpoint took it, else
// what went wrong, in words for the delivery log: never the endpoint's
// answer itself.
func (s *Service) post(ctx context.Context, a DeliverArgs, url, secret, typ string, body []byte) string {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	client := &http.Client{
		Transport: &http.Transport{DialContext: s.guard.For("webhooks:" + a.WorkspaceID.String()), ForceAttemptHTTP2: true,
			TLSHandshakeTimeout: s.timeout, ResponseHeaderTimeout: s.timeout, DisableKeepAlives: true},
		// A redirect is the endpoint's answer, not a place to follow to.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "The endpoint's address is not one VibeSell can send to."
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "VibeSell-Webhooks/1")
	req.Header.Set(EventIDHeader, a.EventID)
	req.Header.Set(EventTypeHeader, typ)
	req.Header.Set(SignatureHeader, Sign(secret, time.Now(), body))
	resp, err := client.Do(req)
	if err != nil {
		return failureOf(err, s.timeout)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return ""
	}
	return fmt.Sprintf("The endpoint answered %d (%s) instead of a 2xx status.", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// failureOf says why a POST got no answer.
func failureOf(err error, timeout time.Duration) string {
	var dns *net.DNSError
	switch {
	case outbound.Refused(err) != nil:
		return "VibeSell did not connect: " + outbound.Refused(err).Reason + "."
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fmt.Sprintf("The endpoint did not answer within %s.", vibesell.Plural(int(timeout/time.Second), "second", "seconds"))
	case errors.As(err, &dns):
		return "The endpoint's host name was not found."
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "The endpoint's HTTPS certificate or handshake was not accepted."
	default:
		return "Could not connect to the endpoint (the connection was refused or dropped)."
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// tellDisabled emails the workspace's people that an endpoint was
// disabled; a failure to is logged, as the log and the page show it too.
func (s *Service) tellDisabled(ctx context.Context, ws uuid.UUID, url, failure string) {
	if s.mailer == nil {
		return
	}
	people, err := s.mailer.People(ctx, ws)
	if err != nil || len(people) == 0 {
		return
	}
	subject := "Webhooks to " + hostOf(url) + " are disabled"
	body := fmt.Sprintf("VibeSell could not deliver events to your webhook endpoint for a day, so it stopped sending to it:\n\n  %s\n\nThe last failure: %s\n\n"+
		"Fix the endpoint, then enable it and send the missed events again from the delivery log: %s/app/webhooks\n", url, failure, s.publicURL)
	if err := s.mailer.Send(ctx, ws, people, subject, body); err != nil {
		s.logger.ErrorContext(ctx, "the email about a disabled webhook endpoint was not sent", "workspace", ws, "err", err)
	}
}

func hostOf(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Delivery is one event's delivery to one endpoint, as the log shows it.
type Delivery struct {
	EventID       string
	EventType     string
	EventAt       time.Time
	Status        string
	Attempts      int
	LastAttemptAt *time.Time
	LastError     string
	DeliveredAt   *time.Time
}

// Deliveries returns an endpoint's latest deliveries, newest first, at
// most limit.
func (s *Service) Deliveries(ctx context.Context, ws uuid.UUID, endpoint string, limit int) ([]Delivery, error) {
	rows, err := s.db.Query(ctx, `SELECT d.event_id, v.type, v.created_at, d.status, d.attempts, d.last_attempt_at, coalesce(d.last_error, ''), d.delivered_at
		FROM webhook_deliveries d JOIN webhook_events v ON v.workspace_id = d.workspace_id AND v.id = d.event_id
		WHERE d.workspace_id = $1 AND d.endpoint_id = $2 ORDER BY d.event_id DESC LIMIT $3`, ws, endpoint, limit)
	if err != nil {
		return nil, fmt.Errorf("read the deliveries of %s: %w", endpoint, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.EventID, &d.EventType, &d.EventAt, &d.Status, &d.Attempts, &d.LastAttemptAt, &d.LastError, &d.DeliveredAt)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the deliveries of %s: %w", endpoint, err)
	}
	return out, nil
}

// SendAgain sends an event to an endpoint once more, whatever its
// delivery's outcome: the receiver gets the same event id, so it can
// tell the repeat. Refusals: ENOTFOUND; EINVALID for a disabled endpoint.
func (s *Service) SendAgain(ctx context.Context, ws uuid.UUID, endpoint, event string) error {
	return store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var disabled bool
		var send int
		err := tx.QueryRow(ctx, `UPDATE webhook_deliveries d SET sends = sends + 1, status = 'pending', first_failed_at = NULL
			FROM webhook_endpoints e WHERE e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
			AND d.workspace_id = $1 AND d.endpoint_id = $2 AND d.event_id = $3 AND e.disabled_at IS NULL
			RETURNING d.sends`, ws, endpoint, event).Scan(&send)
		if errors.Is(err, pgx.ErrNoRows) {
			if err := tx.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, ws, endpoint).Scan(&disabled); err == nil && disabled {
				return vibesell.Errorf(vibesell.EINVALID, "This endpoint is disabled: enable it first, then send the event again.")
			}
			return vibesell.Errorf(vibesell.ENOTFOUND, "This endpoint has no such event in its log.")
		}
		if err != nil {
			return fmt.Errorf("send %s again: %w", event, err)
		}
		return s.enqueue(ctx, tx, ws, event, []string{endpoint}, send)
	})
}
