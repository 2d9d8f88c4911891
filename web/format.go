package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"vibesell"
	"vibesell/approvals"
)

// parsePages parses each page together with the layout it fills in.
func parsePages() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range []string{"signin", "approvals", "approval", "support", "error", "leads", "upload", "campaigns", "settings", "billing", "outbox", "sending", "lead", "replies", "reply", "reply_answer", "webhooks", "webhooklog", "approval_policy", "privacy", "terms"} {
		files := []string{"templates/layout.html", "templates/" + name + ".html"}
		if name == "leads" {
			files = append(files, "templates/leadlist.html") // the leads list, in a file of its own
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, files...)
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

var funcs = template.FuncMap{
	"money":       formatMoney,
	"statusLabel": statusLabel,
	"viaLabel":    viaLabel,
	"eventLabel":  eventLabel,
	"deref":       func(s *string) string { return deref(s) },
	"count":       vibesell.Count,
	"fieldLabel":  fieldLabel,
}

// fieldLabel names a lead's field for a person: "first_name" is "First name".
func fieldLabel(f string) string {
	f = strings.ReplaceAll(f, "_", " ")
	return strings.ToUpper(f[:1]) + f[1:]
}

// formatMoney writes "USD 1,450.00", as the product writes money everywhere.
func formatMoney(m vibesell.Money) string {
	return m.String()
}

// formatTime writes a moment in the person's time zone, as the product
// writes every moment: "Tue 2 Dec 2026, 09:00 Europe/Paris".
func formatTime(t time.Time, loc *time.Location) string { return vibesell.FormatTimeIn(t, loc) }

// relative writes how far t is from now: "in 3 hours", "5 minutes ago".
// It rounds to the nearest unit, so the words stay true: 2 days and 20
// hours left reads "in 3 days", not "in 2 days"; a count that rounds up
// to the next unit's size is said in that unit ("in 1 hour", not "in 60
// minutes").
func relative(t, now time.Time) string {
	d := t.Sub(now)
	future := d > 0
	if !future {
		d = -d
	}
	var s string
	minutes := int((d + time.Minute/2) / time.Minute)
	hours := int((d + time.Hour/2) / time.Hour)
	switch {
	case minutes < 1:
		return "just now"
	case minutes < 60:
		s = count(minutes, "minute")
	case hours < 48:
		s = count(hours, "hour")
	default:
		s = count(int((d+12*time.Hour)/(24*time.Hour)), "day")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// thousands writes a count with thousands separators: 1,000.
func thousands(n int) string { return englishNumbers.Sprint(n) }

var englishNumbers = message.NewPrinter(language.English)

func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// The labels are approvals' tables, which the card's are generated from.
func statusLabel(s approvals.Status) string { return s.Label() }
func viaLabel(via string) string            { return approvals.ViaLabels.Of(via) }
func eventLabel(event string) string        { return approvals.EventLabels.Of(event) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
