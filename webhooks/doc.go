// Package webhooks tells the tools a workspace's salespeople use what
// happened: a workspace registers endpoint URLs, and each event (a reply
// received, a lead interested, unsubscribed or bounced, a campaign paused)
// is POSTed to each of its endpoints, signed with the endpoint's secret.
//
// An event is written by [Service.Emit] in the transaction that makes its
// fact true (an outbox), together with one River job per endpoint, unique
// by its arguments: no event is lost or invented, and each endpoint is
// sent each event by one job, whichever replica works it. A failed
// delivery is tried again with backoff for a day; after a day of failures
// the endpoint is disabled and the workspace's people are emailed.
//
// Deliveries connect through the [outbound.Guard]: an endpoint on a
// private network or on this machine is refused when it is added and at
// every connection.
package webhooks
