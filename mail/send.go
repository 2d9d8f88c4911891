package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	gomail "github.com/wneessen/go-mail"

	"vibesell"
	"vibesell/store"
)

// Ledger statuses of a send; see migrations/00100_mail.sql.
const (
	StatusSending = "sending"
	StatusSent    = "sent"
	StatusFailed  = "failed"
	StatusUnknown = "unknown"
)

// Step names one email of a campaign to one lead: the ledger's key.
type Step struct {
	WorkspaceID uuid.UUID
	CampaignID  string // cp_…
	LeadID      int64
	Step        int
}

// Gate runs in the transaction that claims a step, before the claim: the
// last word on whether the step may go now (the campaign still running,
// the lead not stopped, the plan's limit). It returns a *[Held] to hold
// the step back, which rolls the claim back; any other error fails the
// send. Work the gate does in tx (a limit's count) commits with the claim.
type Gate func(ctx context.Context, tx pgx.Tx, out Outgoing) error

// Held is a step a [Gate] held back, and why.
type Held struct {
	Reason string
	// Stop says nothing more should go out of the step's campaign (it is
	// not running, or the plan's limit is reached), as opposed to this one
	// step being held (the lead replied).
	Stop bool
	// Pause, when set, is why the campaign must be paused (automatically).
	Pause string
}

func (h *Held) Error() string { return "held back: " + h.Reason }

// Outgoing is a step ready to go: the mailbox it leaves from and the
// message. The message's Message-ID is the ledger's, not the caller's.
type Outgoing struct {
	Step
	Mailbox Mailbox
	Message Message
	// Gate, when set, runs in the claim's transaction first.
	Gate Gate
}

// SendResult is what one call of [Sender.Send] did.
type SendResult struct {
	MessageID string
	// Status is the ledger's status after the call.
	Status string
	// Duplicate says the step was already claimed (sent, being sent, or
	// lost in the crash window) and nothing was sent by this call.
	Duplicate bool
	// Suppressed says the recipient is on the workspace's suppression list
	// and nothing was claimed or sent.
	Suppressed bool
	// Held is the gate's reason when it held the step back; nothing was
	// claimed or sent.
	Held *Held
}

// Sender sends a campaign step at most once: it claims the step's ledger
// row (committed) before the message is handed to the SMTP server, and
// records the outcome after.
type Sender struct {
	db         *pgxpool.Pool
	keys       *Keys
	suppressor Suppressor
	clock      vibesell.Clock
	timeout    time.Duration
}

// NewSender returns the send primitive.
func NewSender(db *pgxpool.Pool, keys *Keys, suppressor Suppressor, clock vibesell.Clock) *Sender {
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Sender{db: db, keys: keys, suppressor: suppressor, clock: clock, timeout: 30 * time.Second}
}

// Send sends the step unless it was already claimed. An error is returned
// when the outcome could not be settled as sent; the ledger row then says
// whether a retry may send it (failed) or must not (unknown, sending).
func (s *Sender) Send(ctx context.Context, out Outgoing) (SendResult, error) {
	results, err := s.SendBatch(ctx, []Outgoing{out})
	if len(results) == 0 {
		return SendResult{}, err
	}
	return results[0], err
}

// SendBatch sends steps that leave from one mailbox over one SMTP session,
// in order, each claimed just before its turn. It stops at the first step
// that fails and returns the results of the steps it reached; running the
// batch again sends only what was not claimed, or failed before it was
// handed over.
func (s *Sender) SendBatch(ctx context.Context, outs []Outgoing) ([]SendResult, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	for _, out := range outs[1:] {
		if out.Mailbox.SMTP.Addr != outs[0].Mailbox.SMTP.Addr || out.Mailbox.SMTP.Username != outs[0].Mailbox.SMTP.Username {
			return nil, errors.New("send batch: every step of a batch leaves from the same mailbox")
		}
	}
	session := &smtpSession{endpoint: outs[0].Mailbox.SMTP, timeout: s.timeout}
	defer session.close()
	results := make([]SendResult, 0, len(outs))
	for _, out := range outs {
		res, err := s.sendOne(ctx, session, out)
		results = append(results, res)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

func (s *Sender) sendOne(ctx context.Context, session *smtpSession, out Outgoing) (SendResult, error) {
	suppressed, err := s.suppressor.Suppressed(ctx, out.WorkspaceID, out.Message.To.Email)
	if err != nil {
		return SendResult{}, fmt.Errorf("send: suppression check: %w", err)
	}
	if suppressed {
		return SendResult{Suppressed: true}, nil
	}
	messageID, claimed, status, err := s.claim(ctx, out)
	var held *Held
	if errors.As(err, &held) {
		return SendResult{Held: held}, nil
	}
	if err != nil {
		return SendResult{}, err
	}
	if !claimed {
		return SendResult{MessageID: messageID, Status: status, Duplicate: true}, nil
	}

	out.Message.MessageID = messageID
	if out.Message.Date.IsZero() {
		out.Message.Date = s.clock.Now()
	}
	status, sendErr := s.deliver(ctx, session, out)
	errText := ""
	if sendErr != nil {
		errText = sendErr.Error()
	}
	// The outcome is written even when ctx has ended: the message may be
	// out, and the ledger must say so.
	settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := s.db.Exec(settle, `UPDATE mail_sends SET status = $5, error = NULLIF($6, ''), settled_at = $7
	                                WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
		out.WorkspaceID, out.CampaignID, out.LeadID, out.Step.Step, status, errText, s.clock.Now()); err != nil {
		return SendResult{MessageID: messageID, Status: StatusSending}, fmt.Errorf("send: settle the ledger as %s: %w", status, err)
	}
	if sendErr != nil {
		return SendResult{MessageID: messageID, Status: status}, fmt.Errorf("send step %d to lead %d: %w", out.Step.Step, out.LeadID, sendErr)
	}
	return SendResult{MessageID: messageID, Status: status}, nil
}

// claim takes the step's ledger row: a new row, or a failed one (refused
// before anything was handed over, so sending it again cannot duplicate
// it). Any other row means someone else has it, and it is not sent.
func (s *Sender) claim(ctx context.Context, out Outgoing) (messageID string, claimed bool, status string, err error) {
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if out.Gate != nil {
			if err := out.Gate(ctx, tx, out); err != nil {
				return err
			}
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'sending', $8)
			ON CONFLICT (workspace_id, campaign_id, lead_id, step) DO UPDATE
			   SET status = 'sending', attempts = mail_sends.attempts + 1, error = NULL, settled_at = NULL, retry_at = NULL,
			       claimed_at = EXCLUDED.claimed_at, mailbox = EXCLUDED.mailbox, recipient = EXCLUDED.recipient
			 WHERE mail_sends.status = 'failed'
			RETURNING message_id`,
			out.WorkspaceID, out.CampaignID, out.LeadID, out.Step.Step, NewMessageID(out.Mailbox.Address.Email),
			strings.ToLower(out.Mailbox.Address.Email), out.Message.To.Email, s.clock.Now()).Scan(&messageID)
		if err == nil {
			claimed, status = true, StatusSending
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("send: claim the ledger row: %w", err)
		}
		// Someone else has it: nothing the gate did (a limit's count)
		// may stay, so the transaction rolls back.
		return errClaimed
	})
	var held *Held
	switch {
	case errors.As(err, &held):
		return "", false, "", err
	case errors.Is(err, errClaimed):
	case err != nil:
		return "", false, "", err
	default:
		return messageID, claimed, status, nil
	}
	err = s.db.QueryRow(ctx, `SELECT message_id, status FROM mail_sends
	                           WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
		out.WorkspaceID, out.CampaignID, out.LeadID, out.Step.Step).Scan(&messageID, &status)
	if err != nil {
		return "", false, "", fmt.Errorf("send: read the claimed ledger row: %w", err)
	}
	return messageID, false, status, nil
}

var errClaimed = errors.New("the step is claimed already")

// deliver composes, signs and submits the message, and says which ledger
// status the attempt ends in.
func (s *Sender) deliver(ctx context.Context, session *smtpSession, out Outgoing) (string, error) {
	domain := out.Mailbox.Address.Email[strings.LastIndexByte(out.Mailbox.Address.Email, '@')+1:]
	key, err := s.keys.Signer(ctx, out.WorkspaceID, domain)
	if err != nil {
		return StatusFailed, err
	}
	out.Message.From = out.Mailbox.Address
	msg, err := Compose(out.Message, key)
	if err != nil {
		return StatusFailed, err
	}
	err = session.send(ctx, msg)
	switch {
	case msg.IsDelivered():
		// go-mail marks the message delivered once the server has
		// answered the end of DATA with 250; a later error (RSET) does
		// not undo that.
		return StatusSent, nil
	case dataHandedOver(err):
		return StatusUnknown, err
	default:
		return StatusFailed, err
	}
}

// smtpSession is one submission connection, opened at the first message
// and opened again after a message that failed.
type smtpSession struct {
	endpoint Endpoint
	timeout  time.Duration
	client   *gomail.Client
}

func (ss *smtpSession) send(ctx context.Context, msg *gomail.Msg) error {
	if ss.client == nil {
		client, err := submissionClient(ss.endpoint, ss.timeout)
		if err != nil {
			return err
		}
		if err := client.DialWithContext(ctx); err != nil {
			return fmt.Errorf("smtp connect to %s: %w", ss.endpoint.Addr, err)
		}
		ss.client = client
	}
	err := ss.client.Send(msg)
	if err != nil {
		ss.close()
	}
	return err
}

func (ss *smtpSession) close() {
	if ss.client != nil {
		ss.client.Close()
		ss.client = nil
	}
}

// dataHandedOver says the message text may have reached the server: the
// error came while closing DATA, when the server may have queued it
// without our hearing its answer.
func dataHandedOver(err error) bool {
	var sendErr *gomail.SendError
	return errors.As(err, &sendErr) && (sendErr.Reason == gomail.ErrSMTPDataClose || sendErr.Reason == gomail.ErrAmbiguous)
}

// submissionClient speaks SMTP submission to the endpoint: STARTTLS
// required (or implicit TLS on port 465), then AUTH PLAIN.
func submissionClient(e Endpoint, timeout time.Duration) (*gomail.Client, error) {
	host, portText, err := net.SplitHostPort(e.Addr)
	if err != nil {
		return nil, fmt.Errorf("smtp endpoint %q: %w", e.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("smtp endpoint %q: %w", e.Addr, err)
	}
	opts := []gomail.Option{
		gomail.WithPort(port),
		gomail.WithTLSConfig(&tls.Config{RootCAs: e.RootCAs, ServerName: host, MinVersion: tls.VersionTLS12}),
		gomail.WithSMTPAuth(gomail.SMTPAuthPlain),
		gomail.WithUsername(e.Username),
		gomail.WithPassword(e.Password),
		gomail.WithTimeout(timeout),
		gomail.WithHELO("vibesell"),
	}
	if port == 465 {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	client, err := gomail.NewClient(host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client for %s: %w", e.Addr, err)
	}
	return client, nil
}
