package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"vibesell/toolkit"
	"vibesell/tools"
	"vibesell/ui"
)

// modernMeta is what every 2026-07-28 request carries in place of the
// initialize handshake: its protocol version, its client and the client's
// capabilities (here the MCP Apps extension, as Claude's second client).
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"revisions-test","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{}}}}`

// rpcAnswer is one JSON-RPC answer, its result kept raw.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, body string) rpcAnswer {
	t.Helper()
	if data, ok := strings.CutPrefix(strings.TrimSpace(body), "event: message\ndata: "); ok {
		body = data
	}
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return a
}

// cacheFields are the fields 2026-07-28 adds to results.
type cacheFields struct {
	ResultType string `json:"resultType"`
	TTLMs      *int64 `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// One endpoint serves both revisions at once: a 2025-11-25 client with a
// session (stored, as before), and a 2026-07-28 client statelessly, each
// request on its own with what the revision requires of a server.
func TestBothRevisionsFromOneEndpoint(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	e := startMCP(t, f.tokens, f.sessions, time.Minute)
	ctx := context.Background()

	// 2025-11-25: initialize opens a stored session; results carry none
	// of 2026-07-28's fields.
	status, session, body := e.send(t, http.MethodPost, f.acmeToken, "", strings.Replace(initializeBody, "2025-06-18", "2025-11-25", 1))
	if status != http.StatusOK || session == "" || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("2025-11-25 initialize: %d session %q %s", status, session, body)
	}
	if _, err := f.sessions.Find(ctx, f.acme.ID, session); err != nil {
		t.Errorf("the 2025-11-25 session is not stored: %v", err)
	}
	if !strings.Contains(body, `"subscribe":true`) {
		t.Errorf("2025-11-25 initialize does not declare resources/subscribe: %s", body)
	}
	// 2026-07-28 has no resources/subscribe: its discovery declares none,
	// and the initialize above (same server) still did.
	_, _, body = e.sendModern(t, "server/discover", "", f.acmeToken, "",
		`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{`+modernMeta+`}}`)
	if !strings.Contains(body, `"resources":{`) || strings.Contains(body, `"subscribe"`) {
		t.Errorf("2026-07-28 server/discover declares resources/subscribe (or no resources): %.400s", body)
	}
	_, _, body = e.send(t, http.MethodPost, f.acmeToken, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var legacy cacheFields
	if err := json.Unmarshal(decodeAnswer(t, body).Result, &legacy); err != nil || legacy != (cacheFields{}) {
		t.Errorf("2025-11-25 tools/list carries 2026-07-28 fields %+v (%v)", legacy, err)
	}

	var sessionsBefore int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions`).Scan(&sessionsBefore); err != nil {
		t.Fatal(err)
	}

	cardURI := toolkit.CardURI(ui.CardHTML)
	day := (24 * time.Hour).Milliseconds()
	for _, tc := range []struct {
		method, name, params string
		// ttl is the ttlMs a list or read result must carry (public
		// scope), or -1 for a result that carries none.
		ttl int64
	}{
		{"server/discover", "", `{` + modernMeta + `}`, time.Hour.Milliseconds()},
		{"tools/list", "", `{` + modernMeta + `}`, time.Hour.Milliseconds()},
		{"resources/list", "", `{` + modernMeta + `}`, time.Hour.Milliseconds()},
		{"resources/templates/list", "", `{` + modernMeta + `}`, time.Hour.Milliseconds()},
		{"prompts/list", "", `{` + modernMeta + `}`, time.Hour.Milliseconds()},
		// The versioned card never changes under its URI; an earlier URI
		// answers with the current card, which changes with a release.
		{"resources/read", cardURI, `{"uri":"` + cardURI + `",` + modernMeta + `}`, 30 * day},
		{"resources/read", toolkit.LegacyCardURI, `{"uri":"` + toolkit.LegacyCardURI + `",` + modernMeta + `}`, time.Hour.Milliseconds()},
		{"tools/call", "echo", `{"name":"echo","arguments":{"text":"hi"},` + modernMeta + `}`, -1},
	} {
		t.Run(tc.method+" "+tc.name, func(t *testing.T) {
			// A session id left over from 2025-11-25 is ignored, not checked.
			status, minted, body := e.sendModern(t, tc.method, tc.name, f.acmeToken, "stale-session-id",
				`{"jsonrpc":"2.0","id":7,"method":"`+tc.method+`","params":`+tc.params+`}`)
			a := decodeAnswer(t, body)
			if status != http.StatusOK || a.Error != nil {
				t.Fatalf("%d %s", status, body)
			}
			if minted != "" {
				t.Errorf("Mcp-Session-Id %q minted on 2026-07-28", minted)
			}
			var got cacheFields
			if err := json.Unmarshal(a.Result, &got); err != nil {
				t.Fatal(err)
			}
			if got.ResultType != "complete" {
				t.Errorf("resultType %q, want complete", got.ResultType)
			}
			switch {
			case tc.ttl < 0 && (got.TTLMs != nil || got.CacheScope != ""):
				t.Errorf("a tool result carries cache hints: %+v", got)
			case tc.ttl >= 0 && (got.TTLMs == nil || *got.TTLMs != tc.ttl || got.CacheScope != "public"):
				t.Errorf("ttlMs %v cacheScope %q, want %d public", got.TTLMs, got.CacheScope, tc.ttl)
			}
		})
	}

	// The errors of 2026-07-28: a resource that is not there is invalid
	// params (-32602, was -32002); a request without its Mcp-Method
	// header is a header mismatch (-32020); ping and logging/setLevel
	// are gone (-32601).
	for _, tc := range []struct {
		header, body string
		code         int
	}{
		{"resources/read", `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"ui://vibesell/none.html",` + modernMeta + `}}`, mcp.INVALID_PARAMS},
		{"", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + modernMeta + `}}`, mcp.HEADER_MISMATCH},
		{"ping", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{` + modernMeta + `}}`, mcp.METHOD_NOT_FOUND},
		{"logging/setLevel", `{"jsonrpc":"2.0","id":11,"method":"logging/setLevel","params":{"level":"debug",` + modernMeta + `}}`, mcp.METHOD_NOT_FOUND},
	} {
		name := ""
		if tc.header == "resources/read" {
			name = "ui://vibesell/none.html"
		}
		_, _, body := e.sendModern(t, tc.header, name, f.acmeToken, "", tc.body)
		if a := decodeAnswer(t, body); a.Error == nil || a.Error.Code != tc.code {
			t.Errorf("%s: %s, want error %d", tc.body, body, tc.code)
		}
	}
	// The same missing resource on 2025-11-25 is still -32002.
	_, _, body = e.send(t, http.MethodPost, f.acmeToken, session, `{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"ui://vibesell/none.html"}}`)
	if a := decodeAnswer(t, body); a.Error == nil || a.Error.Code != mcp.RESOURCE_NOT_FOUND {
		t.Errorf("2025-11-25 resources/read of nothing: %s, want %d", body, mcp.RESOURCE_NOT_FOUND)
	}

	// Without sessions, nothing is stored per client, and GET has nothing
	// to stream.
	var sessionsAfter int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions`).Scan(&sessionsAfter); err != nil {
		t.Fatal(err)
	}
	if sessionsAfter != sessionsBefore {
		t.Errorf("2026-07-28 requests stored %d sessions", sessionsAfter-sessionsBefore)
	}
	req, _ := http.NewRequest(http.MethodGet, e.url, nil)
	req.Header.Set("Authorization", "Bearer "+f.acmeToken)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET on 2026-07-28: %d, want 405", res.StatusCode)
	}
}

// tools/list is the same bytes from call to call and from replica to
// replica while nothing changed, in both revisions: hosts cache the
// tools, and the prompt built from them, by its bytes.
func TestToolsListIsTheSameBytesEverywhere(t *testing.T) {
	t.Parallel()
	f := setupSessions(t)
	replica := func() *mcpEndpoint {
		logger := slog.New(slog.DiscardHandler)
		s := tools.NewServer(tools.Deps{}, &toolkit.Options{Version: "test", Logger: logger, CardHTML: ui.CardHTML})
		srv := httptest.NewServer(toolkit.NewHTTPHandler(s, toolkit.HTTPOptions{Tokens: f.tokens, Sessions: f.sessions, Logger: logger}))
		t.Cleanup(srv.Close)
		return &mcpEndpoint{url: srv.URL + "/mcp"}
	}
	one, two := replica(), replica()

	var first string
	for i, e := range []*mcpEndpoint{one, two, one, two} {
		session := e.initialize(t, f.acmeToken)
		_, _, legacy := e.send(t, http.MethodPost, f.acmeToken, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		_, _, modern := e.sendModern(t, "tools/list", "", f.acmeToken, "", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}`)
		got := string(decodeAnswer(t, legacy).Result) + "\n" + string(decodeAnswer(t, modern).Result)
		if i == 0 {
			first = got
			if !strings.Contains(got, `"name":"`) {
				t.Fatalf("tools/list: %s", got)
			}
			continue
		}
		if got != first {
			t.Errorf("tools/list, call %d (replica %d), differs from the first", i+1, i%2+1)
		}
	}
}

// Claude opens several MCP clients for one conversation, and the first
// declares no UI extension. Nothing a client gets depends on what that
// client declared: every one of them, on either revision, is pointed at
// the card by every tool and gets the same results, the card's one-time
// decision tokens included.
func TestSeveralClientsOfOneConversationAllGetTheCard(t *testing.T) {
	t.Parallel()
	f := setupFlow(t)
	f.planSetup()
	var ap approvalResult
	f.call("order_sending_setup", nil, &ap)
	token, err := f.svc.tokens.Create(context.Background(), f.two.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	e := &mcpEndpoint{url: f.web.URL + "/mcp"}
	cardURI := toolkit.CardURI(ui.CardHTML)

	initialize := func(capabilities string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + capabilities +
			`,"clientInfo":{"name":"claude-ai","version":"0.1.0"}}}`
		status, session, answer := e.send(t, http.MethodPost, token, "", body)
		if status != http.StatusOK || session == "" {
			t.Fatalf("initialize: %d %s", status, answer)
		}
		e.send(t, http.MethodPost, token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return session
	}
	type client struct {
		name string
		do   func(method, name, params string) rpcAnswer
	}
	legacy := func(session string) func(method, name, params string) rpcAnswer {
		return func(method, _, params string) rpcAnswer {
			_, _, body := e.send(t, http.MethodPost, token, session, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":`+params+`}`)
			return decodeAnswer(t, body)
		}
	}
	clients := []client{
		{"first client, no UI extension", legacy(initialize(`{}`))},
		{"second client, UI extension", legacy(initialize(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`))},
		{"2026-07-28 client, no UI extension", func(method, name, params string) rpcAnswer {
			params = strings.TrimSuffix(params, "}")
			if params != "{" {
				params += ","
			}
			params += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-ai","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{}}}`
			_, _, body := e.sendModern(t, method, name, token, "", `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":`+params+`}`)
			return decodeAnswer(t, body)
		}},
	}
	type seen struct {
		tools   string
		results map[string]string
	}
	var first *seen
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			list := c.do("tools/list", "", `{}`)
			var listed struct {
				Tools []struct {
					Name string `json:"name"`
					Meta struct {
						UI struct {
							ResourceURI string `json:"resourceUri"`
						} `json:"ui"`
						OpenAI string `json:"openai/outputTemplate"`
					} `json:"_meta"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(list.Result, &listed); err != nil || len(listed.Tools) == 0 {
				t.Fatalf("tools/list: %s (%v)", list.Result, err)
			}
			for _, tool := range listed.Tools {
				if tool.Meta.UI.ResourceURI != cardURI || tool.Meta.OpenAI != cardURI {
					t.Errorf("%s points at %q and %q, not the card %s", tool.Name, tool.Meta.UI.ResourceURI, tool.Meta.OpenAI, cardURI)
				}
			}
			got := &seen{tools: toolsOnly(t, list.Result), results: map[string]string{}}
			for _, tool := range []string{"get_workspace_context", "list_pending_approvals"} {
				a := c.do("tools/call", tool, `{"name":"`+tool+`","arguments":{}}`)
				var res struct {
					IsError    bool                       `json:"isError"`
					Structured json.RawMessage            `json:"structuredContent"`
					Content    []struct{ Text string }    `json:"content"`
					Meta       map[string]json.RawMessage `json:"_meta"`
				}
				if err := json.Unmarshal(a.Result, &res); err != nil || res.IsError || len(res.Structured) == 0 {
					t.Fatalf("%s: %s (%v)", tool, a.Result, err)
				}
				var tokens map[string]string
				_ = json.Unmarshal(res.Meta["vibesell/decisionTokens"], &tokens)
				if tool == "list_pending_approvals" && tokens[ap.Approval] == "" {
					t.Errorf("%s gives the card no decision token for %s: _meta %s", tool, ap.Approval, a.Result)
				}
				// The tokens are one-time, new with every result: what
				// matters is for which approvals they are given.
				var ids []string
				for id := range tokens {
					ids = append(ids, id)
				}
				got.results[tool] = string(res.Structured) + "\n" + strings.Join(ids, ",")
			}
			if first == nil {
				first = got
				return
			}
			if got.tools != first.tools {
				t.Error("its tools/list differs from the first client's")
			}
			for tool, r := range got.results {
				if r != first.results[tool] {
					t.Errorf("%s differs from the first client's:\n%s\nfirst:\n%s", tool, r, first.results[tool])
				}
			}
		})
	}
}

// toolsOnly is the tools of a tools/list result, without the result's
// own fields (2026-07-28's resultType and cache hints).
func toolsOnly(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var list struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatal(err)
	}
	return string(list.Tools)
}

// The conformance suite's fixture is in its own build only: the server a
// person runs lists none of it.
func TestTheConformanceFixtureIsNotServed(t *testing.T) {
	t.Parallel()
	if conformanceFixture != nil {
		t.Fatal("this build carries the conformance suite's fixture (built with -tags vibesell_conformance?)")
	}
	f := setupFlow(t)
	for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		msg := newMCPServer(f.svc, slog.New(slog.DiscardHandler)).HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`))
		b, _ := json.Marshal(msg)
		if strings.Contains(string(b), `"test_`) || strings.Contains(string(b), `test://`) {
			t.Errorf("%s lists the conformance fixture: %.300s", method, b)
		}
	}
}
