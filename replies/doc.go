// Package replies reads what comes back: it polls and watches each
// mailbox's inbox over IMAP, matches each reply to the email it answers,
// classifies it (a person's intent, an out-of-office, a bounce, a
// complaint), keeps it, and stops or suppresses what it says to; it lists
// the replies and a lead's history of sends and replies, and answers a
// reply once a person approved the answer.
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
//
// # Answers
//
// [Answers.Request] proposes an answer to a reply: an approval whose
// impact shows exactly what goes out (from the mailbox the reply came
// to, to who wrote it, the subject, the thread, the text); refused for
// a writer who unsubscribed, complained, bounced or is suppressed, for a
// bounce or an automatic reply. Once approved, [AnswerAction] sends it
// through delivery's send ledger, signed, with In-Reply-To the reply's
// Message-ID and References the thread's: its ledger row is the lead's
// in the reply's campaign, step -id of its mail_answers row (a negative
// step is an answer, which the schedule and the campaign's metrics never
// read), so it is claimed once and handed over once, whatever crashes.
// The lead answering back is matched to it by thread. A reply is waiting
// for an answer ([Answers.ContextPart]) while it wants a conversation and
// nothing answers it or a later reply of the lead: one rule,
// waitingForAnswer.
package replies
