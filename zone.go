package vibesell

import (
	"context"
	"sync"
	"time"
)

// A request knows the workspace's time zone, the one its settings set,
// without every feature method taking it: texts for the assistant write a
// moment in that zone with UTC beside it (FormatTimeFor). The zone is
// read only when a text writes a moment, so a call that writes none reads
// nothing for it.

type zoneKey struct{}

// zoneOnce reads a request's zone once, the first time a text needs it.
type zoneOnce struct {
	once sync.Once
	read func(context.Context) (*time.Location, error)
	loc  *time.Location
}

// WithZone returns ctx whose moments are written in the zone read returns,
// read at most once. A read that fails leaves the moments in UTC, which
// is still the truth, only not in the person's zone.
func WithZone(ctx context.Context, read func(context.Context) (*time.Location, error)) context.Context {
	return context.WithValue(ctx, zoneKey{}, &zoneOnce{read: read})
}

// ZoneOf is ctx's zone: the workspace's, or UTC when ctx has none.
func ZoneOf(ctx context.Context) *time.Location {
	z, ok := ctx.Value(zoneKey{}).(*zoneOnce)
	if !ok {
		return time.UTC
	}
	z.once.Do(func() {
		loc, err := z.read(ctx)
		if err != nil || loc == nil {
			loc = time.UTC
		}
		z.loc = loc
	})
	return z.loc
}

// ZoneRead tells whether a text of this request has read the zone, and
// which it is: the card is then told the zone the text used.
func ZoneRead(ctx context.Context) (*time.Location, bool) {
	z, ok := ctx.Value(zoneKey{}).(*zoneOnce)
	if !ok || z.loc == nil {
		return nil, false
	}
	return z.loc, true
}

// FormatTimeFor writes a moment for the assistant in the workspace's time
// zone with UTC beside it, "Tue 1 Dec 2026, 15:05 America/Los_Angeles
// (23:05 UTC)", or in UTC alone when that is the workspace's zone.
func FormatTimeFor(ctx context.Context, t time.Time) string {
	return FormatTimeBeside(t, ZoneOf(ctx))
}

// FormatTimeBeside writes a moment in loc with UTC beside it, as
// FormatTimeFor does for a request's zone.
func FormatTimeBeside(t time.Time, loc *time.Location) string {
	if loc == nil || loc == time.UTC || loc.String() == "UTC" {
		return FormatTime(t)
	}
	local, utc := t.In(loc), t.UTC()
	beside := utc.Format("15:04") + " UTC"
	if local.YearDay() != utc.YearDay() || local.Year() != utc.Year() {
		beside = utc.Format("Mon 2 Jan, 15:04") + " UTC"
	}
	return FormatTimeIn(t, loc) + " (" + beside + ")"
}

// InZone returns ctx whose moments are written in loc: for a text written
// from data that carries its zone (a Markdown that must be a function of
// its data alone), not from the request.
func InZone(ctx context.Context, loc *time.Location) context.Context {
	z := &zoneOnce{loc: loc}
	z.once.Do(func() {})
	return context.WithValue(ctx, zoneKey{}, z)
}
