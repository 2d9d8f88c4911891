package sending

import "time"

// Dates here are calendar days in UTC: a date is a time.Time at midnight
// UTC. Business days are Monday to Friday; public holidays are not known
// and count as business days.

// day returns the calendar day of t, in UTC.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func isWeekend(t time.Time) bool {
	wd := t.Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

// addBusinessDays returns the moment n business days after t: each step
// moves one day and skips Saturdays and Sundays. From Friday 10:00, two
// business days is Tuesday 10:00; from Saturday it is Tuesday too.
func addBusinessDays(t time.Time, n int) time.Time {
	t = t.UTC()
	for n > 0 {
		t = t.AddDate(0, 0, 1)
		if !isWeekend(t) {
			n--
		}
	}
	return t
}

// onOrAfterBusinessDay returns the day of t, or the Monday after when t
// falls on a weekend.
func onOrAfterBusinessDay(t time.Time) time.Time {
	d := day(t)
	for isWeekend(d) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// businessDaysBetween counts the business days from the day of a to the
// day of b, both included; 0 when b is before a.
func businessDaysBetween(a, b time.Time) int {
	n := 0
	for d := day(a); !d.After(day(b)); d = d.AddDate(0, 0, 1) {
		if !isWeekend(d) {
			n++
		}
	}
	return n
}
