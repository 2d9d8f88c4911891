package replies

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/mailboxes"
	"vibesell/workspace"
)

// Answering a reply: the assistant drafts the text with the person and
// proposes it ([Answers.Request]); an approval shows exactly what will be
// sent, from the mailbox the reply came to, to who wrote it, in its
// thread; once a person approves it, [AnswerAction] sends it through the
// send ledger like every email (claimed once, signed, handed over once,
// settled), as the lead's ledger row in the reply's campaign with step
// -id of its mail_answers row: a negative step is an answer, which the
// schedule and the campaign's metrics never read as a step of the
// sequence. The lead's sequence stays stopped: only a reply a person
// wrote can be answered, and such a reply stops it.

// MaxAnswerText is the longest answer, in characters.
const MaxAnswerText = 10_000

// Senders reads who a workspace's emails are from (its postal address
// and default sender name); *workspace.Service is one.
type Senders interface {
	Sender(ctx context.Context, ws uuid.UUID) (workspace.Sender, error)
}

// Answers proposes answers to replies and sends the approved ones.
type Answers struct {
	db         *pgxpool.Pool
	approvals  *approvals.Service
	senders    Senders
	suppressor mail.Suppressor
	clock      vibesell.Clock
	sending    AnswerSending
}

// SendingParts is what sends an answer: the engine's dispatcher (the send
// ledger), the mailboxes the workspaces send from, and what signs the
// unsubscribe links, which lead to PublicURL.
type SendingParts struct {
	Dispatcher *delivery.Dispatcher
	Sources    mailboxes.Source
	Secret     mail.Secret
	PublicURL  string
}

// AnswerSending gives the parts that send an answer, or false while
// nothing can send (the server's sending engine is off, or not running
// yet): the engine starts after the services, so the parts are asked for
// on each use rather than given once.
type AnswerSending interface {
	SendingParts() (SendingParts, bool)
}

// SendingReady is sending whose parts are known when the answers are
// built (a test's, or a server that starts its engine first).
type SendingReady SendingParts

// SendingParts gives the parts, always.
func (r SendingReady) SendingParts() (SendingParts, bool) { return SendingParts(r), true }

// AnswersDeps is what the answers of replies need. Without Sending, every
// answer is refused: nothing could send it.
type AnswersDeps struct {
	DB         *pgxpool.Pool
	Approvals  *approvals.Service
	Senders    Senders
	Suppressor mail.Suppressor
	Clock      vibesell.Clock
	Sending    AnswerSending
}

// NewAnswers returns the answers of replies.
func NewAnswers(d AnswersDeps) *Answers {
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	return &Answers{db: d.DB, approvals: d.Approvals, senders: d.Senders, suppressor: d.Suppressor, clock: d.Clock, sending: d.Sending}
}

func (a *Answers) sendingParts() (*SendingParts, error) {
	if a.sending != nil {
		if parts, ok := a.sending.SendingParts(); ok {
			return &parts, nil
		}
	}
	return nil, vibesell.Errorf(vibesell.ECONFLICT, "Sending is off on this server (no mailbox can send, or it has no mail secret key), so no answer can go out.")
}

// ReplyKey names one reply: the sending mailbox it came to and its
// Message-ID. Without a mailbox, the newest reply with the Message-ID.
type ReplyKey struct {
	Mailbox   string
	MessageID string
}

// Ref is the reply's key as one opaque word, for a web address.
func (k ReplyKey) Ref() string {
	return base64.RawURLEncoding.EncodeToString([]byte(k.Mailbox + "\n" + k.MessageID))
}

// ParseReplyRef reads a [ReplyKey.Ref]; false when it is not one.
func ParseReplyRef(ref string) (ReplyKey, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(ref)
	if err != nil {
		return ReplyKey{}, false
	}
	mailbox, id, ok := strings.Cut(string(raw), "\n")
	if !ok || mailbox == "" || id == "" || !utf8.ValidString(id) {
		return ReplyKey{}, false
	}
	return ReplyKey{Mailbox: mailbox, MessageID: id}, true
}

// ThreadReply is a reply as its thread shows it.
type ThreadReply struct {
	Key            ReplyKey
	From           string
	Subject        string
	ReceivedAt     time.Time
	Classification string
	Bounce         *string
	Excerpt        string
	Campaign       string // "" when it matched no email sent
	CampaignName   string
	Lead           int64
	LeadName       string // the lead's name as the campaign has it; "" when none
	LeadEmail      string // the address the campaign wrote to
}

// ThreadAnswer is an answer proposed or sent in a thread.
type ThreadAnswer struct {
	Approval   string
	Status     approvals.Status
	Body       string
	Mailbox    string
	Recipient  string
	Subject    string
	CreatedAt  time.Time
	SendStatus string // the ledger's status once it was handed to the sender; "" before
	MessageID  string // the Message-ID it went out with; "" before
}

// Thread is a reply and the conversation it is part of: the emails sent
// to the lead in the reply's campaign, the lead's replies, and the
// answers proposed or sent, each oldest first.
type Thread struct {
	Reply   ThreadReply
	Sent    []ThreadSent
	Replies []ThreadReply
	Answers []ThreadAnswer
	// Waiting says the reply wants an answer and none is sent or waiting
	// for approval.
	Waiting bool
}

// ThreadSent is an email of the campaign sent to the lead.
type ThreadSent struct {
	Step      int // from 1; 0 for an answer
	Mailbox   string
	At        time.Time
	Status    string
	MessageID string
}

// waitingForAnswer is the one rule for a reply waiting for an answer (r
// is mail_replies): the person wants a conversation (a meeting, a time,
// a question, interest), it answers an email sent to a lead, and no
// answer to it or to a later reply of the lead in the same campaign is
// sent, being sent or waiting for approval; nor did the lead since ask
// to be removed, complain or bounce.
const waitingForAnswer = `r.classification = 'interested' AND r.lead_id IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM mail_answers a JOIN approvals ap ON ap.workspace_id = a.workspace_id AND ap.id = a.approval_id
		 WHERE a.workspace_id = r.workspace_id AND a.campaign_id = r.campaign_id AND a.lead_id = r.lead_id
		   AND a.reply_received_at >= r.received_at AND ap.status IN ('pending', 'approved', 'executing', 'done'))
	AND NOT EXISTS (SELECT 1 FROM mail_replies u WHERE u.workspace_id = r.workspace_id AND u.lead_id = r.lead_id
		   AND (u.classification IN ('unsubscribe', 'complaint') OR u.bounce = 'hard'))`

const threadReplyColumns = `r.mailbox, r.message_id, r.from_address, r.subject, r.received_at, r.classification, r.bounce, r.excerpt,
	coalesce(r.campaign_id, ''), coalesce(c.name, ''), coalesce(r.lead_id, 0),
	concat_ws(', ', nullif(trim(concat_ws(' ', cl.fields->>'first_name', cl.fields->>'last_name')), ''), nullif(cl.fields->>'company', '')),
	coalesce(s.recipient, ''), (` + waitingForAnswer + `)`

const threadReplyJoins = ` FROM mail_replies r
	LEFT JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
	LEFT JOIN campaigns c ON c.workspace_id = r.workspace_id AND c.id = r.campaign_id
	LEFT JOIN campaign_leads cl ON cl.workspace_id = r.workspace_id AND cl.campaign_id = r.campaign_id AND cl.lead_id = r.lead_id`

func scanThreadReply(row pgx.Row) (ThreadReply, bool, error) {
	var r ThreadReply
	var waiting bool
	err := row.Scan(&r.Key.Mailbox, &r.Key.MessageID, &r.From, &r.Subject, &r.ReceivedAt, &r.Classification, &r.Bounce, &r.Excerpt,
		&r.Campaign, &r.CampaignName, &r.Lead, &r.LeadName, &r.LeadEmail, &waiting)
	return r, waiting, err
}

// findReply reads one reply of the workspace. Refusals: ENOTFOUND.
func (a *Answers) findReply(ctx context.Context, ws uuid.UUID, k ReplyKey) (ThreadReply, bool, error) {
	r, waiting, err := scanThreadReply(a.db.QueryRow(ctx, `SELECT `+threadReplyColumns+threadReplyJoins+`
		WHERE r.workspace_id = $1 AND r.message_id = $2 AND ($3 = '' OR r.mailbox = lower($3))
		ORDER BY r.received_at DESC LIMIT 1`, ws, k.MessageID, k.Mailbox))
	if errors.Is(err, pgx.ErrNoRows) {
		return ThreadReply{}, false, vibesell.Errorf(vibesell.ENOTFOUND, "There is no reply with Message-ID %s in this workspace.", clipText(k.MessageID, 200))
	}
	if err != nil {
		return ThreadReply{}, false, fmt.Errorf("read reply %s: %w", k.MessageID, err)
	}
	return r, waiting, nil
}

// Thread returns the reply named by k with its conversation. Refusals:
// ENOTFOUND.
func (a *Answers) Thread(ctx context.Context, ws uuid.UUID, k ReplyKey) (Thread, error) {
	r, waiting, err := a.findReply(ctx, ws, k)
	if err != nil {
		return Thread{}, err
	}
	t := Thread{Reply: r, Waiting: waiting}
	if r.Campaign == "" {
		return t, nil
	}
	rows, err := a.db.Query(ctx, `SELECT greatest(step, 0), mailbox, claimed_at, status, message_id FROM mail_sends
		WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND status <> 'claimed' AND error IS DISTINCT FROM $4
		ORDER BY claimed_at, step`, ws, r.Campaign, r.Lead, delivery.RemovedAfterClaim)
	if err != nil {
		return Thread{}, fmt.Errorf("read the thread of reply %s: %w", k.MessageID, err)
	}
	if t.Sent, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ThreadSent, error) {
		var s ThreadSent
		err := row.Scan(&s.Step, &s.Mailbox, &s.At, &s.Status, &s.MessageID)
		return s, err
	}); err != nil {
		return Thread{}, fmt.Errorf("read the thread of reply %s: %w", k.MessageID, err)
	}
	rows, err = a.db.Query(ctx, `SELECT `+threadReplyColumns+threadReplyJoins+`
		WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.lead_id = $3 ORDER BY r.received_at, r.message_id`, ws, r.Campaign, r.Lead)
	if err != nil {
		return Thread{}, fmt.Errorf("read the thread of reply %s: %w", k.MessageID, err)
	}
	if t.Replies, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ThreadReply, error) {
		r, _, err := scanThreadReply(row)
		return r, err
	}); err != nil {
		return Thread{}, fmt.Errorf("read the thread of reply %s: %w", k.MessageID, err)
	}
	rows, err = a.db.Query(ctx, `SELECT a.approval_id, ap.status, a.body, a.mailbox, a.recipient, a.subject, a.created_at,
			coalesce(s.status, ''), coalesce(s.message_id, '')
		  FROM mail_answers a
		  JOIN approvals ap ON ap.workspace_id = a.workspace_id AND ap.id = a.approval_id
		  LEFT JOIN mail_sends s ON s.workspace_id = a.workspace_id AND s.campaign_id = a.campaign_id AND s.lead_id = a.lead_id AND s.step = -a.id
		 WHERE a.workspace_id = $1 AND a.campaign_id = $2 AND a.lead_id = $3 AND ap.status <> 'not_done'
		 ORDER BY a.created_at, a.id`, ws, r.Campaign, r.Lead)
	if err != nil {
		return Thread{}, fmt.Errorf("read the answers of reply %s: %w", k.MessageID, err)
	}
	if t.Answers, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ThreadAnswer, error) {
		var an ThreadAnswer
		var status string
		err := row.Scan(&an.Approval, &status, &an.Body, &an.Mailbox, &an.Recipient, &an.Subject, &an.CreatedAt, &an.SendStatus, &an.MessageID)
		an.Status = approvals.Status(status)
		if status == "executing" {
			an.Status = approvals.Approved
		}
		return an, err
	}); err != nil {
		return Thread{}, fmt.Errorf("read the answers of reply %s: %w", k.MessageID, err)
	}
	return t, nil
}

// AnswerRequest is an answer proposed to a reply.
type AnswerRequest struct {
	Reply ReplyKey
	// Text is what the answer says, as the person agreed it: the email's
	// body, plain; the footer every email carries (the unsubscribe link,
	// the postal address) is added below it.
	Text string
	// RequestedBy and RequestedVia are as [approvals.Request]'s.
	RequestedBy  string
	RequestedVia string
}

// answerArguments name the reply an answer approval is for: one answer
// waits per reply; proposing another text replaces it.
type answerArguments struct {
	Mailbox string `json:"mailbox"`
	Reply   string `json:"reply"`
}

// answerDetails are exactly what an approved answer sends.
type answerDetails struct {
	ReplyMailbox    string    `json:"replyMailbox"`
	ReplyMessageID  string    `json:"replyMessageId"`
	ReplyReceivedAt time.Time `json:"replyReceivedAt"`
	Campaign        string    `json:"campaign"`
	Lead            int64     `json:"lead"`
	From            string    `json:"from"` // the sending mailbox
	FromName        string    `json:"fromName"`
	To              string    `json:"to"`
	ToName          string    `json:"toName"`
	Subject         string    `json:"subject"`
	Text            string    `json:"text"`
	InReplyTo       string    `json:"inReplyTo"`
	References      []string  `json:"references"`
}

// maxReferences bounds the References of an answer: the thread's first
// email and its latest ones are what mail apps thread by.
const maxReferences = 10

// Request opens (or returns the waiting) approval to send text as the
// answer to a reply. The approval's impact shows exactly what goes: from
// which mailbox, to whom, the subject, the thread and the text; a person
// approves it where the workspace's rules allow (the card, the
// conversation, the web app). Refusals: EINVALID (no text, too long, a
// reply no one can be answered for: a bounce, an automatic reply, one
// matched to no email sent); ECONFLICT (the writer unsubscribed,
// complained, bounced or is suppressed; the mailbox no longer sends;
// sending is off; no postal address); ENOTFOUND.
func (a *Answers) Request(ctx context.Context, ws uuid.UUID, req AnswerRequest) (approvals.Approval, bool, error) {
	text := strings.TrimSpace(strings.ReplaceAll(req.Text, "\r\n", "\n"))
	if text == "" {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID, "Write the answer first: its text is empty.")
	}
	if n := utf8.RuneCountInString(text); n > MaxAnswerText {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.EINVALID, "The answer is %s characters long; keep it under %s.", vibesell.Count(n), vibesell.Count(MaxAnswerText))
	}
	r, _, err := a.findReply(ctx, ws, req.Reply)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	sp, err := a.sendingParts()
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if err := answerable(r); err != nil {
		return approvals.Approval{}, false, err
	}
	if err := a.mayWrite(ctx, ws, r); err != nil {
		return approvals.Approval{}, false, err
	}
	acct, err := sendingAccount(ctx, sp, ws, r.Key.Mailbox)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	sender, err := a.senders.Sender(ctx, ws)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if strings.TrimSpace(sender.PostalAddress) == "" {
		return approvals.Approval{}, false, vibesell.Errorf(vibesell.ECONFLICT, "The workspace has no postal address, which every email VibeSell sends carries: give it one first.")
	}
	refs, err := a.threadIDs(ctx, ws, r)
	if err != nil {
		return approvals.Approval{}, false, err
	}
	d := answerDetails{
		ReplyMailbox: r.Key.Mailbox, ReplyMessageID: r.Key.MessageID, ReplyReceivedAt: r.ReceivedAt, Campaign: r.Campaign, Lead: r.Lead,
		From: strings.ToLower(acct.Address.Email), FromName: acct.Address.Name, To: strings.ToLower(r.From), Subject: answerSubject(r.Subject),
		Text: text, InReplyTo: r.Key.MessageID, References: refs,
	}
	if d.FromName == "" {
		d.FromName = sender.Name
	}
	if strings.EqualFold(r.From, r.LeadEmail) && r.LeadName != "" {
		d.ToName, _, _ = strings.Cut(r.LeadName, ", ")
	}
	loc := sender.Location()
	who := addressLine(d.ToName, d.To)
	zero := vibesell.NewMoney(0, "USD")
	ap, created, err := a.approvals.Open(ctx, approvals.Request{
		WorkspaceID: ws,
		Action:      vibesell.ToolAnswerReply,
		Arguments:   answerArguments{Mailbox: r.Key.Mailbox, Reply: r.Key.MessageID},
		Details:     d,
		Summary:     fmt.Sprintf("Answer %s's reply %q", who, clipText(r.Subject, 120)),
		Impact: approvals.Impact{
			What: fmt.Sprintf("Sends this answer to %s from %s, in the thread of their reply of %s, signed like every email VibeSell sends.",
				who, addressLine(d.FromName, d.From), r.ReceivedAt.In(loc).Format("Mon 2 Jan 2006, 15:04 MST")),
			Items: []string{
				"From: " + addressLine(d.FromName, d.From),
				"To: " + who,
				"Subject: " + d.Subject,
				fmt.Sprintf("In reply to: their reply of %s, in the thread of %s", r.ReceivedAt.In(loc).Format("Mon 2 Jan 2006, 15:04 MST"), vibesell.Plural(len(refs), "email", "emails")),
				signedBy(acct),
				// Last, so that a list of approvals, which carries the
				// first items of each, stays within a result's bounds.
				"Text:\n" + text,
			},
			Who:         fmt.Sprintf("Only %s, who wrote the reply. Below the text, the email carries the unsubscribe link and the postal address, as every email does.", who),
			When:        "As soon as it is approved.",
			CostOnce:    zero,
			CostMonthly: zero,
			Renewal:     "Nothing renews.",
			Undo:        "A sent email cannot be recalled. The lead's sequence stays stopped: nothing else goes to them from the campaign.",
		},
		DecideHere:   true,
		RequestedBy:  req.RequestedBy,
		RequestedVia: req.RequestedVia,
	})
	if err != nil {
		return approvals.Approval{}, false, err
	}
	if _, err := a.db.Exec(ctx, `INSERT INTO mail_answers (workspace_id, approval_id, reply_mailbox, reply_message_id, reply_received_at,
			campaign_id, lead_id, mailbox, recipient, subject, body, in_reply_to, "references", created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (workspace_id, approval_id) DO NOTHING`,
		ws, ap.ID, d.ReplyMailbox, d.ReplyMessageID, d.ReplyReceivedAt, d.Campaign, d.Lead, d.From, d.To, d.Subject, d.Text,
		d.InReplyTo, d.References, a.clock.Now()); err != nil {
		return approvals.Approval{}, false, fmt.Errorf("keep the answer of approval %s: %w", ap.ID, err)
	}
	return ap, created, nil
}

// answerable refuses a reply no person can be answered for.
func answerable(r ThreadReply) error {
	switch r.Classification {
	case Bounce:
		return vibesell.Errorf(vibesell.ECONFLICT, "This reply is a bounce from a mail server: the address does not take email, so there is no one to answer.")
	case Complaint:
		return vibesell.Errorf(vibesell.ECONFLICT, "%s marked the email as spam; their address is suppressed and VibeSell writes to them no more.", r.From)
	case Unsubscribe:
		return vibesell.Errorf(vibesell.ECONFLICT, "%s asked to be unsubscribed; their address is suppressed and VibeSell writes to them no more.", r.From)
	case OutOfOffice, AutoReply:
		return vibesell.Errorf(vibesell.EINVALID, "This reply was written by a machine (an automatic answer), not by %s: there is no one to answer until they write themselves.", r.From)
	}
	if r.Campaign == "" {
		return vibesell.Errorf(vibesell.EINVALID, "This reply matched no email VibeSell sent, so there is no thread and no lead to answer it for.")
	}
	return nil
}

// mayWrite refuses an answer to someone VibeSell must not write to: who
// asked to be removed or complained, an address that bounced, one on the
// suppression list.
func (a *Answers) mayWrite(ctx context.Context, ws uuid.UUID, r ThreadReply) error {
	var unsubscribed, complained, bounced bool
	err := a.db.QueryRow(ctx, `SELECT coalesce(bool_or(classification = 'unsubscribe'), false), coalesce(bool_or(classification = 'complaint'), false),
			coalesce(bool_or(bounce = 'hard'), false)
		FROM mail_replies WHERE workspace_id = $1 AND lead_id = $2`, ws, r.Lead).Scan(&unsubscribed, &complained, &bounced)
	if err != nil {
		return fmt.Errorf("read the lead's replies: %w", err)
	}
	switch {
	case unsubscribed:
		return vibesell.Errorf(vibesell.ECONFLICT, "%s has asked to be unsubscribed since: VibeSell writes to them no more, answers included.", r.From)
	case complained:
		return vibesell.Errorf(vibesell.ECONFLICT, "%s has marked an email as spam since: VibeSell writes to them no more, answers included.", r.From)
	case bounced:
		return vibesell.Errorf(vibesell.ECONFLICT, "An email to %s bounced for good, so the address is suppressed: an answer would not reach anyone.", r.LeadEmail)
	}
	suppressed, err := a.suppressor.Suppressed(ctx, ws, r.From)
	if err != nil {
		return fmt.Errorf("read the suppression list: %w", err)
	}
	if suppressed {
		return vibesell.Errorf(vibesell.ECONFLICT, "%s is on the workspace's suppression list, so VibeSell writes to them no more, answers included. Take the address off the list first if they asked to hear from you.", r.From)
	}
	return nil
}

// sendingAccount is the workspace's mailbox address as it sends now.
func sendingAccount(ctx context.Context, sp *SendingParts, ws uuid.UUID, address string) (mail.Account, error) {
	list, err := sp.Sources.Mailboxes(ctx, ws)
	if err != nil {
		return mail.Account{}, fmt.Errorf("read the sending mailboxes: %w", err)
	}
	for _, m := range list {
		if strings.EqualFold(m.Address.Email, address) {
			return m.Account, nil
		}
	}
	return mail.Account{}, vibesell.Errorf(vibesell.ECONFLICT,
		"%s, the mailbox the reply came to, does not send for this workspace any more, so the answer cannot go out in the same thread.", address)
}

// threadIDs are the References of an answer to r: the emails sent to the
// lead in the campaign up to the reply (answers included), oldest first,
// then the reply; the first and the latest when there are many.
func (a *Answers) threadIDs(ctx context.Context, ws uuid.UUID, r ThreadReply) ([]string, error) {
	rows, err := a.db.Query(ctx, `SELECT message_id FROM mail_sends
		WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND status IN ('sent', 'unknown') AND claimed_at <= $4
		ORDER BY claimed_at, step`, ws, r.Campaign, r.Lead, r.ReceivedAt)
	if err != nil {
		return nil, fmt.Errorf("read the thread of reply %s: %w", r.Key.MessageID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read the thread of reply %s: %w", r.Key.MessageID, err)
	}
	ids = append(ids, r.Key.MessageID)
	if len(ids) > maxReferences {
		ids = append(ids[:1:1], ids[len(ids)-maxReferences+1:]...)
	}
	return ids, nil
}

// signedBy says who signs what leaves from acct.
func signedBy(acct mail.Account) string {
	if acct.Own {
		return "Signed: by the mailbox's own provider, like all its email"
	}
	return "Signed: with the DKIM key of " + acct.Address.Email[strings.LastIndexByte(acct.Address.Email, '@')+1:] + ", like every email VibeSell sends"
}

// answerSubject is the subject of an answer: the reply's, as a reply.
func answerSubject(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 3 && strings.EqualFold(s[:3], "re:") {
		return s
	}
	return "Re: " + s
}

func addressLine(name, email string) string {
	if name == "" {
		return email
	}
	return name + " <" + email + ">"
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// AnswerAction carries out an approved answer_reply: register it under
// [vibesell.ToolAnswerReply]. It checks again that the writer may be
// written to, then sends the answer through the send ledger: once, even
// when an attempt is resumed after a crash (the ledger row is the
// answer's; a row claimed is never claimed twice, and one marked sending
// is never sent again).
func AnswerAction(a *Answers) approvals.Executor {
	return approvals.ExecutorFuncs{
		CheckFunc: func(ctx context.Context, ex approvals.Execution) error {
			var d answerDetails
			if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
				return fmt.Errorf("read approved answer: %w", err)
			}
			r, _, err := a.findReply(ctx, ex.Approval.WorkspaceID, ReplyKey{Mailbox: d.ReplyMailbox, MessageID: d.ReplyMessageID})
			if err != nil {
				return err
			}
			return a.mayWrite(ctx, ex.Approval.WorkspaceID, r)
		},
		ExecuteFunc: a.execute,
	}
}

func (a *Answers) execute(ctx context.Context, ex approvals.Execution) (string, error) {
	var d answerDetails
	if err := json.Unmarshal(ex.Approval.Details, &d); err != nil {
		return "", fmt.Errorf("read approved answer: %w", err)
	}
	ws := ex.Approval.WorkspaceID
	sp, err := a.sendingParts()
	if err != nil {
		return "", err
	}
	var id int
	if err := a.db.QueryRow(ctx, `SELECT id FROM mail_answers WHERE workspace_id = $1 AND approval_id = $2`, ws, ex.Approval.ID).Scan(&id); err != nil {
		return "", fmt.Errorf("read the answer of approval %s: %w", ex.Approval.ID, err)
	}
	acct, err := sendingAccount(ctx, sp, ws, d.From)
	if err != nil {
		return "", err
	}
	sender, err := a.senders.Sender(ctx, ws)
	if err != nil {
		return "", err
	}
	acct.Address.Name = d.FromName
	res, sendErr := sp.Dispatcher.Send(ctx, delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: ws, CampaignID: d.Campaign, LeadID: d.Lead, Step: -id},
		Mailbox: acct,
		Message: mail.Message{
			To: mail.Address{Name: d.ToName, Email: d.To}, Subject: d.Subject, Body: d.Text,
			InReplyTo: d.InReplyTo, References: d.References,
			UnsubscribeURL: sp.Secret.UnsubscribeURL(sp.PublicURL, ws, d.To), PostalAddress: sender.PostalAddress,
		},
	})
	to := addressLine(d.ToName, d.To)
	switch {
	case res.Suppressed:
		return "", vibesell.Errorf(vibesell.ECONFLICT, "Not sent: %s is on the workspace's suppression list now.", d.To)
	case res.Duplicate && res.Status == delivery.StatusSent:
		return fmt.Sprintf("Sent the answer to %s from %s in the thread of their reply (Message-ID %s).", to, d.From, res.MessageID), nil
	case res.Duplicate && res.Status == delivery.StatusClaimed:
		// A worker claimed it and stopped before handing it over: once
		// its claim lapses it is released, and a later attempt sends it.
		return "", fmt.Errorf("answer of approval %s: claimed by an attempt that stopped before sending it; tried again once its claim lapses", ex.Approval.ID)
	case res.Duplicate:
		return fmt.Sprintf("Whether the answer to %s left is not known: the attempt sending it stopped while handing it over. It is not sent again, so that they never get it twice.", to), nil
	case res.Status == delivery.StatusSent:
		return fmt.Sprintf("Sent the answer to %s from %s in the thread of their reply (Message-ID %s).", to, d.From, res.MessageID), nil
	case res.Status == delivery.StatusUnknown:
		return fmt.Sprintf("Whether the answer to %s left is not known: the connection broke while the mail server was taking it. It is not sent again, so that they never get it twice.", to), nil
	case sendErr != nil:
		return "", fmt.Errorf("send the answer of approval %s: %w", ex.Approval.ID, sendErr)
	}
	return "", fmt.Errorf("send the answer of approval %s: ended %q", ex.Approval.ID, res.Status)
}
