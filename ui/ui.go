// Package ui holds the VibeSell card: the one MCP App document that the
// Claude app (or any MCP Apps host) shows under each tool result, rendering
// its structuredContent by kind.
//
// The card's source is TypeScript and CSS under src/, built by build.mjs
// (esbuild, with the official MCP Apps SDK) into card.html: one
// self-contained HTML5 document with every script and style inline, so it
// loads under the default MCP Apps content security policy. card.html is
// committed, so building the server needs no Node; a test rebuilds it from
// source and fails when the committed file differs.
//
// To change the card: edit src/, then
//
//	cd ui && npm ci && npm run build
//
// and commit src/ and card.html together. The browser tests
// (browser_test.go) load it in headless Chromium through a test host (harness/).
package ui

import _ "embed"

// CardHTML is the card, served at toolkit.CardURI(CardHTML) with MIME type
// text/html;profile=mcp-app. Pass it as toolkit.Options.CardHTML.
//
//go:embed card.html
var CardHTML string
