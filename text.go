package vibesell

import (
	"strconv"
	"strings"
	"time"
)

// The prose helpers: every sentence the product writes, for the assistant
// or for a person, joins lists, counts things and writes dates the same
// way, so that "1 domain" never reads "1 domains" in one place and not in
// another.

// JoinAnd joins items as a reader expects: "a", "a and b", "a, b and c".
func JoinAnd(items []string) string { return joinLast(items, " and ") }

// JoinOr joins alternatives: "a", "a or b", "a, b or c".
func JoinOr(items []string) string { return joinLast(items, " or ") }

func joinLast(items []string, last string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}

// Count writes a number with thousands separators: 6000 is "6,000".
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + groupThousands(s[1:])
	}
	return groupThousands(s)
}

// Plural writes a count and the noun that agrees with it: Plural(1,
// "mailbox", "mailboxes") is "1 mailbox", Plural(6000, …) "6,000
// mailboxes".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// FormatDate writes a calendar day: "Tue 2 Dec 2026".
func FormatDate(t time.Time) string { return t.Format("Mon 2 Jan 2006") }

// FormatTime writes a moment in UTC with its zone spelled out: "Tue 2 Dec
// 2026, 09:00 UTC".
func FormatTime(t time.Time) string { return FormatTimeIn(t, time.UTC) }

// FormatTimeIn writes a moment in a person's time zone, named: "Tue 2 Dec
// 2026, 10:00 Europe/Paris" (UTC when loc is nil).
func FormatTimeIn(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04") + " " + loc.String()
}

// FormatDay writes a calendar day in its structured form, "2026-12-02",
// for structuredContent (never for prose).
func FormatDay(t time.Time) string { return t.Format(time.DateOnly) }

// Stop ends a clause as a sentence: with a full stop, unless it already
// ends with one (or with ! ? or …). A clause that quotes a stored text
// ("rejected: " and the reason the person gave) may or may not end with
// one, and "Status: %s." would then read "..".
func Stop(clause string) string {
	trimmed := strings.TrimRight(clause, " ")
	if trimmed == "" || strings.HasSuffix(trimmed, ".") || strings.HasSuffix(trimmed, "!") ||
		strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, "…") {
		return trimmed
	}
	return trimmed + "."
}

// PersonOpens writes a link the assistant hands on, saying that only the
// person opens it: the assistant neither fetches it nor says it was
// opened (checkout, the billing portal and the web app alike).
func PersonOpens(url string) string { return url + " (only the person opens it)" }
