package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	gomail "github.com/wneessen/go-mail"

	"vibesell/outbound"
)

// Endpoint is where a mailbox submits or reads mail, and how it logs in.
// The password is a credential: never logged, never in a tool result.
type Endpoint struct {
	Addr     string // host:port
	Username string
	Password string
	// RootCAs verifies the server's certificate; nil means the system's.
	RootCAs *x509.CertPool
	// ImplicitTLS says the server speaks TLS from the first byte; false:
	// plain, then STARTTLS (required). Ports 465 (SMTP) and 993 (IMAP)
	// are implicit TLS in any case.
	ImplicitTLS bool
	// Dial connects to Addr. A mailbox a person connected (Own) always
	// has one, the outbound guard's for its workspace: its servers are
	// an address someone typed. nil, for the sandbox's own servers only:
	// a plain connection.
	Dial outbound.DialFunc
}

// Same says two endpoints reach the same server the same way (their
// dials are the same guard's for one workspace).
func (e Endpoint) Same(o Endpoint) bool {
	return e.Addr == o.Addr && e.Username == o.Username && e.Password == o.Password && e.RootCAs == o.RootCAs && e.ImplicitTLS == o.ImplicitTLS
}

// Connect connects to the endpoint through its Dial. A mailbox a person
// connected is never reached any other way.
func (e Endpoint) Connect(ctx context.Context, own bool) (net.Conn, error) {
	if e.Dial != nil {
		return e.Dial(ctx, "tcp", e.Addr)
	}
	if own {
		return nil, fmt.Errorf("connect to %s: a connected mailbox has no guarded dial", e.Addr)
	}
	d := net.Dialer{Timeout: 30 * time.Second}
	return d.DialContext(ctx, "tcp", e.Addr)
}

// Account is a mailbox as the wire reaches it: one sending address with
// its SMTP submission and IMAP
// endpoints.
type Account struct {
	Address Address
	SMTP    Endpoint
	IMAP    Endpoint
	// Own says it is a mailbox a person connected: their provider signs
	// what it sends, and VibeSell does not, since its key is in no DNS of
	// that domain (a signature that fails is worse than none).
	Own bool
}

// The security of a connection to a mail server.
const (
	SecuritySTARTTLS = "starttls" // plain, then STARTTLS (required)
	SecurityTLS      = "tls"      // TLS from the first byte
)

// ServerSettings are how to reach one mail server of a connected mailbox.
// Password is a credential: never logged, never in a tool result.
type ServerSettings struct {
	Host     string
	Port     int
	Security string // SecuritySTARTTLS or SecurityTLS
	Username string
	Password string
}

// Settings are the endpoint's settings, as a person would type them to
// connect it.
func (e Endpoint) Settings() ServerSettings {
	host, port, _ := net.SplitHostPort(e.Addr)
	n, _ := strconv.Atoi(port)
	security := SecuritySTARTTLS
	if e.ImplicitTLS || n == 465 || n == 993 {
		security = SecurityTLS
	}
	return ServerSettings{Host: host, Port: n, Security: security, Username: e.Username, Password: e.Password}
}

// Addr is host:port.
func (s ServerSettings) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Submission speaks SMTP submission to the endpoint, connecting
// through its dial: STARTTLS required (or implicit TLS on port 465), then
// AUTH PLAIN.
func Submission(e Endpoint, own bool, timeout time.Duration) (*gomail.Client, error) {
	host, portText, err := net.SplitHostPort(e.Addr)
	if err != nil {
		return nil, fmt.Errorf("smtp endpoint %q: %w", e.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("smtp endpoint %q: %w", e.Addr, err)
	}
	tlsConfig := &tls.Config{RootCAs: e.RootCAs, ServerName: host, MinVersion: tls.VersionTLS12}
	implicit := port == 465 || e.ImplicitTLS
	opts := []gomail.Option{
		gomail.WithPort(port),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithSMTPAuth(gomail.SMTPAuthPlain),
		gomail.WithUsername(e.Username),
		gomail.WithPassword(e.Password),
		gomail.WithTimeout(timeout),
		gomail.WithHELO("vibesell"),
		// go-mail dials with this instead of its own dialer, and then
		// leaves implicit TLS to it.
		gomail.WithDialContextFunc(func(ctx context.Context, _, _ string) (net.Conn, error) {
			conn, err := e.Connect(ctx, own)
			if err != nil || !implicit {
				return conn, err
			}
			tc := tls.Client(conn, tlsConfig)
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return nil, err
			}
			return tc, nil
		}),
	}
	if implicit {
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

// DialIMAP connects to the mailbox's IMAP server (STARTTLS, or implicit
// TLS on port 993) through its endpoint's dial, and logs in. The
// connection closes when ctx ends or release is called. A login the
// server refused is ErrLoginRefused.
func DialIMAP(ctx context.Context, mb Account, handler *imapclient.UnilateralDataHandler) (c *imapclient.Client, release func(), err error) {
	host, _, err := net.SplitHostPort(mb.IMAP.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("imap endpoint %q: %w", mb.IMAP.Addr, err)
	}
	opts := &imapclient.Options{
		TLSConfig:             &tls.Config{RootCAs: mb.IMAP.RootCAs, ServerName: host, MinVersion: tls.VersionTLS12},
		UnilateralDataHandler: handler,
	}
	conn, err := mb.IMAP.Connect(ctx, mb.Own)
	if err != nil {
		return nil, nil, fmt.Errorf("imap connect to %s: %w", mb.IMAP.Addr, err)
	}
	// ctx ending stops the greeting and the TLS handshake too.
	stopEarly := context.AfterFunc(ctx, func() { conn.Close() })
	if strings.HasSuffix(mb.IMAP.Addr, ":993") || mb.IMAP.ImplicitTLS {
		tlsConfig := opts.TLSConfig.Clone()
		tlsConfig.NextProtos = []string{"imap"}
		tc := tls.Client(conn, tlsConfig)
		if err = tc.HandshakeContext(ctx); err == nil {
			c = imapclient.New(tc, opts)
		}
	} else {
		c, err = imapclient.NewStartTLS(conn, opts)
	}
	stopEarly()
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("imap connect to %s: %w", mb.IMAP.Addr, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	release = func() {
		stop()
		c.Close()
	}
	if err := c.Login(mb.IMAP.Username, mb.IMAP.Password).Wait(); err != nil {
		release()
		var refused *imap.Error
		if errors.As(err, &refused) {
			err = fmt.Errorf("%w: %w", ErrLoginRefused, err)
		}
		return nil, nil, fmt.Errorf("imap login as %s: %w", mb.IMAP.Username, err)
	}
	return c, release, nil
}

// ErrLoginRefused is a server's answer that the username or password is
// wrong.
var ErrLoginRefused = errors.New("the server refused the login")
