package sandboxmail

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	netmail "net/mail"
	"strings"
	"time"

	"github.com/emersion/go-message"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/mail"
)

// PublishedRecords answers DNS TXT questions from the records a
// workspace's sending setup published, so a signature is checked against
// the key the workspace put in its DNS, without asking the internet;
// *sending.Service is one.
type PublishedRecords interface {
	PublishedTXT(ctx context.Context, ws uuid.UUID, name string) ([]string, error)
}

// Outbox keeps what the sandbox mail server accepted, each message under
// the workspace whose send it was, and answers it as a lead would. It
// exists only with the sandbox: a real provider's messages leave for real
// and are not kept.
type Outbox struct {
	db      *pgxpool.Pool
	sandbox *Sandbox
	records PublishedRecords
	clock   vibesell.Clock
	logger  *slog.Logger
}

// OutboxDeps is what the outbox needs.
type OutboxDeps struct {
	DB *pgxpool.Pool
	// Records tells the DNS records a workspace published.
	Records PublishedRecords
	// Sandbox is the mail server whose mailboxes a lead's replies are
	// delivered to; nil when none runs (the outbox then says so).
	Sandbox *Sandbox
	// Clock and Logger are nil for the system's clock and no log.
	Clock  vibesell.Clock
	Logger *slog.Logger
}

// NewOutbox returns the sandbox's outbox: what [KeepAccepted] kept, and
// replies as a lead's into d.Sandbox.
func NewOutbox(d OutboxDeps) *Outbox {
	clock, logger := d.Clock, d.Logger
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Outbox{db: d.DB, sandbox: d.Sandbox, records: d.Records, clock: clock, logger: logger}
}

// outboxKeeps is how many messages the outbox keeps per workspace, as the
// sandbox keeps in memory: enough to look at, bounded for a server left
// running.
const outboxKeeps = sandboxKeeps

// KeepAccepted returns the sandbox's OnAccept that keeps each accepted
// message in the outbox on db. It is not a method of the [Outbox]: the
// outbox delivers replies into the sandbox, so it is built once the
// sandbox runs, and the sandbox must be told where to keep its messages
// when it starts; keeping needs only the database.
func KeepAccepted(db *pgxpool.Pool, logger *slog.Logger) func(Accepted) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	k := keeper{db: db, logger: logger}
	return k.keep
}

type keeper struct {
	db     *pgxpool.Pool
	logger *slog.Logger
}

// keep stores one accepted message under the workspace whose message it
// is: the send ledger knows every Message-ID the engine handed over, and
// mail_notices every one of VibeSell's own emails to a workspace's people. A message
// no send of any workspace claimed (someone submitting by hand) is not
// kept, and says so in the log.
func (o keeper) keep(a Accepted) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	messageID := ""
	if m, err := netmail.ReadMessage(bytes.NewReader(a.Raw)); err == nil {
		if ids := mail.MessageIDs(m.Header.Get("Message-Id")); len(ids) > 0 {
			messageID = ids[0]
		}
	}
	var ws uuid.UUID
	err := o.db.QueryRow(ctx, `SELECT workspace_id FROM mail_sends WHERE message_id = $1
		UNION ALL SELECT workspace_id FROM mail_notices WHERE message_id = $1 LIMIT 1`, messageID).Scan(&ws)
	if errors.Is(err, pgx.ErrNoRows) {
		o.logger.Warn("the sandbox accepted a message that no send of a workspace claimed; it is in no outbox", "from", a.From, "message_id", messageID)
		return
	}
	if err == nil {
		var id int64
		err = o.db.QueryRow(ctx, `INSERT INTO mail_outbox (workspace_id, mailbox, recipients, message_id, raw, accepted_at)
		                          VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			ws, strings.ToLower(a.From), a.Recipients, messageID, a.Raw, a.At).Scan(&id)
		if err == nil {
			_, err = o.db.Exec(ctx, `DELETE FROM mail_outbox WHERE workspace_id = $1 AND id <= $2`, ws, id-outboxKeeps)
		}
	}
	if err != nil {
		o.logger.Error("the sandbox outbox could not keep a message", "from", a.From, "message_id", messageID, "err", err)
	}
}

// OutboxMessage is one message the sandbox accepted, as sent.
type OutboxMessage struct {
	ID         int64
	Mailbox    string
	Recipients []string
	MessageID  string
	AcceptedAt time.Time
	// Notice: one of VibeSell's own emails to the workspace's people, not
	// a campaign's; there is no lead to answer as.
	Notice bool
	// Header is the message's header fields in order, as received.
	Header []HeaderField
	// Raw is the whole message as received.
	Raw     []byte
	Subject string
	From    string
	To      string
	// Body is the first plain-text part, decoded.
	Body string
	DKIM DKIMVerdict
	// Replies are the replies read so far that answer this message's
	// send, oldest first.
	Replies []OutboxReply
}

// OutboxReply is a reply the reader kept for a message of the outbox, with
// its classification.
type OutboxReply struct {
	From           string
	ReceivedAt     time.Time
	Classification string
	Rule           string
	Excerpt        string
}

// HeaderField is one header line, unfolded.
type HeaderField struct{ Name, Value string }

// DKIMVerdict is what checking a message's DKIM signature against the
// workspace's published records found.
type DKIMVerdict struct {
	// Result is pass, fail or none (not signed).
	Result string
	// Domain is the domain that signed (d=); "" when not signed.
	Domain string
	// Detail says it in a sentence for the person.
	Detail string
}

// OutboxPage is one page of the outbox, newest first.
type OutboxPage struct {
	Messages []OutboxMessage
	// Before is the id to continue from (older messages); 0 on the last
	// page.
	Before int64
}

// Sandbox says whether there is a sandbox outbox: false with a real
// provider, whose messages are not kept.
func (o *Outbox) Sandbox() bool { return o != nil && o.sandbox != nil }

// What the outbox lists: campaign emails and VibeSell's own emails (its
// notices to the workspace's people) are apart, as a person reads them.
const (
	AllEmails      = ""
	CampaignEmails = "campaign"
	NoticeEmails   = "notices"
)

// List returns the workspace's messages, newest first, limit at a time,
// older than before (0: from the newest), each with its DKIM verdict.
func (o *Outbox) List(ctx context.Context, ws uuid.UUID, before int64, limit int) (OutboxPage, error) {
	return o.ListOf(ctx, ws, AllEmails, before, limit)
}

// ListOf is [Outbox.List] of one kind of email: [CampaignEmails],
// [NoticeEmails] or [AllEmails].
func (o *Outbox) ListOf(ctx context.Context, ws uuid.UUID, kind string, before int64, limit int) (OutboxPage, error) {
	if limit < 1 || limit > 100 {
		limit = 20
	}
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := o.db.Query(ctx, `
		SELECT id, mailbox, recipients, message_id, raw, accepted_at, notice FROM (
		  SELECT o.*, EXISTS (SELECT 1 FROM mail_notices n WHERE n.message_id = o.message_id AND n.workspace_id = o.workspace_id) AS notice
		    FROM mail_outbox o WHERE o.workspace_id = $1 AND o.id < $2) m
		 WHERE $4 = '' OR notice = ($4 = 'notices')
		 ORDER BY accepted_at DESC, id DESC LIMIT $3`, ws, before, limit+1, kind)
	if err != nil {
		return OutboxPage{}, fmt.Errorf("list the outbox: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OutboxMessage, error) {
		var m OutboxMessage
		err := r.Scan(&m.ID, &m.Mailbox, &m.Recipients, &m.MessageID, &m.Raw, &m.AcceptedAt, &m.Notice)
		return m, err
	})
	if err != nil {
		return OutboxPage{}, fmt.Errorf("list the outbox: %w", err)
	}
	var page OutboxPage
	if len(list) > limit {
		list = list[:limit]
		page.Before = list[limit-1].ID
	}
	for i := range list {
		o.read(ctx, ws, &list[i])
	}
	if err := o.readReplies(ctx, ws, list); err != nil {
		return OutboxPage{}, err
	}
	page.Messages = list
	return page, nil
}

// readReplies fills in the replies kept for the sends of messages.
func (o *Outbox) readReplies(ctx context.Context, ws uuid.UUID, messages []OutboxMessage) error {
	if len(messages) == 0 {
		return nil
	}
	ids := make([]string, len(messages))
	at := map[string]*OutboxMessage{}
	for i := range messages {
		ids[i] = messages[i].MessageID
		at[messages[i].MessageID] = &messages[i]
	}
	rows, err := o.db.Query(ctx, `
		SELECT s.message_id, r.from_address, r.received_at, r.classification, r.rule, r.excerpt
		  FROM mail_sends s
		  JOIN mail_replies r ON r.workspace_id = s.workspace_id AND r.campaign_id = s.campaign_id AND r.lead_id = s.lead_id AND r.step = s.step
		 WHERE s.workspace_id = $1 AND s.message_id = ANY($2)
		 ORDER BY r.received_at, r.message_id`, ws, ids)
	if err != nil {
		return fmt.Errorf("read the outbox's replies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r OutboxReply
		if err := rows.Scan(&id, &r.From, &r.ReceivedAt, &r.Classification, &r.Rule, &r.Excerpt); err != nil {
			return fmt.Errorf("read the outbox's replies: %w", err)
		}
		at[id].Replies = append(at[id].Replies, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the outbox's replies: %w", err)
	}
	return nil
}

// Find returns one message of the workspace. Refusals: ENOTFOUND.
func (o *Outbox) Find(ctx context.Context, ws uuid.UUID, id int64) (OutboxMessage, error) {
	var m OutboxMessage
	err := o.db.QueryRow(ctx, `SELECT id, mailbox, recipients, message_id, raw, accepted_at,
		EXISTS (SELECT 1 FROM mail_notices n WHERE n.message_id = o.message_id AND n.workspace_id = o.workspace_id)
		FROM mail_outbox o WHERE workspace_id = $1 AND id = $2`,
		ws, id).Scan(&m.ID, &m.Mailbox, &m.Recipients, &m.MessageID, &m.Raw, &m.AcceptedAt, &m.Notice)
	if errors.Is(err, pgx.ErrNoRows) {
		return OutboxMessage{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no message %d in this workspace's outbox.", id)
	}
	if err != nil {
		return OutboxMessage{}, fmt.Errorf("read outbox message %d: %w", id, err)
	}
	o.read(ctx, ws, &m)
	return m, nil
}

// read fills in what a person reads of the message: its header, the
// plain text, and the DKIM verdict.
func (o *Outbox) read(ctx context.Context, ws uuid.UUID, m *OutboxMessage) {
	m.Header = headerFields(m.Raw)
	for _, f := range m.Header {
		switch strings.ToLower(f.Name) {
		case "subject":
			m.Subject = f.Value
		case "from":
			m.From = f.Value
		case "to":
			m.To = f.Value
		}
	}
	if r, err := mail.ParseReply(m.Raw); err == nil {
		m.Subject = r.Subject
	}
	m.Body = firstPlain(m.Raw)
	m.DKIM = o.verify(ctx, ws, m.Raw)
}

// headerFields reads the header block as it is, unfolding continued lines.
func headerFields(raw []byte) []HeaderField {
	head, _, _ := bytes.Cut(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n\n"))
	var out []HeaderField
	for _, line := range strings.Split(string(head), "\n") {
		if (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && len(out) > 0 {
			out[len(out)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		if name, value, ok := strings.Cut(line, ":"); ok {
			out = append(out, HeaderField{Name: name, Value: strings.TrimSpace(value)})
		}
	}
	return out
}

// firstPlain is the message's first plain-text part, decoded, footer
// included: what the recipient reads.
func firstPlain(raw []byte) string {
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return ""
	}
	var text string
	_ = e.Walk(func(_ []int, part *message.Entity, err error) error {
		if err != nil || text != "" {
			return nil
		}
		if ct, _, _ := part.Header.ContentType(); ct == "text/plain" || ct == "" {
			if b, err := io.ReadAll(part.Body); err == nil {
				text = strings.ReplaceAll(string(b), "\r\n", "\n")
			}
		}
		return nil
	})
	return text
}

// verify checks the DKIM signatures against the workspace's published
// records only.
func (o *Outbox) verify(ctx context.Context, ws uuid.UUID, raw []byte) DKIMVerdict {
	lookup := func(name string) ([]string, error) {
		values, err := o.records.PublishedTXT(ctx, ws, strings.TrimSuffix(name, "."))
		if err != nil {
			return nil, err
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("%s is not among the records this workspace's sending setup published", name)
		}
		return values, nil
	}
	verifications, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: lookup, MaxVerifications: 5})
	if err != nil {
		return DKIMVerdict{Result: "fail", Detail: "The message could not be read to check its signature: " + err.Error() + "."}
	}
	if len(verifications) == 0 {
		return DKIMVerdict{Result: "none", Detail: "The message is not signed (no DKIM-Signature header)."}
	}
	v := verifications[0]
	if v.Err == nil {
		return DKIMVerdict{Result: "pass", Domain: v.Domain,
			Detail: fmt.Sprintf("Signed by %s and verified against the key its sending setup published (%s).", v.Domain, strings.Join(v.HeaderKeys, ", "))}
	}
	return DKIMVerdict{Result: "fail", Domain: v.Domain, Detail: fmt.Sprintf("Signed by %s, but the signature does not verify: %v.", v.Domain, v.Err)}
}

// ReplyAsLead delivers a reply to message id into the sending mailbox's
// inbox over the sandbox, written as its recipient would: threaded under
// it, with text as what they wrote. The engine's poller then reads it like
// any reply. Refusals: ENOTFOUND (another workspace's message), EINVALID
// (no text, or no sandbox), ECONFLICT (the mailbox is not in the sandbox
// mail server now).
func (o *Outbox) ReplyAsLead(ctx context.Context, ws uuid.UUID, id int64, text string) (OutboxMessage, error) {
	if !o.Sandbox() {
		return OutboxMessage{}, vibesell.Errorf(vibesell.EINVALID, "Replies can be written here only in the sandbox; with a real mail provider, the leads answer for themselves.")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return OutboxMessage{}, vibesell.Errorf(vibesell.EINVALID, "Write the lead's reply first: the text is empty.")
	}
	if len(text) > 20000 {
		return OutboxMessage{}, vibesell.Errorf(vibesell.EINVALID, "The reply is too long: keep it under 20,000 characters.")
	}
	m, err := o.Find(ctx, ws, id)
	if err != nil {
		return OutboxMessage{}, err
	}
	if m.Notice {
		return OutboxMessage{}, vibesell.Errorf(vibesell.EINVALID, "This is VibeSell's own email to your team, not a campaign's: there is no lead to reply as.")
	}
	lead := ""
	if to, err := netmail.ParseAddress(m.To); err == nil {
		lead = to.String()
	} else if len(m.Recipients) > 0 {
		lead = m.Recipients[0]
	}
	leadAddr := lead
	if a, err := netmail.ParseAddress(lead); err == nil {
		leadAddr = a.Address
	}
	subject := m.Subject
	if !strings.HasPrefix(strings.ToLower(subject), "re:") {
		subject = "Re: " + subject
	}
	b := make([]byte, 12)
	rand.Read(b)
	domain := leadAddr[strings.LastIndexByte(leadAddr, '@')+1:]
	now := o.clock.Now()
	var raw strings.Builder
	fmt.Fprintf(&raw, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@%s>\r\nIn-Reply-To: %s\r\nReferences: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
		lead, m.From, mimeWord(subject), now.Format(time.RFC1123Z), hex.EncodeToString(b), domain, m.MessageID, m.MessageID)
	raw.WriteString(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n"))
	fmt.Fprintf(&raw, "\r\n\r\nOn %s, %s wrote:\r\n", m.AcceptedAt.Format("Mon, 2 Jan 2006 at 15:04"), m.From)
	for _, line := range strings.Split(strings.TrimRight(m.Body, "\n"), "\n") {
		raw.WriteString("> " + strings.TrimRight(line, "\r") + "\r\n")
	}
	if err := o.sandbox.DeliverReply(m.Mailbox, []byte(raw.String())); err != nil {
		if errors.Is(err, ErrNoSandboxMailbox) {
			return OutboxMessage{}, vibesell.Errorf(vibesell.ECONFLICT, "%s is not in the sandbox mail server right now, so no reply can reach it. Try again once the sending engine has started it.", m.Mailbox)
		}
		return OutboxMessage{}, err
	}
	return m, nil
}

// mimeWord encodes a header value that is not plain ASCII (RFC 2047).
func mimeWord(s string) string {
	for _, r := range s {
		if r > 126 {
			return mime.QEncoding.Encode("utf-8", s)
		}
	}
	return s
}
