// Package tools is the catalog: every tool of the product ([Registry]),
// defined with package toolkit, each a thin adapter of one feature method
// (decode the arguments, call the feature, render its Markdown and
// structuredContent). Files are named after the feature files they adapt
// (tools/sending_order.go adapts sending's order). It holds no SQL and no
// business rule: preconditions, terms, next steps and executors live in
// the feature packages.
//
// A tool's Go spec names it and carries its handler and its argument and
// result types; what a host and the assistant read about it besides the
// schemas (title, description, the four hints, the OAuth scope) is in
// catalog.json, one entry per tool, read by define. A description may
// quote the server's configured terms as [[.MailboxPrice]] and the like.
package tools
