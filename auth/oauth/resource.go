package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/auth"
	"vibesell/store"
)

// PathResourceMetadata is where /mcp's protected resource metadata
// (RFC 9728) is, in the path form MCP clients look for first.
const PathResourceMetadata = "/.well-known/oauth-protected-resource/mcp"

// grantTouchEvery bounds how often a busy grant's last use is written.
const grantTouchEvery = time.Minute

// serveResourceMetadata serves RFC 9728's document for /mcp, at the path
// form and at the root (for clients that only look there).
func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.resource,
		"authorization_servers":    []string{s.issuer},
		"scopes_supported":         vibesell.Scopes(),
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "VibeSell",
	})
}

// verified is what a valid access token says.
type verified struct {
	jwt.Claims
	accessClaims
}

// errToken is a refusal of an access token, with the sentence for the
// WWW-Authenticate error_description.
type errToken struct{ why string }

func (e *errToken) Error() string { return e.why }

// verify checks an access token's signature, issuer, audience and
// expiry. It does not look at the grant: see [Server.Authenticate].
//
// What the token's bytes say is checked once: a token that passed is kept
// (by its SHA-256, the last tokensVerifiedKept of them) and only its times
// are checked again on its next requests, the signature check costing as
// much as the rest of a request. A key is never withdrawn before the
// tokens it signed have expired, so a kept token stays as valid as its
// bytes.
func (s *Server) verify(ctx context.Context, token string) (verified, error) {
	sum := sha256.Sum256([]byte(token))
	v, ok := s.verifiedTokens.Get(sum)
	if !ok {
		var err error
		if v, err = s.verifySigned(ctx, token); err != nil {
			return verified{}, err
		}
	}
	now := s.clock.Now()
	if v.Expiry == nil || !now.Before(v.Expiry.Time()) {
		return verified{}, &errToken{"The access token has expired; refresh it."}
	}
	if v.IssuedAt != nil && v.IssuedAt.Time().After(now.Add(time.Minute)) {
		return verified{}, &errToken{"The access token is not valid yet."}
	}
	if !ok {
		s.verifiedTokens.Add(sum, v)
	}
	return v, nil
}

// tokensVerifiedKept is how many verified access tokens a server keeps.
const tokensVerifiedKept = 10_000

// verifySigned checks what does not change with time: the signature, the
// issuer and the audience.
func (s *Server) verifySigned(ctx context.Context, token string) (verified, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(tok.Headers) != 1 {
		return verified{}, &errToken{"The access token is malformed."}
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, "at+jwt") {
		return verified{}, &errToken{"This is not an access token."}
	}
	pub, err := s.keys.public(ctx, h.KeyID)
	if err != nil {
		return verified{}, err
	}
	if pub == nil {
		return verified{}, &errToken{"The access token was not signed by this server."}
	}
	var v verified
	if err := tok.Claims(pub, &v.Claims, &v.accessClaims); err != nil {
		return verified{}, &errToken{"The access token's signature is not valid."}
	}
	if v.Issuer != s.issuer {
		return verified{}, &errToken{"The access token was issued by " + truncate(v.Issuer, 100) + ", not by this server."}
	}
	if len(v.Audience) != 1 || v.Audience[0] != s.resource {
		return verified{}, &errToken{fmt.Sprintf("The access token is for %s, not for %s.", truncate(strings.Join(v.Audience, ", "), 200), s.resource)}
	}
	return v, nil
}

// errGrantRevoked answers a token whose grant was disconnected.
var errGrantRevoked = &errToken{"This connection was disconnected in VibeSell. Connect again."}

// knownGrant is a grant as a request needs it, kept in memory.
type knownGrant struct {
	// principal is who the grant acts for, without the token's scopes.
	principal auth.Principal
	// usedAt is when last_used_at was last written, in Unix nanoseconds
	// (0: never).
	usedAt atomic.Int64
}

// keepGrantsInMemory keeps the last size grants checked while notes are
// fresh ([Deps].Notes).
func (s *Server) keepGrantsInMemory(notes *store.Notifications, size int) {
	s.grants, _ = lru.New[uuid.UUID, *knownGrant](max(size, 1))
	s.notes = notes
	notes.Subscribe(store.GrantsChannel, func(payload string) {
		id, err := uuid.Parse(payload)
		if err != nil {
			s.grants.Purge() // "*", or a payload this version does not know: forget all
			return
		}
		s.grants.Remove(id)
	}, s.grants.Purge)
}

// Authenticate returns who an access token acts for, with the scopes the
// person granted: the token must be valid (see verify) and its grant still
// connected, with its person still in the workspace. The grant is read
// from the database, or, with [Deps].Notes, from memory
// while notifications are fresh, so that a disconnect on one replica holds
// on all of them within a second.
func (s *Server) Authenticate(ctx context.Context, token string) (auth.Principal, error) {
	v, err := s.verify(ctx, token)
	if err != nil {
		return auth.Principal{}, err
	}
	gid, err := uuid.Parse(v.GrantID)
	if err != nil {
		return auth.Principal{}, &errToken{"The access token names no connection."}
	}
	g, err := s.grant(ctx, gid)
	if err != nil {
		return auth.Principal{}, err
	}
	p := g.principal
	p.GrantID, p.Scopes = gid, strings.Fields(v.Scope)
	return p, nil
}

// grant returns the connected grant gid, from memory when it may, and
// records its use at most every grantTouchEvery. Errors: errGrantRevoked.
func (s *Server) grant(ctx context.Context, gid uuid.UUID) (*knownGrant, error) {
	if s.grants != nil && s.notes.Fresh() {
		if g, ok := s.grants.Get(gid); ok {
			return g, s.touchGrant(ctx, gid, g)
		}
	}
	generation := s.notes.Generation(store.GrantsChannel)
	g := &knownGrant{}
	p := &g.principal
	var lastUsed *time.Time
	err := s.db.QueryRow(ctx, `SELECT g.workspace_id, w.slug, g.user_id, u.email, c.name, g.last_used_at
		FROM oauth_grants g JOIN workspaces w ON w.id = g.workspace_id JOIN users u ON u.id = g.user_id
			JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.id = $1 AND g.revoked_at IS NULL AND u.disabled_at IS NULL
			AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = g.user_id AND m.workspace_id = g.workspace_id)`, gid).
		Scan(&p.WorkspaceID, &p.WorkspaceSlug, &p.UserID, &p.UserEmail, &p.ClientName, &lastUsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errGrantRevoked
	}
	if err != nil {
		return nil, fmt.Errorf("check grant: %w", err)
	}
	if lastUsed != nil {
		g.usedAt.Store(lastUsed.UnixNano())
	}
	// Kept only if no notification came during the read: it may have
	// been of a revocation the read did not see.
	if s.grants != nil && s.notes.Fresh() && s.notes.Generation(store.GrantsChannel) == generation {
		s.grants.Add(gid, g)
	}
	return g, s.touchGrant(ctx, gid, g)
}

// touchGrant records that the grant was used, at most every
// grantTouchEvery (the connections page shows it to the minute).
func (s *Server) touchGrant(ctx context.Context, gid uuid.UUID, g *knownGrant) error {
	now := s.clock.Now()
	last := g.usedAt.Load()
	if (last != 0 && now.Sub(time.Unix(0, last)) <= grantTouchEvery) || !g.usedAt.CompareAndSwap(last, now.UnixNano()) {
		return nil
	}
	if _, err := s.db.Exec(ctx, `UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1`, gid, now); err != nil {
		g.usedAt.CompareAndSwap(now.UnixNano(), last) // tried again by the next request
		return fmt.Errorf("touch grant: %w", err)
	}
	return nil
}

// RequireBearer guards /mcp: a request needs `Authorization: Bearer` with
// either an access token from this server (audience /mcp, grant connected)
// or a workspace token from `server token create`, which carries every
// scope. Refusals carry the WWW-Authenticate challenge MCP clients follow
// to sign in: 401 with resource_metadata and the scopes to ask for, or 403
// insufficient_scope naming the scope a tool call needs when the token's
// scopes do not cover it (step-up). scopeOf gives the scope a tool
// declares ("" for a name it does not know, left to the MCP server to
// answer); nil means every tool needs the most.
func (s *Server) RequireBearer(tokens *auth.Tokens, scopeOf func(tool string) string, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("access_token") {
			s.challenge(w, http.StatusBadRequest, "invalid_request", "Send the access token in the Authorization header, never in the URL.")
			return
		}
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			s.challenge(w, http.StatusUnauthorized, "", "This server needs Authorization: Bearer <token>: connect with OAuth, or create a token with `server token create --workspace SLUG`.")
			return
		}
		var p auth.Principal
		var err error
		if strings.HasPrefix(token, "vs_") {
			p, err = tokens.Authenticate(r.Context(), token)
			p.Scopes = vibesell.Scopes() // it stands for the whole workspace
		} else {
			p, err = s.Authenticate(r.Context(), token)
			if err == nil {
				if needed, why := s.stepUp(w, r, p.Scopes, scopeOf); needed != "" {
					s.insufficientScope(w, needed, why)
					return
				}
			}
		}
		var bad *errToken
		switch {
		case err == nil:
			next.ServeHTTP(w, r.WithContext(auth.NewContext(r.Context(), p)))
		case errors.As(err, &bad):
			s.challenge(w, http.StatusUnauthorized, "invalid_token", bad.why)
		case vibesell.ErrorCode(err) == vibesell.EUNAUTHORIZED:
			s.challenge(w, http.StatusUnauthorized, "invalid_token", vibesell.ErrorMessage(err))
		case r.Context().Err() != nil:
			logger.DebugContext(r.Context(), "authenticate: client gone", "err", err)
		default:
			logger.ErrorContext(r.Context(), "authenticate", "err", err)
			http.Error(w, "Something went wrong on our side. Try again in a minute.", http.StatusInternalServerError)
		}
	})
}

// maxPeekBytes bounds how much of a request is read to see which tools it
// calls; /mcp itself takes no larger message.
const maxPeekBytes = 4 << 20

// stepUp returns the scope a request needs beyond granted, and why, or ""
// when granted covers it: any request needs the least scope, and a tool
// call the scope its tool declares. Only a token short of the most scope
// has its body read (and put back for the next handler).
func (s *Server) stepUp(w http.ResponseWriter, r *http.Request, granted []string, scopeOf func(string) string) (needed, why string) {
	if vibesell.ScopeCovers(granted, vibesell.ScopeAct) {
		return "", ""
	}
	if !vibesell.ScopeCovers(granted, vibesell.ScopeRead) {
		return vibesell.ScopeRead, fmt.Sprintf("This token has none of the scopes VibeSell's tools need; authorize again with %q.", vibesell.ScopeRead)
	}
	if r.Method != http.MethodPost {
		return "", ""
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPeekBytes))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", "" // the MCP handler answers a body it cannot read
	}
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var calls []call
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		_ = json.Unmarshal(trimmed, &calls)
	} else {
		var c call
		_ = json.Unmarshal(trimmed, &c)
		calls = append(calls, c)
	}
	for _, c := range calls {
		if c.Method != "tools/call" {
			continue
		}
		scope := vibesell.ScopeAct
		if scopeOf != nil {
			scope = scopeOf(c.Params.Name)
		}
		// In a batch, the most any call needs: one authorization covers all.
		if scope != "" && !vibesell.ScopeCovers(granted, scope) && !vibesell.ScopeCovers([]string{needed}, scope) {
			needed = scope
			why = fmt.Sprintf("%s needs the %q scope, which this token lacks: authorize again with it.", truncate(c.Params.Name, 60), scope)
		}
	}
	return needed, why
}

// challenge answers a refused request with RFC 6750's WWW-Authenticate,
// pointing at the resource metadata (RFC 9728 §5.1) and naming the scopes
// to ask for: every scope a tool may need.
func (s *Server) challenge(w http.ResponseWriter, status int, code, description string) {
	s.writeChallenge(w, status, strings.Join(vibesell.Scopes(), " "), code, description)
}

// insufficientScope answers a token whose scopes do not cover a call with
// 403 insufficient_scope naming the scope it needs, which covers what the
// token had (each scope covers those below it), so a client that asks for
// it again loses nothing.
func (s *Server) insufficientScope(w http.ResponseWriter, needed, description string) {
	s.writeChallenge(w, http.StatusForbidden, needed, "insufficient_scope", description)
}

func (s *Server) writeChallenge(w http.ResponseWriter, status int, scope, code, description string) {
	v := fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, s.issuer+PathResourceMetadata, scope)
	if code != "" {
		v += fmt.Sprintf(`, error="%s", error_description="%s"`, code, strings.ReplaceAll(description, `"`, `'`))
	}
	w.Header().Set("WWW-Authenticate", v)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(description + "\n"))
}
