package toolkit

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

// Every tool result says isError on the wire, false as well as true: the
// design sends it so that no client has to know what a missing member
// means. mcp-go leaves a false one out; the transports' edges put it in.
func TestEveryToolResultSaysIsError(t *testing.T) {
	calls := []struct {
		mode string
		want bool
	}{{"ok", false}, {"refuse", true}, {"fail", true}, {"panic", true}}

	t.Run("streamable HTTP", func(t *testing.T) {
		db := storetest.New(t)
		pair := workspacetest.Two(t, db)
		tokens := auth.NewTokens(db)
		token, err := tokens.Create(t.Context(), pair.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		s := NewServer([]Tool{behave()}, &Options{Logger: logger})
		ts := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{Tokens: tokens, Sessions: auth.NewSessions(db), Logger: logger}))
		t.Cleanup(ts.Close)
		b := &httpBundle{url: ts.URL + "/mcp", token: token}
		session := b.initialize(t)
		for i, c := range calls {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"behave","arguments":{"mode":%q}}}`, 10+i, c.mode)
			checkIsError(t, c.mode, postRaw(t, b, session, body), c.want)
		}
	})

	t.Run("stdio", func(t *testing.T) {
		s := NewServer([]Tool{behave()}, &Options{Logger: slog.New(slog.DiscardHandler)})
		var in strings.Builder
		in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i, c := range calls {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"behave","arguments":{"mode":%q}}}`+"\n", 10+i, c.mode)
		}
		// A result that is not a tool's is left as it is.
		in.WriteString(`{"jsonrpc":"2.0","id":99,"method":"tools/list"}` + "\n")
		var out strings.Builder
		if err := ServeStdio(t.Context(), s, testPrincipal, strings.NewReader(in.String()), &out, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		byID := map[int]string{}
		for line := range strings.Lines(out.String()) {
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal([]byte(line), &m) == nil {
				byID[m.ID] = line
			}
		}
		for i, c := range calls {
			checkIsError(t, c.mode, []byte(byID[10+i]), c.want)
		}
		if strings.Contains(byID[99], "isError") {
			t.Errorf("tools/list answer got an isError: %.200s", byID[99])
		}
	})
}

func checkIsError(t *testing.T, mode string, answer []byte, want bool) {
	t.Helper()
	var got struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(answer, &got); err != nil {
		t.Fatalf("%s: answer is not JSON (%v): %s", mode, err, answer)
	}
	raw, ok := got.Result["isError"]
	if !ok {
		t.Errorf("%s: the result leaves isError out: %s", mode, answer)
		return
	}
	if diff := cmp.Diff(fmt.Sprint(want), string(raw)); diff != "" {
		t.Errorf("%s: isError mismatch (-want +got):\n%s", mode, diff)
	}
}

// postRaw sends body to /mcp in the session and returns the answer's bytes.
func postRaw(t *testing.T, b *httpBundle, session, body string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, b.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
