package vibesell

import "slices"

// The OAuth scopes a tool may need (toolkit.Needs.Scope), declared once so
// that the catalog, the authorization server and the gate that checks a
// token against a tool all use the same words. Each scope is a step up
// from the one before; a token that may do more may do less.
//
//   - ScopeRead: look at the workspace; the read-only tools.
//   - ScopeWrite: change the workspace's own records (the offer, a memory,
//     picks and sizing, a support ticket). Nothing reaches beyond VibeSell,
//     nothing costs money.
//   - ScopeAct: set something going outside VibeSell or with money: put a
//     paid order before a person, start warmup, import leads, launch, stop
//     or resume a campaign, check out or change a plan, open the billing
//     portal, decide an approval. A person still approves what the design
//     says a person approves; the scope is what a connection may ask for
//     at all.
const (
	ScopeRead  = "vibesell:read"
	ScopeWrite = "vibesell:write"
	ScopeAct   = "vibesell:act"
)

// scopeSteps lists the scopes from the least to the most a token may do.
var scopeSteps = []string{ScopeRead, ScopeWrite, ScopeAct}

// Scopes returns every scope a tool may need, from the least to the most:
// what a client may ask for, and what a workspace token (which stands for
// the whole workspace) carries.
func Scopes() []string { return slices.Clone(scopeSteps) }

// ScopeCovers reports whether a token granted these scopes may call a tool
// that needs needed: it holds needed or a scope above it. Unknown scopes,
// granted or needed, cover nothing and are covered by nothing.
func ScopeCovers(granted []string, needed string) bool {
	step := slices.Index(scopeSteps, needed)
	if step < 0 {
		return false
	}
	for _, g := range granted {
		if slices.Index(scopeSteps, g) >= step {
			return true
		}
	}
	return false
}
