package vibesell_test

import (
	"testing"
	"time"

	"vibesell"
)

// A moment is written the same way everywhere, in UTC for the tools and
// in the person's own zone for the web app.
func TestFormatTimeIn(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		got, want string
	}{
		{vibesell.FormatTime(at), "Wed 2 Dec 2026, 09:00 UTC"},
		{vibesell.FormatTimeIn(at, nil), "Wed 2 Dec 2026, 09:00 UTC"},
		{vibesell.FormatTimeIn(at, paris), "Wed 2 Dec 2026, 10:00 Europe/Paris"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
