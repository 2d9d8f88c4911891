package delivery_test

import (
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/campaigns"
)

// sentParts reads a sent message's From, To and Subject headers and its
// text/plain and text/html parts, decoded, with CRLF line ends as LF.
func sentParts(t *testing.T, raw []byte) (campaigns.Composed, string) {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	dec := new(mime.WordDecoder)
	header := func(k string) string {
		v, err := dec.DecodeHeader(m.Header.Get(k))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	from, err := netmail.ParseAddress(header("From"))
	if err != nil {
		t.Fatal(err)
	}
	to, err := netmail.ParseAddress(header("To"))
	if err != nil {
		t.Fatal(err)
	}
	out := campaigns.Composed{From: from.Name + " <" + from.Address + ">", FromName: from.Name, To: to.Name + " <" + to.Address + ">", Subject: header("Subject")}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := r.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(body), "\r\n", "\n")
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			out.Text = text
		case "text/html":
			out.HTML = text
		default:
			t.Errorf("a part of type %s", ct)
		}
	}
	link := strings.Trim(m.Header.Get("List-Unsubscribe"), "<>")
	return out, link
}

// check_first_email's preview is the email the engine sends for the same
// lead and step: the same From, To and Subject, and the same text and
// HTML parts, footer included, but for each lead's personal unsubscribe
// link, which the preview shows as a placeholder.
func TestFirstEmailPreviewIsTheSentEmail(t *testing.T) {
	b := engineSetup(t, engineOptions{noGap: true})
	leads := []vibesell.Lead{{Email: "ana@alpha.test", FirstName: "Ana", LastName: "Ortiz", Company: "Alpha & Sons"}}
	id := b.launch(t, campaignSpec{leads: leads, mailboxes: []string{"sam@getacme.test"}, dailyCap: 10})
	c := b.campaign(t, id)
	preview, err := b.Campaigns.CheckFirstEmail(b.ctx, b.ws, campaigns.CheckRequest{Sequence: c.Campaign.SequenceID, Version: c.Campaign.SequenceVersion, Lead: "ana@alpha.test"})
	if err != nil {
		t.Fatal(err)
	}

	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent != 1 {
		t.Fatalf("sent %d, want 1", res.Sent)
	}
	accepted := b.sandbox.Accepted()
	if len(accepted) != 1 {
		t.Fatalf("%d messages sent, want 1", len(accepted))
	}
	sent, link := sentParts(t, accepted[0].Raw)
	if !strings.HasPrefix(link, "https://") {
		t.Fatalf("the sent email's unsubscribe link %q", link)
	}
	want := preview.Email
	want.Text = strings.ReplaceAll(want.Text, campaigns.UnsubscribePreview, link)
	want.HTML = strings.ReplaceAll(want.HTML, campaigns.UnsubscribePreview, strings.ReplaceAll(link, "&", "&amp;"))
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("the preview is not the email sent (-preview +sent):\n%s", d)
	}
	// And the check names what it read of it.
	for _, f := range preview.Findings {
		if f.Checked == "" {
			t.Errorf("check %s does not say what it looked at", f.Check)
		}
		if f.Check == "unsubscribe_and_address" && (f.Status != campaigns.Pass || !strings.Contains(f.Finding, "Sam Lee <sam@getacme.test>")) {
			t.Errorf("the compliance check: %s, %s", f.Status, f.Finding)
		}
	}
}
