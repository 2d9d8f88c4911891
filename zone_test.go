package vibesell

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFormatTimeFor(t *testing.T) {
	at := time.Date(2026, 12, 1, 23, 5, 0, 0, time.UTC)
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	zoned := func(loc *time.Location) context.Context {
		return WithZone(context.Background(), func(context.Context) (*time.Location, error) { reads++; return loc, nil })
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"no zone", context.Background(), "Tue 1 Dec 2026, 23:05 UTC"},
		{"UTC", zoned(time.UTC), "Tue 1 Dec 2026, 23:05 UTC"},
		{"the same day", zoned(la), "Tue 1 Dec 2026, 15:05 America/Los_Angeles (23:05 UTC)"},
		{"the next day", zoned(tokyo), "Wed 2 Dec 2026, 08:05 Asia/Tokyo (Tue 1 Dec, 23:05 UTC)"},
		{"a failed read", WithZone(context.Background(), func(context.Context) (*time.Location, error) { return nil, errors.New("down") }), "Tue 1 Dec 2026, 23:05 UTC"},
	} {
		if got := FormatTimeFor(tc.ctx, at); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	ctx := zoned(la)
	reads = 0
	FormatTimeFor(ctx, at)
	FormatTimeFor(ctx, at)
	if loc, ok := ZoneRead(ctx); reads != 1 || !ok || loc != la {
		t.Errorf("read %d times (want once), ZoneRead %v %v", reads, loc, ok)
	}
	if _, ok := ZoneRead(zoned(la)); ok {
		t.Error("a request that wrote no moment says it read the zone")
	}
}
