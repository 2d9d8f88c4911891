// Package mail is the sending engine: it schedules and sends launched
// campaigns' emails once per step, builds and signs them, honours
// one-click unsubscribes, reads the replies back over IMAP and acts on
// them, and runs the sandbox mail server a new installation sends to.
//
// # The schedule
//
// [Engine.Tick] (a River job every 30 seconds) reads every running
// campaign and sends what is due: a lead's first step once the campaign
// is launched, each follow-up its business days after the step before,
// only inside the campaign's window and days in the lead's time zone (the
// workspace's when unknown). A lead keeps the mailbox of its first email
// (a same-thread follow-up carries In-Reply-To and References); a new lead
// goes to the campaign's mailbox with the most room left today. Each
// mailbox sends at most the campaign's daily cap, never more than its
// warmup stage allows across campaigns, with a random gap (2 to 6
// minutes) between two of its emails; mailboxes send in parallel, each
// over one SMTP session.
//
// # Exactly once
//
// [Sender.SendGated] claims a batch's steps in mail_sends (unique on
// workspace, campaign, lead and step) in one transaction, status claimed,
// with the gate: the address not on the workspace's suppression list, the
// campaign still running ([campaigns.SendAllowed] locks its row for
// share), the mailbox not paused, no reply from the lead (or their
// company), and billing's monthly emails counted for the steps claimed.
// The batch goes 50 steps at a time, the next 50 claimed (and gated)
// while these are sent. Each step is marked sending, committed, before
// its message is handed to the SMTP server, in a pipeline: one goroutine
// composes and signs the next messages, another marks them (those
// composed while the mark before was committing, in one statement),
// while the session hands over the ones marked; at most [MarkAhead]
// steps of a session are marked and not yet handed over. The mark reads
// the gate's stop again ([Gate.Stopped]; for campaigns,
// [campaigns.StoppedSQL] locks every campaign of the steps for share): a
// stop that committed after the claim, or is being committed during the
// mark, sends none of the steps not yet marked (they end failed, to be
// claimed again if the campaign resumes); at most the [MarkAhead] steps
// already marked go out after it. The batch's
// outcomes are written together after. A step claimed by anyone else, or
// marked sending once, is never sent by this call; when a message fails,
// the steps this call claimed or marked and never handed over are given
// back as failed, to be tried again.
//
// The crash windows: a worker that dies after marking a step sending and
// before its outcome is written leaves it sending (the rest of its batch,
// settled only with the batch, likewise): whether it left is not known.
// Such a step is never sent again, and never counted as sent or
// delivered; once [SendingLease] has passed, [Sender.SettleLost] (a
// sweep, every [SettleLostEvery]) settles it as lost, "not sent
// (unknown)", and the campaign's metrics count it so. The engine prefers a
// lost email to a duplicate one: a worker killed while a message is in
// DATA loses the steps marked ahead of it, at most [MarkAhead]-1 per
// mailbox sending at the time. The steps it had claimed and not marked
// stay claimed; once [ClaimLease] has passed, [Sender.ReleaseStale] (at
// each tick) makes them failed, and they are sent, once, by a later tick.
// A connection that breaks while the server answers the end of DATA
// leaves status unknown, never retried. Rows keep the Message-ID the
// message went out with, for reconciling against a Sent folder; nothing
// does that yet.
//
// # Replies and health
//
// One watcher per mailbox ([Watchers]) reads its inbox as the server
// announces new mail (IDLE) and every few minutes in any case; each reply
// is matched, classified and kept. A reply from a person, an unsubscribe
// request or a hard bounce stops the lead's sequence (and their company's
// when the campaign says so); an unsubscribe request and a hard bounce
// suppress the address across the workspace at once; a soft bounce makes
// the step failed, tried again after 15 minutes, then an hour, and after
// its [Tries]th try the address is suppressed. Before sending, each tick
// measures the hard bounces over the last 100 sends of each mailbox and
// of the campaign: past the limit (2%), the mailbox pauses with every
// running campaign sending from it, or the campaign pauses, automatically
// and with the reason; only a person resumes it (resume_campaign, approved
// in the web app), and the rate is then counted afresh. A feedback-loop
// report (ARF, RFC 5965: multipart/report with a message/feedback-report
// part) is matched to the email it reports by the Message-ID in the
// reported headers, kept as a complaint with its rule, and suppresses the
// address at once; complaints over the same 100 sends pause likewise past
// their limit (0.3% by default), two at least: one is a single person's
// click, already suppressed.
package mail
