package tools

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell/auth"
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
