package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vibesell/toolkit"
)

// Hosts break in known ways on what tools/list holds; these are their
// limits, held with room to spare.
const (
	// maxInputSchema: claude.ai silently drops a tool whose inputSchema is
	// over 16 KiB; each of ours stays under half of that.
	maxInputSchema = 8 << 10
	// readmeSizeTolerance: the README's figure of the whole tools/list
	// may lag a description's rewording by this much, not more.
	readmeSizeTolerance = 0.05
)

// listedTools is the tools/list result exactly as a 2025-11-25 client
// gets it (the JSON mcp-go writes), and each tool of it.
func listedTools(t *testing.T) (raw []byte, tools []map[string]json.RawMessage) {
	t.Helper()
	s := NewServer(Deps{}, nil)
	answer := s.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools      []map[string]json.RawMessage `json:"tools"`
		NextCursor string                       `json:"nextCursor"`
	}
	if err := json.Unmarshal(msg.Result, &list); err != nil {
		t.Fatal(err)
	}
	if list.NextCursor != "" || len(list.Tools) != len(contractTools)+len(appOnlyTools) {
		t.Fatalf("tools/list gave %d tools (next cursor %q) in one page, want all %d", len(list.Tools), list.NextCursor, len(contractTools)+len(appOnlyTools))
	}
	return msg.Result, list.Tools
}

// Every inputSchema is at most 8 KiB, and no outputSchema has anyOf or
// oneOf at its root (Claude's connector hangs at "Checking connection…"
// on one).
func TestToolsHoldTheHostsLimits(t *testing.T) {
	_, tools := listedTools(t)
	for _, tool := range tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		if n := len(tool["inputSchema"]); n > maxInputSchema {
			t.Errorf("%s: inputSchema is %d bytes, over the %d this server holds every tool to (claude.ai drops a tool over 16 KiB)", name, n, maxInputSchema)
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(tool["outputSchema"], &out); err != nil || out == nil {
			t.Errorf("%s: outputSchema %s is not an object (%v)", name, tool["outputSchema"], err)
			continue
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			if _, ok := out[key]; ok {
				t.Errorf("%s: outputSchema has %s at its root, which Claude's connector hangs on", name, key)
			}
		}
		if string(out["type"]) != `"object"` {
			t.Errorf("%s: outputSchema's root type is %s, want object", name, out["type"])
		}
	}
}

// The README says how large tools/list is (hosts put all of it before
// every conversation); the figure stays within 5% of the truth.
func TestREADMEStatesTheToolsListSize(t *testing.T) {
	raw, tools := listedTools(t)
	largest, largestName := 0, ""
	for _, tool := range tools {
		if n := len(tool["inputSchema"]); n > largest {
			largest = n
			_ = json.Unmarshal(tool["name"], &largestName)
		}
	}
	measured := fmt.Sprintf("tools/list: %d bytes for %d tools; the largest inputSchema is %s's, %d bytes", len(raw), len(tools), largestName, largest)
	t.Log(measured)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("The whole `tools/list` result is ([0-9,]+) bytes").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("the README does not say \"The whole `tools/list` result is N bytes\"; %s", measured)
	}
	stated, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), ",", ""))
	if d := float64(stated-len(raw)) / float64(len(raw)); d > readmeSizeTolerance || d < -readmeSizeTolerance {
		t.Errorf("the README says tools/list is %d bytes; it is %d (%+.1f%%): update the README's figures (%s)", stated, len(raw), 100*d, measured)
	}
	if !strings.Contains(string(readme), toolkit.LegacyCardURI) {
		t.Errorf("the README does not name %s, the card's URI before it carried its version", toolkit.LegacyCardURI)
	}
}
