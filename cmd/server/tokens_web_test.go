package main

import (
	"context"
	"net/http"
	neturl "net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"vibesell/auth"
	"vibesell/auth/oauth/oauthtest"
	"vibesell/store/storetest"
)

// A workspace token in use is listed among the connected apps, with who
// made it and its last use; revoked there by a person of the workspace,
// the next call with it is refused by both processes within a second.
func TestTokenRevokedInTheWebAppAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	const email, password = "ada@tokens.test", "correct horse battery staple"
	dbURL, pool, ws := personInWorkspace(t, "Tokens", email, password)
	token, err := auth.CreateTokenBy(context.Background(), pool, ws.ID, auth.CreatedByCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	const public = "http://vibesell.test"
	one := startProcess(t, "DATABASE_URL="+dbURL, "PUBLIC_URL="+public)
	two := startProcess(t, "DATABASE_URL="+dbURL, "PUBLIC_URL="+public)
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}
	for _, s := range []*testServer{one, two} {
		if resp, _ := rpc(t, s.addr, token, "", init); resp.StatusCode != 200 {
			t.Fatalf("the token on %s: %d", s.addr, resp.StatusCode)
		}
	}

	b := oauthtest.New(t, "http://"+two.addr, public, email, password)
	page := b.Open("/app/connections")
	for _, want := range []string{"Tokens", "the server&#39;s command line", "In the last minute"} {
		if !strings.Contains(page, want) {
			t.Errorf("the connected apps page does not say %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "No app is connected. Connect one") {
		t.Error("the page says no app is connected while a token is in use")
	}
	action := regexp.MustCompile(`action="(/app/connections/tokens/[^"]+/revoke)"`).FindStringSubmatch(page)
	if action == nil {
		t.Fatalf("no revoke form:\n%s", page)
	}
	// Not without ticking that they mean it.
	resp, body := b.Post(action[1], neturl.Values{"csrf": {oauthtest.CSRF(t, page)}}, public)
	oauthtest.WantStatus(t, resp, http.StatusUnprocessableEntity, body)
	if r, _ := rpc(t, one.addr, token, "", init); r.StatusCode != 200 {
		t.Fatalf("the token was revoked without confirming: %d", r.StatusCode)
	}
	resp, body = b.Post(action[1], neturl.Values{"csrf": {oauthtest.CSRF(t, page)}, "confirm": {"yes"}}, public)
	oauthtest.WantStatus(t, resp, http.StatusSeeOther, body)
	// Each process keeps the tokens it checked in memory, told of a
	// revocation by the database: within a second, the one that served
	// the page as well.
	for name, s := range map[string]*testServer{"the process that revoked it": two, "the other process": one} {
		took := storetest.WaitFor(t, name+" to refuse the revoked token", func() bool {
			r, _ := rpc(t, s.addr, token, "", init)
			return r.StatusCode == 401
		})
		if took > time.Second {
			t.Errorf("%s refused the revoked token after %s, want within a second", name, took)
		}
	}
	if page := b.Open(resp.Header.Get("Location")); !strings.Contains(page, "The token was revoked") || strings.Contains(page, action[1]) {
		t.Errorf("after revoking:\n%s", page)
	}
	infos, err := auth.NewTokens(auth.TokensDeps{DB: pool}).List(context.Background(), ws.ID)
	if err != nil || len(infos) != 1 || infos[0].RevokedBy != email {
		t.Errorf("on record: %+v, %v", infos, err)
	}
}
