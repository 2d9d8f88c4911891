package campaigns

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

var weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}

// The window is 09:00 on the lead's own clock on both sides of a change to
// or from summer time, so its instant in UTC moves by the hour.
func TestScheduleAcrossDST(t *testing.T) {
	t.Parallel()
	nineToFive := Schedule{WindowStart: 9 * 60, WindowEnd: 17 * 60, Days: weekdays}
	paris, newYork, sydney := mustZone(t, "Europe/Paris"), mustZone(t, "America/New_York"), mustZone(t, "Australia/Sydney")
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name  string
		sched Schedule
		from  string
		loc   *time.Location
		want  string
	}{
		{"Paris, the Friday before summer time: 09:00 CET", nineToFive, "2026-03-27T05:00:00Z", paris, "2026-03-27T08:00:00Z"},
		{"Paris, after the weekend it changes: 09:00 CEST", nineToFive, "2026-03-27T17:00:00Z", paris, "2026-03-30T07:00:00Z"},
		{"Paris, inside the window: now", nineToFive, "2026-03-30T10:00:00Z", paris, "2026-03-30T10:00:00Z"},
		{"Paris, after the window on Friday: Monday", nineToFive, "2026-10-23T15:30:00Z", paris, "2026-10-26T08:00:00Z"},
		{"New York, winter time ends on Sunday 8 March", nineToFive, "2026-03-06T23:00:00Z", newYork, "2026-03-09T13:00:00Z"},
		{"Sydney, summer time ends on Sunday 5 April", nineToFive, "2026-04-03T08:00:00Z", sydney, "2026-04-05T23:00:00Z"},
		{"the skipped hour of the change: 02:30 does not exist that night", Schedule{WindowStart: 150, WindowEnd: 180, Days: []time.Weekday{time.Sunday}},
			"2026-03-28T12:00:00Z", paris, "2026-03-29T01:30:00Z"},
		{"the whole day, every day", Schedule{WindowStart: 0, WindowEnd: 1440, Days: []time.Weekday{0, 1, 2, 3, 4, 5, 6}},
			"2026-03-29T01:59:00Z", paris, "2026-03-29T01:59:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.sched.Next(utc(tt.from), tt.loc)
			if !got.Equal(utc(tt.want)) {
				t.Errorf("Next(%s) = %s (%s), want %s", tt.from, got.UTC().Format(time.RFC3339), got.In(tt.loc), tt.want)
			}
		})
	}
}

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	days, err := ParseDays([]string{"friday", "Mon", "TUESDAY", "mon"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Weekday{time.Monday, time.Tuesday, time.Friday}, days); d != "" {
		t.Errorf("days (-want +got):\n%s", d)
	}
	if DayNames(weekdays) != "Monday to Friday" || DayNames(days) != "Monday, Tuesday and Friday" {
		t.Errorf("day names: %q, %q", DayNames(weekdays), DayNames(days))
	}
	if _, err := ParseDays([]string{"someday"}); err == nil {
		t.Error("someday was accepted")
	}
	for in, want := range map[string]int{"09:00": 540, "24:00": 1440, "00:00": 0} {
		if got, err := ParseClock(in); err != nil || got != want {
			t.Errorf("ParseClock(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"9:00", "24:30", "12:60", "noon"} {
		if _, err := ParseClock(bad); err == nil {
			t.Errorf("ParseClock(%q) accepted", bad)
		}
	}
}

// The estimate stops at ten years instead of giving dates it did not reach.
func TestSimulateStopsAtTenYears(t *testing.T) {
	t.Parallel()
	paris := mustZone(t, "Europe/Paris")
	first := time.Date(2026, 12, 1, 9, 0, 0, 0, paris)
	steps := []Step{{Subject: "a", Body: "b"}, {Body: "c", WaitBusinessDays: 2, SameThread: true}}
	if _, _, _, finished := simulate(Schedule{WindowStart: 0, WindowEnd: 1440, Days: weekdays}, steps, 1_000_000, nil, 10, first, paris); finished {
		t.Error("a million leads at ten a day finished within ten years")
	}
	days, firstTouch, last, finished := simulate(Schedule{WindowStart: 0, WindowEnd: 1440, Days: weekdays}, steps, 25, nil, 10, first, paris)
	// Tue 1: 10 first emails; Wed 2: 10; Thu 3 and Fri 4: their 10
	// follow-ups each, due 2 business days later, take the whole day; Mon
	// 7: the last 5 first emails; Wed 9: their follow-ups.
	got := []string{firstTouch.Format(time.DateOnly), last.Format(time.DateOnly)}
	if d := cmp.Diff([]string{"2026-12-07", "2026-12-09"}, got); d != "" || !finished || days != 3 {
		t.Errorf("days %d finished %v; dates (-want +got):\n%s", days, finished, d)
	}
}
