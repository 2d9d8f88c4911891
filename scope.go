package vibesell

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
//     paid order before a person, start warmup, decide an approval
//     (later: launch a campaign, check out a plan). A person still approves
//     what the design says a person approves; the scope is what a
//     connection may ask for at all.
const (
	ScopeRead  = "vibesell:read"
	ScopeWrite = "vibesell:write"
	ScopeAct   = "vibesell:act"
)
