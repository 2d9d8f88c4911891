// Package mail is the sending engine: it builds, signs and sends messages
// through SMTP submission once per campaign step, honours one-click
// unsubscribes, reads the replies back over IMAP, and runs the sandbox mail
// server a new installation sends to.
//
// # Exactly once
//
// [Sender.Send] claims the step's row in mail_sends (unique on workspace,
// campaign, lead and step) in its own committed statement before it dials
// the SMTP server, and writes the outcome after the server answers. A
// second call for the same step, from a retry, another worker or another
// replica, finds the row claimed and sends nothing; only a row whose
// attempt failed before the message was handed over (status failed) can
// be claimed again.
//
// The crash window: a worker that dies after the server accepted DATA and
// before the outcome is written leaves the row in status sending. The
// message was (most likely) delivered, and the engine never sends that
// step again: it prefers a lost email to a duplicate one. The same holds
// when the connection breaks while the server answers the end of DATA
// (status unknown). Such rows keep the Message-ID the message went out
// with, so they can be reconciled against the mailbox's Sent folder or
// the sandbox's outbox; nothing does that yet. A worker that dies after
// the claim and before DATA also leaves status sending: that step is lost
// the same way, though nothing went out.
package mail
