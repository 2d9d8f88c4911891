package campaigns

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"vibesell"
)

// Schedule is when a campaign may send: a window of the day and days of
// the week, both read in each lead's own time zone.
type Schedule struct {
	// WindowStart and WindowEnd are minutes after local midnight: 540 and
	// 1020 are 09:00 to 17:00; 0 and 1440 the whole day.
	WindowStart, WindowEnd int
	Days                   []time.Weekday // sorted, Monday first
	// DailyCap is the most emails each mailbox sends a day.
	DailyCap int
	// StopForCompany stops the whole company's leads when one replies.
	StopForCompany bool
}

var weekdayNames = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
}

// ParseDays reads day names (monday or mon, any case) into weekdays,
// Monday first, each once.
func ParseDays(names []string) ([]time.Weekday, error) {
	var out []time.Weekday
	for _, n := range names {
		d, ok := weekdayNames[strings.ToLower(strings.TrimSpace(n))]
		if !ok {
			return nil, fmt.Errorf("%q is not a day of the week; use monday … sunday", n)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b time.Weekday) int { return isoDay(a) - isoDay(b) })
	return out, nil
}

// ParseClock reads "HH:MM" (00:00 to 24:00) as minutes after midnight.
func ParseClock(s string) (int, error) {
	var h, m int
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d:%d", &h, &m); err != nil || len(strings.TrimSpace(s)) != 5 ||
		h < 0 || h > 24 || m < 0 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("%q is not a time of day; write it as HH:MM, 00:00 to 24:00", s)
	}
	return h*60 + m, nil
}

// TimeOfDay writes minutes after midnight as HH:MM.
func TimeOfDay(minutes int) string { return fmt.Sprintf("%02d:%02d", minutes/60, minutes%60) }

func isoDay(d time.Weekday) int {
	if d == time.Sunday {
		return 7
	}
	return int(d)
}

// DayNames writes the days as words, e.g. "Monday to Friday".
func DayNames(days []time.Weekday) string {
	if len(days) == 7 {
		return "every day"
	}
	consecutive := len(days) > 2
	for i := 1; i < len(days); i++ {
		if isoDay(days[i]) != isoDay(days[i-1])+1 {
			consecutive = false
		}
	}
	if consecutive {
		return days[0].String() + " to " + days[len(days)-1].String()
	}
	names := make([]string, len(days))
	for i, d := range days {
		names[i] = d.String()
	}
	return vibesell.JoinAnd(names)
}

// Next returns the first instant at or after t when the schedule lets an
// email go to a lead in loc. Each day's window is read on that day's
// local clock, so it stays 09:00 local across a change to or from summer
// time while its instant moves by the hour.
func (s Schedule) Next(t time.Time, loc *time.Location) time.Time {
	local := t.In(loc)
	for i := range 8 {
		y, m, d := local.Date()
		day := time.Date(y, m, d+i, 0, 0, 0, 0, loc)
		if !slices.Contains(s.Days, day.Weekday()) {
			continue
		}
		dy, dm, dd := day.Date()
		start := time.Date(dy, dm, dd, s.WindowStart/60, s.WindowStart%60, 0, 0, loc)
		end := time.Date(dy, dm, dd, s.WindowEnd/60, s.WindowEnd%60, 0, 0, loc)
		if t.Before(start) {
			return start
		}
		if t.Before(end) {
			return t
		}
	}
	// Unreachable with at least one day and a non-empty window.
	return t
}

// addBusinessDays returns the date n business days (Monday to Friday)
// after day.
func addBusinessDays(day time.Time, n int) time.Time {
	for n > 0 {
		day = day.AddDate(0, 0, 1)
		if wd := day.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return day
}

// Describe writes the schedule for a person: "09:00 to 17:00, Monday to
// Friday, in each person's own time zone; at most 25 emails per mailbox a
// day".
func (s Schedule) Describe() string {
	out := fmt.Sprintf("%s to %s, %s, in each person's own time zone; at most %s per mailbox a day",
		TimeOfDay(s.WindowStart), TimeOfDay(s.WindowEnd), DayNames(s.Days), vibesell.Plural(s.DailyCap, "email", "emails"))
	if s.StopForCompany {
		out += "; a reply stops everyone at that person's company"
	}
	return out
}
