// Package mailboxes is where the mailboxes a workspace sends from come
// from: the ones a person connected with their own SMTP and IMAP settings
// (their passwords sealed), the ones the sending setup ordered from a
// provider, and the sources that give the engine each with its endpoints.
package mailboxes
