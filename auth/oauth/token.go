package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/store"
)

// tokenResponse is RFC 6749 §5.1's answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// accessClaims are an access token's claims beyond the registered ones
// (RFC 9068).
type accessClaims struct {
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	GrantID  string `json:"gid"`
}

// token is the token endpoint: a code for tokens, or a refresh token for
// new ones. Clients are public: they prove themselves with PKCE and by
// holding the refresh token, never a secret.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, errorf(http.StatusBadRequest, "invalid_request", "The token request must be a form (application/x-www-form-urlencoded)."))
		return
	}
	clientID := r.PostForm.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok && clientID == "" {
		clientID = id
	}
	c, err := s.client(r.Context(), s.clientIP(r), clientID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var resp tokenResponse
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		resp, err = s.exchangeCode(r.Context(), c, r)
	case "refresh_token":
		resp, err = s.refresh(r.Context(), c, r)
	case "":
		err = errorf(http.StatusBadRequest, "invalid_request", "The grant_type is missing.")
	default:
		err = errorf(http.StatusBadRequest, "unsupported_grant_type", "The grant type %q is not offered; use authorization_code or refresh_token.", truncate(gt, 40))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) exchangeCode(ctx context.Context, c Client, r *http.Request) (tokenResponse, error) {
	code := r.PostForm.Get("code")
	if code == "" {
		return tokenResponse{}, errorf(http.StatusBadRequest, "invalid_request", "The code is missing.")
	}
	if err := s.checkResource(r.PostForm["resource"], true); err != nil {
		return tokenResponse{}, err
	}
	var redirectURI, challenge, grantClient string
	return s.redeem(ctx, oneTime{
		what: "authorization code", secret: code, unknown: errUnknownCode,
		read: `SELECT k.grant_id, k.used_at IS NOT NULL, k.expires_at > $2, k.redirect_uri, k.code_challenge, g.client_id
			FROM oauth_codes k JOIN oauth_grants g ON g.id = k.grant_id
			WHERE k.code_hash = $1 AND g.revoked_at IS NULL
			FOR UPDATE OF k`,
		more:  []any{&redirectURI, &challenge, &grantClient},
		check: func() error { return checkCodeRequest(c, r, grantClient, redirectURI, challenge) },
		take:  `UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1`,
	})
}

var errUnknownCode = errorf(http.StatusBadRequest, "invalid_grant", "This authorization code is unknown, expired or already used. Start the authorization again.")

// checkCodeRequest checks a code's redeem against what the code was
// issued for: the client, the redirect URI and the PKCE challenge.
func checkCodeRequest(c Client, r *http.Request, grantClient, redirectURI, challenge string) error {
	if grantClient != c.ID {
		return errorf(http.StatusBadRequest, "invalid_grant", "This authorization code was issued to another client.")
	}
	if ru := r.PostForm.Get("redirect_uri"); ru != redirectURI {
		return errorf(http.StatusBadRequest, "invalid_grant", "The redirect_uri must be the one sent to the authorization endpoint.")
	}
	verifier := r.PostForm.Get("code_verifier")
	if len(verifier) < 43 || len(verifier) > 128 {
		return errorf(http.StatusBadRequest, "invalid_grant", "The code_verifier is missing or not 43 to 128 characters long (PKCE is required).")
	}
	vsum := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(vsum[:])), []byte(challenge)) != 1 {
		return errorf(http.StatusBadRequest, "invalid_grant", "The code_verifier does not match the code_challenge (PKCE).")
	}
	return nil
}

func (s *Server) refresh(ctx context.Context, c Client, r *http.Request) (tokenResponse, error) {
	rt := r.PostForm.Get("refresh_token")
	if rt == "" {
		return tokenResponse{}, errorf(http.StatusBadRequest, "invalid_request", "The refresh_token is missing.")
	}
	// Many clients leave resource out when refreshing; when sent, it must
	// still name this server.
	if err := s.checkResource(r.PostForm["resource"], false); err != nil {
		return tokenResponse{}, err
	}
	if _, err := scopesOf(r.PostForm.Get("scope")); err != nil {
		return tokenResponse{}, err
	}
	var grantClient string
	return s.redeem(ctx, oneTime{
		what: "refresh token", secret: rt, unknown: errUnknownRefresh,
		read: `SELECT t.grant_id, t.used_at IS NOT NULL, t.expires_at > $2, g.client_id
			FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id
			WHERE t.token_hash = $1 AND g.revoked_at IS NULL
			FOR UPDATE OF t`,
		more: []any{&grantClient},
		check: func() error {
			if grantClient != c.ID {
				return errorf(http.StatusBadRequest, "invalid_grant", "This refresh token was issued to another client.")
			}
			return nil
		},
		take: `UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1`,
	})
}

var errUnknownRefresh = errorf(http.StatusBadRequest, "invalid_grant",
	"This refresh token is unknown, expired, already used or its connection was disconnected. Connect again.")

// oneTime is a secret a grant hands out to be redeemed once: an
// authorization code or a refresh token.
type oneTime struct {
	what    string // "authorization code": for errors and the revocation's reason
	secret  string // as the client sent it; stored as its SHA-256
	unknown error  // the refusal of one unknown, expired, already used or of an ended grant
	// read selects, by the secret's hash ($1) at now ($2), with its row
	// locked: the grant, whether the secret was used, whether it is
	// still live, then what check needs, scanned into more.
	read  string
	more  []any
	check func() error // the request against what the secret was issued for
	take  string       // marks the secret used: $1 its hash, $2 now
}

// redeem uses the secret up and issues tokens for its grant. Only a
// request that passes every check uses it: a request with a wrong
// verifier, client or redirect_uri (someone who saw the secret in a log)
// leaves it for the real client. The row is locked while it is checked,
// so two redeems are one after the other. One used a second time, after
// passing every check, means two parties hold it (a code stolen along
// with its verifier, RFC 6749 §4.1.2; a rotated refresh token come back,
// OAuth 2.1 §4.3.1), so its whole grant ends.
func (s *Server) redeem(ctx context.Context, o oneTime) (tokenResponse, error) {
	now := s.clock.Now()
	sum := sha256.Sum256([]byte(o.secret))
	var grantID uuid.UUID
	var refusal error
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var used, live bool
		err := tx.QueryRow(ctx, o.read, sum[:], now).Scan(append([]any{&grantID, &used, &live}, o.more...)...)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && !used && !live {
			refusal = o.unknown
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", o.what, err)
		}
		if refusal = o.check(); refusal != nil {
			return nil
		}
		if used {
			refusal = o.unknown
			return s.revokeWhere(ctx, tx, `id = $1`, o.what+" used twice", grantID)
		}
		if _, err := tx.Exec(ctx, o.take, sum[:], now); err != nil {
			return fmt.Errorf("take %s: %w", o.what, err)
		}
		return nil
	})
	if err != nil {
		return tokenResponse{}, err
	}
	if refusal != nil {
		return tokenResponse{}, refusal
	}
	return s.issue(ctx, grantID, now)
}

// issue signs an access token for the grant and stores a new refresh
// token.
func (s *Server) issue(ctx context.Context, grantID uuid.UUID, now time.Time) (tokenResponse, error) {
	var userID uuid.UUID
	var clientID, scope, resource string
	refresh := "vsr_" + randomToken()
	sum := sha256.Sum256([]byte(refresh))
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1 AND revoked_at IS NULL
			RETURNING user_id, client_id, scope, resource`, grantID, now).Scan(&userID, &clientID, &scope, &resource)
		if errors.Is(err, pgx.ErrNoRows) {
			return errorf(http.StatusBadRequest, "invalid_grant", "This connection was disconnected. Connect again.")
		}
		if err != nil {
			return fmt.Errorf("read grant: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES ($1, $2, $3)`,
			sum[:], grantID, now.Add(refreshTokenLifetime)); err != nil {
			return fmt.Errorf("store refresh token: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_clients SET last_used_at = $2 WHERE id = $1`, clientID, now); err != nil {
			return fmt.Errorf("touch client: %w", err)
		}
		return nil
	})
	if err != nil {
		return tokenResponse{}, err
	}
	signer, err := s.keys.signer(ctx)
	if err != nil {
		return tokenResponse{}, err
	}
	access, err := jwt.Signed(signer).Claims(jwt.Claims{
		Issuer:   s.issuer,
		Subject:  userID.String(),
		Audience: jwt.Audience{resource},
		Expiry:   jwt.NewNumericDate(now.Add(accessTokenLifetime)),
		IssuedAt: jwt.NewNumericDate(now),
		ID:       uuid.NewString(),
	}).Claims(accessClaims{ClientID: clientID, Scope: scope, GrantID: grantID.String()}).Serialize()
	if err != nil {
		return tokenResponse{}, fmt.Errorf("sign access token: %w", err)
	}
	return tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(accessTokenLifetime / time.Second),
		RefreshToken: refresh, Scope: scope}, nil
}

// revokeWhere revokes the grants matching a condition on oauth_grants.
func (s *Server) revokeWhere(ctx context.Context, db store.DBTX, cond, why string, args ...any) error {
	n := len(args)
	_, err := db.Exec(ctx, fmt.Sprintf(`UPDATE oauth_grants SET revoked_at = $%d, revoked_why = $%d
		WHERE revoked_at IS NULL AND %s`, n+1, n+2, cond), append(args, s.clock.Now(), why)...)
	if err != nil {
		return fmt.Errorf("revoke grant (%s): %w", why, err)
	}
	return nil
}

// revoke is RFC 7009's endpoint: a client disconnecting itself. A refresh
// token ends its grant; an access token, which cannot be taken back alone,
// ends its grant too. Unknown tokens are answered 200 as the RFC asks.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		s.writeError(w, r, errorf(http.StatusBadRequest, "invalid_request", "Send the token to revoke as a form field named token."))
		return
	}
	tok := r.PostForm.Get("token")
	var err error
	if claims, verr := s.verify(r.Context(), tok); verr == nil {
		err = s.revokeWhere(r.Context(), s.db, `id = $1`, "revoked by the client", claims.GrantID)
	} else {
		sum := sha256.Sum256([]byte(tok))
		err = s.revokeWhere(r.Context(), s.db, `id = (SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1)`, "revoked by the client", sum[:])
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}
