// Package mail is the message and the wire: addresses and messages,
// composing and DKIM-signing them (the workspace's keys, sealed with the
// installation's [Secret]), reading one that came in ([ParseReply]), the
// signed one-click unsubscribe links and their page, and a mailbox's SMTP
// and IMAP endpoints with the clients that speak to them. It knows nothing
// of campaigns: [vibesell/delivery] sends, [vibesell/replies] reads, and
// [vibesell/sandboxmail] is the server a new installation sends to.
package mail
