// Package sandboxmail is the sandbox mail server a new installation sends
// to: an in-process SMTP and IMAP server on loopback whose mailboxes keep
// what they accept, and the outbox that keeps those messages per workspace
// for the web app, where a person can answer one as its lead would.
package sandboxmail
