package tools

import (
	"fmt"
	"strings"

	"vibesell"
)

// The Markdown is read by a person through the assistant, so dates and
// amounts are spelled out ("Tue 2 Dec 2026, 09:00 UTC", "INR 1,450.00"),
// never left as ISO strings or bare numbers to decode.

// formatDate and formatTime are the root's (vibesell.FormatDate and
// FormatTime), under the names the sending catalog files still call.
var (
	formatDate = vibesell.FormatDate
	formatTime = vibesell.FormatTime
)

// bulletList renders items as a Markdown list, or none when empty.
func bulletList(items []string) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- %s\n", it)
	}
	return b.String()
}

// strPtr is s as an optional field: nil when empty.
func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func pickText(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// clip cuts s to its first n characters, marked with an ellipsis, for a
// text that repeats what was just saved: the saved value is whole, and
// the text stays within the bound of a result however long each item is.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

func clipAll(items []string, n int) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = clip(it, n)
	}
	return out
}
