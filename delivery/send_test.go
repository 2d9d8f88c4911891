package delivery_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-message"
	gomessage "github.com/emersion/go-message/mail"
	"github.com/google/go-cmp/cmp"

	"vibesell/delivery"
	"vibesell/mail"
	"vibesell/sandboxmail"
)

// received is what a test reads of a message the sandbox accepted.
type received struct {
	header gomessage.Header
	texts  map[string]string // content type → decoded body
}

func readMessage(t *testing.T, raw []byte) received {
	t.Helper()
	r, err := gomessage.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		t.Fatal(err)
	}
	out := received{header: r.Header, texts: map[string]string{}}
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := p.Header.(*gomessage.InlineHeader).ContentType()
		body, _ := io.ReadAll(p.Body)
		out.texts[ct] = string(body)
	}
	return out
}

func (b *bundle) ledger(t *testing.T, campaign string, lead int64, step int) (status string, attempts int) {
	t.Helper()
	err := b.db.QueryRow(b.ctx, `SELECT status, attempts FROM mail_sends WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
		b.workspace, campaign, lead, step).Scan(&status, &attempts)
	if err != nil {
		t.Fatal(err)
	}
	return status, attempts
}

func TestSend(t *testing.T) {
	t.Run("a domain whose key is Ed25519 signs with it, verified against its record (RFC 8463)", func(t *testing.T) {
		b := setup(t)
		if err := b.keys.MakeWith(mail.Ed25519); err != nil {
			t.Fatal(err)
		}
		rec, err := b.keys.Record(b.ctx, b.workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rec.Value, "v=DKIM1; k=ed25519; p=") || len(rec.Value) != len("v=DKIM1; k=ed25519; p=")+44 {
			t.Errorf("record %q", rec.Value)
		}
		if _, err := b.sender.Send(b.ctx, b.outgoing(newCampaignID(), newLeadID(), 1)); err != nil {
			t.Fatal(err)
		}
		verdicts := verify(t, b.sandbox.Accepted()[0].Raw, b.dnsFor(t, "getacme.com"))
		if len(verdicts) != 1 || verdicts[0].Err != nil || verdicts[0].Domain != "getacme.com" {
			t.Fatalf("DKIM verdicts: %v", verdicts)
		}
	})
	t.Run("the message arrives signed, with its headers, the unsubscribe line and the postal address", func(t *testing.T) {
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		res, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		got := b.sandbox.Accepted()
		if len(got) != 1 {
			t.Fatalf("the sandbox accepted %d messages, want 1", len(got))
		}
		if diff := cmp.Diff([]string{"sam@acme-corp.example"}, got[0].Recipients); diff != "" {
			t.Errorf("recipients mismatch (-want +got):\n%s", diff)
		}

		verdicts := verify(t, got[0].Raw, b.dnsFor(t, "getacme.com"))
		if len(verdicts) != 1 || verdicts[0].Err != nil || verdicts[0].Domain != "getacme.com" {
			t.Fatalf("DKIM verdicts: %v", verdicts)
		}
		signed := map[string]bool{}
		for _, k := range verdicts[0].HeaderKeys {
			signed[strings.ToLower(k)] = true
		}
		for _, k := range []string{"from", "to", "subject", "date", "message-id", "list-unsubscribe", "list-unsubscribe-post"} {
			if !signed[k] {
				t.Errorf("the signature does not cover %s (it covers %v)", k, verdicts[0].HeaderKeys)
			}
		}

		msg := readMessage(t, got[0].Raw)
		if n := len(msg.header.Values("Message-Id")); n != 1 {
			t.Errorf("the message has %d Message-ID headers, want 1", n)
		}
		headers := map[string]string{}
		for _, k := range []string{"From", "Message-Id", "List-Unsubscribe", "List-Unsubscribe-Post"} {
			headers[k] = msg.header.Get(k)
		}
		url := b.secret.UnsubscribeURL("https://vibesell.example.com", b.workspace, "sam@acme-corp.example")
		want := map[string]string{
			"From":                  `"Dana Reyes" <dana@getacme.com>`,
			"Message-Id":            res.MessageID,
			"List-Unsubscribe":      "<" + url + ">",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		}
		if diff := cmp.Diff(want, headers); diff != "" {
			t.Errorf("headers mismatch (-want +got):\n%s", diff)
		}
		for _, ct := range []string{"text/plain", "text/html"} {
			body := msg.texts[ct]
			for _, s := range []string{"Would a shorter onboarding help", "Unsubscribe with one click", "1 Market St, San Francisco"} {
				if !strings.Contains(body, s) {
					t.Errorf("the %s part does not say %q:\n%s", ct, s, body)
				}
			}
		}
		if !strings.Contains(msg.texts["text/plain"], url) || !strings.Contains(msg.texts["text/html"], `href="`+url+`"`) {
			t.Errorf("the footer does not link to %s", url)
		}
	})

	t.Run("a changed subject no longer verifies", func(t *testing.T) {
		b := setup(t)
		if _, err := b.sender.Send(b.ctx, b.outgoing(newCampaignID(), newLeadID(), 1)); err != nil {
			t.Fatal(err)
		}
		raw := bytes.Replace(b.sandbox.Accepted()[0].Raw, []byte("Subject: Quick question"), []byte("Subject: Urgent question"), 1)
		verdicts := verify(t, raw, b.dnsFor(t, "getacme.com"))
		if len(verdicts) != 1 || verdicts[0].Err == nil {
			t.Fatalf("a tampered message verified: %v", verdicts)
		}
	})

	t.Run("a follow-up is threaded under the earlier steps", func(t *testing.T) {
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		first, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		followUp := b.outgoing(campaign, lead, 2)
		followUp.Message.Subject = "Re: Quick question about Acme's onboarding"
		followUp.Message.InReplyTo = first.MessageID
		second, err := b.sender.Send(b.ctx, followUp)
		if err != nil {
			t.Fatal(err)
		}
		if second.MessageID == first.MessageID {
			t.Fatal("the follow-up reused the first Message-ID")
		}
		msg := readMessage(t, b.sandbox.Accepted()[1].Raw)
		got := []string{msg.header.Get("In-Reply-To"), msg.header.Get("References")}
		if diff := cmp.Diff([]string{first.MessageID, first.MessageID}, got); diff != "" {
			t.Errorf("threading headers mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestExactlyOnce(t *testing.T) {
	t.Run("a retry of a sent step sends nothing", func(t *testing.T) {
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		first, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		again, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := delivery.SendResult{MessageID: first.MessageID, Status: delivery.StatusSent, Duplicate: true}
		if diff := cmp.Diff(want, again); diff != "" {
			t.Errorf("retry mismatch (-want +got):\n%s", diff)
		}
		if n := len(b.sandbox.Accepted()); n != 1 {
			t.Errorf("the sandbox accepted %d messages, want 1", n)
		}
	})

	t.Run("eight workers racing for one step send it once", func(t *testing.T) {
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		var wg sync.WaitGroup
		results := make([]delivery.SendResult, 8)
		for i := range results {
			wg.Go(func() {
				res, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
				if err != nil {
					t.Error(err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		if n := len(b.sandbox.Accepted()); n != 1 {
			t.Errorf("the sandbox accepted %d messages, want 1", n)
		}
		sent := 0
		for _, r := range results {
			if !r.Duplicate {
				sent++
			}
		}
		if sent != 1 {
			t.Errorf("%d workers sent, want 1", sent)
		}
	})

	t.Run("a step claimed by a worker that died is not sent again", func(t *testing.T) {
		// A worker that dies between SMTP DATA and the ledger write
		// leaves its row claimed and unsettled, exactly like this.
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		_, err := b.db.Exec(b.ctx, `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at)
		                             VALUES ($1, $2, $3, 1, '<lost@getacme.com>', 'dana@getacme.com', 'sam@acme-corp.example', 'sending', now())`,
			b.workspace, campaign, lead)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := delivery.SendResult{MessageID: "<lost@getacme.com>", Status: delivery.StatusSending, Duplicate: true}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("send mismatch (-want +got):\n%s", diff)
		}
		if n := len(b.sandbox.Accepted()); n != 0 {
			t.Errorf("the sandbox accepted %d messages, want 0", n)
		}
	})

	t.Run("a step refused before DATA is retried and sent once", func(t *testing.T) {
		b := setup(t)
		campaign, lead := newCampaignID(), newLeadID()
		wrong := b.outgoing(campaign, lead, 1)
		wrong.Mailbox.SMTP.Password = "not-the-password"
		res, err := b.sender.Send(b.ctx, wrong)
		if err == nil || res.Status != delivery.StatusFailed {
			t.Fatalf("send with a wrong password: %s, %v; want failed, with an error", res.Status, err)
		}
		res, err = b.sender.Send(b.ctx, b.outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		status, attempts := b.ledger(t, campaign, lead, 1)
		if diff := cmp.Diff([]any{delivery.StatusSent, 2, 1}, []any{status, attempts, len(b.sandbox.Accepted())}); diff != "" {
			t.Errorf("status, attempts, accepted mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("the steps marked ahead of one that fails are given back and sent once by the retry", func(t *testing.T) {
		b := setup(t)
		campaign := newCampaignID()
		var outs []delivery.Outgoing
		for i := range delivery.MarkAhead + 2 {
			out := b.outgoing(campaign, newLeadID(), 1)
			out.Message.To.Email = fmt.Sprintf("lead%d@acme-corp.example", i+1)
			outs = append(outs, out)
		}
		// The server refuses the second message's sender, once the steps
		// after the first are marked as far ahead as they may be.
		wrong := outs[1]
		wrong.Mailbox.Address.Email = "someone-else@getacme.com"
		batch := append(slices.Clone(outs[:1]), wrong)
		batch = append(batch, outs[2:]...)
		wait := func(sandboxmail.Accepted) {
			for range 1000 {
				var sending int
				if err := b.db.QueryRow(b.ctx, `SELECT count(*) FROM mail_sends WHERE status = 'sending'`).Scan(&sending); err != nil || sending == delivery.MarkAhead {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		b.onAccept.Store(&wait)
		if _, err := b.sender.SendBatch(b.ctx, batch); err == nil {
			t.Fatal("the batch went through with a sender the server refuses")
		}
		b.onAccept.Store(nil)
		var statuses []string
		for _, out := range outs {
			status, _ := b.ledger(t, campaign, out.LeadID, 1)
			statuses = append(statuses, status)
		}
		want := []string{delivery.StatusSent}
		for range len(outs) - 1 {
			want = append(want, delivery.StatusFailed)
		}
		if diff := cmp.Diff(want, statuses); diff != "" {
			t.Errorf("the ledger after the refusal (-want +got):\n%s", diff)
		}
		if _, err := b.sender.SendBatch(b.ctx, outs); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range b.sandbox.Accepted() {
			got = append(got, a.Recipients...)
		}
		var wantGot []string
		for _, out := range outs {
			wantGot = append(wantGot, out.Message.To.Email)
		}
		if diff := cmp.Diff(wantGot, got); diff != "" {
			t.Errorf("recipients of every accepted message, each once (-want +got):\n%s", diff)
		}
	})

	t.Run("a suppressed address is neither claimed nor sent", func(t *testing.T) {
		b := setup(t)
		if err := b.suppressor.Suppress(b.ctx, b.workspace, "Sam@acme-corp.example", "unsubscribed"); err != nil {
			t.Fatal(err)
		}
		res, err := b.sender.Send(b.ctx, b.outgoing(newCampaignID(), newLeadID(), 1))
		if err != nil {
			t.Fatal(err)
		}
		var rows int
		b.db.QueryRow(b.ctx, `SELECT count(*) FROM mail_sends`).Scan(&rows)
		if diff := cmp.Diff([]any{true, 0, 0}, []any{res.Suppressed, rows, len(b.sandbox.Accepted())}); diff != "" {
			t.Errorf("suppressed, ledger rows, accepted mismatch (-want +got):\n%s", diff)
		}
	})
}
