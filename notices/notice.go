package notices

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	gomail "github.com/wneessen/go-mail"

	"vibesell"
	"vibesell/mail"
)

// Notices sends VibeSell's own emails to a workspace's people (an approval
// waiting for their decision), through SMTP submission from one address of
// the product's. They are not a campaign's: no sending domain's DKIM, no
// unsubscribe link, plain text. In the sandbox they go to the sandbox
// mail server like every other message, which keeps them for the outbox.
type Notices struct {
	db       *pgxpool.Pool
	endpoint mail.Endpoint
	from     mail.Address
	clock    vibesell.Clock
}

// Deps is what the notices need.
type Deps struct {
	// DB records whose each message is.
	DB *pgxpool.Pool
	// Endpoint is the mail server the notices are submitted to, as From.
	Endpoint mail.Endpoint
	From     mail.Address
	// Clock dates the messages; nil means the system's.
	Clock vibesell.Clock
}

// New returns a Notices that submits to d.Endpoint as d.From, and records
// on d.DB whose each message is.
func New(d Deps) *Notices {
	clock := d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Notices{db: d.DB, endpoint: d.Endpoint, from: d.From, clock: clock}
}

// noticeTimeout bounds one submission of notices.
const noticeTimeout = 30 * time.Second

// Send sends one message to each address of workspace ws's people, in one
// SMTP session. Each message's Message-ID is recorded as the workspace's
// before it is handed over, so the sandbox's outbox shows it to that
// workspace.
func (n *Notices) Send(ctx context.Context, ws uuid.UUID, to []string, subject, body string) error {
	if len(to) == 0 {
		return nil
	}
	if strings.ContainsAny(subject, "\r\n") {
		return errors.New("notice: the subject is one line")
	}
	msgs := make([]*gomail.Msg, 0, len(to))
	ids := make([]string, 0, len(to))
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
		id := mail.NewMessageID(n.from.Email)
		ids = append(ids, id)
		msg.SetMessageIDWithValue(strings.Trim(id, "<>"))
		msg.SetBodyString(gomail.TypeTextPlain, body)
		msgs = append(msgs, msg)
	}
	if _, err := n.db.Exec(ctx, `INSERT INTO mail_notices (message_id, workspace_id, sent_at) SELECT unnest($1::text[]), $2, $3`,
		ids, ws, n.clock.Now()); err != nil {
		return fmt.Errorf("record the notices of workspace %s: %w", ws, err)
	}
	client, err := mail.Submission(n.endpoint, false, noticeTimeout)
	if err != nil {
		return err
	}
	if err := client.DialAndSendWithContext(ctx, msgs...); err != nil {
		return fmt.Errorf("send notices through %s: %w", n.endpoint.Addr, err)
	}
	return nil
}
