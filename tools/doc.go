// Package tools is the catalog: every tool of the product ([Registry]),
// defined with package toolkit, each a thin adapter of one feature method
// (decode the arguments, call the feature, render its Markdown and
// structuredContent). Files are named after the feature files they adapt
// (tools/sending_order.go adapts sending's order). It holds no SQL and no
// business rule: preconditions, terms, next steps and executors live in
// the feature packages.
//
// A tool's spec, beside its handler, is its whole contract: the name, the
// title, the four behaviour hints, the OAuth scope a call needs, whether
// only the card may call it, the argument and result types, and the
// description, written as wrapped prose that may quote the server's
// configured terms as [[.MailboxPrice]] and the like (see define). The
// snapshots in testdata/toolsnaps are what hosts are shown of it, so a
// change to any of it is a reviewed diff.
package tools
