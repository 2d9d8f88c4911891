package mail

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // replies come in every charset
)

// Reply is an incoming message, read for what the engine needs.
type Reply struct {
	MessageID  string
	From       string // the sender's address, lower case
	Subject    string
	Date       time.Time
	InReplyTo  string
	References []string
	// Text is what the sender wrote: the first plain text part (or the
	// HTML one, stripped) without the quoted message or a forwarded one.
	Text string
	// AutoSubmitted is true when the headers say a machine wrote it
	// (Auto-Submitted, X-Autoreply, X-Autorespond).
	AutoSubmitted bool
	DSN           *DSN
	// Feedback is the feedback-loop report the message carries, if any.
	Feedback *Feedback
}

// Feedback is a feedback-loop report (ARF, RFC 5965): a mailbox provider
// telling the sender that its user marked an email as spam.
type Feedback struct {
	Type      string // abuse, fraud, virus, other, not-spam (lower case)
	Recipient string // Original-Rcpt-To, else the reported message's To
	// OriginalMessageID is the reported message's Message-ID, from its
	// headers in the report.
	OriginalMessageID string
}

// DSN is a delivery status notification (RFC 3464), for its first
// recipient.
type DSN struct {
	Recipient  string
	Action     string // failed, delayed, delivered, relayed, expanded
	Status     string // e.g. 5.1.1
	Diagnostic string
	// OriginalMessageID is the Message-ID of the message that bounced,
	// from the returned headers.
	OriginalMessageID string
}

// Hard says the address will not work again: a 5.x.x status (RFC 3463).
func (d DSN) Hard() bool { return strings.HasPrefix(d.Status, "5") }

// ParseReply reads a whole RFC 5322 message.
func ParseReply(raw []byte) (Reply, error) {
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return Reply{}, fmt.Errorf("parse reply: %w", err)
	}
	h := mailHeader{e.Header}
	r := Reply{
		MessageID:     h.messageID("Message-Id"),
		Subject:       h.text("Subject"),
		InReplyTo:     h.messageID("In-Reply-To"),
		References:    MessageIDs(e.Header.Get("References")),
		AutoSubmitted: autoSubmitted(e.Header),
	}
	if from, err := mail.ParseAddress(h.text("From")); err == nil {
		r.From = strings.ToLower(from.Address)
	}
	if d, err := mail.ParseDate(e.Header.Get("Date")); err == nil {
		r.Date = d
	}

	var plain, htmlText string
	walkErr := e.Walk(func(path []int, part *message.Entity, err error) error {
		if err != nil {
			return nil // a part we cannot read is skipped, not fatal
		}
		ct, params, _ := part.Header.ContentType()
		switch ct {
		case "multipart/report":
			if params["report-type"] == "delivery-status" && r.DSN == nil {
				r.DSN = &DSN{}
			}
			if params["report-type"] == "feedback-report" && r.Feedback == nil {
				r.Feedback = &Feedback{}
			}
		case "message/feedback-report":
			if r.Feedback == nil {
				r.Feedback = &Feedback{}
			}
			body, _ := io.ReadAll(part.Body)
			readFeedbackReport(body, r.Feedback)
		case "message/delivery-status", "message/global-delivery-status":
			if r.DSN == nil {
				r.DSN = &DSN{}
			}
			body, _ := io.ReadAll(part.Body)
			readDeliveryStatus(body, r.DSN)
		case "text/rfc822-headers", "message/rfc822", "message/global-headers":
			if r.DSN != nil && r.DSN.OriginalMessageID == "" {
				if returned, err := message.Read(part.Body); err == nil || message.IsUnknownCharset(err) {
					r.DSN.OriginalMessageID = mailHeader{returned.Header}.messageID("Message-Id")
				}
			}
			if f := r.Feedback; f != nil && f.OriginalMessageID == "" {
				if reported, err := message.Read(part.Body); err == nil || message.IsUnknownCharset(err) {
					h := mailHeader{reported.Header}
					f.OriginalMessageID = h.messageID("Message-Id")
					if to, err := mail.ParseAddress(h.text("To")); err == nil && f.Recipient == "" {
						f.Recipient = strings.ToLower(to.Address)
					}
				}
			}
		case "text/plain":
			if plain == "" && !isAttachment(part) {
				body, _ := io.ReadAll(part.Body)
				plain = string(body)
			}
		case "text/html":
			if htmlText == "" && !isAttachment(part) {
				body, _ := io.ReadAll(part.Body)
				htmlText = stripHTML(string(body))
			}
		}
		return nil
	})
	if walkErr != nil && !errors.Is(walkErr, io.EOF) {
		return Reply{}, fmt.Errorf("parse reply: %w", walkErr)
	}
	if plain == "" {
		plain = htmlText
	}
	r.Text = newText(plain)
	return r, nil
}

type mailHeader struct{ message.Header }

func (h mailHeader) text(key string) string {
	v, err := h.Text(key)
	if err != nil {
		return h.Get(key)
	}
	return v
}

func (h mailHeader) messageID(key string) string {
	ids := MessageIDs(h.Get(key))
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

var messageIDPattern = regexp.MustCompile(`<[^<>\s]+>`)

// MessageIDs are the Message-IDs a header value names, in order.
func MessageIDs(v string) []string { return messageIDPattern.FindAllString(v, -1) }

func autoSubmitted(h message.Header) bool {
	if v := strings.ToLower(h.Get("Auto-Submitted")); v != "" && v != "no" {
		return true
	}
	return h.Get("X-Autoreply") != "" || h.Get("X-Autorespond") != ""
}

func isAttachment(part *message.Entity) bool {
	disp, _, _ := part.Header.ContentDisposition()
	return disp == "attachment"
}

var (
	tagPattern   = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]+>`)
	blockPattern = regexp.MustCompile(`(?i)<(br|/p|/div|/tr|/li)[^>]*>`)
)

func stripHTML(s string) string {
	s = blockPattern.ReplaceAllString(s, "\n")
	return html.UnescapeString(tagPattern.ReplaceAllString(s, ""))
}

// quoteStart finds where the sender's own words end: the quoted message
// or a forwarded one below them, as mail programs introduce it in
// English, German, French and Spanish ("On … wrote:", "Am … schrieb …:",
// "Le … a écrit :", "El … escribió:", on one line or wrapped onto a
// second, and Outlook's header block).
var quoteStart = regexp.MustCompile(`(?im)^(on .{1,200}(\n.{1,200})? wrote:\s*$|am .{1,200}(\n.{1,200})? schrieb .{0,200}(\n.{0,200})?:\s*$|le .{1,200}(\n.{1,200})? a écrit\s*:\s*$|el .{1,200}(\n.{1,200})? escribió:\s*$|-{2,} ?(original message|ursprüngliche nachricht|message d'origine|mensaje original) ?-{2,}|-{2,} ?(forwarded message|weitergeleitete nachricht|message transféré|mensaje reenviado) ?-{2,}|begin forwarded message:|(from|von|de) ?: .+\n(sent|date|gesendet|datum|envoyé|enviado|fecha) ?: )`)

func newText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if loc := quoteStart.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), ">") {
			continue
		}
		lines = append(lines, strings.TrimRight(line, " \t"))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// readFeedbackReport reads the report's fields (RFC 5965 section 3.1):
// its type and the address the reported message was sent to.
func readFeedbackReport(body []byte, f *Feedback) {
	readFields(body, func(name, value string) {
		switch name {
		case "feedback-type":
			if f.Type == "" {
				f.Type = strings.ToLower(value)
			}
		case "original-rcpt-to":
			if f.Recipient == "" {
				if addr, err := mail.ParseAddress(value); err == nil {
					f.Recipient = strings.ToLower(addr.Address)
				} else {
					f.Recipient = strings.ToLower(strings.Trim(value, "<>"))
				}
			}
		}
	})
}

// readDeliveryStatus reads the per-recipient fields of the first
// recipient (RFC 3464 section 2.3).
func readDeliveryStatus(body []byte, d *DSN) {
	readFields(body, func(name, value string) {
		switch name {
		case "final-recipient", "original-recipient":
			if d.Recipient == "" || name == "final-recipient" {
				if _, addr, ok := strings.Cut(value, ";"); ok {
					d.Recipient = strings.ToLower(strings.TrimSpace(addr))
				}
			}
		case "action":
			if d.Action == "" {
				d.Action = strings.ToLower(value)
			}
		case "status":
			if d.Status == "" {
				d.Status = strings.Fields(value + " ")[0]
			}
		case "diagnostic-code":
			if d.Diagnostic == "" {
				d.Diagnostic = value
			}
		}
	})
}

// readFields calls set with each "Name: value" field of a report's body
// (the name in lower case, folded lines joined).
func readFields(body []byte, set func(name, value string)) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	var name, value string
	for sc.Scan() {
		line := sc.Text()
		if (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && name != "" {
			value += " " + strings.TrimSpace(line)
			continue
		}
		if name != "" {
			set(name, strings.TrimSpace(value))
			name = ""
		}
		if n, v, ok := strings.Cut(line, ":"); ok {
			name, value = strings.ToLower(strings.TrimSpace(n)), v
		}
	}
	if name != "" {
		set(name, strings.TrimSpace(value))
	}
}
