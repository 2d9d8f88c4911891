package replies_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/mail"
	"vibesell/replies"
)

// Each classification names the words that decided it, whatever the
// language; the two replies the issue reported come first.
func TestClassifyNamesTheSignal(t *testing.T) {
	sent := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) *time.Time {
		t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return &t
	}
	cases := []struct {
		name  string
		reply mail.Reply
		want  replies.Verdict
	}{
		{"a proposed time, with no keyword of interest (reported as other)",
			mail.Reply{Text: "Hi Dana, good timing - our close is a mess right now. Could you do Thursday at 10am Pacific for the walkthrough?"},
			replies.Verdict{Classification: replies.Interested, Rule: `the reply says "walkthrough" (a meeting asked for)`}},
		{"a person away who proposes a time anyway wants the conversation",
			mail.Reply{Date: sent, Text: "I'm travelling until Wednesday, but could we talk Thursday at 2pm?"},
			replies.Verdict{Classification: replies.Interested, Rule: `the reply says "could we talk" (a meeting asked for)`}},
		{"someone else chosen is no wrong person",
			mail.Reply{Text: "Thanks, but we went with someone else last month."},
			replies.Verdict{Classification: replies.NotInterested, Rule: `the reply says "went with someone else"`}},
		{"a day and an hour proposed after a no for this week",
			mail.Reply{Text: "Not this week, but next Tuesday at 3 works."},
			replies.Verdict{Classification: replies.Interested, Rule: `the reply says "next tuesday at 3" (a time proposed)`}},
		{"curiosity about where the address came from is no interest",
			mail.Reply{Text: "I'm curious how you got my email."},
			replies.Verdict{Classification: replies.Other, Rule: "no rule matched the reply's words"}},
		{"a polite brush-off is a no, though it says interest",
			mail.Reply{Text: "Gracias, si nos interesa te escribimos."},
			replies.Verdict{Classification: replies.NotInterested, Rule: `the reply says "si nos interesa"`}},
		{"do not call is a request to hear no more, not a call asked for",
			mail.Reply{Text: "Please don't call me again."},
			replies.Verdict{Classification: replies.Unsubscribe, Rule: `the reply says "don't call me"`}},
		{"interest denied is no interest",
			mail.Reply{Text: "Not keen, thanks."},
			replies.Verdict{Classification: replies.NotInterested, Rule: `the reply says "not keen"`}},
		{"a question wanting an answer is read as one, not for the word pricing",
			mail.Reply{Text: "Sounds interesting - can you send me some more info and pricing?"},
			replies.Verdict{Classification: replies.Interested, Rule: "the reply asks a question wanting an answer (sentence 1 of 1)"}},
		{"a time proposed in German",
			mail.Reply{Text: "Ja, gerne. Ich hätte am Montag den 14. um 11:30 Uhr Zeit."},
			replies.Verdict{Classification: replies.Interested, Rule: `the reply says "am montag" (a time proposed)`}},
		{"a question without its mark",
			mail.Reply{Text: "how does this compare to Stampli"},
			replies.Verdict{Classification: replies.Interested, Rule: "the reply asks a question wanting an answer (sentence 1 of 1)"}},
		{"a referral names the colleague",
			mail.Reply{Text: "Hi Dana, I'm not the right person for this. You'll want to talk to Sarah Kim, our Controller."},
			replies.Verdict{Classification: replies.Referral, Rule: `the reply says "talk to" (names someone else to talk to, after "not the right person")`}},
		{"the wrong person, naming nobody",
			mail.Reply{Text: "Je ne suis pas en charge de ces questions, désolé."},
			replies.Verdict{Classification: replies.WrongPerson, Rule: `the reply says "je ne suis pas en charge" (the lead is not the one who handles this)`}},
		{"not now, with when",
			mail.Reply{Text: "Hola, ahora mismo no, estamos migrando el ERP. Vuelve a escribirme en marzo."},
			replies.Verdict{Classification: replies.NotNow, Rule: `the reply says "ahora mismo no" (not now, until marzo)`}},
		{"an objection before a softer word of interest",
			mail.Reply{Text: "Interesting, but honestly too expensive for a company our size."},
			replies.Verdict{Classification: replies.Objection, Rule: `the reply says "too expensive" (an objection)`}},
		{"left the company, in an automatic reply",
			mail.Reply{AutoSubmitted: true, Text: "Greg Hall is no longer with Pinecrest Partners. Please contact finance@pinecrest.example."},
			replies.Verdict{Classification: replies.LeftCompany, Rule: `an automatic reply says "no longer with" (the lead left the company)`}},
		{"an out-of-office in German, its return date read",
			mail.Reply{Date: sent, AutoSubmitted: true, Subject: "Abwesenheitsnotiz: Kurze Frage", Text: "Ich bin bis einschließlich 18.12.2026 nicht im Büro."},
			replies.Verdict{Classification: replies.OutOfOffice, Rule: `the subject starts "Abwesenheit", as an automatic reply's does`, ReturnsOn: day(2026, 12, 18)}},
		{"an automatic reply that says when its sender is back is an out-of-office",
			mail.Reply{Date: sent, AutoSubmitted: true, Text: "Estoy fuera hasta el 10 de diciembre."},
			replies.Verdict{Classification: replies.OutOfOffice, Rule: `an automatic reply that says "Estoy fuera"`, ReturnsOn: day(2026, 12, 10)}},
		{"an automatic reply that says only when its sender is back",
			mail.Reply{Date: sent, AutoSubmitted: true, Text: "Ich bin ab dem 4. Januar wieder im Haus."},
			replies.Verdict{Classification: replies.OutOfOffice, Rule: "an automatic reply that says when its sender is back", ReturnsOn: day(2027, 1, 4)}},
		{"a person who received something is no automatic answer",
			mail.Reply{Text: "We have received your proposal - let's talk it through."},
			replies.Verdict{Classification: replies.Interested, Rule: `the reply says "let's talk" (a meeting asked for)`}},
		{"a bounce by its subject",
			mail.Reply{From: "noreply@mta.example", Subject: "Undeliverable: Acme", Text: "550 5.1.1 User unknown"},
			replies.Verdict{Classification: replies.Bounce, Bounce: "hard", Rule: "a mail server's bounce gives the permanent status 5.1.1"}},
		{"a complaint in the person's words",
			mail.Reply{Text: "Stop spamming me. I've marked this as spam."},
			replies.Verdict{Classification: replies.Complaint, Rule: `the reply says "stop spamming" (a complaint)`}},
		{"a signature's calendar link is no request for a meeting",
			mail.Reply{Text: "Thanks for the note.\n\n--\nSam Ortiz\nBook time with me: https://calendly.com/sortiz"},
			replies.Verdict{Classification: replies.Other, Rule: "no rule matched the reply's words"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, replies.Classify(c.reply)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
