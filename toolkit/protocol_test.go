package toolkit

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace/workspacetest"
)

// httpBundle is the framework served over streamable HTTP as cmd/server
// serves it, with a token of a real workspace.
type httpBundle struct {
	url   string
	token string
}

func setupHTTP(t *testing.T) *httpBundle {
	t.Helper()
	db := storetest.New(t)
	pair := workspacetest.Two(t, db)
	tokens := auth.NewTokens(auth.TokensDeps{DB: db})
	token, err := tokens.Create(t.Context(), pair.Acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	s := NewServer([]Tool{ping(), saveContact()}, &Options{Logger: logger})
	ts := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{Tokens: tokens, Sessions: auth.NewSessions(auth.SessionsDeps{DB: db}), Logger: logger}))
	t.Cleanup(ts.Close)
	return &httpBundle{url: ts.URL + "/mcp", token: token}
}

// post sends body to /mcp as a client would, with the bearer token and a
// session when given, and returns the status and the JSON-RPC error.
func (b *httpBundle) post(t *testing.T, session, body string) (int, *mcp.JSONRPCErrorDetails, http.Header) {
	t.Helper()
	status, data, header := b.send(t, session, body)
	var answer struct {
		Error *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if len(data) > 0 && json.Unmarshal(data, &answer) != nil {
		t.Fatalf("status %d, answer is not JSON: %s", status, data)
	}
	return status, answer.Error, header
}

// send sends body to /mcp as post does and returns the answer's bytes.
func (b *httpBundle) send(t *testing.T, session, body string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, b.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data, res.Header
}

// initialize opens a session and returns its id.
func (b *httpBundle) initialize(t *testing.T) string {
	t.Helper()
	status, rpcErr, header := b.post(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+
		mcp.LATEST_LEGACY_PROTOCOL_VERSION+`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if status != http.StatusOK || rpcErr != nil {
		t.Fatalf("initialize: status %d, error %v", status, rpcErr)
	}
	return header.Get("Mcp-Session-Id")
}

type protocolAnswer struct {
	Status  int
	Code    int
	Message string
}

// A message the server cannot handle at all is answered with a status and
// a sentence a client's developer can act on: no Go, the right status.
func TestProtocolErrorsAreReadable(t *testing.T) {
	b := setupHTTP(t)
	session := b.initialize(t)
	for _, tc := range []struct {
		name string
		body string
		want protocolAnswer
	}{
		{"params of the wrong type", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":1}}`,
			protocolAnswer{http.StatusOK, mcp.INVALID_PARAMS, `The tools/call request's "params.name" must be a string, not a number. See the MCP specification for its params.`}},
		{"params that are not an object", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"ping"}`,
			protocolAnswer{http.StatusOK, mcp.INVALID_PARAMS, `The tools/call request's "params" must be an object, not a string. See the MCP specification for its params.`}},
		{"a batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
			protocolAnswer{http.StatusBadRequest, mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send each message in a request of its own, as one JSON object."}},
		{"a body over 4 MiB", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"save_contact","arguments":{"name":"` + strings.Repeat("x", maxRequestBytes) + `"}}}`,
			protocolAnswer{http.StatusRequestEntityTooLarge, mcp.INVALID_REQUEST, "The message is larger than the 4 MiB this server reads. Send a smaller one."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, rpcErr, _ := b.post(t, session, tc.body)
			if rpcErr == nil {
				t.Fatalf("status %d and no JSON-RPC error", status)
			}
			got := protocolAnswer{status, rpcErr.Code, rpcErr.Message}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a well-formed call is untouched", func(t *testing.T) {
		status, rpcErr, _ := b.post(t, session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ping","arguments":{}}}`)
		if status != http.StatusOK || rpcErr != nil {
			t.Errorf("status %d, error %v", status, rpcErr)
		}
	})
}

// Over stdio, the same request gets the same sentence.
func TestProtocolErrorsAreReadableOverStdio(t *testing.T) {
	s := NewServer([]Tool{ping()}, &Options{Logger: slog.New(slog.DiscardHandler)})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":1}}` + "\n"
	out := &toolkittest.LogBuffer{}
	if err := ServeStdio(t.Context(), s, testPrincipal, strings.NewReader(in), out, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	var got *protocolAnswer
	for _, msg := range out.Records(t) {
		if msg["id"] != 2.0 {
			continue
		}
		e, _ := msg["error"].(map[string]any)
		code, _ := e["code"].(float64)
		message, _ := e["message"].(string)
		got = &protocolAnswer{Code: int(code), Message: message}
	}
	want := &protocolAnswer{Code: mcp.INVALID_PARAMS, Message: `The tools/call request's "params.name" must be a string, not a number. See the MCP specification for its params.`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

// BenchmarkProtocolEdge measures what the edge adds to a tools/call answered
// with JSON (the body read once more, the answer held and checked), against
// the same handler without it, in one run:
//
//	go test -run '^$' -bench ProtocolEdge ./toolkit
func BenchmarkProtocolEdge(b *testing.B) {
	s := NewServer([]Tool{ping()}, &Options{Logger: slog.New(slog.DiscardHandler)})
	streamable := server.NewStreamableHTTPServer(s, server.WithStateLess(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context { return auth.NewContext(ctx, testPrincipal) }))
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}`
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{{"bare", streamable}, {"edge", protocolEdge(streamable)}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(call))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				rec := httptest.NewRecorder()
				bc.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
