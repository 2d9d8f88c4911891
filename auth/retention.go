package auth

import "time"

// How long what this package stores is kept, as the privacy page
// (web/privacy.go) tells people; its test reads these, so a change here
// shows on the page or fails there.
const (
	// WebSessionLifetime is how long a web app sign-in lasts at most.
	WebSessionLifetime = webSessionLifetime
	// WebSessionIdleLimit ends a web app sign-in unused for this long.
	WebSessionIdleLimit = webSessionIdleLimit
	// MCPSessionIdleLimit ends an assistant's session unused for this long.
	MCPSessionIdleLimit = sessionIdleLimit
	// EndedMCPSessionKept is how long an ended session's record stays
	// before the hourly prune deletes it.
	EndedMCPSessionKept = 7 * 24 * time.Hour
)
