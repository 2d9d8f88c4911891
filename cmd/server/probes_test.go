package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	ws := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	var err error
	if p.acme, err = ws.Create(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if p.globex, err = ws.Create(ctx, "Globex"); err != nil {
		t.Fatal(err)
	}
	tokens := auth.NewTokens(auth.TokensDeps{DB: pool})
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
	svc := approvals.New(approvals.Deps{DB: pool, Clock: vibesell.SystemClock{}, PublicURL: "http://127.0.0.1"})
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
	b, _ := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	return res.StatusCode, string(b)
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

// badInputs generates, from a tool's input schema, arguments that break
// it: not an object, each property of the wrong type, out of its enum or
// pattern, far too long, deeply nested, with a NUL or control characters,
// each required one missing, and an unknown one.
func badInputs(schema map[string]any, long bool) map[string]any {
	out := map[string]any{
		"arguments a string": "x", "arguments an array": []any{}, "arguments a number": 42, "arguments null": nil,
		"an unknown property": map[string]any{"definitely_not_a_property": 1},
	}
	size := 100 << 10
	if long {
		size = 2 << 20
	}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	valid := map[string]any{}
	for name, raw := range props {
		prop, _ := raw.(map[string]any)
		typ, _ := prop["type"].(string)
		switch typ {
		case "string":
			valid[name] = "x"
		case "integer", "number":
			valid[name] = 1
		case "boolean":
			valid[name] = true
		case "array":
			valid[name] = []any{}
		default:
			valid[name] = map[string]any{}
		}
	}
	with := func(name string, v any) map[string]any {
		m := map[string]any{}
		for k, x := range valid {
			m[k] = x
		}
		m[name] = v
		return m
	}
	deep := any("x")
	for range 200 {
		deep = []any{deep}
	}
	for name, raw := range props {
		prop, _ := raw.(map[string]any)
		typ, _ := prop["type"].(string)
		wrong := map[string]any{"string": 12345, "integer": "twelve", "number": "twelve", "boolean": "yes", "array": map[string]any{"a": 1}, "object": []any{1}}
		if w, ok := wrong[typ]; ok {
			out[name+" of the wrong type"] = with(name, w)
		}
		out[name+" null"] = with(name, nil)
		out[name+" nested 200 deep"] = with(name, deep)
		switch typ {
		case "string":
			out[name+" far too long"] = with(name, strings.Repeat("é", size/2))
			out[name+" out of its enum or pattern"] = with(name, "!!not-an-option!!")
			out[name+" with bidi and zero-width characters"] = with(name, "a\u202eb\u200bc\u2066")
			out[name+" with a NUL"] = with(name, "a\x00b")
			out[name+" with control characters"] = with(name, "a\x1b[31mb\x07c\x7f")
		case "integer", "number":
			out[name+" negative"] = with(name, -1)
			out[name+" huge"] = with(name, 1e300)
			out[name+" fractional"] = with(name, 0.5)
		case "array":
			many := make([]any, 10_000)
			for i := range many {
				many[i] = "x"
			}
			out[name+" with 10,000 items"] = with(name, many)
			out[name+" of the wrong items"] = with(name, []any{[]any{1}, map[string]any{}, nil})
		}
	}
	for _, r := range required {
		name, _ := r.(string)
		m := with(name, nil)
		delete(m, name)
		out["without "+name] = m
	}
	return out
}

// Every tool, given every bad input its schema suggests, refuses with a
// sentence or answers: never an error on our side, never no answer.
func TestSuiteBadInputs(t *testing.T) {
	t.Parallel()
	p := startProbeTarget(t)
	header := map[string]string{"Authorization": "Bearer " + p.acmeToken, "Mcp-Session-Id": p.acmeSes}
	status, body := p.send(http.MethodPost, "/mcp", header, listTools)
	if status != http.StatusOK {
		t.Fatalf("tools/list: %d %s", status, body)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &list); err != nil || len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list: %v %.300s", err, body)
	}
	counts := tally{}
	total := 0
	for _, tool := range list.Result.Tools {
		for name, args := range badInputs(tool.InputSchema, suiteLong()) {
			total++
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": total, "method": "tools/call", "params": map[string]any{"name": tool.Name, "arguments": args}})
			status, body := p.send(http.MethodPost, "/mcp", header, string(msg))
			data := sseData(body)
			outcome := ""
			switch {
			case status != http.StatusOK:
				outcome = fmt.Sprintf("HTTP %d", status)
			case strings.Contains(data, "Something went wrong on our side"):
				outcome = "internal error"
			case strings.Contains(data, `"isError":true`):
				outcome = "refused with a sentence"
			case strings.Contains(data, `"error":{`):
				outcome = "JSON-RPC error"
			case strings.Contains(data, `"result":{`):
				outcome = "answered"
			default:
				outcome = "no answer"
			}
			counts[outcome]++
			if outcome == "internal error" || outcome == "no answer" || (status != http.StatusOK && status != http.StatusRequestEntityTooLarge) {
				t.Errorf("%s with %s: %s: %.300s", tool.Name, name, outcome, body)
			}
		}
	}
	t.Logf("%d bad inputs over %d tools: %s", total, len(list.Result.Tools), counts)
}

// sseData is the JSON message of an answer, whether plain or an event
// stream's last data line.
func sseData(body string) string {
	last := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			last = d
		}
	}
	return last
}
