package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"vibesell/store/storetest"
)

// The privacy page, the terms and the support page answer at the
// addresses the directory is given, signed out, with the operator's
// address from SUPPORT_EMAIL; the privacy page states the job client's
// retention as the job client is configured with it.
func TestPolicyPagesAnswerAtTheRoot(t *testing.T) {
	t.Parallel()
	if got := jobConfig(nil, nil, slog.New(slog.DiscardHandler)).CompletedJobRetentionPeriod; got != completedJobsKept {
		t.Fatalf("the job client keeps finished jobs %v, the privacy page says %v", got, completedJobsKept)
	}
	s := startServer(t, "DATABASE_URL", storetest.NewEmptyURL(t), "LOG_LEVEL", "warn", "SUPPORT_EMAIL", "help@operator.test")
	s.waitReady(t)
	for path, want := range map[string]string{
		"/privacy":     "Deleted 2 hours after the task is done",
		"/terms":       "The assistant cannot pay",
		"/app/support": "mailto:help@operator.test",
	} {
		res, err := http.Get("http://" + s.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Request.URL.Path != path {
			t.Errorf("%s signed out: %d at %s", path, res.StatusCode, res.Request.URL.Path)
			continue
		}
		if !strings.Contains(string(body), want) || !strings.Contains(string(body), "help@operator.test") {
			t.Errorf("%s lacks %q or the support address", path, want)
		}
	}
}

func TestSupportEmailMustBeAnAddress(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"not an address", "Help <help@operator.test>"} {
		if msg := configRefusal(t, "SUPPORT_EMAIL", v); msg != "" && !strings.Contains(msg, "SUPPORT_EMAIL") {
			t.Errorf("SUPPORT_EMAIL=%q refused with %q", v, msg)
		}
	}
}
