package toolkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

// These tests show how cmd/server hands the principal to the tools on each
// transport, and that it reaches the handler.

func TestPrincipalOverStreamableHTTP(t *testing.T) {
	s := NewServer([]Tool{ping()}, &Options{Logger: slog.New(slog.DiscardHandler)})
	h := server.NewStreamableHTTPServer(s,
		server.WithStateLess(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			// Stands for the bearer-token middleware: a known token
			// becomes the workspace it was issued for.
			if r.Header.Get("Authorization") == "Bearer good" {
				return auth.NewContext(ctx, testPrincipal)
			}
			return ctx
		}),
	)
	ts := httptest.NewServer(h)
	defer ts.Close()

	for token, want := range map[string]string{
		"good":  "Workspace acme.",
		"other": "This connection is not linked to a workspace.",
	} {
		c, err := client.NewStreamableHttpClient(ts.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			t.Fatal(err)
		}
		text := callOnce(t, c, "ping")
		if !strings.HasPrefix(text, want) {
			t.Errorf("token %s: %q, want %q", token, text, want)
		}
	}
}

func TestPrincipalOverStdio(t *testing.T) {
	s := NewServer([]Tool{ping()}, &Options{Logger: slog.New(slog.DiscardHandler)})
	stdio := server.NewStdioServer(s)
	// Stdio serves one local user: the principal is fixed at start, e.g.
	// from a token in the environment.
	stdio.SetContextFunc(func(ctx context.Context) context.Context { return auth.NewContext(ctx, testPrincipal) })

	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, clientToServer, serverToClient) }()
	defer func() {
		cancel()
		_ = serverIn.Close()
		<-done
	}()

	c := client.NewClient(transport.NewIO(serverOut, serverIn, io.NopCloser(strings.NewReader(""))))
	if text := callOnce(t, c, "ping"); text != "Workspace acme." {
		t.Errorf("text = %q", text)
	}
}

func callOnce(t *testing.T, c *client.Client, tool string) string {
	t.Helper()
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(mcp.TextContent).Text
}

// A client may write its requests and close its end without waiting (a
// script, a pipe): every request read before the input ended is answered
// before ServeStdio returns.
func TestServeStdioAnswersEveryRequestBeforeItsInputEnds(t *testing.T) {
	slow := Define(Spec[struct{}, pingOutput]{
		Name:        "slow_ping",
		Title:       "Slow ping",
		Description: "Says which workspace is asking, after a moment.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (Result[pingOutput], error) {
			time.Sleep(2 * time.Millisecond)
			return Result[pingOutput]{Markdown: "Workspace " + p.WorkspaceSlug + ".", Data: pingOutput{Workspace: p.WorkspaceSlug}}, nil
		},
	})
	s := NewServer([]Tool{slow}, &Options{Logger: slog.New(slog.DiscardHandler)})

	const calls = 40
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for id := 2; id < 2+calls; id++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_ping","arguments":{}}}`+"\n", id)
	}
	out := &toolkittest.LogBuffer{} // JSON lines, like a log
	if err := ServeStdio(t.Context(), s, testPrincipal, strings.NewReader(in.String()), out, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}

	answered := map[int]bool{}
	for _, msg := range out.Records(t) {
		id, _ := msg["id"].(float64)
		if id >= 2 {
			result, _ := msg["result"].(map[string]any)
			sc, _ := result["structuredContent"].(map[string]any)
			if sc["workspace"] != testPrincipal.WorkspaceSlug {
				t.Fatalf("not a slow_ping result: %v", msg)
			}
		}
		answered[int(id)] = true
	}
	for id := 1; id < 2+calls; id++ {
		if !answered[id] {
			t.Errorf("request %d was read but never answered", id)
		}
	}
}
