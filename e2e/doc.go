// Package e2e checks the built server from the outside, with clients
// nobody here wrote: the official MCP TypeScript SDK (e2e/sdk/check.mjs,
// over streamable HTTP and over stdio) and the official conformance suite
// (conformance/). Both run from go test; see e2e_test.go for what they
// need and how they install it.
package e2e
