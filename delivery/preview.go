package delivery

import (
	"strings"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/mail"
)

// MessageFor is step (1-based) of run's sequence for lead, from the
// mailbox from, with the lead's unsubscribe link: the email the engine
// sends, before its threading headers and Message-ID. A from without a
// name takes the campaign's sender name for that mailbox. The engine and
// check_first_email's preview ([Preview]) both make their email here.
func MessageFor(run campaigns.Run, step int, lead vibesell.Lead, from mail.Address, unsubscribeURL string) (mail.Message, campaigns.Email) {
	if from.Name == "" {
		from.Name = senderName(run, from.Email)
	}
	email := run.Email(step, lead)
	return mail.Message{
		From:           from,
		To:             mail.Address{Name: strings.TrimSpace(lead.FirstName + " " + lead.LastName), Email: lead.Email},
		Subject:        email.Subject,
		Body:           email.Body,
		UnsubscribeURL: unsubscribeURL,
		PostalAddress:  run.Sender.PostalAddress,
	}, email
}

// Preview composes emails for check_first_email with the engine's own
// code ([MessageFor], [Parts]); each lead's personal unsubscribe link is
// shown as [campaigns.UnsubscribePreview].
type Preview struct{}

// Compose implements [campaigns.Composer].
func (Preview) Compose(run campaigns.Run, step int, lead vibesell.Lead, mailbox string) campaigns.Composed {
	m, _ := MessageFor(run, step, lead, mail.Address{Email: mailbox}, campaigns.UnsubscribePreview)
	text, html := mail.Parts(m)
	return campaigns.Composed{From: addressText(m.From), FromName: m.From.Name, To: addressText(m.To), Subject: m.Subject, Text: text, HTML: html}
}

// addressText writes an address as a mail app shows a From or To line,
// for reading (the header itself is encoded by Compose).
func addressText(a mail.Address) string {
	switch {
	case a.Email == "":
		return a.Name
	case a.Name == "":
		return a.Email
	}
	return a.Name + " <" + a.Email + ">"
}
