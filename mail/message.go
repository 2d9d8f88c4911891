package mail

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	gomail "github.com/wneessen/go-mail"
)

// Address is a person's name and email address.
type Address struct {
	Name  string
	Email string
}

// Message is one email of a campaign, as the engine sends it.
type Message struct {
	From    Address
	To      Address
	Subject string
	// Body is the text the salesperson's sequence wrote, plain; the HTML
	// part is made from it, so the two always say the same.
	Body string
	// MessageID is "<random@sending-domain>"; NewMessageID makes one.
	MessageID string
	// InReplyTo and References thread a follow-up under the earlier steps:
	// InReplyTo is the step before, References all earlier steps, oldest
	// first.
	InReplyTo  string
	References []string
	// UnsubscribeURL is the https link of the one-click unsubscribe.
	UnsubscribeURL string
	// PostalAddress is the workspace's postal address, shown in every
	// message as the law asks of commercial email.
	PostalAddress string
	Date          time.Time
}

// DKIMKey signs for one domain with one selector.
type DKIMKey struct {
	Domain   string
	Selector string
	Signer   crypto.Signer
}

// signedHeaders are the header fields the DKIM signature covers: the ones
// a forwarder must not be able to change without breaking it, the
// unsubscribe headers included (RFC 8058 section 4 asks for them).
var signedHeaders = []string{"From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "List-Unsubscribe", "List-Unsubscribe-Post", "MIME-Version", "Content-Type"}

// NewMessageID returns a unique Message-ID on the sender's domain.
func NewMessageID(fromEmail string) string {
	domain := fromEmail[strings.LastIndexByte(fromEmail, '@')+1:]
	b := make([]byte, 16)
	rand.Read(b)
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}

// Compose builds the message with go-mail and signs it with key (a zero
// key: unsigned, for a mailbox whose provider signs). The
// returned Msg renders the same bytes every time it is written, so the
// signature computed here still holds when the client sends it.
func Compose(m Message, key DKIMKey) (*gomail.Msg, error) {
	switch {
	case len(m.MessageID) < 3 || m.MessageID[0] != '<' || m.MessageID[len(m.MessageID)-1] != '>':
		return nil, errors.New("compose: the message needs a Message-ID in angle brackets")
	case !strings.HasPrefix(m.UnsubscribeURL, "https://") && !strings.HasPrefix(m.UnsubscribeURL, "http://"):
		return nil, errors.New("compose: the message needs an unsubscribe link")
	case strings.TrimSpace(m.PostalAddress) == "":
		return nil, errors.New("compose: the message needs the workspace's postal address")
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.FromFormat(m.From.Name, m.From.Email); err != nil {
		return nil, fmt.Errorf("compose: from: %w", err)
	}
	if err := msg.AddToFormat(m.To.Name, m.To.Email); err != nil {
		return nil, fmt.Errorf("compose: to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(strings.TrimSuffix(strings.TrimPrefix(m.MessageID, "<"), ">"))
	if m.InReplyTo != "" {
		msg.SetGenHeaderPreformatted(gomail.HeaderInReplyTo, m.InReplyTo)
		refs := m.References
		if len(refs) == 0 {
			refs = []string{m.InReplyTo}
		}
		msg.SetGenHeaderPreformatted(gomail.HeaderReferences, strings.Join(refs, " "))
	}
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	msg.SetDateWithValue(date)
	msg.SetGenHeaderPreformatted("List-Unsubscribe", "<"+m.UnsubscribeURL+">")
	msg.SetGenHeaderPreformatted("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	text, htmlPart := Parts(m)
	msg.SetBodyString(gomail.TypeTextPlain, text)
	msg.AddAlternativeString(gomail.TypeTextHTML, htmlPart)

	var rendered bytes.Buffer
	if _, err := msg.WriteTo(&rendered); err != nil {
		return nil, fmt.Errorf("compose: render: %w", err)
	}
	if key.Signer == nil {
		return msg, nil // unsigned: a mailbox whose provider signs (Mailbox.Own)
	}
	signature, err := sign(rendered.Bytes(), key)
	if err != nil {
		return nil, err
	}
	msg.SetGenHeaderPreformatted("DKIM-Signature", signature)
	return msg, nil
}

// sign returns the value of the DKIM-Signature header for raw.
func sign(raw []byte, key DKIMKey) (string, error) {
	signer, err := dkim.NewSigner(&dkim.SignOptions{
		Domain:                 key.Domain,
		Selector:               key.Selector,
		Signer:                 key.Signer,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed,
		BodyCanonicalization:   dkim.CanonicalizationRelaxed,
		HeaderKeys:             signedHeaders,
	})
	if err != nil {
		return "", fmt.Errorf("dkim signer: %w", err)
	}
	if _, err := signer.Write(raw); err != nil {
		signer.Close()
		return "", fmt.Errorf("dkim sign: %w", err)
	}
	if err := signer.Close(); err != nil {
		return "", fmt.Errorf("dkim sign: %w", err)
	}
	field := strings.TrimSuffix(signer.Signature(), "\r\n")
	_, value, ok := strings.Cut(field, ":")
	if !ok {
		return "", errors.New("dkim sign: no signature header")
	}
	return strings.TrimLeft(value, " "), nil
}

// Parts returns the two parts of m as Compose puts them in the email: the
// text/plain part and the text/html part, each with the footer. It is
// what check_first_email shows (see [Preview]), so the preview is the
// email.
func Parts(m Message) (text, html string) {
	return plainBody(m), htmlBody(m)
}

// footer is the visible unsubscribe line and the postal address, in words
// a recipient understands.
func footer(m Message) (line, address string) {
	return "Not interested? Unsubscribe with one click: " + m.UnsubscribeURL, strings.TrimSpace(m.PostalAddress)
}

func plainBody(m Message) string {
	line, address := footer(m)
	return strings.TrimRight(m.Body, "\n") + "\n\n--\n" + line + "\n" + address + "\n"
}

func htmlBody(m Message) string {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><body>\n")
	for _, para := range strings.Split(strings.TrimSpace(m.Body), "\n\n") {
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(html.EscapeString(para), "\n", "<br>\n"))
		b.WriteString("</p>\n")
	}
	_, address := footer(m)
	fmt.Fprintf(&b, "<p style=\"color:#666;font-size:12px\">Not interested? <a href=\"%s\">Unsubscribe with one click</a>.<br>\n%s</p>\n",
		html.EscapeString(m.UnsubscribeURL), strings.ReplaceAll(html.EscapeString(address), "\n", "<br>\n"))
	b.WriteString("</body></html>\n")
	return b.String()
}
