package sending

import (
	"slices"
	"time"
)

// Dates here are calendar days in UTC: a date is a time.Time at midnight
// UTC. Business days, the days mailboxes are prepared and campaigns send,
// are Monday to Friday except the public holidays of the configured
// calendar ([Config].Holidays, SENDING_HOLIDAYS).

// day returns the calendar day of t, in UTC.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// businessDay reports whether t falls on a business day.
func (c Config) businessDay(t time.Time) bool {
	wd := t.UTC().Weekday()
	if wd == time.Saturday || wd == time.Sunday {
		return false
	}
	d := day(t)
	return !slices.ContainsFunc(c.Holidays, func(h time.Time) bool { return day(h).Equal(d) })
}

// addBusinessDays returns the moment n business days after t: each step
// moves one day and skips weekends and holidays. From Friday 10:00, two
// business days is Tuesday 10:00; from Saturday it is Tuesday too.
func (c Config) addBusinessDays(t time.Time, n int) time.Time {
	t = t.UTC()
	for n > 0 {
		t = t.AddDate(0, 0, 1)
		if c.businessDay(t) {
			n--
		}
	}
	return t
}

// onOrAfterBusinessDay returns the day of t, or the first business day
// after it.
func (c Config) onOrAfterBusinessDay(t time.Time) time.Time {
	d := day(t)
	for !c.businessDay(d) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// businessDaysBetween counts the business days from the day of a to the
// day of b, both included; 0 when b is before a.
func (c Config) businessDaysBetween(a, b time.Time) int {
	n := 0
	for d := day(a); !d.After(day(b)); d = d.AddDate(0, 0, 1) {
		if c.businessDay(d) {
			n++
		}
	}
	return n
}

// DaysOff names the days that are not business days, for sentences:
// "weekends", or "weekends and public holidays" when a calendar is set.
func (c Config) DaysOff() string {
	if len(c.Holidays) == 0 {
		return "weekends"
	}
	return "weekends and public holidays"
}

// SendingDays says which days are sending days, for sentences.
func (c Config) SendingDays() string {
	if len(c.Holidays) == 0 {
		return "Monday to Friday"
	}
	return "Monday to Friday, except public holidays"
}
