package replies

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/store"
	"vibesell/webhooks"
)

// Match is the send a reply answers, and how it was found.
type Match struct {
	CampaignID string
	LeadID     int64
	Step       int
	// By is thread (In-Reply-To, References, or the bounced message's
	// Message-ID), address (the lead's address), domain (someone else at
	// the lead's company) or none.
	By string
}

// Poller reads new messages from a mailbox's inbox over IMAP, matches each
// to the send it answers, classifies it, keeps it, and suppresses the
// addresses that asked to be removed or bounced for good.
type Poller struct {
	db         *pgxpool.Pool
	suppressor mail.Suppressor
	clock      vibesell.Clock
	logger     *slog.Logger
	webhooks   *webhooks.Service
}

// PollerDeps is what [NewPoller] needs.
type PollerDeps struct {
	DB         *pgxpool.Pool
	Suppressor mail.Suppressor
	// Clock dates a reply without a date. Default: the system clock.
	Clock vibesell.Clock
	// Logger hears the messages skipped. Default: discarded.
	Logger *slog.Logger
	// Webhooks is told of each reply kept, and of a lead interested, in
	// the transaction that keeps the reply. Nil: no webhooks.
	Webhooks *webhooks.Service
}

// NewPoller returns the reply reader.
func NewPoller(d PollerDeps) *Poller {
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Poller{db: d.DB, suppressor: d.Suppressor, clock: d.Clock, logger: d.Logger, webhooks: d.Webhooks}
}

// Poll reads what arrived in the mailbox's inbox since the last poll and
// returns how many new messages it kept. Reading a message twice (a poll
// that failed before its mark was saved) keeps it once.
func (p *Poller) Poll(ctx context.Context, workspaceID uuid.UUID, mb mail.Account) (int, error) {
	c, release, err := mail.DialIMAP(ctx, mb, nil)
	if err != nil {
		return 0, err
	}
	defer release()
	selected, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return 0, fmt.Errorf("imap select inbox of %s: %w", mb.IMAP.Username, err)
	}
	mailbox := strings.ToLower(mb.Address.Email)
	var validity, last int64
	err = p.db.QueryRow(ctx, `SELECT uid_validity, last_uid FROM mail_poll_marks WHERE workspace_id = $1 AND mailbox = $2`,
		workspaceID, mailbox).Scan(&validity, &last)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("read poll mark: %w", err)
	}
	if validity != int64(selected.UIDValidity) {
		// A new UIDVALIDITY renumbers the inbox: read it all again; the
		// replies already kept are recognised by their Message-ID.
		last = 0
	}
	if selected.NumMessages == 0 {
		return 0, nil
	}
	section := &imap.FetchItemBodySection{Peek: true}
	uids := imap.UIDSet{imap.UIDRange{Start: imap.UID(last + 1), Stop: 0}}
	msgs, err := c.Fetch(uids, &imap.FetchOptions{UID: true, InternalDate: true, BodySection: []*imap.FetchItemBodySection{section}}).Collect()
	if err != nil {
		return 0, fmt.Errorf("imap fetch from %s: %w", mb.IMAP.Username, err)
	}
	kept := 0
	for _, m := range msgs {
		if int64(m.UID) <= last {
			continue // "n:*" names the last message even when it is older
		}
		added, err := p.keep(ctx, workspaceID, mailbox, selected.UIDValidity, m.UID, m.InternalDate, m.FindBodySection(section))
		if err != nil {
			return kept, err
		}
		if added {
			kept++
		}
		if _, err := p.db.Exec(ctx, `INSERT INTO mail_poll_marks (workspace_id, mailbox, uid_validity, last_uid) VALUES ($1, $2, $3, $4)
		                             ON CONFLICT (workspace_id, mailbox) DO UPDATE SET uid_validity = EXCLUDED.uid_validity, last_uid = EXCLUDED.last_uid`,
			workspaceID, mailbox, int64(selected.UIDValidity), int64(m.UID)); err != nil {
			return kept, fmt.Errorf("save poll mark: %w", err)
		}
	}
	return kept, nil
}

// Watch reads the mailbox until ctx ends: once at the start, again each
// time the server announces new mail in the inbox over IDLE (when it offers
// IDLE), and every interval in any case, which is the only trigger with a
// server without IDLE or once the IDLE connection is lost. after, when
// set, hears the outcome of every poll.
func (p *Poller) Watch(ctx context.Context, workspaceID uuid.UUID, mb mail.Account, interval time.Duration, after func(kept int, err error)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake := make(chan struct{}, 1)
	announce := func(data *imapclient.UnilateralDataMailbox) {
		if data.NumMessages != nil {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	// IDLE starts before the first poll, so nothing arriving in between is
	// missed.
	if release, err := p.idle(ctx, mb, announce); err != nil {
		p.logger.Warn("mailbox read every interval only: IDLE is not available", "mailbox", mb.Address.Email, "interval", interval, "err", err)
	} else {
		defer release()
		p.logger.Debug("reading replies as they arrive (IDLE)", "mailbox", mb.Address.Email)
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		n, err := p.Poll(ctx, workspaceID, mb)
		if err != nil && ctx.Err() == nil {
			p.logger.Warn("reading replies failed; trying again at the next wake-up", "mailbox", mb.Address.Email, "err", err)
		}
		if after != nil && ctx.Err() == nil {
			after(n, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-ticker.C:
		}
	}
}

// idle opens a connection that only waits in IDLE on the inbox and calls
// announce when the server reports a new message count.
func (p *Poller) idle(ctx context.Context, mb mail.Account, announce func(*imapclient.UnilateralDataMailbox)) (release func(), err error) {
	c, release, err := mail.DialIMAP(ctx, mb, &imapclient.UnilateralDataHandler{Mailbox: announce})
	if err != nil {
		return nil, err
	}
	caps := c.Caps()
	if !caps.Has(imap.CapIdle) && !caps.Has(imap.CapIMAP4rev2) {
		release()
		return nil, errors.New("the server does not offer IDLE")
	}
	if _, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		release()
		return nil, fmt.Errorf("imap select inbox: %w", err)
	}
	if _, err := c.Idle(); err != nil {
		release()
		return nil, fmt.Errorf("imap idle: %w", err)
	}
	return release, nil
}

// keep reads, matches, classifies and stores one message, and suppresses
// what it must; it says whether the message was new.
func (p *Poller) keep(ctx context.Context, workspaceID uuid.UUID, mailbox string, validity uint32, uid imap.UID, arrived time.Time, raw []byte) (bool, error) {
	reply, err := mail.ParseReply(raw)
	if err != nil {
		p.logger.Warn("a message in the inbox could not be read; it is skipped", "mailbox", mailbox, "uid", uid, "err", err)
		return false, nil
	}
	if reply.MessageID == "" {
		reply.MessageID = fmt.Sprintf("<%d.%d@%s>", validity, uid, mailbox)
	}
	boundReply(&reply)
	received := reply.Date
	if received.IsZero() {
		received = arrived
	}
	if received.IsZero() {
		received = p.clock.Now()
	}
	match, err := MatchReply(ctx, p.db, workspaceID, reply)
	if err != nil {
		return false, err
	}
	verdict := Classify(reply)
	var campaign *string
	var lead *int64
	var step *int
	if match.By != "none" {
		campaign, lead, step = &match.CampaignID, &match.LeadID, &match.Step
	}
	// Suppress before the reply is kept: suppressing is idempotent, and a
	// reply kept is never read again, so this order never loses one.
	if err := p.suppressFor(ctx, workspaceID, reply, verdict, match); err != nil {
		return false, fmt.Errorf("suppress after reply %s: %w", reply.MessageID, err)
	}
	var bounce *string
	if verdict.Bounce != "" {
		bounce = &verdict.Bounce
	}
	var added bool
	err = store.InTx(ctx, p.db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO mail_replies (workspace_id, mailbox, message_id, from_address, subject, received_at, campaign_id, lead_id, step,
			                          matched_by, classification, rule, returns_on, bounce, excerpt)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT DO NOTHING`,
			workspaceID, mailbox, reply.MessageID, reply.From, reply.Subject, received, campaign, lead, step,
			match.By, verdict.Classification, verdict.Rule, verdict.ReturnsOn, bounce, excerpt(reply.Text, 280))
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		added = true
		return p.webhooks.Emit(ctx, tx, workspaceID, replyEvents(ctx, tx, workspaceID, reply, received, verdict, match)...)
	})
	if err != nil {
		return false, fmt.Errorf("keep reply %s: %w", reply.MessageID, err)
	}
	if added && verdict.Bounce == "soft" && match.By != "none" {
		if err := p.retrySoftBounce(ctx, workspaceID, match, verdict); err != nil {
			return false, err
		}
	}
	return added, nil
}

// replyEvents are the webhook events of a reply kept: the reply, with the
// lead it answers, and the lead's interest when it is interested. A
// bounce or an auto-reply is no reply of the lead's.
func replyEvents(ctx context.Context, tx pgx.Tx, ws uuid.UUID, reply mail.Reply, received time.Time, verdict Verdict, match Match) []webhooks.Event {
	if verdict.Bounce != "" || verdict.Classification == Complaint {
		return nil
	}
	r := webhooks.Reply{MessageID: reply.MessageID, From: reply.From, Subject: reply.Subject, Classification: verdict.Classification,
		ReceivedAt: received.UTC(), Excerpt: excerpt(reply.Text, 280)}
	var lead *webhooks.Lead
	if match.By != "none" {
		r.CampaignID = match.CampaignID
		lead = &webhooks.Lead{ID: match.LeadID}
		// A lead removed since is named by its id alone.
		_ = tx.QueryRow(ctx, `SELECT email, first_name, last_name, company FROM leads WHERE workspace_id = $1 AND id = $2`, ws, match.LeadID).
			Scan(&lead.Email, &lead.FirstName, &lead.LastName, &lead.Company)
	}
	events := []webhooks.Event{webhooks.ReplyReceived(r, lead)}
	if verdict.Classification == Interested && lead != nil {
		events = append(events, webhooks.LeadInterested(*lead, r))
	}
	return events
}

// retrySoftBounce gives a step that bounced for now another try after its
// back-off; after its last try the address is suppressed as if it had
// bounced for good.
func (p *Poller) retrySoftBounce(ctx context.Context, workspaceID uuid.UUID, match Match, verdict Verdict) error {
	var attempts int
	var recipient string
	err := p.db.QueryRow(ctx, `UPDATE mail_sends SET status = 'failed', error = $5,
		       retry_at = $6::timestamptz + make_interval(mins => 15 * power(4, attempts - 1)::int)
		 WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4 AND status IN ('sent', 'unknown') AND attempts < $7
		RETURNING attempts, recipient`,
		workspaceID, match.CampaignID, match.LeadID, match.Step, "soft bounce: "+verdict.Rule, p.clock.Now(), delivery.Tries).Scan(&attempts, &recipient)
	if err == nil {
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("try a soft-bounced step again: %w", err)
	}
	err = p.db.QueryRow(ctx, `SELECT recipient FROM mail_sends WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4 AND attempts >= $5`,
		workspaceID, match.CampaignID, match.LeadID, match.Step, delivery.Tries).Scan(&recipient)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read a soft-bounced step: %w", err)
	}
	// The last try bounced too: the address counts as one that fails.
	return p.suppressor.Suppress(ctx, workspaceID, recipient, "hard_bounce")
}

// suppressFor suppresses the sender of an unsubscribe request, the
// address of a hard bounce, and the address that complained.
func (p *Poller) suppressFor(ctx context.Context, workspaceID uuid.UUID, reply mail.Reply, verdict Verdict, match Match) error {
	switch {
	case verdict.Classification == Unsubscribe && reply.From != "":
		return p.suppressor.Suppress(ctx, workspaceID, reply.From, "unsubscribed")
	case verdict.Bounce == "hard" || verdict.Classification == Complaint:
		address, reason := "", "hard_bounce"
		if reply.DSN != nil {
			address = reply.DSN.Recipient
		}
		if reply.Feedback != nil {
			address, reason = reply.Feedback.Recipient, "complaint"
		}
		if address == "" && match.By != "none" {
			err := p.db.QueryRow(ctx, `SELECT recipient FROM mail_sends WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
				workspaceID, match.CampaignID, match.LeadID, match.Step).Scan(&address)
			if err != nil {
				return fmt.Errorf("read the send a bounce or complaint names: %w", err)
			}
		}
		if address != "" {
			return p.suppressor.Suppress(ctx, workspaceID, address, reason)
		}
	}
	return nil
}

// MatchReply finds the send a reply answers: by its threading headers (or,
// for a bounce, the returned Message-ID), then by the sender's address,
// then by the sender's company domain. The latest send wins each tier.
func MatchReply(ctx context.Context, db *pgxpool.Pool, workspaceID uuid.UUID, r mail.Reply) (Match, error) {
	var ids []string
	if r.InReplyTo != "" {
		ids = append(ids, r.InReplyTo)
	}
	ids = append(ids, r.References...)
	if r.DSN != nil && r.DSN.OriginalMessageID != "" {
		ids = append(ids, r.DSN.OriginalMessageID)
	}
	if r.Feedback != nil && r.Feedback.OriginalMessageID != "" {
		ids = append(ids, r.Feedback.OriginalMessageID)
	}
	m := Match{By: "none"}
	scan := func(by, query string, arg any) (bool, error) {
		err := db.QueryRow(ctx, query, workspaceID, arg).Scan(&m.CampaignID, &m.LeadID, &m.Step)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("match reply by %s: %w", by, err)
		}
		m.By = by
		return true, nil
	}
	const cols = `SELECT campaign_id, lead_id, step FROM mail_sends WHERE workspace_id = $1 AND `
	if len(ids) > 0 {
		if ok, err := scan("thread", cols+`message_id = ANY($2) ORDER BY claimed_at DESC, step DESC LIMIT 1`, ids); ok || err != nil {
			return m, err
		}
	}
	from := r.From
	if r.DSN != nil && r.DSN.Recipient != "" {
		from = r.DSN.Recipient
	}
	if r.Feedback != nil {
		from = r.Feedback.Recipient // the report's sender is the mailbox provider
	}
	if from == "" {
		return m, nil
	}
	if ok, err := scan("address", cols+`lower(recipient) = $2 ORDER BY claimed_at DESC, step DESC LIMIT 1`, from); ok || err != nil {
		return m, err
	}
	domain := from[strings.LastIndexByte(from, '@')+1:]
	if mail.Freemail(domain) || bounceSender.MatchString(from) {
		return m, nil
	}
	_, err := scan("domain", cols+`lower(split_part(recipient, '@', 2)) = $2 ORDER BY claimed_at DESC, step DESC LIMIT 1`, domain)
	return m, err
}

// The most characters of a reply's headers that are kept: what anyone
// outside writes is shown in list_replies a page at a time, and a page
// must stay within the bounds of a result whatever arrives. 998 is the
// longest line RFC 5322 allows; 320 the longest address.
const (
	maxKeptHeader  = 998
	maxKeptAddress = 320
)

// boundReply cuts the headers a reply is kept with to their bounds.
func boundReply(r *mail.Reply) {
	r.Subject = excerpt(r.Subject, maxKeptHeader)
	r.From = cut(r.From, maxKeptAddress)
	r.MessageID = cut(r.MessageID, maxKeptHeader)
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// excerpt is the first n characters of the sender's words, on one line.
func excerpt(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	return strings.TrimRight(string(r), " ,.;") + "…"
}
