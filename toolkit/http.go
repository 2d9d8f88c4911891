package toolkit

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell"
	"vibesell/auth"
	"vibesell/store"
)

// HTTPOptions configure [NewHTTPHandler].
type HTTPOptions struct {
	Tokens   *auth.Tokens
	Sessions *auth.Sessions
	// PublicURL is where people and clients reach the server; its host is
	// accepted in Host and its origin in Origin.
	PublicURL *url.URL
	// AllowedOrigins are further browser origins allowed to call /mcp.
	AllowedOrigins []string
	Logger         *slog.Logger
	// SessionMemoryTTL is how long a replica keeps a session's in-memory
	// state (mcp-go's) after its last request; the session itself lives
	// on in PostgreSQL, and its state is rebuilt on its next request.
	// Default 10 minutes.
	SessionMemoryTTL time.Duration
	// SessionMemory bounds how many sessions this replica keeps in memory,
	// per workspace and in all; zero fields take
	// [DefaultSessionMemoryLimits]. A session ended or deleted (to make
	// room for a new one) is forgotten at once, whatever the bounds.
	SessionMemory SessionMemoryLimits
	// Authenticate, when set, guards every request in place of the
	// workspace-token check (auth.RequireBearer): the OAuth resource
	// server, which takes its access tokens and workspace tokens alike.
	Authenticate func(next http.Handler) http.Handler
	// Available, when set, is asked before authenticating, and a request
	// is answered 503 with a ref when it fails; it must cost nothing while
	// the database is known to answer (cmd/server asks the database only
	// while its notifications are not fresh).
	Available func(ctx context.Context) error
}

// maxRequestBytes bounds one JSON-RPC message; the largest legitimate one
// (a CSV of leads is uploaded elsewhere) is far smaller.
const maxRequestBytes = 4 << 20

// NewHTTPHandler serves s over streamable HTTP at any path it is mounted
// on. Every request needs a bearer token; sessions live in PostgreSQL so
// that any replica serves any request of a session; Host and Origin are
// checked against DNS rebinding.
func NewHTTPHandler(s *server.MCPServer, o HTTPOptions) http.Handler {
	memory := newSessionMemory(o.SessionMemory)
	resolver := &sessionResolver{sessions: o.Sessions, logger: o.Logger, memory: memory}
	if o.SessionMemoryTTL <= 0 {
		o.SessionMemoryTTL = 10 * time.Minute
	}
	outages := store.NewOutageLog(o.Logger)
	streamable := server.NewStreamableHTTPServer(s,
		server.WithSessionIdManagerResolver(resolver),
		// The in-memory session mcp-go keeps per initialize is only a cache
		// here (PostgreSQL is the record): drop it when idle.
		server.WithSessionIdleTTL(o.SessionMemoryTTL),
		// Host and Origin are checked below, against PUBLIC_URL as well as
		// loopback, which mcp-go's own check cannot know about.
		server.WithDisableLocalhostProtection(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if p, ok := auth.FromContext(r.Context()); ok {
				return auth.NewContext(ctx, p)
			}
			return ctx
		}),
		server.WithStreamableHTTPLogger(o.Logger),
	)
	memory.forget = forgetVia(streamable)
	o.Sessions.OnEnd(memory.ended)
	guard := originGuard{public: o.PublicURL, allowed: o.AllowedOrigins}
	var h http.Handler = protocolEdgeFunc(func(w http.ResponseWriter, r *http.Request) { // protocol.go
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
		// The session is checked here, once, for every method, rather than
		// left to mcp-go: it checks none on GET (any id, another
		// workspace's or an ended one, opened an event stream, and a GET
		// without one stored a new session each time), answers an unknown
		// session on DELETE with a 500, and answers a check that failed on
		// the database with a 404 that tells the client to start over.
		id := r.Header.Get(server.HeaderKeySessionID)
		if modernProtocol(r) {
			// 2026-07-28 has no sessions: mcp-go ignores the header (a
			// client may still send the id it once had), serves each
			// request on its own, and answers GET and DELETE with 405.
			streamable.ServeHTTP(w, r)
			return
		}
		if id == "" && r.Method == http.MethodGet {
			http.Error(w, "Bad Request: GET needs the Mcp-Session-Id of an initialized session", http.StatusBadRequest)
			return
		}
		if id != "" {
			p, _ := auth.FromContext(r.Context())
			ctx, cancel := context.WithTimeout(r.Context(), sessionQueryTimeout)
			terminated, err := o.Sessions.Check(ctx, p.WorkspaceID, id)
			cancel()
			switch {
			case errors.Is(err, auth.ErrUnknownSession) || (err == nil && terminated):
				http.Error(w, "Session not found", http.StatusNotFound)
				return
			case err != nil:
				ref := vibesell.NewRef()
				if outages.Failed(r.Context(), ref, "check MCP session", err, "workspace", p.WorkspaceID) {
					w.Header().Set("Retry-After", "30")
					http.Error(w, "VibeSell cannot reach its database at the moment (ref "+ref+"). Try again in a minute.", http.StatusServiceUnavailable)
					return
				}
				http.Error(w, vibesell.InternalSentence(ref), http.StatusInternalServerError)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), checkedSessionKey{}, id))
			if r.Method != http.MethodDelete {
				memory.used(p.WorkspaceID, id)
			}
		}
		streamable.ServeHTTP(w, r)
	})
	if o.Authenticate != nil {
		h = o.Authenticate(h)
	} else {
		h = auth.RequireBearer(o.Tokens, o.Logger, h)
	}
	if o.Available != nil {
		h = availableFirst(o.Available, outages, h)
	}
	return guard.wrap(h)
}

// availabilityTimeout bounds the check of [HTTPOptions].Available, so
// that a hung database gets the client an answer.
const availabilityTimeout = 3 * time.Second

// availableFirst answers 503 with a ref, before authenticating, while the
// database cannot be reached: whatever authenticates then (the OAuth
// resource server, which answers such a failure with a bare 500 and
// waits on a hung database for as long as the client does) is not asked.
func availableFirst(available func(context.Context) error, outages *store.OutageLog, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), availabilityTimeout)
		err := available(ctx)
		cancel()
		if err != nil && r.Context().Err() == nil {
			ref := vibesell.NewRef()
			outages.Failed(r.Context(), ref, "reach the database", err)
			w.Header().Set("Retry-After", "30")
			http.Error(w, "VibeSell cannot reach its database at the moment (ref "+ref+"). Try again in a minute.", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ScopeOf returns, for the name of one of tools, the OAuth scope its spec
// declares (Needs().Scope), and "" for any other name. The OAuth resource
// server checks a token against it before a call reaches the server, so
// that a client can be asked to step up (403 insufficient_scope);
// [Options].Gate checks the same declaration again on every transport.
func ScopeOf(tools []Tool) func(name string) string {
	scopes := make(map[string]string, len(tools))
	for _, t := range tools {
		scopes[t.Name()] = t.Needs().Scope
	}
	return func(name string) string { return scopes[name] }
}

// originGuard refuses requests whose Host or Origin name a site other than
// this server: a page on another site (or a rebinding DNS name) must not be
// able to drive a server reachable from the browser.
type originGuard struct {
	public  *url.URL
	allowed []string
}

func (g originGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			http.Error(w, "Forbidden: this server does not answer to host "+r.Host, http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r.Host) {
			http.Error(w, "Forbidden: requests from "+origin+" are not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g originGuard) hostAllowed(host string) bool {
	if isLoopback(host) {
		return true
	}
	return g.public != nil && strings.EqualFold(host, g.public.Host)
}

func (g originGuard) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	o := u.Scheme + "://" + u.Host
	if g.public != nil && strings.EqualFold(o, g.public.Scheme+"://"+g.public.Host) {
		return true
	}
	for _, a := range g.allowed {
		if strings.EqualFold(o, a) {
			return true
		}
	}
	// A local client's page talking to a local server.
	return isLoopback(host) && isLoopback(u.Host)
}

func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sessionResolver hands mcp-go a session manager bound to the request's
// workspace, so a session id is valid only with a token of the workspace
// that opened it.
type sessionResolver struct {
	sessions *auth.Sessions
	logger   *slog.Logger
	memory   *sessionMemory
}

// ResolveSessionIdManager is called by mcp-go with a nil request outside
// any request: its idle sweeper (WithSessionIdleTTL) and CloseSessions at
// shutdown. Both only drop what this replica keeps in memory, which is not
// the end of the session (PostgreSQL keeps it for every replica, for 30
// days of idleness): the manager they get ends nothing. mcp-go v1.2.1
// would otherwise have the sweeper's nil request dereferenced, and its
// recover sits outside its loop, so the sweeper stopped for good at its
// first sweep and every session's memory was kept until restart.
func (r *sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	if req == nil || req.Context().Value(forgetKey{}) != nil {
		return forgetOnly{r.memory}
	}
	return r.manager(req)
}

// forgetOnly is the session manager of mcp-go's calls outside a request,
// and of the requests that forget a session ([forgetVia]): forgetting a
// session's in-memory state ends nothing.
type forgetOnly struct{ memory *sessionMemory }

func (forgetOnly) Generate() string              { return "" }
func (forgetOnly) Validate(string) (bool, error) { return false, auth.ErrUnknownSession }
func (f forgetOnly) Terminate(id string) (bool, error) {
	f.memory.dropped(id)
	return false, nil
}

// checkedSessionKey marks a request whose session (the value, its id) was
// found live for the request's workspace before mcp-go saw the request.
type checkedSessionKey struct{}

// modernProtocol reports whether the request speaks a protocol version
// without sessions (2026-07-28 and later), where mcp-go answers GET itself.
func modernProtocol(r *http.Request) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28"
}

func (r *sessionResolver) manager(req *http.Request) *sessionManager {
	p, _ := auth.FromContext(req.Context())
	return &sessionManager{ctx: context.WithoutCancel(req.Context()), principal: p, sessions: r.sessions, logger: r.logger, memory: r.memory}
}

// sessionManager implements mcp-go's SessionIdManager on PostgreSQL.
type sessionManager struct {
	ctx       context.Context
	principal auth.Principal
	sessions  *auth.Sessions
	logger    *slog.Logger
	memory    *sessionMemory
}

const sessionQueryTimeout = 5 * time.Second

func (m *sessionManager) Generate() string {
	ctx, cancel := context.WithTimeout(m.ctx, sessionQueryTimeout)
	defer cancel()
	id, err := m.sessions.Open(ctx, m.principal.WorkspaceID)
	if err != nil {
		// Generate cannot fail in mcp-go's interface. An id that was not
		// stored is answered with 404 on its next use, and the client
		// starts over: the failure is visible, never silent.
		m.logger.Error("open MCP session", "workspace", m.principal.WorkspaceID, "err", err)
		return auth.NewSessionID()
	}
	m.memory.used(m.principal.WorkspaceID, id)
	return id
}

func (m *sessionManager) Validate(id string) (bool, error) {
	if checked, _ := m.ctx.Value(checkedSessionKey{}).(string); checked == id && id != "" {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(m.ctx, sessionQueryTimeout)
	defer cancel()
	terminated, err := m.sessions.Check(ctx, m.principal.WorkspaceID, id)
	if err != nil && !errors.Is(err, auth.ErrUnknownSession) {
		m.logger.Error("check MCP session", "workspace", m.principal.WorkspaceID, "err", err)
	}
	return terminated, err
}

func (m *sessionManager) Terminate(id string) (bool, error) {
	ctx, cancel := context.WithTimeout(m.ctx, sessionQueryTimeout)
	defer cancel()
	m.memory.dropped(id) // mcp-go drops its state when this returns
	return false, m.sessions.Terminate(ctx, m.principal.WorkspaceID, id)
}

// RecordSessions returns hooks that store what a client says about itself
// at initialize (name, version, capabilities, protocol version) with its
// session, so every replica knows it.
func RecordSessions(sessions *auth.Sessions, logger *slog.Logger) *server.Hooks {
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		p, ok := auth.FromContext(ctx)
		cs := server.ClientSessionFromContext(ctx)
		if !ok || cs == nil || cs.SessionID() == "" {
			return
		}
		err := sessions.Describe(context.WithoutCancel(ctx), p.WorkspaceID, cs.SessionID(), res.ProtocolVersion,
			req.Params.ClientInfo.Name, req.Params.ClientInfo.Version, req.Params.Capabilities)
		if err != nil {
			logger.Error("record MCP session", "workspace", p.WorkspaceID, "err", err)
		}
	})
	return hooks
}
