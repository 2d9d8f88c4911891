package toolkittest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// LogBuffer collects what several goroutines write (a server's log, a
// process's output) for a test to read once they are done.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Records reads what was written as JSON lines (slog's JSON handler), one
// map per line; a line that is not JSON fails the test.
func (b *LogBuffer) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
		}
		out = append(out, r)
	}
	return out
}

// TextOf returns the text of a result's first content block ("" when it
// has none or it is not text).
func TextOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if text, ok := mcp.AsTextContent(res.Content[0]); ok {
		return text.Text
	}
	return ""
}

// MustContain fails the test for every want that text does not contain,
// showing the text once.
func MustContain(t testing.TB, text string, wants ...string) {
	t.Helper()
	var missing []string
	for _, w := range wants {
		if !strings.Contains(text, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the text does not say %q; it says:\n%s", missing, text)
	}
}
