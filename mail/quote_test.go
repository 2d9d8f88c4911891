package mail_test

import (
	"testing"

	"vibesell/mail"
)

// The quoted message is cut as each language's mail programs introduce
// it: its date and time ("um 09:02") would otherwise read as a time the
// lead proposes.
func TestParseReplyCutsTheQuoteInEachLanguage(t *testing.T) {
	for name, quote := range map[string]string{
		"English":          "On Tue, Dec 1, 2026 at 9:02 AM Dana Reyes <dana@getacme.com> wrote:",
		"German":           "Am Di., 1. Dez. 2026 um 09:02 Uhr schrieb Dana Reyes <dana@getacme.com>:",
		"French":           "Le mar. 1 déc. 2026 à 09:02, Dana Reyes <dana@getacme.com> a écrit :",
		"Spanish":          "El mar, 1 dic 2026 a las 9:02, Dana Reyes (<dana@getacme.com>) escribió:",
		"English, wrapped": "On Tue, Dec 1, 2026 at 9:02 AM Dana Reyes <\r\ndana@getacme.com> wrote:",
		"German, wrapped":  "Am Di., 1. Dez. 2026 um 09:02 Uhr schrieb Dana Reyes <\r\ndana@getacme.com>:",
		"Outlook, German":  "Von: Dana Reyes <dana@getacme.com>\r\nGesendet: Dienstag, 1. Dezember 2026 09:02",
		"Outlook, French":  "De : Dana Reyes <dana@getacme.com>\r\nEnvoyé : mardi 1 décembre 2026 09:02",
	} {
		t.Run(name, func(t *testing.T) {
			raw := "From: lead@prospect.example\r\nSubject: Re: Acme\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nNo thanks.\r\n\r\n" + quote + "\r\nWould Thursday at 10 work for a call?\r\n"
			r, err := mail.ParseReply([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != "No thanks." {
				t.Errorf("text %q, want only the sender's words", r.Text)
			}
		})
	}
}
