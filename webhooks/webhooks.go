package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"vibesell"
	"vibesell/mail"
	"vibesell/outbound"
)

// Ports are the ports endpoints may listen on: HTTPS and HTTP.
var Ports = []int{443, 80}

// Mailer is the product's mail path to a workspace's people: the email
// saying an endpoint was disabled goes through it.
type Mailer interface {
	People(ctx context.Context, ws uuid.UUID) ([]string, error)
	Send(ctx context.Context, ws uuid.UUID, to []string, subject, body string) error
}

// Defaults of [Deps].
const (
	DefaultGiveUpAfter = 24 * time.Hour
	DefaultTimeout     = 10 * time.Second
	maxBackoff         = time.Hour
)

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Secret seals the endpoints' signing secrets (its credentials key).
	Secret mail.Secret
	// Guard connects to the endpoints. Default: a guard on [Ports].
	// Tests give one that allows their receivers on loopback.
	Guard *outbound.Guard
	// Mailer emails the workspace's people when an endpoint is disabled
	// after a day of failures. Nil: no email.
	Mailer Mailer
	// PublicURL is the server's address, for the email's link.
	PublicURL string
	Clock     vibesell.Clock
	Logger    *slog.Logger
	// Backoff is the wait before the attempt after attempt n (1 the
	// first). Default: 30 s doubled each time, at most an hour.
	Backoff func(n int) time.Duration
	// GiveUpAfter is how long a delivery fails before it is given up and
	// its endpoint disabled. Default [DefaultGiveUpAfter].
	GiveUpAfter time.Duration
	// Timeout bounds one POST. Default [DefaultTimeout].
	Timeout time.Duration
	// Resolver looks endpoints' names up when they are added. Default
	// net.DefaultResolver.
	Resolver *net.Resolver
}

// Service keeps a workspace's endpoints, records its events and
// delivers them.
type Service struct {
	db          *pgxpool.Pool
	secret      mail.Secret
	guard       *outbound.Guard
	mailer      Mailer
	publicURL   string
	clock       vibesell.Clock
	logger      *slog.Logger
	backoff     func(int) time.Duration
	giveUpAfter time.Duration
	timeout     time.Duration
	resolver    *net.Resolver
	jobs        *river.Client[pgx.Tx]
}

// New returns the webhooks service.
func New(d Deps) *Service {
	if d.Guard == nil {
		d.Guard = outbound.New(outbound.Deps{Ports: Ports, Clock: d.Clock})
	}
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Backoff == nil {
		d.Backoff = DefaultBackoff
	}
	if d.GiveUpAfter <= 0 {
		d.GiveUpAfter = DefaultGiveUpAfter
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	if d.Resolver == nil {
		d.Resolver = net.DefaultResolver
	}
	// An insert-only client: it enqueues in the caller's transaction.
	jobs, err := river.NewClient(riverpgxv5.New(d.DB), &river.Config{Logger: d.Logger})
	if err != nil {
		panic(fmt.Sprintf("webhooks: job client: %v", err))
	}
	return &Service{db: d.DB, secret: d.Secret, guard: d.Guard, mailer: d.Mailer, publicURL: strings.TrimRight(d.PublicURL, "/"),
		clock: d.Clock, logger: d.Logger, backoff: d.Backoff, giveUpAfter: d.GiveUpAfter, timeout: d.Timeout, resolver: d.Resolver, jobs: jobs}
}

// DefaultBackoff waits 30 s after the first failure, doubling each time
// up to an hour: about 30 attempts in a day.
func DefaultBackoff(n int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// Endpoint is a URL a workspace's events are POSTed to.
type Endpoint struct {
	ID             string
	URL            string
	CreatedAt      time.Time
	DisabledAt     *time.Time
	DisabledReason string
}

// Enabled says the endpoint receives events.
func (e Endpoint) Enabled() bool { return e.DisabledAt == nil }

// maxEndpoints bounds a workspace's endpoints.
const maxEndpoints = 20

// Create adds an endpoint and returns it with its signing secret, which
// is shown this once. Refusals (EINVALID): a URL that is not http(s), or
// whose host is not on the public internet or not found, or a port not
// on [Ports]; ELIMIT past 20 endpoints.
func (s *Service) Create(ctx context.Context, ws uuid.UUID, rawURL string) (Endpoint, string, error) {
	u, err := s.CheckURL(ctx, rawURL)
	if err != nil {
		return Endpoint{}, "", err
	}
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
		return Endpoint{}, "", fmt.Errorf("count the endpoints: %w", err)
	}
	if n >= maxEndpoints {
		return Endpoint{}, "", vibesell.Errorf(vibesell.EINVALID, "This workspace has %d webhook endpoints, the most it can have: delete one to add another.", maxEndpoints)
	}
	var raw [24]byte
	_, _ = rand.Read(raw[:])
	secret := "whsec_" + hex.EncodeToString(raw[:])
	var id [8]byte
	_, _ = rand.Read(id[:])
	e := Endpoint{ID: "we_" + hex.EncodeToString(id[:]), URL: u, CreatedAt: s.clock.Now()}
	sealed, err := s.secret.SealCredentials([]byte(secret), aad(ws, e.ID))
	if err != nil {
		return Endpoint{}, "", fmt.Errorf("seal the endpoint's secret: %w", err)
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO webhook_endpoints (workspace_id, id, url, secret_sealed, created_at) VALUES ($1, $2, $3, $4, $5)`,
		ws, e.ID, e.URL, sealed, e.CreatedAt); err != nil {
		return Endpoint{}, "", fmt.Errorf("add the endpoint: %w", err)
	}
	return e, secret, nil
}

// aad binds a sealed secret to its endpoint.
func aad(ws uuid.UUID, id string) []byte { return []byte("webhook:" + ws.String() + ":" + id) }

// CheckURL returns the URL as it is kept, or refuses it (EINVALID) with
// a sentence: not http(s), credentials in it, a port not on [Ports], or
// a host that is not found or not on the public internet, by the rules
// the guard applies at every connection.
func (s *Service) CheckURL(ctx context.Context, rawURL string) (string, error) {
	rawURL = strings.TrimSpace(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return "", vibesell.Errorf(vibesell.EINVALID, "%q is not a web address: give one like https://hooks.example.com/vibesell.", rawURL)
	}
	if u.User != nil {
		return "", vibesell.Errorf(vibesell.EINVALID, "Give the address without a user name or password in it.")
	}
	port := 443
	if u.Scheme == "http" {
		port = 80
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port <= 0 || port > 65535 {
			return "", vibesell.Errorf(vibesell.EINVALID, "%q has no valid port.", rawURL)
		}
	}
	u.Fragment = ""
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lookup, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err = s.resolver.LookupNetIP(lookup, "ip", u.Hostname())
		if err != nil || len(addrs) == 0 {
			return "", vibesell.Errorf(vibesell.EINVALID, "%s was not found: check the address for typos.", u.Hostname())
		}
	}
	for _, a := range addrs {
		if err := s.guard.Check(netip.AddrPortFrom(a.Unmap(), uint16(port))); err != nil {
			why := err.Error()
			if r := outbound.Refused(err); r != nil {
				why = r.Reason
			}
			return "", vibesell.Errorf(vibesell.EINVALID, "VibeSell can't send webhooks to %s: %s.", u.Host, why)
		}
	}
	return u.String(), nil
}

// List returns the workspace's endpoints, oldest first.
func (s *Service) List(ctx context.Context, ws uuid.UUID) ([]Endpoint, error) {
	rows, err := s.db.Query(ctx, `SELECT id, url, created_at, disabled_at, coalesce(disabled_reason, '') FROM webhook_endpoints
		WHERE workspace_id = $1 ORDER BY created_at, id`, ws)
	if err != nil {
		return nil, fmt.Errorf("list the endpoints: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Endpoint, error) {
		var e Endpoint
		err := r.Scan(&e.ID, &e.URL, &e.CreatedAt, &e.DisabledAt, &e.DisabledReason)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list the endpoints: %w", err)
	}
	return out, nil
}

// Find returns one endpoint; ENOTFOUND when the workspace has none by id.
func (s *Service) Find(ctx context.Context, ws uuid.UUID, id string) (Endpoint, error) {
	var e Endpoint
	err := s.db.QueryRow(ctx, `SELECT id, url, created_at, disabled_at, coalesce(disabled_reason, '') FROM webhook_endpoints
		WHERE workspace_id = $1 AND id = $2`, ws, id).Scan(&e.ID, &e.URL, &e.CreatedAt, &e.DisabledAt, &e.DisabledReason)
	if errors.Is(err, pgx.ErrNoRows) {
		return Endpoint{}, notFound()
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("read the endpoint %s: %w", id, err)
	}
	return e, nil
}

func notFound() error {
	return vibesell.Errorf(vibesell.ENOTFOUND, "This workspace has no such webhook endpoint.")
}

// Disable stops sending events to an endpoint; a disabled endpoint
// receives none of the events meanwhile.
func (s *Service) Disable(ctx context.Context, ws uuid.UUID, id string) error {
	tag, err := s.db.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = coalesce(disabled_at, $3), disabled_reason = coalesce(disabled_reason, 'Disabled by a person.')
		WHERE workspace_id = $1 AND id = $2`, ws, id, s.clock.Now())
	if err != nil {
		return fmt.Errorf("disable the endpoint %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound()
	}
	return nil
}

// Enable sends the endpoint the events from now on.
func (s *Service) Enable(ctx context.Context, ws uuid.UUID, id string) error {
	tag, err := s.db.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE workspace_id = $1 AND id = $2`, ws, id)
	if err != nil {
		return fmt.Errorf("enable the endpoint %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound()
	}
	return nil
}

// Delete forgets an endpoint and its delivery log.
func (s *Service) Delete(ctx context.Context, ws uuid.UUID, id string) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, ws, id)
	if err != nil {
		return fmt.Errorf("delete the endpoint %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound()
	}
	return nil
}
