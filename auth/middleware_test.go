package auth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/auth"
	"vibesell/store/storetest"
)

// countErrors counts the lines logged at ERROR.
type countErrors struct{ n atomic.Int32 }

func (c *countErrors) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (c *countErrors) Handle(context.Context, slog.Record) error {
	c.n.Add(1)
	return nil
}
func (c *countErrors) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *countErrors) WithGroup(string) slog.Handler      { return c }

// A stopped or hung database: every client gets a readable answer with a
// ref, the log a line a second at most.
func TestAnOutageIsAnsweredWithARefAndLoggedOnce(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]string{"stopped": storetest.StoppedURL(t), "hung": storetest.HungURL(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pool, err := pgxpool.New(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			logs := &countErrors{}
			h := auth.RequireBearer(auth.NewTokens(auth.TokensDeps{DB: pool}), slog.New(logs), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				t.Error("a request went through without its token checked")
			}))
			answer := regexp.MustCompile(`^VibeSell cannot reach its database at the moment \(ref [0-9a-f]{8}\)\. Try again in a minute\.\n$`)
			start := time.Now()
			const requests = 20
			var wg sync.WaitGroup
			for range requests {
				wg.Go(func() {
					r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
					r.Header.Set("Authorization", "Bearer vs_"+"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !answer.MatchString(w.Body.String()) {
						t.Errorf("%d %q", w.Code, w.Body.String())
					}
				})
			}
			wg.Wait()
			if lines, most := logs.n.Load(), 1+int32(time.Since(start)/time.Second); lines > most {
				t.Errorf("%d failed requests in %s logged %d lines; want at most one a second", requests, time.Since(start), lines)
			}
		})
	}
}
