package mail

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"vibesell"
)

// Notices sends VibeSell's own emails to a workspace's people (an approval
// waiting for their decision), through SMTP submission from one address of
// the product's. They are not a campaign's: no sending domain's DKIM, no
// unsubscribe link, plain text. In the sandbox they go to the sandbox
// mail server like every other message, which keeps them for the outbox.
type Notices struct {
	endpoint Endpoint
	from     Address
	clock    vibesell.Clock
}

// NewNotices returns a Notices that submits to e as from.
func NewNotices(e Endpoint, from Address, clock vibesell.Clock) *Notices {
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Notices{endpoint: e, from: from, clock: clock}
}

// noticeTimeout bounds one submission of notices.
const noticeTimeout = 30 * time.Second

// Send sends one message to each address, in one SMTP session.
func (n *Notices) Send(ctx context.Context, to []string, subject, body string) error {
	if len(to) == 0 {
		return nil
	}
	if strings.ContainsAny(subject, "\r\n") {
		return errors.New("notice: the subject is one line")
	}
	msgs := make([]*gomail.Msg, 0, len(to))
	for _, addr := range to {
		// 8bit, not quoted-printable: the link reads whole in the raw
		// message (the sandbox's outbox shows it as received).
		msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithEncoding(gomail.NoEncoding))
		if err := msg.FromFormat(n.from.Name, n.from.Email); err != nil {
			return fmt.Errorf("notice from %s: %w", n.from.Email, err)
		}
		if err := msg.To(addr); err != nil {
			return fmt.Errorf("notice to %s: %w", addr, err)
		}
		msg.Subject(subject)
		msg.SetDateWithValue(n.clock.Now())
		msg.SetMessageIDWithValue(strings.Trim(NewMessageID(n.from.Email), "<>"))
		msg.SetBodyString(gomail.TypeTextPlain, body)
		msgs = append(msgs, msg)
	}
	client, err := submissionClient(n.endpoint, noticeTimeout)
	if err != nil {
		return err
	}
	if err := client.DialAndSendWithContext(ctx, msgs...); err != nil {
		return fmt.Errorf("send notices through %s: %w", n.endpoint.Addr, err)
	}
	return nil
}
