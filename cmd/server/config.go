package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/audience"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/sending"
	"vibesell/toolkit"
	"vibesell/web"
)

// config is read once from the environment; see the README's table.
type config struct {
	Mail        mailConfig // the sending engine's; see mail.go
	DatabaseURL string
	// DatabaseDirectURL, when set, reaches PostgreSQL itself while
	// DatabaseURL goes through a pooler in transaction mode (PgBouncer):
	// the connections that need a session of their own (the
	// notifications' LISTEN, River's listener and its own queries, the
	// migrations' lock) use it. Empty: DatabaseURL is direct.
	DatabaseDirectURL string
	ListenAddr        string
	PublicURL         *url.URL
	LogLevel          slog.Level
	LogFormat         string
	DataDir           string
	PGBinDir          string
	ShutdownTimeout   time.Duration
	ReadTimeout       time.Duration
	// WebRequestTimeout bounds one web app request (see web.Deps).
	WebRequestTimeout time.Duration
	Sessions          auth.SessionLimits
	// SessionMemoryTTL: see toolkit.HTTPOptions.
	SessionMemoryTTL time.Duration
	// SessionMemory: see toolkit.HTTPOptions.
	SessionMemory  toolkit.SessionMemoryLimits
	AllowedOrigins []string
	ClientIPHeader string
	Sending        sending.Config
	Billing        billing.Config
	Audience       audience.Config
	Campaigns      campaigns.Config
	// ApprovalReminder is how long before its expiry an approval only the
	// web app may approve is emailed about again (APPROVAL_REMINDER_BEFORE).
	ApprovalReminder time.Duration

	// PublicURLSet says PUBLIC_URL was given rather than made up from
	// LISTEN_ADDR.
	PublicURLSet bool

	// OAuthLimits bound /oauth/register and /oauth/token.
	OAuthLimits oauth.RateLimits
	// SupportEmail is how people reach whoever runs this server
	// (SUPPORT_EMAIL): shown on the support, privacy and terms pages.
	SupportEmail string
	// ClientMetadata is the zero value (production's rules) except in a
	// test build; see testClientMetadata.
	ClientMetadata oauth.FetchConfig
}

// configError names the variable and what it expects, in one line.
type configError struct {
	name, value, want string
}

func (e *configError) Error() string {
	return fmt.Sprintf("%s=%q is not valid: %s", e.name, e.value, e.want)
}

func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DatabaseURL:       getenv("DATABASE_URL"),
		DatabaseDirectURL: getenv("DATABASE_DIRECT_URL"),
		ListenAddr:        orDefault(getenv("LISTEN_ADDR"), "127.0.0.1:8080"),
		LogFormat:         orDefault(getenv("LOG_FORMAT"), "text"),
		DataDir:           orDefault(getenv("DATA_DIR"), ".vibesell"),
		PGBinDir:          getenv("PG_BIN_DIR"),
		ShutdownTimeout:   20 * time.Second,
		ReadTimeout:       30 * time.Second,
		Sessions:          auth.DefaultSessionLimits,
		SessionMemoryTTL:  10 * time.Minute,
		SessionMemory:     toolkit.DefaultSessionMemoryLimits,
		WebRequestTimeout: 15 * time.Second,
	}
	if cfg.DatabaseURL != "" {
		if _, err := pgxpool.ParseConfig(cfg.DatabaseURL); err != nil {
			return cfg, &configError{"DATABASE_URL", "(hidden)", "expected a PostgreSQL URL such as postgres://user:password@host:5432/vibesell"}
		}
	}
	if cfg.DatabaseDirectURL != "" {
		if cfg.DatabaseURL == "" {
			return cfg, &configError{"DATABASE_DIRECT_URL", "(hidden)", "set it only with DATABASE_URL: DATABASE_URL through PgBouncer, DATABASE_DIRECT_URL to PostgreSQL itself"}
		}
		if _, err := pgxpool.ParseConfig(cfg.DatabaseDirectURL); err != nil {
			return cfg, &configError{"DATABASE_DIRECT_URL", "(hidden)", "expected a PostgreSQL URL such as postgres://user:password@host:5432/vibesell"}
		}
	}
	host, port, err := net.SplitHostPort(cfg.ListenAddr)
	if err != nil {
		return cfg, &configError{"LISTEN_ADDR", cfg.ListenAddr, "expected host:port, for example 127.0.0.1:8080 or :8080"}
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return cfg, &configError{"LISTEN_ADDR", cfg.ListenAddr, "the port must be a number from 0 to 65535"}
	}

	public := getenv("PUBLIC_URL")
	cfg.PublicURLSet = public != ""
	if public == "" {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		public = "http://" + net.JoinHostPort(host, port)
	}
	u, err := url.Parse(public)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return cfg, &configError{"PUBLIC_URL", public, "expected the absolute http(s) address people reach this server at, for example https://vibesell.example.com"}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	cfg.PublicURL = u

	switch lvl := strings.ToLower(orDefault(getenv("LOG_LEVEL"), "info")); lvl {
	case "debug":
		cfg.LogLevel = slog.LevelDebug
	case "info":
		cfg.LogLevel = slog.LevelInfo
	case "warn":
		cfg.LogLevel = slog.LevelWarn
	case "error":
		cfg.LogLevel = slog.LevelError
	default:
		return cfg, &configError{"LOG_LEVEL", lvl, "expected one of debug, info, warn, error"}
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return cfg, &configError{"LOG_FORMAT", cfg.LogFormat, "expected text or json"}
	}
	if v := getenv("SHUTDOWN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, &configError{"SHUTDOWN_TIMEOUT", v, "expected a positive duration such as 20s"}
		}
		cfg.ShutdownTimeout = d
	}
	if v := getenv("MCP_SESSION_MEMORY_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return cfg, &configError{"MCP_SESSION_MEMORY_TTL", v, "expected a duration of at least 1s, such as 10m"}
		}
		cfg.SessionMemoryTTL = d
	}
	if v := getenv("WEB_REQUEST_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, &configError{"WEB_REQUEST_TIMEOUT", v, "expected a positive duration such as 15s"}
		}
		cfg.WebRequestTimeout = d
	}
	if v := getenv("APPROVAL_REMINDER_BEFORE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, &configError{"APPROVAL_REMINDER_BEFORE", v, "expected a positive duration such as 24h"}
		}
		cfg.ApprovalReminder = d
	}
	if v := getenv("READ_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, &configError{"READ_TIMEOUT", v, "expected a positive duration such as 30s"}
		}
		cfg.ReadTimeout = d
	}
	for _, limit := range []struct {
		name     string
		into     *int
		min, max int
	}{
		{"MCP_SESSIONS_PER_WORKSPACE", &cfg.Sessions.PerWorkspace, 1, 1_000_000},
		{"MCP_SESSION_INFO_BYTES", &cfg.Sessions.InfoBytes, 256, 1 << 20},
		{"MCP_SESSION_MEMORY_PER_WORKSPACE", &cfg.SessionMemory.PerWorkspace, 1, 1_000_000},
		{"MCP_SESSION_MEMORY_PER_REPLICA", &cfg.SessionMemory.PerReplica, 1, 10_000_000},
	} {
		if v := getenv(limit.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < limit.min || n > limit.max {
				return cfg, &configError{limit.name, v, fmt.Sprintf("expected a whole number from %d to %d", limit.min, limit.max)}
			}
			*limit.into = n
		}
	}
	if v := getenv("ALLOWED_ORIGINS"); v != "" {
		for _, o := range strings.Split(v, ",") {
			o = strings.TrimSpace(o)
			ou, err := url.Parse(o)
			if err != nil || ou.Scheme == "" || ou.Host == "" || (ou.Path != "" && ou.Path != "/") {
				return cfg, &configError{"ALLOWED_ORIGINS", v, "expected a comma-separated list of origins such as https://claude.ai,https://app.example.com"}
			}
			cfg.AllowedOrigins = append(cfg.AllowedOrigins, ou.Scheme+"://"+ou.Host)
		}
	}
	if v := getenv("SUPPORT_EMAIL"); v != "" {
		a, err := mail.ParseAddress(v)
		if err != nil || a.Name != "" {
			return cfg, &configError{"SUPPORT_EMAIL", v, "expected the email address people write to for help, such as support@example.com"}
		}
		cfg.SupportEmail = a.Address
	}
	if v := getenv("CLIENT_IP_HEADER"); v != "" {
		if strings.ContainsAny(v, " :\t") {
			return cfg, &configError{"CLIENT_IP_HEADER", v, "expected a header name such as X-Forwarded-For"}
		}
		cfg.ClientIPHeader = http.CanonicalHeaderKey(v)
	}
	for name, limit := range map[string]*int{"OAUTH_REGISTER_LIMIT": &cfg.OAuthLimits.Register, "OAUTH_TOKEN_LIMIT": &cfg.OAuthLimits.Token,
		"OAUTH_METADATA_LIMIT": &cfg.OAuthLimits.Metadata} {
		if *limit, err = perMinuteLimit(name, getenv(name)); err != nil {
			return cfg, err
		}
	}
	if err := loadTestClientMetadata(&cfg, getenv); err != nil {
		return cfg, err
	}
	if cfg.Sending, err = sending.ConfigFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.Billing, err = billing.ConfigFromEnv(getenv); err != nil {
		return cfg, err
	}
	cfg.Audience = audience.Config{Currency: cfg.Sending.Currency, UploadURL: cfg.link(web.LeadsPath)}
	if v := getenv("AUDIENCE_MONTHLY_LEADS"); v != "" {
		// The plan's leads per month limit imports now; an old setting
		// must not be silently ignored.
		return cfg, &configError{"AUDIENCE_MONTHLY_LEADS", v, "it is no longer read: imports are held to the plan's leads per month; raise the free plan's with BILLING_FREE_LIMITS=leads=" + v}
	}
	cfg.Campaigns = campaigns.Config{ReplyRateLow: 1, ReplyRateHigh: 3, MaxDailyEmails: 1000, Currency: cfg.Sending.Currency}
	if v := getenv("CAMPAIGNS_REPLY_RATE"); v != "" {
		lo, hi, ok := strings.Cut(v, "-")
		l, errL := strconv.ParseFloat(strings.TrimSpace(lo), 64)
		h, errH := strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if !ok || errL != nil || errH != nil || l <= 0 || h < l || h > 100 {
			return cfg, &configError{"CAMPAIGNS_REPLY_RATE", v, "expected a range of reply rates in percent, low-high, such as 1-3"}
		}
		cfg.Campaigns.ReplyRateLow, cfg.Campaigns.ReplyRateHigh = l, h
	}
	if v := getenv("CAMPAIGNS_MAX_DAILY_EMAILS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return cfg, &configError{"CAMPAIGNS_MAX_DAILY_EMAILS", v, "expected the emails a workspace may schedule a day, a whole number from 1 to 1000000"}
		}
		cfg.Campaigns.MaxDailyEmails = n
	}
	if cfg.Mail, err = loadMailConfig(getenv); err != nil {
		return cfg, err
	}
	if err := loadTestSendGap(&cfg, getenv); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// perMinuteLimit reads a rate limit: empty for the default (0), a positive
// number of requests per minute, or off (-1).
func perMinuteLimit(name, v string) (int, error) {
	switch v {
	case "":
		return 0, nil
	case "off":
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, &configError{name, v, "expected a number of requests per client address per minute, such as 30, or off"}
	}
	return n, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// clientIP says where a request comes from, for the sign-in limits and the
// OAuth endpoints' limits: the
// connection's address, or behind a trusted proxy the header it sets.
func (c config) clientIP() func(*http.Request) string {
	if c.ClientIPHeader == "" {
		return nil
	}
	return web.ClientIPFromHeader(c.ClientIPHeader)
}

// link builds an absolute link the product hands out.
func (c config) link(path string) string {
	return c.PublicURL.String() + path
}
