package tools

import (
	"github.com/mark3labs/mcp-go/server"

	"vibesell/toolkit"
)

// NewServer returns the product's MCP server: every tool of [Registry]
// with the product's [Instructions], on the framework's server (see
// toolkit.NewServer for the options).
func NewServer(d Deps, o *toolkit.Options) *server.MCPServer {
	var opts toolkit.Options
	if o != nil {
		opts = *o
	}
	opts.Instructions = Instructions
	if d.Workspaces != nil && opts.Zone == nil {
		opts.Zone = d.Workspaces.Zone
	}
	return toolkit.NewServer(Registry(d), &opts)
}
