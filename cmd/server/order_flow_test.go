package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/approvals"
	"vibesell/approvals/approvalstest"
	"vibesell/auth"
	"vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/web/webtest"
	"vibesell/workspace/workspacetest"
)

// flow is the product as cmd/server wires it, on 127.0.0.1: the MCP tools
// (in process, for workspace Acme), the web app, and a person of Acme who
// can sign in. Executions are worked by the test, as a River worker would.
type flow struct {
	pool *pgxpool.Pool
	svc  *services
	web  *httptest.Server
	c    *toolkittest.Client
	two  workspacetest.Pair
	test *testing.T
	// mailSecret signs the unsubscribe links, as MAIL_SECRET_KEY does.
	mailSecret mail.Secret
}

const flowPassword = "correct horse battery staple"

func setupFlow(t *testing.T) *flow {
	t.Helper()
	return setupFlowWith(t)
}

// setupBilledFlow is setupFlow with billing configured and the free
// plan's limits set to freeLimits (BILLING_FREE_LIMITS). A workspace on
// the free plan never reaches Stripe, so the API address is a closed port.
func setupBilledFlow(t *testing.T, freeLimits string) *flow {
	t.Helper()
	return setupFlowWith(t, "STRIPE_SECRET_KEY", "sk_test_flow", "STRIPE_API_BASE", "http://127.0.0.1:9",
		"BILLING_FREE_LIMITS", freeLimits)
}

// setupFlowWith is setupFlow with more of the environment, as name,
// value pairs.
func setupFlowWith(t *testing.T, more ...string) *flow {
	t.Helper()
	dbURL := storetest.NewURL(t)
	pool, err := store.Connect(context.Background(), dbURL, 10) // the server's requests, the execution and its reads at once
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var (
		h   http.Handler
		cfg config
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	cfg, err = loadConfig(env(append([]string{"DATABASE_URL", dbURL, "PUBLIC_URL", srv.URL, "MAIL_SECRET_KEY", mail.NewRandomSecret()}, more...)...))
	if err != nil {
		t.Fatal(err)
	}
	// Errors the server logs (an internal failure's cause, under its ref)
	// are shown when the test fails.
	logs := &toolkittest.LogBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError}))
	t.Cleanup(func() {
		if t.Failed() && logs.String() != "" {
			t.Logf("the server logged:\n%s", logs.String())
		}
	})
	svc, err := newServices(cfg, pool, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	h = routes(cfg, pool, svc, cfg.Mail.Secret, sandboxmail.NewOutbox(sandboxmail.OutboxDeps{DB: pool, Records: svc.sending}), logger)
	f := &flow{pool: pool, svc: svc, web: srv, two: workspacetest.Two(t, pool), test: t, mailSecret: *cfg.Mail.Secret}
	if _, err := svc.accounts.CreateUser(context.Background(), auth.NewUser{WorkspaceID: f.two.Acme.ID, Email: "ada@acme.test", Password: flowPassword}); err != nil {
		t.Fatal(err)
	}
	f.c = toolkittest.Connect(t, newMCPServer(svc, logger), workspacetest.Principal(f.two.Acme))
	return f
}

// call calls tool and reads what the flow needs of its structured
// result into out (the rest of it is the tools' tests' business).
func (f *flow) call(tool string, args any, out any) string {
	f.test.Helper()
	var raw json.RawMessage
	md := f.c.Result(tool, args, &raw)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			f.test.Fatalf("%s: %v", tool, err)
		}
	}
	return md
}

// choice is what the flow reads of a choice card.
type choice struct {
	Kind    string  `json:"kind"`
	Card    *string `json:"card"`
	Choices []struct {
		ID string `json:"id"`
	} `json:"choices"`
}

// answer calls tool with args, then again with the first choice of the
// card it asked with, as a person picking it would.
func (f *flow) answer(tool string, args map[string]any, pick string) {
	f.test.Helper()
	var q choice
	md := f.call(tool, args, &q)
	if q.Card == nil {
		f.test.Fatalf("%s asked nothing: a %q result:\n%s", tool, q.Kind, md)
	}
	if pick == "" {
		pick = q.Choices[0].ID
	}
	with := map[string]any{"answers": []any{map[string]string{"card": *q.Card, "answer": pick}}}
	for k, v := range args {
		with[k] = v
	}
	f.call(tool, with, &q)
}

// planSetup walks the sending setup up to the order, as a person would:
// the offer, their own names, 90 emails a day, a lookalike domain and
// first-name addresses for Ada Lovelace.
func (f *flow) planSetup() {
	f.test.Helper()
	f.call("save_offer", map[string]any{"companyName": "Acme", "companyDomain": "acme.com", "product": "Anvils",
		"audience": "Coyotes", "value": "Catch the bird", "callToAction": "Book a demo"}, nil)
	f.answer("choose_sending_source", map[string]any{}, "own_names")
	f.call("confirm_sizing", map[string]any{"dailyVolume": 90}, nil)
	f.answer("propose_domains", map[string]any{}, "")
	f.answer("propose_email", map[string]any{"senderNames": []string{"Ada Lovelace"}}, "first_name")
}

type approvalResult struct {
	Approval   string  `json:"approval"`
	Status     string  `json:"status"`
	DecideHere bool    `json:"decideHere"`
	AppURL     string  `json:"appUrl"`
	DecidedBy  *string `json:"decidedBy"`
	DecidedVia *string `json:"decidedVia"`
}

// The whole path of an order: order_sending_setup opens a paid approval;
// the conversation cannot approve it, and the workspace context names it
// and its link instead of asking to order again; a signed-in person
// approves it in the web app at its appUrl; it is carried out once; the
// conversation sees the outcome, and a late decision is not taken.
func TestAnOrderIsApprovedInTheWebAppAndDone(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	f.planSetup()

	var ap approvalResult
	f.call("order_sending_setup", nil, &ap)
	want := approvalResult{Approval: ap.Approval, Status: "pending", AppURL: f.web.URL + "/app/approvals/" + ap.Approval}
	if d := cmp.Diff(want, ap); d != "" {
		t.Fatalf("order approval mismatch (-want +got):\n%s", d)
	}
	t.Run("the conversation cannot approve it", func(t *testing.T) {
		msg := f.c.Refusal("decide_approval", map[string]any{"approval": ap.Approval, "decision": "approve"})
		for _, want := range []string{"only be approved by a signed-in person in the web app", ap.AppURL, "can still be rejected here"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the refusal lacks %q:\n%s", want, msg)
			}
		}
	})
	t.Run("the context names the approval waiting", func(t *testing.T) {
		var ctx struct {
			NextStep struct {
				Tool *string `json:"tool"`
				Why  string  `json:"why"`
			} `json:"nextStep"`
			SendingSetup struct {
				NextStep struct {
					Why string `json:"why"`
				} `json:"nextStep"`
			} `json:"sendingSetup"`
		}
		md := f.call("get_workspace_context", nil, &ctx)
		for _, why := range []string{ctx.NextStep.Why, ctx.SendingSetup.NextStep.Why, md} {
			if !strings.Contains(why, ap.Approval) || !strings.Contains(why, ap.AppURL) {
				t.Errorf("the context does not name the waiting approval and its link:\n%s", why)
			}
			if strings.Contains(why, "Call order_sending_setup") {
				t.Errorf("the context asks to order again while the order waits:\n%s", why)
			}
		}
		if ctx.NextStep.Tool != nil {
			t.Errorf("next tool %q; a person's decision is not a tool call", *ctx.NextStep.Tool)
		}
	})

	b := webtest.New(t, f.web.URL)
	page := b.Get(ap.AppURL)
	if page.Status != http.StatusSeeOther || !strings.HasPrefix(page.Location, "/app/sign-in?next=") {
		t.Fatalf("appUrl signed out: %d %s", page.Status, page.Location)
	}
	b.SignIn("ada@acme.test", flowPassword, approvals.AppPath(ap.Approval))
	page = b.Get(ap.AppURL)
	if r := b.Post(ap.AppURL+"/approve", url.Values{"csrf": {page.CSRF(t)}, "confirm": {"yes"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("approve in the web app: %d\n%s", r.Status, r.Body)
	}
	if done := approvalstest.Execute(t, f.pool, f.svc.approvals, ap.Approval); done.Status != approvals.Done {
		t.Fatalf("after approving: %s %v", done.Status, done.Outcome)
	}

	t.Run("the approval's page speaks to a person", func(t *testing.T) {
		body := b.Get(ap.AppURL).Body
		for _, jargon := range []string{"connector", "decide_approval", "list_pending_approvals", "order_sending_setup"} {
			if strings.Contains(body, jargon) {
				t.Errorf("the approval's page says %q", jargon)
			}
		}
		if !strings.Contains(body, "<td>Asked for a decision</td><td>the assistant</td>") {
			t.Error("the page does not say the assistant asked")
		}
	})
	t.Run("the setup is ordered", func(t *testing.T) {
		var setup struct {
			Domains   []struct{ Status string } `json:"domains"`
			Mailboxes []struct{ Status string } `json:"mailboxes"`
		}
		f.call("get_sending_setup", nil, &setup)
		want := []string{"preparing", "preparing", "preparing", "preparing"} // the domain, then its 3 mailboxes
		var got []string
		for _, s := range append(setup.Domains, setup.Mailboxes...) {
			got = append(got, s.Status)
		}
		if len(setup.Domains) != 1 {
			t.Errorf("setup after the order: %d domains, want 1", len(setup.Domains))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("setup after the order, statuses mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("the conversation sees the outcome", func(t *testing.T) {
		var list struct {
			Approvals []approvalResult `json:"approvals"`
		}
		f.call("list_pending_approvals", map[string]any{"includeDecided": true}, &list)
		by, via := "ada@acme.test", "web"
		want := []approvalResult{{Approval: ap.Approval, Status: "done", AppURL: ap.AppURL, DecidedBy: &by, DecidedVia: &via}}
		if d := cmp.Diff(want, list.Approvals); d != "" {
			t.Errorf("list mismatch (-want +got):\n%s", d)
		}
		late := f.c.Refusal("decide_approval", map[string]any{"approval": ap.Approval, "decision": "reject"})
		if !strings.Contains(late, "Not recorded: approval "+ap.Approval+" was already approved by ada@acme.test (the web app)") || !strings.Contains(late, "it is done now") {
			t.Errorf("a late rejection: %s", late)
		}
	})
}
