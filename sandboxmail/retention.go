package sandboxmail

// OutboxKeeps is how many messages the sandbox outbox keeps per
// workspace, as the privacy page (web/privacy.go) tells people.
const OutboxKeeps = outboxKeeps
