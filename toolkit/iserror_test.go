package toolkit

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		tokens := auth.NewTokens(auth.TokensDeps{DB: db})
		token, err := tokens.Create(t.Context(), pair.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		s := NewServer([]Tool{behave()}, &Options{Logger: logger})
		ts := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{Tokens: tokens, Sessions: auth.NewSessions(auth.SessionsDeps{DB: db}), Logger: logger}))
		t.Cleanup(ts.Close)
		b := &httpBundle{url: ts.URL + "/mcp", token: token}
		session := b.initialize(t)
		for i, c := range calls {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"behave","arguments":{"mode":%q}}}`, 10+i, c.mode)
			_, answer, _ := b.send(t, session, body)
			checkIsError(t, c.mode, answer, c.want)
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
