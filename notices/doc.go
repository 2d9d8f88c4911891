// Package notices sends the product's own emails to a workspace's people
// (approvals waiting, reminders), over the installation's notice mailbox,
// and records each so the sandbox's outbox can tell them apart.
package notices
