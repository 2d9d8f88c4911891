package auth

import (
	"log/slog"
	"net/http"
	"strings"

	"vibesell"
)

// RequireBearer lets a request through only with a valid
// `Authorization: Bearer <token>`, and puts the token's [Principal] on its
// context. Without one the answer is 401 with a WWW-Authenticate challenge,
// as the MCP authorization spec asks.
func RequireBearer(tokens *Tokens, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			challenge(w, "", "This server needs Authorization: Bearer <token>. Create a token with `server token create --workspace SLUG`.")
			return
		}
		p, err := tokens.Authenticate(r.Context(), strings.TrimSpace(token))
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
			logger.ErrorContext(r.Context(), "authenticate", "err", err)
			http.Error(w, "Something went wrong on our side. Try again in a minute.", http.StatusInternalServerError)
			return
		}
		next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), p)))
	})
}

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
