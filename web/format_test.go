package web

import (
	"testing"
	"time"
)

// The relative times round to the nearest unit: what is left is said as
// the person would say it, never a whole unit short.
func TestRelativeRoundsToTheNearestUnit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		in   time.Duration
		want string
	}{
		{29 * time.Second, "just now"},
		{30 * time.Second, "in 1 minute"},
		{90 * time.Second, "in 2 minutes"},
		{59*time.Minute + 29*time.Second, "in 59 minutes"},
		{59*time.Minute + 30*time.Second, "in 1 hour"},
		{90 * time.Minute, "in 2 hours"},
		{47*time.Hour + 29*time.Minute, "in 47 hours"},
		{47*time.Hour + 30*time.Minute, "in 2 days"},
		{2*24*time.Hour + 11*time.Hour, "in 2 days"},
		{2*24*time.Hour + 12*time.Hour, "in 3 days"},
		{2*24*time.Hour + 20*time.Hour, "in 3 days"},
		{-(2*24*time.Hour + 20*time.Hour), "3 days ago"},
		{-(5*time.Minute + 40*time.Second), "6 minutes ago"},
	}
	for _, c := range cases {
		if got := relative(now.Add(c.in), now); got != c.want {
			t.Errorf("relative(now + %v) = %q, want %q", c.in, got, c.want)
		}
	}
}
