package store_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"vibesell/store"
)

// While the database is down, every component logs its failures: the
// process writes one line about it a second, whoever logs.
func TestQuietOutagesLogsOneOutageLineASecond(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(store.QuietOutages(slog.NewTextHandler(&out, nil)))
	for range 50 {
		logger.Error("producer: Error fetching jobs", "err", "failed to connect to `user=x`: connection refused") // River's way
		logger.Error("tool call failed", "err", errors.New("query: unexpected EOF"))
	}
	logger.Error("something else broke", "err", errors.New("no such column"))
	logger.Warn("lost the notifications", "err", "unexpected EOF")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "similar_lines_dropped=0") ||
		!strings.Contains(lines[1], "something else broke") || !strings.Contains(lines[2], "level=WARN") {
		t.Errorf("100 outage lines, one other error and a warning in the same second logged:\n%s", out.String())
	}
}
