package vibesell

import "time"

// Clock tells the time. Features take one so that tests can fix "now"
// (business days, expiries, warmup ramps) instead of sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }
