package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/web"
)

// A database that is stopped or hung gets every person a page that says
// so with a ref, and the log a line a second at most, not one a request.
func TestADatabaseOutageIsAnsweredAndLoggedOnce(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]string{"stopped": storetest.StoppedURL(t), "hung": storetest.HungURL(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pool, err := pgxpool.New(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			logs := &errorLog{}
			logger := slog.New(logs)
			svc := approvals.New(approvals.Deps{DB: pool, Clock: vibesell.SystemClock{}, PublicURL: "http://127.0.0.1", Logger: logger})
			h := web.New(web.Deps{PublicURL: "http://127.0.0.1", Accounts: auth.NewAccounts(auth.AccountsDeps{DB: pool}), Approvals: svc,
				Logger: logger, RequestTimeout: 200 * time.Millisecond})
			start := time.Now()
			const requests = 20
			refs := map[string]bool{}
			for range requests {
				r := httptest.NewRequest(http.MethodGet, "/app/approvals", nil)
				r.AddCookie(&http.Cookie{Name: "vibesell_session", Value: "vsw_" + strings.Repeat("a", 43)})
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				m := regexp.MustCompile(`VibeSell cannot reach its database at the moment \(ref ([0-9a-f]{8})\)`).FindStringSubmatch(w.Body.String())
				if w.Code != http.StatusServiceUnavailable || m == nil {
					t.Fatalf("%d\n%s", w.Code, w.Body.String())
				}
				refs[m[1]] = true
			}
			if len(refs) != requests {
				t.Errorf("%d requests got %d refs", requests, len(refs))
			}
			if lines, most := len(logs.errors()), 1+int(time.Since(start)/time.Second); lines > most {
				t.Errorf("%d failed requests in %s logged %d lines; want at most one a second", requests, time.Since(start), lines)
			}
		})
	}
}
