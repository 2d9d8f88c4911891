package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A page is written into one bounded buffer that stops the template once
// the request's time is up or the page outgrows maxPageBytes: the answer
// is then a short sentence under a ref, never a page half written, and
// the work stops where it is (html/template itself reads no context).
func TestRenderingIsBoundedAndHonoursTheDeadline(t *testing.T) {
	t.Parallel()
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{Deps: Deps{Logger: slog.New(slog.DiscardHandler)}, pages: pages}
	type answer struct {
		Status   int
		Internal bool // the sentence of an internal failure, not a page
	}
	render := func(ctx context.Context, message string) answer {
		t.Helper()
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/app/x", nil).WithContext(ctx)
		s.render(rec, r, http.StatusOK, "error", pageData{Title: "A page", Message: message})
		body := rec.Body.String()
		if len(body) > maxPageBytes {
			t.Errorf("%d bytes sent, more than the bound", len(body))
		}
		return answer{rec.Code, strings.Contains(body, "(ref ") && !strings.Contains(body, "<html")}
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	got := map[string]answer{
		"a page within the bounds":      render(context.Background(), "Hello."),
		"a page larger than the bound":  render(context.Background(), strings.Repeat("a", maxPageBytes)),
		"a request whose time is up":    render(past, "Hello."),
		"a request its client has left": render(done, "Hello."),
	}
	want := map[string]answer{
		"a page within the bounds":      {http.StatusOK, false},
		"a page larger than the bound":  {http.StatusInternalServerError, true},
		"a request whose time is up":    {http.StatusServiceUnavailable, true},
		"a request its client has left": {http.StatusServiceUnavailable, true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", d)
	}
}
