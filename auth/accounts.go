package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	_ "time/tzdata"
	"unicode" // time zones for people's accounts, whatever the host has installed

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"vibesell"
	"vibesell/store"
)

// Accounts are the people who sign in to the web app: their accounts,
// passwords, web sessions and the limit on failed sign-ins. Everything is
// in PostgreSQL, so every replica knows every session and counts every
// failure.
type Accounts struct {
	db    *pgxpool.Pool
	clock vibesell.Clock
}

// AccountsDeps is what [NewAccounts] needs.
type AccountsDeps struct {
	DB *pgxpool.Pool
	// Clock tells the time of sign-ins and expiries. Default: the system
	// clock.
	Clock vibesell.Clock
}

// NewAccounts returns the Accounts on d.DB.
func NewAccounts(d AccountsDeps) *Accounts {
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	return &Accounts{db: d.DB, clock: d.Clock}
}

// User is a person signed in to the web app, with the workspace they have
// open. One account (email, password) can belong to several workspaces.
type User struct {
	ID uuid.UUID
	// WorkspaceID, WorkspaceSlug and WorkspaceName are the workspace the
	// person has open: the web app shows it and acts in it.
	WorkspaceID   uuid.UUID
	WorkspaceSlug string
	WorkspaceName string
	Email         string
	Name          *string
	TimeZone      *time.Location
	// Workspaces lists every workspace the person belongs to, by name, the
	// open one included.
	Workspaces []Membership
}

// Principal is the workspace the user acts for.
func (u User) Principal() Principal {
	return Principal{WorkspaceID: u.WorkspaceID, WorkspaceSlug: u.WorkspaceSlug}
}

// NewUser is what [Accounts.CreateUser] needs.
type NewUser struct {
	WorkspaceID uuid.UUID
	Email       string
	Name        string // optional
	Password    string // at least MinPasswordLength characters
	TimeZone    string // IANA name such as Europe/Paris; default UTC
}

// MinPasswordLength is the shortest password an account accepts.
const MinPasswordLength = 12

// CreateUser creates an account that belongs to one workspace (see
// [Accounts.AddMember] for more). Refusals: EINVALID for a malformed email,
// a short password or an unknown time zone; ECONFLICT when the email
// already has an account; ENOTFOUND for an unknown workspace.
func (a *Accounts) CreateUser(ctx context.Context, nu NewUser) (User, error) {
	email, err := normalizeEmail(nu.Email)
	if err != nil {
		return User{}, err
	}
	if n := len([]rune(nu.Password)); n < MinPasswordLength || n > 256 {
		return User{}, vibesell.Errorf(vibesell.EINVALID, "A password needs %d to 256 characters; this one has %d.", MinPasswordLength, n)
	}
	tz := cmpOr(strings.TrimSpace(nu.TimeZone), "UTC")
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return User{}, vibesell.Errorf(vibesell.EINVALID, "%q is not a time zone; use a name such as Europe/Paris or America/New_York.", tz)
	}
	var name *string
	if n := strings.TrimSpace(nu.Name); n != "" {
		if strings.ContainsFunc(n, unicode.IsControl) {
			return User{}, vibesell.Errorf(vibesell.EINVALID, "A name cannot hold control characters such as line breaks; write it on one line.")
		}
		if len([]rune(n)) > 200 {
			return User{}, vibesell.Errorf(vibesell.EINVALID, "A name can be at most 200 characters long.")
		}
		name = &n
	}
	u := User{ID: uuid.New(), WorkspaceID: nu.WorkspaceID, Email: email, Name: name, TimeZone: loc}
	err = store.InTx(ctx, a.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO users (id, email, name, password_hash, time_zone) VALUES ($1, $2, $3, $4, $5)`,
			u.ID, email, name, HashPassword(nu.Password), tz); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO memberships (user_id, workspace_id, created_at)
			SELECT $1, w.id, $3 FROM workspaces w WHERE w.id = $2 RETURNING (SELECT slug FROM workspaces WHERE id = $2), (SELECT name FROM workspaces WHERE id = $2)`,
			u.ID, nu.WorkspaceID, a.clock.Now()).Scan(&u.WorkspaceSlug, &u.WorkspaceName)
	})
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return User{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such workspace.")
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		return User{}, vibesell.Errorf(vibesell.ECONFLICT, "%s already has an account.", email)
	case err != nil:
		return User{}, fmt.Errorf("create user: %w", err)
	}
	u.Workspaces = []Membership{{WorkspaceID: u.WorkspaceID, Slug: u.WorkspaceSlug, Name: u.WorkspaceName}}
	return u, nil
}

func normalizeEmail(raw string) (string, error) {
	email := strings.ToLower(strings.TrimSpace(raw))
	addr, err := mail.ParseAddress(email)
	if err != nil || strings.ContainsFunc(email, unicode.IsControl) || addr.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@"):], ".") {
		return "", vibesell.Errorf(vibesell.EINVALID, "%q is not an email address such as ada@example.com.", strings.TrimSpace(raw))
	}
	return email, nil
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Sign-in limits: failed attempts are counted over a sliding window per
// email and address, and per address across emails (one address trying
// many accounts). Past either limit, sign-in is refused without checking
// the password until the window has moved on.
const (
	SignInWindow         = 15 * time.Minute
	MaxFailuresPerEmail  = 5  // per email and address in the window
	MaxFailuresPerIP     = 50 // per address, all emails, in the window
	webSessionLifetime   = 7 * 24 * time.Hour
	webSessionIdleLimit  = 12 * time.Hour
	webSessionTouchEvery = time.Minute
)

// ErrSignInFailed is the one answer to a wrong email or password: which of
// the two is wrong is not said.
var ErrSignInFailed = vibesell.Errorf(vibesell.EUNAUTHORIZED, "The email or password is not right.")

// WebSession is a signed-in browser. Token goes in a cookie and nowhere
// else; only its SHA-256 is stored.
type WebSession struct {
	Token     string
	ExpiresAt time.Time
	// Device is the token the browser keeps (for [DeviceLifetime]) to be
	// known at its next sign-in; set by a sign-in only.
	Device string
}

// CSRF is the token that the session's forms carry; see [CSRFToken].
func (s WebSession) CSRF() string { return CSRFToken(s.Token) }

// SignIn checks an email and password from the address ip and opens a web
// session. Refusals: [ErrSignInFailed]; ERATELIMITED after too many
// failures (the sentence says when to try again).
func (a *Accounts) SignIn(ctx context.Context, email, password, ip string) (User, WebSession, error) {
	return a.SignInWithDevice(ctx, email, password, ip, "")
}

// SignInWithDevice is [Accounts.SignIn] from a browser that may keep a
// device token: the [WebSession].Device of an earlier sign-in to the same
// email. Such a browser's failures are counted apart from its address's,
// and the address's limit does not apply to it: behind a proxy that hides
// the clients' addresses (or on a shared network), others' failed
// attempts do not lock out a person on a browser they signed in from
// before, while a guesser without that browser's token is limited as
// before (OWASP's "device cookies").
func (a *Accounts) SignInWithDevice(ctx context.Context, email, password, ip, device string) (User, WebSession, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	// No account's email holds a control character (CreateUser refuses
	// them), and PostgreSQL refuses a NUL in text: such an email is a
	// wrong email, answered as one, not an error on our side.
	if len(email) > 254 || len(password) > 1024 || strings.ContainsFunc(email, unicode.IsControl) {
		return User{}, WebSession{}, ErrSignInFailed
	}
	now := a.clock.Now()
	from, knownDevice, err := a.attemptSource(ctx, email, ip, device, now)
	if err != nil {
		return User{}, WebSession{}, err
	}
	// The attempt is counted before the password is checked, so that
	// concurrent guesses cannot all slip under the limit.
	// Two statements, not one: the count must see every attempt committed
	// before it, its own included, so that of any number of concurrent
	// attempts at most the limit get past it.
	if _, err := a.db.Exec(ctx, `INSERT INTO sign_in_attempts (email, ip, at) VALUES ($1, $2, $3)`, email, from, now); err != nil {
		return User{}, WebSession{}, fmt.Errorf("count sign-in attempt: %w", err)
	}
	var perEmail, perIP int
	var oldest time.Time
	err = a.db.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM sign_in_attempts WHERE email = $1 AND ip = $2 AND at > $3),
			(SELECT count(*) FROM sign_in_attempts WHERE ip = $2 AND at > $3),
			(SELECT coalesce(min(at), $4) FROM sign_in_attempts WHERE email = $1 AND ip = $2 AND at > $3)`,
		email, from, now.Add(-SignInWindow), now).Scan(&perEmail, &perIP, &oldest)
	if err != nil {
		return User{}, WebSession{}, fmt.Errorf("count sign-in attempts: %w", err)
	}
	if perEmail > MaxFailuresPerEmail || perIP > MaxFailuresPerIP {
		wait := oldest.Add(SignInWindow).Sub(now)
		if perIP > MaxFailuresPerIP {
			wait = SignInWindow
		}
		minutes := max(1, int((wait+time.Minute-1)/time.Minute))
		return User{}, WebSession{}, vibesell.Errorf(vibesell.ERATELIMITED,
			"Too many failed sign-ins. Try again in %s.", vibesell.Plural(minutes, "minute", "minutes"))
	}

	var u User
	var hash, tz string
	var memberships []byte
	// The session opens the workspace the person last opened. An account
	// that belongs to no workspace cannot sign in, like an unknown one.
	err = a.db.QueryRow(ctx, `SELECT u.id, o.id, o.slug, o.name, u.email, u.name, u.password_hash, u.time_zone, `+membershipsOf("u.id")+`
		FROM users u JOIN LATERAL (SELECT w.id, w.slug, w.name FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
			WHERE m.user_id = u.id ORDER BY m.opened_at DESC NULLS LAST, m.created_at, w.id LIMIT 1) o ON true
		WHERE u.email = $1 AND u.disabled_at IS NULL`, email).
		Scan(&u.ID, &u.WorkspaceID, &u.WorkspaceSlug, &u.WorkspaceName, &u.Email, &u.Name, &hash, &tz, &memberships)
	if errors.Is(err, pgx.ErrNoRows) {
		_, _ = VerifyPassword(dummyHash(), password)
		return User{}, WebSession{}, ErrSignInFailed
	}
	if err != nil {
		return User{}, WebSession{}, fmt.Errorf("find user: %w", err)
	}
	if u.Workspaces, err = decodeMemberships(memberships); err != nil {
		return User{}, WebSession{}, err
	}
	ok, err := VerifyPassword(hash, password)
	if err != nil {
		return User{}, WebSession{}, fmt.Errorf("check password of %s: %w", u.ID, err)
	}
	if !ok {
		return User{}, WebSession{}, ErrSignInFailed
	}
	u.TimeZone = loadLocation(tz)

	ses := WebSession{Token: newWebToken(), ExpiresAt: now.Add(webSessionLifetime), Device: device}
	sum := sha256.Sum256([]byte(ses.Token))
	_, err = a.db.Exec(ctx, `WITH cleared AS (DELETE FROM sign_in_attempts WHERE email = $4 AND ip = $5)
		INSERT INTO web_sessions (token_hash, user_id, workspace_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $6, $6, $7)`, sum[:], u.ID, u.WorkspaceID, email, from, now, ses.ExpiresAt)
	if err != nil {
		return User{}, WebSession{}, fmt.Errorf("open web session: %w", err)
	}
	if !knownDevice {
		ses.Device = newDeviceToken()
		devSum := sha256.Sum256([]byte(ses.Device))
		if _, err := a.db.Exec(ctx, `INSERT INTO sign_in_devices (token_hash, email, created_at) VALUES ($1, $2, $3)`,
			devSum[:], email, now); err != nil {
			return User{}, WebSession{}, fmt.Errorf("remember the browser: %w", err)
		}
	}
	return u, ses, nil
}

// DeviceLifetime is how long a browser stays known for an email after it
// signed in, for the sign-in limits (see [Accounts.SignInWithDevice]).
const DeviceLifetime = 90 * 24 * time.Hour

const deviceTokenPrefix = "vsd_"

func newDeviceToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return deviceTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// attemptSource says whom a sign-in attempt is counted against: the
// browser, when it holds a device token known for the email, else the
// address.
func (a *Accounts) attemptSource(ctx context.Context, email, ip, device string, now time.Time) (from string, known bool, err error) {
	if !strings.HasPrefix(device, deviceTokenPrefix) || len(device) > 100 {
		return ip, false, nil
	}
	sum := sha256.Sum256([]byte(device))
	err = a.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sign_in_devices WHERE token_hash = $1 AND email = $2 AND created_at > $3)`,
		sum[:], email, now.Add(-DeviceLifetime)).Scan(&known)
	if err != nil {
		return "", false, fmt.Errorf("check the browser: %w", err)
	}
	if !known {
		return ip, false, nil
	}
	return "device " + base64.RawURLEncoding.EncodeToString(sum[:12]), true, nil
}

func loadLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// webTokenPrefix makes a session cookie recognisable in a secret scanner.
const webTokenPrefix = "vsw_"

func newWebToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return webTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ErrNoWebSession answers a cookie that is missing, unknown, expired,
// idle too long, signed out, or whose account was disabled.
var ErrNoWebSession = vibesell.Errorf(vibesell.EUNAUTHORIZED, "Sign in to continue.")

// Authenticate returns the user of a web session. Refusals: [ErrNoWebSession].
func (a *Accounts) Authenticate(ctx context.Context, token string) (User, WebSession, error) {
	if !strings.HasPrefix(token, webTokenPrefix) || len(token) > 100 {
		return User{}, WebSession{}, ErrNoWebSession
	}
	now := a.clock.Now()
	sum := sha256.Sum256([]byte(token))
	var u User
	var tz string
	var lastSeen, expires time.Time
	var memberships []byte
	// The session's workspace must be one the person still belongs to.
	err := a.db.QueryRow(ctx, `SELECT u.id, s.workspace_id, w.slug, w.name, u.email, u.name, u.time_zone, s.last_seen_at, s.expires_at,
			`+membershipsOf("u.id")+`
		FROM web_sessions s JOIN users u ON u.id = s.user_id JOIN workspaces w ON w.id = s.workspace_id
			JOIN memberships m ON m.user_id = s.user_id AND m.workspace_id = s.workspace_id
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $3 AND u.disabled_at IS NULL`,
		sum[:], now, now.Add(-webSessionIdleLimit)).
		Scan(&u.ID, &u.WorkspaceID, &u.WorkspaceSlug, &u.WorkspaceName, &u.Email, &u.Name, &tz, &lastSeen, &expires, &memberships)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, WebSession{}, ErrNoWebSession
	}
	if err != nil {
		return User{}, WebSession{}, fmt.Errorf("check web session: %w", err)
	}
	if now.Sub(lastSeen) > webSessionTouchEvery {
		if _, err := a.db.Exec(ctx, `UPDATE web_sessions SET last_seen_at = $2 WHERE token_hash = $1`, sum[:], now); err != nil {
			return User{}, WebSession{}, fmt.Errorf("touch web session: %w", err)
		}
	}
	u.TimeZone = loadLocation(tz)
	if u.Workspaces, err = decodeMemberships(memberships); err != nil {
		return User{}, WebSession{}, err
	}
	return u, WebSession{Token: token, ExpiresAt: expires}, nil
}

// SignOut ends a web session; an unknown token is already signed out.
func (a *Accounts) SignOut(ctx context.Context, token string) error {
	sum := sha256.Sum256([]byte(token))
	if _, err := a.db.Exec(ctx, `DELETE FROM web_sessions WHERE token_hash = $1`, sum[:]); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// CSRFToken is the anti-forgery token of the web session whose cookie
// holds sessionToken: an HMAC of a fixed label under the session's own
// secret. Only someone who can read the cookie can compute it, which a
// cross-site page cannot; nothing needs storing.
func CSRFToken(sessionToken string) string {
	mac := hmac.New(sha256.New, []byte(sessionToken))
	mac.Write([]byte("vibesell web csrf v1"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF reports whether got is the CSRF token of the session, in
// constant time.
func CheckCSRF(sessionToken, got string) bool {
	return sessionToken != "" && hmac.Equal([]byte(CSRFToken(sessionToken)), []byte(got))
}

// Prune deletes web sessions past their lifetime or idle limit and sign-in
// attempts older than the window. It returns how many rows it deleted.
func (a *Accounts) Prune(ctx context.Context) (int64, error) {
	now := a.clock.Now()
	s, err := a.db.Exec(ctx, `DELETE FROM web_sessions WHERE expires_at <= $1 OR last_seen_at <= $2`, now, now.Add(-webSessionIdleLimit))
	if err != nil {
		return 0, fmt.Errorf("prune web sessions: %w", err)
	}
	f, err := a.db.Exec(ctx, `DELETE FROM sign_in_attempts WHERE at <= $1`, now.Add(-SignInWindow))
	if err != nil {
		return 0, fmt.Errorf("prune sign-in attempts: %w", err)
	}
	d, err := a.db.Exec(ctx, `DELETE FROM sign_in_devices WHERE created_at <= $1`, now.Add(-DeviceLifetime))
	if err != nil {
		return 0, fmt.Errorf("prune sign-in devices: %w", err)
	}
	return s.RowsAffected() + f.RowsAffected() + d.RowsAffected(), nil
}

// PruneAccountsArgs is the periodic job that runs [Accounts.Prune].
type PruneAccountsArgs struct{}

// Kind names the job in River.
func (PruneAccountsArgs) Kind() string { return "auth.prune_accounts" }

// AddAccountWorkers registers the accounts' jobs and their schedule.
func AddAccountWorkers(workers *river.Workers, accounts *Accounts) []*river.PeriodicJob {
	return AddHourlyPrune[PruneAccountsArgs](workers, accounts.Prune)
}
