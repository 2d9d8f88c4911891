// Package oauth lets remote MCP clients such as the Claude app connect to
// /mcp with OAuth 2.1: it is both the authorization server (metadata,
// authorize, token, dynamic client registration, client ID metadata
// documents, signing keys) and the resource server's side of it (protected
// resource metadata, bearer checks with audience and scope).
//
// Why not a framework: zitadel/oidc's op was the first pick, but it has no
// RFC 8707 resource parameter, no dynamic registration and no client ID
// metadata documents, and its refresh-token interface cannot revoke a
// grant on reuse; those are most of what MCP asks of an authorization
// server. So the protocol is here, small and tested against the official
// MCP Go SDK's client, and the cryptography is go-jose's (ES256 JWTs).
//
// Every state lives in PostgreSQL (keys, clients, pending requests, grants,
// codes, refresh tokens), so any replica serves any step, and a grant
// revoked on one replica stops its tokens on all of them: its access
// tokens within a second (each replica keeps the grants it checked in
// memory, kept true by notifications), its refresh token at once.
package oauth

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/store"
)

// The scopes offered are the catalog's (vibesell.Scopes: read, write, act,
// each covering those below it), the words every tool's spec declares its
// need in; a token calling a tool beyond its scopes gets 403
// insufficient_scope naming the scope the tool needs, and MCP clients then
// ask the person again (step-up).

// scopeOfflineAccess is accepted so that clients asking for refresh tokens
// the OIDC way are not refused; refresh tokens are issued either way.
const scopeOfflineAccess = "offline_access"

// Lifetimes.
const (
	accessTokenLifetime  = time.Hour
	refreshTokenLifetime = 30 * 24 * time.Hour
	codeLifetime         = 2 * time.Minute
	requestLifetime      = 30 * time.Minute
)

// Paths the authorization server answers at, under PUBLIC_URL.
const (
	PathAuthorize = "/oauth/authorize"
	PathToken     = "/oauth/token"
	PathRegister  = "/oauth/register"
	PathJWKS      = "/oauth/jwks"
	PathRevoke    = "/oauth/revoke"
	// PathConsent is the web app's page for a pending request; the
	// request's id follows it.
	PathConsent = "/app/connect/"
)

// Deps is what [New] needs.
type Deps struct {
	// PublicURL is PUBLIC_URL: the issuer, and with /mcp the one resource
	// that tokens are for.
	PublicURL string
	DB        *pgxpool.Pool
	// Clock tells the time for expiries. Default: the system clock.
	Clock vibesell.Clock
	// Logger receives internal failures under a ref. Default: slog.Default().
	Logger *slog.Logger
	// ClientMetadata configures fetching client ID metadata documents.
	ClientMetadata FetchConfig
	// RateLimits bound the registration and token endpoints per client
	// address. Default: [DefaultRegisterLimit] and [DefaultTokenLimit].
	RateLimits RateLimits
	// ClientIP returns the address a request comes from, for the rate
	// limits. Default: the connection's remote address; behind a trusted
	// reverse proxy, the web app's web.ClientIPFromHeader.
	ClientIP func(*http.Request) string
	// Notes, when set, make Authenticate answer for the last GrantsKept
	// grants it checked from memory, without a database round trip,
	// while notes are fresh: an access token is self-contained (its
	// signature is checked with the keys kept in memory), so only its
	// grant was read on every request. A grant revoked on any replica (a
	// disconnect, a refresh token used twice), a person disabled or
	// removed from the workspace, are seen by every replica within a
	// second; while notifications are lost, every check reads the
	// database. Nil: every check reads the database.
	Notes      *store.Notifications
	GrantsKept int
}

// Server is the authorization server and the resource server's checks.
type Server struct {
	cfg      Deps
	issuer   string
	resource string
	keys     *Keys
	fetcher  *fetcher
	db       *pgxpool.Pool
	clock    vibesell.Clock
	log      *slog.Logger
	clientIP func(*http.Request) string
	// With notes, the grants checked lately are kept in memory; see
	// [Deps].Notes.
	notes  *store.Notifications
	grants *lru.Cache[uuid.UUID, *knownGrant]
	// verifiedTokens are access tokens whose signature, issuer and
	// audience were checked (see verify).
	verifiedTokens *lru.Cache[[sha256.Size]byte, verified]
}

// New returns a Server. Call [Server.Keys].Ensure once at start. It
// panics without a DB or when PublicURL is not an absolute http(s) URL
// without a query or fragment: cmd/server checks PUBLIC_URL when it reads
// it, so only a mistake in the program's wiring gets here.
func New(d Deps) *Server {
	cfg := d
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		panic(fmt.Sprintf("oauth: PublicURL %q is not an absolute http(s) URL", cfg.PublicURL))
	}
	if cfg.DB == nil {
		panic("oauth: DB is required")
	}
	if cfg.Clock == nil {
		cfg.Clock = vibesell.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = remoteIP
	}
	cfg.RateLimits = cfg.RateLimits.withDefaults()
	issuer := strings.TrimRight(cfg.PublicURL, "/")
	verifiedTokens, _ := lru.New[[sha256.Size]byte, verified](tokensVerifiedKept)
	s := &Server{
		verifiedTokens: verifiedTokens,
		cfg:            cfg,
		issuer:         issuer,
		resource:       issuer + "/mcp",
		keys:           newKeys(cfg.DB, cfg.Clock),
		fetcher:        newFetcher(cfg.ClientMetadata),
		db:             cfg.DB,
		clock:          cfg.Clock,
		log:            cfg.Logger,
		clientIP:       cfg.ClientIP,
	}
	if d.Notes != nil {
		s.keepGrantsInMemory(d.Notes, d.GrantsKept)
	}
	return s
}

// Keys are the server's signing keys.
func (s *Server) Keys() *Keys { return s.keys }

// Issuer is the authorization server's issuer identifier.
func (s *Server) Issuer() string { return s.issuer }

// Resource is the canonical URL of /mcp, the audience of every token.
func (s *Server) Resource() string { return s.resource }

// Paths are the patterns to mount [Server.Handler] at.
var Paths = []string{
	"/.well-known/oauth-authorization-server",
	"/.well-known/oauth-protected-resource",
	"/.well-known/oauth-protected-resource/mcp",
	"/oauth/",
}

// Handler serves the authorization server's endpoints and both metadata
// documents, at [Paths].
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serveMetadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", s.serveResourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.serveResourceMetadata)
	mux.HandleFunc("GET "+PathAuthorize, s.authorize)
	mux.HandleFunc("POST "+PathToken, s.limited("token", s.cfg.RateLimits.Token, s.token))
	mux.HandleFunc("POST "+PathRegister, s.limited("register", s.cfg.RateLimits.Register, s.register))
	mux.HandleFunc("POST "+PathRevoke, s.revoke)
	mux.HandleFunc("GET "+PathJWKS, s.serveJWKS)
	return cors(mux)
}

// cors lets browser-based clients read the metadata and call the token and
// registration endpoints: they carry no cookies, so any origin may.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathAuthorize {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// metadata is RFC 8414's document, with the MCP additions.
type metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethods          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, metadata{
		Issuer:                            s.issuer,
		AuthorizationEndpoint:             s.issuer + PathAuthorize,
		TokenEndpoint:                     s.issuer + PathToken,
		RegistrationEndpoint:              s.issuer + PathRegister,
		RevocationEndpoint:                s.issuer + PathRevoke,
		JWKSURI:                           s.issuer + PathJWKS,
		ScopesSupported:                   append(vibesell.Scopes(), scopeOfflineAccess),
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethods:          []string{"none"},
		RevocationEndpointAuthMethods:     []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		ClientIDMetadataDocumentSupported: true,
		IssParameterSupported:             true,
	})
}

func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request) {
	set, err := s.keys.JWKS(r.Context())
	if err != nil {
		s.internal(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, set)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// oauthError is an error response of RFC 6749 §5.2 (and RFC 7591 §3.2.2,
// RFC 6750 §3.1): a code a client acts on and a sentence a person reads.
type oauthError struct {
	status      int
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func errorf(status int, code, format string, args ...any) *oauthError {
	return &oauthError{status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

// writeError answers err: an *oauthError as itself, anything else as a
// logged server_error.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *oauthError
	if !errors.As(err, &oe) {
		s.internal(w, r, err)
		return
	}
	if oe.status == http.StatusUnauthorized && oe.Code == "invalid_client" {
		// RFC 6749 §5.2: a 401 for client authentication names the scheme.
		w.Header().Set("WWW-Authenticate", `Basic realm="vibesell"`)
	}
	writeJSON(w, oe.status, oe)
}

func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	ref := newRef()
	s.log.ErrorContext(r.Context(), "oauth request failed", "ref", ref, "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, &oauthError{Code: "server_error",
		Description: fmt.Sprintf("Something went wrong on our side (ref %s). Try again in a minute.", ref)})
}
