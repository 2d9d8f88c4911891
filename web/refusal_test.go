package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/store"
)

// Every refusal code has its status in one table; only what is not a
// refusal is logged and answered 500, with a ref the page shows.
func TestRefusalsAnswerByTheirCode(t *testing.T) {
	t.Parallel()
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Status int
		Title  string
		Logged bool
	}
	cases := []struct {
		err     error
		want    answer
		message string // in the page
	}{
		{vibesell.Errorf(vibesell.EINVALID, "The reason is too long."), answer{422, "That did not work", false}, "The reason is too long."},
		{vibesell.Errorf(vibesell.ECONFLICT, "It was decided already."), answer{422, "That did not work", false}, "It was decided already."},
		{vibesell.Errorf(vibesell.ENOTFOUND, "There is no approval ap_1. Call list_pending_approvals."), answer{404, "Not found", false}, "It may belong to another workspace"},
		{vibesell.Errorf(vibesell.EUNAUTHORIZED, "Unknown session."), answer{401, "Sign in again", false}, "Sign in again to continue."},
		{vibesell.Errorf(vibesell.EPAYMENTREQUIRED, "Your plan does not cover campaigns."), answer{402, "Not on your plan", false}, "Your plan does not cover campaigns."},
		{vibesell.Errorf(vibesell.ERATELIMITED, "Too many failed sign-ins."), answer{429, "Too many attempts", false}, "Too many failed sign-ins."},
		{fmt.Errorf("read approval: %w", errors.New("connection reset")), answer{500, "Something went wrong", true}, "Something went wrong on our side (ref "},
	}
	for _, c := range cases {
		t.Run(vibesell.ErrorCode(c.err), func(t *testing.T) {
			var log bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&log, nil))
			s := &server{Deps: Deps{Logger: logger}, pages: pages, outages: store.NewOutageLog(logger)}
			rec := httptest.NewRecorder()
			s.renderError(rec, httptest.NewRequest(http.MethodGet, "/app/approvals/ap_1", nil), c.err, 0, "", "")
			body := rec.Body.String()
			got := answer{Status: rec.Code, Title: c.want.Title, Logged: log.Len() > 0}
			if !strings.Contains(body, "<h1>"+c.want.Title+"</h1>") {
				got.Title = "(not in the page)"
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if !strings.Contains(body, c.message) {
				t.Errorf("the page lacks %q:\n%s", c.message, body)
			}
			if strings.Contains(body, "list_pending_approvals") {
				t.Errorf("the page names a tool:\n%s", body)
			}
		})
	}
}

// A refusal's steps are links to the pages that do them, in a person's
// words: the tool that does it in the conversation never shows.
func TestRefusalStepsAreLinks(t *testing.T) {
	t.Parallel()
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{Deps: Deps{Logger: slog.New(slog.DiscardHandler)}, pages: pages, outages: store.NewOutageLog(slog.New(slog.DiscardHandler))}
	refusal := vibesell.Errorf(vibesell.EPAYMENTREQUIRED, "The Free plan allows 3 mailboxes; 0 in use, so 4 more would go over.").Then(
		vibesell.Call("Subscribe to the Starter plan.", vibesell.ToolStartCheckout, "plan", "starter"),
		vibesell.Next{Do: "Work out the sizing again.", Tool: vibesell.ToolSizeSendingCapacity},
		vibesell.Next{Tool: vibesell.ToolGetWorkspaceContext})
	rec := httptest.NewRecorder()
	s.renderError(rec, httptest.NewRequest(http.MethodGet, "/app/leads", nil), refusal, 0, "", "")
	body := rec.Body.String()
	for _, want := range []string{
		"The Free plan allows 3 mailboxes; 0 in use, so 4 more would go over.",
		`<li><a href="/app/billing">Subscribe to the Starter plan.</a></li>`,
		"<li>Work out the sizing again.</li>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page does not show %q:\n%s", want, body)
		}
	}
	for _, tool := range []string{vibesell.ToolStartCheckout, vibesell.ToolSizeSendingCapacity, vibesell.ToolGetWorkspaceContext} {
		if strings.Contains(body, tool) {
			t.Errorf("the page names the tool %s", tool)
		}
	}
}
