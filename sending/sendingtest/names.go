// Package sendingtest holds what tests of the sending setup share.
package sendingtest

import (
	"context"

	"vibesell/sending"
)

// FreeNames is an availability check that says every name can be
// registered, so a test picks the names it means. It calls itself the
// sandbox.
type FreeNames struct{}

// Name is the sandbox's.
func (FreeNames) Name() string { return sending.SandboxName }

// Check says each name is available.
func (FreeNames) Check(_ context.Context, names []string) []sending.NameCheck {
	yes := true
	out := make([]sending.NameCheck, len(names))
	for i, n := range names {
		out[i] = sending.NameCheck{Domain: n, Available: &yes}
	}
	return out
}
