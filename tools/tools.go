package tools

// Deps are what the product's tools call into. cmd/server builds it once at
// start; each area's tools take the services they need from it.
type Deps struct{}

// Registry returns every tool of the product. It is the one list: a tool
// that is not here is not served. The names and kinds are a public contract
// (see shared/DESIGN.md), checked by TestRegistryContract.
func Registry(d Deps) []Tool {
	return []Tool{
		// workspace.go, sending.go, audience.go, campaigns.go, billing.go,
		// approvals.go: one line per tool, e.g. getWorkspaceContext(d),
	}
}
