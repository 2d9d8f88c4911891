// Package delivery sends what running campaigns have due: each tick it
// asks campaigns what is due now, claims those steps in the send ledger
// (mail_sends) exactly once, signs them, hands them to each mailbox's SMTP
// server and settles the outcome; it pauses what bounces too much and
// reports a campaign's tallies from the ledger.
//
// # The schedule
//
// [Engine.Tick] (a River job every 30 seconds) reads every running
// campaign and what it needs, in the same few queries however many
// campaigns run, and sends what campaigns says is due
// ([campaigns.Run.Due], a function of the campaign, the ledger and the
// clock): a lead's first step once the campaign is launched, each
// follow-up its business days after the step before,
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
// [Dispatcher.SendGated] claims a batch's steps in mail_sends (unique on
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
// [campaigns.StoppedCampaigns] locks every campaign of the steps for share): a
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
// delivered; once [SendingLease] has passed, [Dispatcher.SettleLost] (a
// sweep, every [SettleLostEvery]) settles it as lost, "not sent
// (unknown)", and the campaign's metrics count it so. The engine prefers a
// lost email to a duplicate one: a worker killed while a message is in
// DATA loses the steps marked ahead of it, at most [MarkAhead]-1 per
// mailbox sending at the time. The steps it had claimed and not marked
// stay claimed; once [ClaimLease] has passed, [Dispatcher.ReleaseStale] (at
// each tick) makes them failed, and they are sent, once, by a later tick.
// A connection that breaks while the server answers the end of DATA
// leaves status unknown, never retried. Rows keep the Message-ID the
// message went out with, for reconciling against a Sent folder; nothing
// does that yet.
package delivery
