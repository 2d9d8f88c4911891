package sandboxmail

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"vibesell"
	"vibesell/mail"
)

// Accepted is one message the sandbox SMTP server took in, as received.
type Accepted struct {
	From       string
	Recipients []string
	Raw        []byte
	At         time.Time
}

// Sandbox is the mail server a new installation sends to: SMTP submission
// (STARTTLS, then AUTH PLAIN) and IMAP (STARTTLS), both on loopback, with a
// certificate made at start. It never relays: every message it accepts is
// kept, in memory (the latest 10,000), for the outbox to show, and goes
// nowhere else. Replies
// reach a mailbox's inbox only through DeliverReply.
type Sandbox struct {
	clock    vibesell.Clock
	logger   *slog.Logger
	roots    *x509.CertPool
	certPEM  []byte
	onAccept func(Accepted)

	smtp     *smtp.Server
	imap     *imapserver.Server
	smtpAddr string
	imapAddr string
	// password gives a mailbox's password when the sandbox is shared (see
	// Config.MailboxPassword); nil: each mailbox gets a random one.
	password func(email string) string
	// shared says the servers run in another process ([Connect]): this
	// one only hands out how to reach them.
	shared bool

	opening   sync.Mutex // one Mailbox call creates a mailbox at a time
	mu        sync.Mutex
	passwords map[string]string // address → password
	inboxes   map[string]*imapmemserver.User
	accepted  []Accepted
	// closing is set once Close starts: the connections it cuts (a
	// reader waiting in IDLE) end with errors that are expected then.
	closing bool
}

// Config says where the sandbox listens: loopback addresses only
// ("127.0.0.1:0" picks a free port).
type Config struct {
	SMTPAddr string
	IMAPAddr string
	Clock    vibesell.Clock
	Logger   *slog.Logger
	// OnAccept, when set, is called with each message once it is kept and
	// before the server answers the end of DATA.
	OnAccept func(Accepted)
	// Certificate, when set, is the one the servers present (a shared
	// sandbox keeps its own across restarts, so the replicas that trust
	// it need not start again); nil: one is made at start.
	Certificate *tls.Certificate
	// MailboxPassword, when set, is every mailbox's password (from the
	// installation's key, [mail.Secret.SandboxPassword]), and a mailbox
	// is opened the first time it logs in with it: so the servers of
	// several replicas, which share the key, reach the same mailboxes of
	// one sandbox ([Connect]). Nil: each mailbox gets a random password,
	// known to this process alone.
	MailboxPassword func(email string) string
}

// Start listens and serves until Close.
func Start(cfg Config) (*Sandbox, error) {
	if cfg.Clock == nil {
		cfg.Clock = vibesell.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	for _, addr := range []string{cfg.SMTPAddr, cfg.IMAPAddr} {
		if err := requireLoopback(addr); err != nil {
			return nil, err
		}
	}
	cert, roots, err := loopbackCertificate()
	if cfg.Certificate != nil {
		cert, roots, err = *cfg.Certificate, x509.NewCertPool(), nil
		if cert.Leaf == nil {
			if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
				return nil, fmt.Errorf("sandbox certificate: %w", err)
			}
		}
		roots.AddCert(cert.Leaf)
	}
	if err != nil {
		return nil, err
	}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s := &Sandbox{
		clock:     cfg.Clock,
		logger:    cfg.Logger,
		roots:     roots,
		certPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		onAccept:  cfg.OnAccept,
		password:  cfg.MailboxPassword,
		passwords: map[string]string{},
		inboxes:   map[string]*imapmemserver.User{},
	}

	smtpListener, err := net.Listen("tcp", cfg.SMTPAddr)
	if err != nil {
		return nil, fmt.Errorf("sandbox smtp: listen on %s: %w", cfg.SMTPAddr, err)
	}
	imapListener, err := net.Listen("tcp", cfg.IMAPAddr)
	if err != nil {
		smtpListener.Close()
		return nil, fmt.Errorf("sandbox imap: listen on %s: %w", cfg.IMAPAddr, err)
	}
	s.smtpAddr, s.imapAddr = smtpListener.Addr().String(), imapListener.Addr().String()

	s.smtp = smtp.NewServer(sandboxBackend{s})
	s.smtp.Domain = "sandbox.vibesell.invalid"
	s.smtp.TLSConfig = tlsConfig
	s.smtp.MaxMessageBytes = 10 << 20
	s.smtp.MaxRecipients = 50
	s.smtp.ReadTimeout = time.Minute
	s.smtp.WriteTimeout = time.Minute
	s.smtp.ErrorLog = serverLog{s}

	s.imap = imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &imapSession{s: s}, nil, nil
		},
		Caps:      imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		TLSConfig: tlsConfig,
		Logger:    serverLog{s},
	})

	go s.smtp.Serve(smtpListener)
	go s.imap.Serve(imapListener)
	return s, nil
}

func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("sandbox mail server address %q: expected host:port", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("sandbox mail server address %q: the sandbox listens on loopback only (127.0.0.1)", addr)
	}
	return nil
}

// NewCertificate makes a certificate for a sandbox to serve
// (Config.Certificate), in PEM: the certificate, then its private key.
func NewCertificate() (certPEM, keyPEM []byte, err error) {
	cert, _, err := loopbackCertificate()
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox certificate key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), nil
}

// loopbackCertificate makes a self-signed certificate for 127.0.0.1 and
// localhost, and the pool that trusts it.
func loopbackCertificate() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("sandbox certificate key: %w", err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "VibeSell sandbox mail server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("sandbox certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("sandbox certificate: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots, nil
}

// Close stops both servers.
func (s *Sandbox) Close() error {
	if s.shared {
		return nil
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	return errors.Join(s.smtp.Close(), s.imap.Close())
}

// serverLog is the SMTP and IMAP servers' log: what goes wrong while they
// serve is a warning; once Close has begun, a connection it cuts ends
// with an error (a reply reader waiting in IDLE: "use of closed network
// connection") that is part of a clean shutdown, so it is a debug line.
type serverLog struct{ s *Sandbox }

func (l serverLog) Printf(format string, args ...any) { l.log(fmt.Sprintf(format, args...)) }
func (l serverLog) Println(args ...any)               { l.log(strings.TrimSuffix(fmt.Sprintln(args...), "\n")) }

func (l serverLog) log(msg string) {
	l.s.mu.Lock()
	closing := l.s.closing
	l.s.mu.Unlock()
	level := slog.LevelWarn
	if closing {
		level = slog.LevelDebug
	}
	l.s.logger.Log(context.Background(), level, msg)
}

// CertificatePEM is the servers' certificate, for a client in another
// process to trust.
func (s *Sandbox) CertificatePEM() []byte { return s.certPEM }

// Roots is the certificate pool that trusts the servers, for a client in
// this process.
func (s *Sandbox) Roots() *x509.CertPool { return s.roots }

// SMTPAddr and IMAPAddr are where the servers listen.
func (s *Sandbox) SMTPAddr() string { return s.smtpAddr }
func (s *Sandbox) IMAPAddr() string { return s.imapAddr }

// AddMailbox creates the mailbox (or gives it a new password) and returns
// how to reach it.
func (s *Sandbox) AddMailbox(addr mail.Address) (mail.Account, error) {
	email := strings.ToLower(addr.Email)
	b := make([]byte, 18)
	rand.Read(b)
	password := hex.EncodeToString(b)
	if s.password != nil {
		password = s.password(email)
	}
	if s.shared {
		return s.account(addr, email, password), nil
	}
	user := imapmemserver.NewUser(email, password)
	if err := user.Create("INBOX", nil); err != nil {
		return mail.Account{}, fmt.Errorf("sandbox inbox for %s: %w", email, err)
	}
	s.mu.Lock()
	s.passwords[email] = password
	s.inboxes[email] = user
	s.mu.Unlock()
	return s.account(addr, email, password), nil
}

func (s *Sandbox) account(addr mail.Address, email, password string) mail.Account {
	return mail.Account{
		Address: addr,
		SMTP:    mail.Endpoint{Addr: s.smtpAddr, Username: email, Password: password, RootCAs: s.roots},
		IMAP:    mail.Endpoint{Addr: s.imapAddr, Username: email, Password: password, RootCAs: s.roots},
	}
}

// Mailbox returns how to reach the mailbox, creating it the first time:
// its inbox and password then stay for as long as the sandbox runs.
func (s *Sandbox) Mailbox(addr mail.Address) (mail.Account, error) {
	email := strings.ToLower(addr.Email)
	s.opening.Lock()
	defer s.opening.Unlock()
	s.mu.Lock()
	password, ok := s.passwords[email]
	s.mu.Unlock()
	if !ok {
		return s.AddMailbox(addr)
	}
	return s.account(addr, email, password), nil
}

// opened returns the mailbox's inbox, opening it when the sandbox is
// shared and password is the one its key gives; nil when there is none
// (or, shared, the password is wrong).
func (s *Sandbox) opened(email, password string) *imapmemserver.User {
	email = strings.ToLower(email)
	s.mu.Lock()
	user := s.inboxes[email]
	s.mu.Unlock()
	if user != nil || s.password == nil || subtle.ConstantTimeCompare([]byte(password), []byte(s.password(email))) != 1 {
		return user
	}
	if _, err := s.Mailbox(mail.Address{Email: email}); err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inboxes[email]
}

// Accepted returns the messages accepted so far (the latest 10,000), oldest
// first.
func (s *Sandbox) Accepted() []Accepted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Accepted(nil), s.accepted...)
}

// DeliverReply puts raw (a whole RFC 5322 message) into the mailbox's
// inbox, as if someone had answered: the tests and the web app's "reply as
// this lead" form use it.
func (s *Sandbox) DeliverReply(mailbox string, raw []byte) error {
	if s.shared {
		return s.appendOver(mailbox, raw)
	}
	s.mu.Lock()
	user := s.inboxes[strings.ToLower(mailbox)]
	s.mu.Unlock()
	if user == nil {
		return fmt.Errorf("%w: %s", ErrNoSandboxMailbox, mailbox)
	}
	_, err := user.Append("INBOX", literal{bytes.NewReader(raw)}, &imap.AppendOptions{Time: s.clock.Now()})
	if err != nil {
		return fmt.Errorf("sandbox: deliver to %s: %w", mailbox, err)
	}
	return nil
}

// ErrNoSandboxMailbox is DeliverReply's error for a mailbox the sandbox
// does not have (not added since it started).
var ErrNoSandboxMailbox = errors.New("sandbox: no such mailbox")

type literal struct{ *bytes.Reader }

func (l literal) Size() int64 { return int64(l.Len()) }

// sandboxKeeps is how many accepted messages the sandbox keeps, newest
// first: enough for anyone trying the product, bounded for a server left
// running for months.
const sandboxKeeps = 10000

type sandboxBackend struct{ s *Sandbox }

func (b sandboxBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &sandboxSession{s: b.s}, nil
}

// sandboxSession takes mail only from a logged-in mailbox, sent as itself.
type sandboxSession struct {
	s          *Sandbox
	user       string
	from       string
	recipients []string
}

func (ss *sandboxSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *sandboxSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		username = strings.ToLower(username)
		if identity != "" && !strings.EqualFold(identity, username) {
			return errors.New("identity not supported")
		}
		if user := ss.s.opened(username, password); user == nil {
			return smtp.ErrAuthFailed
		}
		ss.s.mu.Lock()
		want := ss.s.passwords[username]
		ss.s.mu.Unlock()
		if subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
			return smtp.ErrAuthFailed
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *sandboxSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.user == "" {
		return smtp.ErrAuthRequired
	}
	if !strings.EqualFold(from, ss.user) {
		return &smtp.SMTPError{Code: 553, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "this mailbox sends only as " + ss.user}
	}
	ss.from = from
	return nil
}

func (ss *sandboxSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.recipients = append(ss.recipients, to)
	return nil
}

func (ss *sandboxSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg := Accepted{From: ss.from, Recipients: ss.recipients, Raw: raw, At: ss.s.clock.Now()}
	ss.s.mu.Lock()
	ss.s.accepted = append(ss.s.accepted, msg)
	if over := len(ss.s.accepted) - sandboxKeeps; over > 0 {
		ss.s.accepted = append(ss.s.accepted[:0:0], ss.s.accepted[over:]...)
	}
	ss.s.mu.Unlock()
	if ss.s.onAccept != nil {
		ss.s.onAccept(msg)
	}
	return nil
}

func (ss *sandboxSession) Reset() { ss.from, ss.recipients = "", nil }

func (ss *sandboxSession) Logout() error { return nil }

// imapSession is one IMAP connection: a mailbox's inbox once logged in.
type imapSession struct {
	*imapmemserver.UserSession // nil until logged in
	s                          *Sandbox
}

func (is *imapSession) Login(username, password string) error {
	user := is.s.opened(username, password)
	if user == nil {
		return imapserver.ErrAuthFailed
	}
	if err := user.Login(strings.ToLower(username), password); err != nil {
		return err
	}
	is.UserSession = imapmemserver.NewUserSession(user)
	return nil
}

func (is *imapSession) Close() error {
	if is.UserSession == nil {
		return nil
	}
	return is.UserSession.Close()
}
