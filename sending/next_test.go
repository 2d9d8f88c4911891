package sending_test

import (
	"vibesell/toolkit"
	"vibesell/workspace"
)

// nextText is a next step as the assistant reads it: why, then the calls.
func nextText(n workspace.NextStep) string { return toolkit.GuidanceText(n.Why, n.Next) }
