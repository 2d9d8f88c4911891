package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

// probeTarget is a running server with two workspaces, a token and a
// session in each.
type probeTarget struct {
	srv                  *testServer
	acme, globex         workspace.Workspace
	acmeToken, globexTok string
	acmeSes, globexSes   string
	revoked              string
	globexApproval       string
}

func startProbeTarget(t *testing.T) *probeTarget {
	t.Helper()
	ctx := context.Background()
	url := storetest.NewURL(t)
	pool := connect(t, url)
	p := &probeTarget{}
	ws := workspace.NewService(pool)
	var err error
	if p.acme, err = ws.Create(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if p.globex, err = ws.Create(ctx, "Globex"); err != nil {
		t.Fatal(err)
	}
	tokens := auth.NewTokens(pool)
	if p.acmeToken, err = tokens.Create(ctx, p.acme.ID); err != nil {
		t.Fatal(err)
	}
	if p.globexTok, err = tokens.Create(ctx, p.globex.ID); err != nil {
		t.Fatal(err)
	}
	if p.revoked, err = tokens.Create(ctx, p.acme.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tokens.Revoke(ctx, p.revoked); err != nil {
		t.Fatal(err)
	}
	svc, err := approvals.NewService(pool, approvals.Config{PublicURL: "http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	svc.Register("probe", approvals.ExecutorFuncs{ExecuteFunc: func(context.Context, approvals.Execution) (string, error) { return "Done.", nil }})
	ap, _, err := svc.Open(ctx, approvals.Request{WorkspaceID: p.globex.ID, Action: "probe", Arguments: map[string]string{"x": "y"},
		Summary: "Globex's secret order", Impact: approvals.Impact{What: "Orders the secret thing.", Who: "No one.", When: "Now.", Renewal: "None.", Undo: "Yes.",
			CostOnce: vibesell.NewMoney(0, "USD"), CostMonthly: vibesell.NewMoney(0, "USD")},
		DecideHere: true})
	if err != nil {
		t.Fatal(err)
	}
	p.globexApproval = ap.ID
	p.srv = startServer(t, "DATABASE_URL", url, "LOG_LEVEL", "error")
	p.srv.waitReady(t)
	p.acmeSes, p.globexSes = initialize(t, p.srv.addr, p.acmeToken), initialize(t, p.srv.addr, p.globexTok)
	return p
}

// send makes one request and returns its status and body.
func (p *probeTarget) send(method, path string, header map[string]string, body string) (int, string) {
	req, _ := http.NewRequest(method, "http://"+p.srv.addr+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := suiteClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") && method == http.MethodGet {
		return res.StatusCode, "(event stream)"
	}
	var b strings.Builder
	buf := make([]byte, 64<<10)
	n, _ := res.Body.Read(buf)
	b.Write(buf[:n])
	return res.StatusCode, b.String()
}

// tally counts outcomes and says them in one line.
type tally map[string]int

func (c tally) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

const listTools = `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`

// Every way in without a valid token is refused with 401 and its
// challenge; every request from another site is refused.
func TestSuiteAuthProbes(t *testing.T) {
	t.Parallel()
	p := startProbeTarget(t)
	probes := map[string]map[string]string{
		"no Authorization":           {},
		"an empty bearer":            {"Authorization": "Bearer "},
		"the Basic scheme":           {"Authorization": "Basic YWRhOmh1bnRlcjI="},
		"a token without its scheme": {"Authorization": p.acmeToken},
		"an unknown token":           {"Authorization": "Bearer vs_" + strings.Repeat("A", 43)},
		"a revoked token":            {"Authorization": "Bearer " + p.revoked},
		"a token cut short":          {"Authorization": "Bearer " + p.acmeToken[:20]},
		"a token one letter off":     {"Authorization": "Bearer " + p.acmeToken[:len(p.acmeToken)-1] + "x"},
		"a 16 KB token":              {"Authorization": "Bearer vs_" + strings.Repeat("A", 16<<10)},
		"a web session cookie value": {"Authorization": "Bearer vsw_" + strings.Repeat("A", 43)},
		"SQL in the token":           {"Authorization": "Bearer vs_' OR 1=1 --"},
		"two schemes":                {"Authorization": "Bearer Bearer " + p.acmeToken},
	}
	counts := tally{}
	for name, header := range probes {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			h := map[string]string{"Mcp-Session-Id": p.acmeSes}
			for k, v := range header {
				h[k] = v
			}
			status, body := p.send(method, "/mcp", h, listTools)
			counts[fmt.Sprint(status)]++
			if status != http.StatusUnauthorized {
				t.Errorf("%s %s: %d %.200s", method, name, status, body)
			}
		}
	}
	for name, header := range map[string]map[string]string{
		"another site's Origin":   {"Origin": "https://evil.example"},
		"a rebinding Host":        {"Host": "evil.example:80"},
		"a null Origin":           {"Origin": "null"},
		"a lookalike Origin host": {"Origin": "http://127.0.0.1.evil.example"},
	} {
		header["Authorization"] = "Bearer " + p.acmeToken
		header["Mcp-Session-Id"] = p.acmeSes
		status, body := p.send(http.MethodPost, "/mcp", header, listTools)
		counts[fmt.Sprint(status)]++
		if status != http.StatusForbidden {
			t.Errorf("%s: %d %.200s", name, status, body)
		}
	}
	t.Logf("%d auth probes: %s", len(probes)*3+4, counts)
}

// A workspace's token never reaches another workspace's session or data.
func TestSuiteIsolationAttempts(t *testing.T) {
	t.Parallel()
	p := startProbeTarget(t)
	counts := tally{}
	acme := "Bearer " + p.acmeToken
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		for name, session := range map[string]string{"Globex's session": p.globexSes, "an invented session": "mcp_" + strings.Repeat("0", 48)} {
			status, body := p.send(method, "/mcp", map[string]string{"Authorization": acme, "Mcp-Session-Id": session}, listTools)
			counts[fmt.Sprint(status)]++
			if status != http.StatusNotFound {
				t.Errorf("%s with %s: %d %.200s", method, name, status, body)
			}
		}
	}
	call := func(tool string, args map[string]any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		status, body := p.send(http.MethodPost, "/mcp", map[string]string{"Authorization": acme, "Mcp-Session-Id": p.acmeSes}, string(b))
		if status != http.StatusOK {
			t.Errorf("%s: %d %.200s", tool, status, body)
		}
		return body
	}
	for _, decision := range []string{"approve", "reject"} {
		body := call("decide_approval", map[string]any{"approval": p.globexApproval, "decision": decision})
		counts["decide_approval "+decision+" refused"]++
		if !strings.Contains(body, `"isError":true`) || strings.Contains(body, "secret") {
			t.Errorf("deciding Globex's approval from Acme: %.300s", body)
		}
	}
	for _, tool := range []string{"list_pending_approvals", "get_workspace_context", "get_sending_setup"} {
		body := call(tool, map[string]any{})
		counts[tool+" without Globex's data"]++
		if strings.Contains(body, p.globexApproval) || strings.Contains(body, "Globex") || strings.Contains(body, p.globex.ID.String()) {
			t.Errorf("%s from Acme shows Globex's data: %.300s", tool, body)
		}
	}
	t.Logf("isolation attempts: %s", counts)
}
