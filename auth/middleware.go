package auth

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"vibesell"
	"vibesell/store"
)

// RequireBearer lets a request through only with a valid
// `Authorization: Bearer <token>`, and puts the token's [Principal] on its
// context. Without one the answer is 401 with a WWW-Authenticate challenge,
// as the MCP authorization spec asks.
//
// When the token cannot be checked, the answer has a ref, and is a 503
// with Retry-After when the database is unavailable (stopped, hung: the
// check gives up after tokenCheckTimeout), logged a line a second at most.
func RequireBearer(tokens *Tokens, logger *slog.Logger, next http.Handler) http.Handler {
	outages := store.NewOutageLog(logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			challenge(w, "", "This server needs Authorization: Bearer <token>. Create a token with `server token create --workspace SLUG`.")
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), tokenCheckTimeout)
		p, err := tokens.Authenticate(ctx, strings.TrimSpace(token))
		cancel()
		if err != nil {
			if vibesell.ErrorCode(err) == vibesell.EUNAUTHORIZED {
				challenge(w, "invalid_token", vibesell.ErrorMessage(err))
				return
			}
			if r.Context().Err() != nil {
				// The client went away mid-check; nobody is waiting for
				// an answer and nothing is wrong on our side.
				logger.DebugContext(r.Context(), "authenticate: client gone", "err", err)
				return
			}
			ref := vibesell.NewRef()
			if outages.Failed(r.Context(), ref, "authenticate", err) {
				w.Header().Set("Retry-After", "30")
				http.Error(w, "VibeSell cannot reach its database at the moment (ref "+ref+"). Try again in a minute.", http.StatusServiceUnavailable)
				return
			}
			http.Error(w, vibesell.InternalSentence(ref), http.StatusInternalServerError)
			return
		}
		next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), p)))
	})
}

// tokenCheckTimeout bounds the check of a token, so that a hung database
// gets the client an answer.
const tokenCheckTimeout = 5 * time.Second

func challenge(w http.ResponseWriter, errCode, message string) {
	value := `Bearer realm="vibesell"`
	if errCode != "" {
		value += `, error="` + errCode + `"`
	}
	w.Header().Set("WWW-Authenticate", value)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(message + "\n"))
}
