package mailboxes

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/mail"
	"vibesell/outbound"
)

// ConnectRequest is an existing mailbox a person connects.
type ConnectRequest struct {
	Address    string
	SenderName string
	SMTP       mail.ServerSettings // where it sends: SMTP submission
	IMAP       mail.ServerSettings // where it reads replies
}

// ConnectedMailbox is a connected mailbox as it is shown: no password.
type ConnectedMailbox struct {
	Address      string
	SenderName   string
	SMTPHost     string
	SMTPPort     int
	SMTPSecurity string
	SMTPUsername string
	IMAPHost     string
	IMAPPort     int
	IMAPSecurity string
	IMAPUsername string
	CheckedAt    time.Time
	ConnectedAt  time.Time
}

// Connections keeps the mailboxes a workspace connected: each checked
// against its servers before it is saved, its passwords sealed with the
// configured secret.
type Connections struct {
	db      *pgxpool.Pool
	secret  mail.Secret
	clock   vibesell.Clock
	roots   *x509.CertPool
	timeout time.Duration
	// guard is the only way to a connected mailbox's servers: the check
	// before saving, the engine's sends and the reply watchers all dial
	// through it, with the workspace as its key.
	guard *outbound.Guard
}

// ConnectionsDeps is what the connected mailboxes need.
type ConnectionsDeps struct {
	DB *pgxpool.Pool
	// Secret seals the mailboxes' passwords at rest.
	Secret mail.Secret
	// Clock is nil for the system's.
	Clock vibesell.Clock
	// Roots verifies the servers' certificates; nil means the system's.
	Roots *x509.CertPool
	// Guard is the outbound guard the mailboxes' servers are reached
	// through; nil means the default one (mail ports, public addresses,
	// the default limit). The server gives its configured one; tests one
	// that lets the in-process mail server's own address through.
	Guard *outbound.Guard
}

// NewConnections returns the connected mailboxes of every workspace.
func NewConnections(d ConnectionsDeps) *Connections {
	clock := d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	guard := d.Guard
	if guard == nil {
		guard = outbound.New(outbound.Deps{Clock: clock})
	}
	return &Connections{db: d.DB, secret: d.Secret, clock: clock, roots: d.Roots, timeout: 10 * time.Second, guard: guard}
}

type sealedPasswords struct {
	SMTP string `json:"smtp"`
	IMAP string `json:"imap"`
}

func connectionAAD(ws uuid.UUID, address string) []byte {
	return append(append(ws[:], "connected mailbox "...), address...)
}

// Connect checks the mailbox's settings by signing in to both servers
// (SMTP AUTH after STARTTLS or over TLS, IMAP LOGIN likewise), and saves it
// only if both work; connecting an address again replaces its settings.
// Refusals: EINVALID naming what is missing or malformed, or which server
// refused and what it said (never a password).
func (c *Connections) Connect(ctx context.Context, ws uuid.UUID, r ConnectRequest) (ConnectedMailbox, error) {
	r, err := r.normalised()
	if err != nil {
		return ConnectedMailbox{}, err
	}
	if err := c.Check(ctx, ws, r); err != nil {
		return ConnectedMailbox{}, err
	}
	plain, _ := json.Marshal(sealedPasswords{SMTP: r.SMTP.Password, IMAP: r.IMAP.Password})
	sealed, err := c.secret.SealCredentials(plain, connectionAAD(ws, r.Address))
	if err != nil {
		return ConnectedMailbox{}, fmt.Errorf("seal the passwords of %s: %w", r.Address, err)
	}
	now := c.clock.Now()
	rows, err := c.db.Query(ctx, `
		INSERT INTO mail_connected_mailboxes (workspace_id, address, sender_name, smtp_host, smtp_port, smtp_security, smtp_username,
		                                      imap_host, imap_port, imap_security, imap_username, passwords, checked_at, connected_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
		ON CONFLICT (workspace_id, address) DO UPDATE SET sender_name = EXCLUDED.sender_name,
		       smtp_host = EXCLUDED.smtp_host, smtp_port = EXCLUDED.smtp_port, smtp_security = EXCLUDED.smtp_security, smtp_username = EXCLUDED.smtp_username,
		       imap_host = EXCLUDED.imap_host, imap_port = EXCLUDED.imap_port, imap_security = EXCLUDED.imap_security, imap_username = EXCLUDED.imap_username,
		       passwords = EXCLUDED.passwords, checked_at = EXCLUDED.checked_at
		RETURNING `+connectedColumns,
		ws, r.Address, r.SenderName, r.SMTP.Host, r.SMTP.Port, r.SMTP.Security, r.SMTP.Username,
		r.IMAP.Host, r.IMAP.Port, r.IMAP.Security, r.IMAP.Username, sealed, now)
	if err != nil {
		return ConnectedMailbox{}, fmt.Errorf("save connected mailbox %s: %w", r.Address, err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanConnected)
	if err != nil {
		return ConnectedMailbox{}, fmt.Errorf("save connected mailbox %s: %w", r.Address, err)
	}
	return m, nil
}

const connectedColumns = `address, sender_name, smtp_host, smtp_port, smtp_security, smtp_username,
	imap_host, imap_port, imap_security, imap_username, checked_at, connected_at`

func scanConnected(r pgx.CollectableRow) (ConnectedMailbox, error) {
	var m ConnectedMailbox
	err := r.Scan(&m.Address, &m.SenderName, &m.SMTPHost, &m.SMTPPort, &m.SMTPSecurity, &m.SMTPUsername,
		&m.IMAPHost, &m.IMAPPort, &m.IMAPSecurity, &m.IMAPUsername, &m.CheckedAt, &m.ConnectedAt)
	return m, err
}

// normalised trims the request and refuses what cannot be a connection,
// naming every field that is wrong at once.
func (r ConnectRequest) normalised() (ConnectRequest, error) {
	var problems []string
	r.Address = strings.ToLower(strings.TrimSpace(r.Address))
	if a, err := netmail.ParseAddress(r.Address); err != nil || a.Address != r.Address || !strings.Contains(r.Address, "@") {
		problems = append(problems, "the email address is not one (write it as name@example.com)")
	}
	r.SenderName = strings.TrimSpace(r.SenderName)
	for _, s := range []struct {
		name string
		s    *mail.ServerSettings
	}{{"sending (SMTP)", &r.SMTP}, {"reading (IMAP)", &r.IMAP}} {
		s.s.Host = strings.ToLower(strings.TrimSpace(s.s.Host))
		s.s.Username = strings.TrimSpace(s.s.Username)
		switch {
		case s.s.Host == "" || strings.ContainsAny(s.s.Host, " /:@"):
			problems = append(problems, fmt.Sprintf("the %s server is missing or not a host name (like mail.example.com)", s.name))
		case s.s.Port < 1 || s.s.Port > 65535:
			problems = append(problems, fmt.Sprintf("the %s port is not a port number (1 to 65535)", s.name))
		case s.s.Security != mail.SecuritySTARTTLS && s.s.Security != mail.SecurityTLS:
			problems = append(problems, fmt.Sprintf("the %s security must be STARTTLS or TLS", s.name))
		case s.s.Username == "":
			problems = append(problems, fmt.Sprintf("the %s username is missing", s.name))
		case s.s.Password == "":
			problems = append(problems, fmt.Sprintf("the %s password is missing", s.name))
		}
	}
	if len(problems) > 0 {
		return r, vibesell.Errorf(vibesell.EINVALID, "The mailbox was not connected: %s.", vibesell.JoinAnd(problems))
	}
	return r, nil
}

// Check signs in to the mailbox's SMTP and IMAP servers with its settings
// and signs out again, connecting through the outbound guard as workspace
// ws. Refusals: EINVALID saying which server did not accept them and why
// in our words (never the server's own words, nor this server's address),
// or what the guard refused; ERATELIMITED when the workspace connected
// too often.
func (c *Connections) Check(ctx context.Context, ws uuid.UUID, r ConnectRequest) error {
	mb := c.mailboxOf(ws, r)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	client, err := mail.Submission(mb.SMTP, true, c.timeout)
	if err == nil {
		if err = client.DialWithContext(ctx); err == nil {
			client.Close()
		}
	}
	if err != nil {
		return checkRefusal("sending", mb.SMTP, err)
	}
	_, release, err := mail.DialIMAP(ctx, mb, nil)
	if err != nil {
		return checkRefusal("reading", mb.IMAP, err)
	}
	release()
	return nil
}

// checkRefusal is what a person reads when a check failed: the guard's
// refusal as it is, anything else as one of a few sentences of ours. What
// the remote end said is never repeated (a person could otherwise read
// any service's greeting through the check), nor the addresses of this
// server's side of the connection.
func checkRefusal(which string, e mail.Endpoint, err error) error {
	if r := outbound.Refused(err); r != nil {
		return vibesell.Errorf(r.Code, "VibeSell did not connect to the %s server %s: %s. Use the server name and port your mail provider gives; nothing was saved.",
			which, e.Addr, r.Reason)
	}
	return vibesell.Errorf(vibesell.EINVALID, "VibeSell could not sign in to the %s server %s as %s: %s. Check the server, port, security, username and password; nothing was saved.",
		which, e.Addr, e.Username, whatFailed(err))
}

// whatFailed says in our words where a connection check failed.
func whatFailed(err error) string {
	var (
		netErr    net.Error
		dnsErr    *net.DNSError
		textErr   *textproto.Error
		certErr   *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		alertErr  tls.AlertError
	)
	switch {
	case errors.As(err, &dnsErr):
		return "no server by that name was found"
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "the server did not answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing accepted the connection on that port"
	case errors.Is(err, mail.ErrLoginRefused), errors.As(err, &textErr) && textErr.Code == 535:
		return "the server did not accept the username and password"
	case errors.As(err, &certErr):
		return "the server's certificate could not be verified for that name"
	case errors.As(err, &recordErr), errors.As(err, &alertErr):
		return "a secure connection could not be made (check the security: STARTTLS or TLS)"
	default:
		return "the server did not complete the sign-in (check the port and the security: STARTTLS or TLS)"
	}
}

// mailboxOf is the mailbox of workspace ws with r's settings, its servers
// reached through the guard as ws.
func (c *Connections) mailboxOf(ws uuid.UUID, r ConnectRequest) mail.Account {
	dial := c.guard.For(ws.String())
	endpoint := func(s mail.ServerSettings) mail.Endpoint {
		return mail.Endpoint{Addr: s.Addr(), Username: s.Username, Password: s.Password, RootCAs: c.roots, ImplicitTLS: s.Security == mail.SecurityTLS, Dial: dial}
	}
	return mail.Account{Address: mail.Address{Name: r.SenderName, Email: r.Address}, SMTP: endpoint(r.SMTP), IMAP: endpoint(r.IMAP), Own: true}
}

// List returns the workspace's connected mailboxes, without their
// passwords, by address.
func (c *Connections) List(ctx context.Context, ws uuid.UUID) ([]ConnectedMailbox, error) {
	rows, err := c.db.Query(ctx, `SELECT `+connectedColumns+` FROM mail_connected_mailboxes WHERE workspace_id = $1 ORDER BY address`, ws)
	if err != nil {
		return nil, fmt.Errorf("list connected mailboxes: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanConnected)
	if err != nil {
		return nil, fmt.Errorf("list connected mailboxes: %w", err)
	}
	return list, nil
}

// Mailboxes returns the workspace's connected mailboxes with their
// endpoints and opened passwords, for the engine to send from and read
// replies of. What it returns must never be logged or shown.
func (c *Connections) Mailboxes(ctx context.Context, ws uuid.UUID) ([]mail.Account, error) {
	rows, err := c.db.Query(ctx, `SELECT `+connectedColumns+`, passwords FROM mail_connected_mailboxes WHERE workspace_id = $1 ORDER BY address`, ws)
	if err != nil {
		return nil, fmt.Errorf("read connected mailboxes: %w", err)
	}
	type row struct {
		ConnectedMailbox
		sealed []byte
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		m := &x.ConnectedMailbox
		err := r.Scan(&m.Address, &m.SenderName, &m.SMTPHost, &m.SMTPPort, &m.SMTPSecurity, &m.SMTPUsername,
			&m.IMAPHost, &m.IMAPPort, &m.IMAPSecurity, &m.IMAPUsername, &m.CheckedAt, &m.ConnectedAt, &x.sealed)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("read connected mailboxes: %w", err)
	}
	out := make([]mail.Account, 0, len(list))
	for _, x := range list {
		plain, err := c.secret.OpenCredentials(x.sealed, connectionAAD(ws, x.Address))
		if err != nil {
			return nil, fmt.Errorf("the passwords of connected mailbox %s: %w", x.Address, err)
		}
		var p sealedPasswords
		if err := json.Unmarshal(plain, &p); err != nil {
			return nil, fmt.Errorf("the passwords of connected mailbox %s: %w", x.Address, err)
		}
		out = append(out, c.mailboxOf(ws, ConnectRequest{Address: x.Address, SenderName: x.SenderName,
			SMTP: mail.ServerSettings{Host: x.SMTPHost, Port: x.SMTPPort, Security: x.SMTPSecurity, Username: x.SMTPUsername, Password: p.SMTP},
			IMAP: mail.ServerSettings{Host: x.IMAPHost, Port: x.IMAPPort, Security: x.IMAPSecurity, Username: x.IMAPUsername, Password: p.IMAP}}))
	}
	return out, nil
}

// Disconnect forgets a connected mailbox and its passwords. Refusals:
// ENOTFOUND for an address not connected in the workspace.
func (c *Connections) Disconnect(ctx context.Context, ws uuid.UUID, address string) error {
	tag, err := c.db.Exec(ctx, `DELETE FROM mail_connected_mailboxes WHERE workspace_id = $1 AND address = lower($2)`, ws, strings.TrimSpace(address))
	if err != nil {
		return fmt.Errorf("disconnect %s: %w", address, err)
	}
	if tag.RowsAffected() == 0 {
		return vibesell.Errorf(vibesell.ENOTFOUND, "%s is not a connected mailbox of this workspace.", address)
	}
	return nil
}

// Source is the connected mailboxes as a source of the engine's: they send
// and are read like the mailboxes ordered through the sending setup.
func (c *Connections) Source() Source { return connectedSource{c} }

type connectedSource struct{ c *Connections }

func (s connectedSource) Mailboxes(ctx context.Context, ws uuid.UUID) ([]WorkspaceMailbox, error) {
	workspaces := []uuid.UUID{ws}
	if ws == uuid.Nil {
		rows, err := s.c.db.Query(ctx, `SELECT DISTINCT workspace_id FROM mail_connected_mailboxes`)
		if err != nil {
			return nil, fmt.Errorf("find workspaces with connected mailboxes: %w", err)
		}
		if workspaces, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
			return nil, fmt.Errorf("find workspaces with connected mailboxes: %w", err)
		}
	}
	var out []WorkspaceMailbox
	for _, w := range workspaces {
		list, err := s.c.Mailboxes(ctx, w)
		if err != nil {
			return nil, err
		}
		for _, m := range list {
			out = append(out, WorkspaceMailbox{WorkspaceID: w, Account: m})
		}
	}
	return out, nil
}

// CampaignMailboxes offers the connected mailboxes to campaigns: a
// person's own mailbox is in use already, so it is warm, and sends at most
// perDay emails a day for campaigns.
func (c *Connections) CampaignMailboxes(perDay int) campaigns.Mailboxes {
	return connectedForCampaigns{c, perDay}
}

type connectedForCampaigns struct {
	c      *Connections
	perDay int
}

func (cc connectedForCampaigns) Mailboxes(ctx context.Context, ws uuid.UUID) ([]campaigns.Mailbox, error) {
	list, err := cc.c.List(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make([]campaigns.Mailbox, 0, len(list))
	for _, m := range list {
		out = append(out, campaigns.Mailbox{Address: m.Address, SenderName: m.SenderName, State: "warm", DailyLimit: cc.perDay, FullVolume: cc.perDay})
	}
	return out, nil
}
