package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/auth"
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
		"scopes_supported":         []string{Scope, ScopeRead},
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
func (s *Server) verify(ctx context.Context, token string) (verified, error) {
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
	now := s.clock.Now()
	if v.Expiry == nil || !now.Before(v.Expiry.Time()) {
		return verified{}, &errToken{"The access token has expired; refresh it."}
	}
	if v.IssuedAt != nil && v.IssuedAt.Time().After(now.Add(time.Minute)) {
		return verified{}, &errToken{"The access token is not valid yet."}
	}
	return v, nil
}

// errGrantRevoked answers a token whose grant was disconnected.
var errGrantRevoked = &errToken{"This connection was disconnected in VibeSell. Connect again."}

// Authenticate returns who an access token acts for: it must be valid
// (see verify) and its grant still connected, which is read from the
// database on every request so that a disconnect on one replica holds on
// all of them at once. It returns the token's scopes too.
func (s *Server) Authenticate(ctx context.Context, token string) (auth.Principal, []string, error) {
	v, err := s.verify(ctx, token)
	if err != nil {
		return auth.Principal{}, nil, err
	}
	gid, err := uuid.Parse(v.GrantID)
	if err != nil {
		return auth.Principal{}, nil, &errToken{"The access token names no connection."}
	}
	p := auth.Principal{GrantID: gid}
	var lastUsed *time.Time
	now := s.clock.Now()
	err = s.db.QueryRow(ctx, `SELECT g.workspace_id, w.slug, g.user_id, u.email, c.name, g.last_used_at
		FROM oauth_grants g JOIN workspaces w ON w.id = g.workspace_id JOIN users u ON u.id = g.user_id
			JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.id = $1 AND g.revoked_at IS NULL AND u.disabled_at IS NULL
			AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = g.user_id AND m.workspace_id = g.workspace_id)`, gid).
		Scan(&p.WorkspaceID, &p.WorkspaceSlug, &p.UserID, &p.UserEmail, &p.ClientName, &lastUsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.Principal{}, nil, errGrantRevoked
	}
	if err != nil {
		return auth.Principal{}, nil, fmt.Errorf("check grant: %w", err)
	}
	if lastUsed == nil || now.Sub(*lastUsed) > grantTouchEvery {
		if _, err := s.db.Exec(ctx, `UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1`, gid, now); err != nil {
			return auth.Principal{}, nil, fmt.Errorf("touch grant: %w", err)
		}
	}
	return p, strings.Fields(v.Scope), nil
}

// RequireBearer guards /mcp: a request needs `Authorization: Bearer` with
// either an access token from this server (audience /mcp, grant connected)
// or a workspace token from `server token create`. Refusals carry the
// WWW-Authenticate challenge MCP clients follow to sign in: 401 with
// resource_metadata and scope, or 403 insufficient_scope when a token's
// scope does not cover the call; readOnly says which tools a read-only
// token may call (nil: none).
func (s *Server) RequireBearer(tokens *auth.Tokens, readOnly func(tool string) bool, logger *slog.Logger, next http.Handler) http.Handler {
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
		} else {
			var scopes []string
			p, scopes, err = s.Authenticate(r.Context(), token)
			if err == nil && !slices.Contains(scopes, Scope) {
				if why := s.beyondReadOnly(w, r, scopes, readOnly); why != "" {
					s.challenge(w, http.StatusForbidden, "insufficient_scope", why)
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

// maxPeekBytes bounds how much of a read-only token's request is read to
// see which tool it calls; /mcp itself takes no larger message.
const maxPeekBytes = 4 << 20

// beyondReadOnly returns why a request of a token without the full scope
// goes beyond it, or "" when it does not: the token must have the read
// scope, and a tool call must be of a read-only tool. It reads the body
// and puts it back for the next handler.
func (s *Server) beyondReadOnly(w http.ResponseWriter, r *http.Request, scopes []string, readOnly func(string) bool) string {
	if !slices.Contains(scopes, ScopeRead) {
		return fmt.Sprintf("This token lacks the %q scope that VibeSell's tools need; authorize again with it.", Scope)
	}
	if r.Method != http.MethodPost {
		return ""
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPeekBytes))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "" // the MCP handler answers a body it cannot read
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
		if c.Method == "tools/call" && (readOnly == nil || !readOnly(c.Params.Name)) {
			return fmt.Sprintf("This token may only read, and %s changes things: authorize again with the %q scope.", truncate(c.Params.Name, 60), Scope)
		}
	}
	return ""
}

// challenge answers a refused request with RFC 6750's WWW-Authenticate,
// pointing at the resource metadata (RFC 9728 §5.1) and naming the scope
// to ask for.
func (s *Server) challenge(w http.ResponseWriter, status int, code, description string) {
	v := fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, s.issuer+PathResourceMetadata, Scope)
	if code != "" {
		v += fmt.Sprintf(`, error="%s", error_description="%s"`, code, strings.ReplaceAll(description, `"`, `'`))
	}
	w.Header().Set("WWW-Authenticate", v)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(description + "\n"))
}
