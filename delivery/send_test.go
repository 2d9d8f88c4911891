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
	"vibesell/delivery/deliverytest"
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

func ledger(t *testing.T, b *deliverytest.Bundle, campaign string, lead int64, step int) (status string, attempts int) {
	t.Helper()
	err := b.DB.QueryRow(b.Ctx, `SELECT status, attempts FROM mail_sends WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
		b.Workspace, campaign, lead, step).Scan(&status, &attempts)
	if err != nil {
		t.Fatal(err)
	}
	return status, attempts
}

func TestSend(t *testing.T) {
	t.Run("a domain whose key is Ed25519 signs with it, verified against its record (RFC 8463)", func(t *testing.T) {
		b := deliverytest.Setup(t)
		if err := b.Keys.MakeWith(mail.Ed25519); err != nil {
			t.Fatal(err)
		}
		rec, err := b.Keys.Record(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rec.Value, "v=DKIM1; k=ed25519; p=") || len(rec.Value) != len("v=DKIM1; k=ed25519; p=")+44 {
			t.Errorf("record %q", rec.Value)
		}
		if _, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1)); err != nil {
			t.Fatal(err)
		}
		verdicts := deliverytest.Verify(t, b.Sandbox.Accepted()[0].Raw, b.DNSFor(t, "getacme.com"))
		if len(verdicts) != 1 || verdicts[0].Err != nil || verdicts[0].Domain != "getacme.com" {
			t.Fatalf("DKIM verdicts: %v", verdicts)
		}
	})
	t.Run("the message arrives signed, with its headers, the unsubscribe line and the postal address", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		res, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		got := b.Sandbox.Accepted()
		if len(got) != 1 {
			t.Fatalf("the sandbox accepted %d messages, want 1", len(got))
		}
		if diff := cmp.Diff([]string{"sam@acme-corp.example"}, got[0].Recipients); diff != "" {
			t.Errorf("recipients mismatch (-want +got):\n%s", diff)
		}

		verdicts := deliverytest.Verify(t, got[0].Raw, b.DNSFor(t, "getacme.com"))
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
		url := b.Secret.UnsubscribeURL("https://vibesell.example.com", b.Workspace, "sam@acme-corp.example")
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
		b := deliverytest.Setup(t)
		if _, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1)); err != nil {
			t.Fatal(err)
		}
		raw := bytes.Replace(b.Sandbox.Accepted()[0].Raw, []byte("Subject: Quick question"), []byte("Subject: Urgent question"), 1)
		verdicts := deliverytest.Verify(t, raw, b.DNSFor(t, "getacme.com"))
		if len(verdicts) != 1 || verdicts[0].Err == nil {
			t.Fatalf("a tampered message verified: %v", verdicts)
		}
	})

	t.Run("a follow-up is threaded under the earlier steps", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		first, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		followUp := b.Outgoing(campaign, lead, 2)
		followUp.Message.Subject = "Re: Quick question about Acme's onboarding"
		followUp.Message.InReplyTo = first.MessageID
		second, err := b.Dispatcher.Send(b.Ctx, followUp)
		if err != nil {
			t.Fatal(err)
		}
		if second.MessageID == first.MessageID {
			t.Fatal("the follow-up reused the first Message-ID")
		}
		msg := readMessage(t, b.Sandbox.Accepted()[1].Raw)
		got := []string{msg.header.Get("In-Reply-To"), msg.header.Get("References")}
		if diff := cmp.Diff([]string{first.MessageID, first.MessageID}, got); diff != "" {
			t.Errorf("threading headers mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestExactlyOnce(t *testing.T) {
	t.Run("a retry of a sent step sends nothing", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		first, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		again, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := delivery.SendResult{MessageID: first.MessageID, Status: delivery.StatusSent, Duplicate: true}
		if diff := cmp.Diff(want, again); diff != "" {
			t.Errorf("retry mismatch (-want +got):\n%s", diff)
		}
		if n := len(b.Sandbox.Accepted()); n != 1 {
			t.Errorf("the sandbox accepted %d messages, want 1", n)
		}
	})

	t.Run("eight workers racing for one step send it once", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		var wg sync.WaitGroup
		results := make([]delivery.SendResult, 8)
		for i := range results {
			wg.Go(func() {
				res, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
				if err != nil {
					t.Error(err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		if n := len(b.Sandbox.Accepted()); n != 1 {
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
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		_, err := b.DB.Exec(b.Ctx, `INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at)
		                             VALUES ($1, $2, $3, 1, '<lost@getacme.com>', 'dana@getacme.com', 'sam@acme-corp.example', 'sending', now())`,
			b.Workspace, campaign, lead)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := delivery.SendResult{MessageID: "<lost@getacme.com>", Status: delivery.StatusSending, Duplicate: true}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("send mismatch (-want +got):\n%s", diff)
		}
		if n := len(b.Sandbox.Accepted()); n != 0 {
			t.Errorf("the sandbox accepted %d messages, want 0", n)
		}
	})

	t.Run("a step refused before DATA is retried and sent once", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign, lead := deliverytest.NewCampaignID(), deliverytest.NewLeadID()
		wrong := b.Outgoing(campaign, lead, 1)
		wrong.Mailbox.SMTP.Password = "not-the-password"
		res, err := b.Dispatcher.Send(b.Ctx, wrong)
		if err == nil || res.Status != delivery.StatusFailed {
			t.Fatalf("send with a wrong password: %s, %v; want failed, with an error", res.Status, err)
		}
		res, err = b.Dispatcher.Send(b.Ctx, b.Outgoing(campaign, lead, 1))
		if err != nil {
			t.Fatal(err)
		}
		status, attempts := ledger(t, b, campaign, lead, 1)
		if diff := cmp.Diff([]any{delivery.StatusSent, 2, 1}, []any{status, attempts, len(b.Sandbox.Accepted())}); diff != "" {
			t.Errorf("status, attempts, accepted mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("the steps marked ahead of one that fails are given back and sent once by the retry", func(t *testing.T) {
		b := deliverytest.Setup(t)
		campaign := deliverytest.NewCampaignID()
		var outs []delivery.Outgoing
		for i := range delivery.MarkAhead + 2 {
			out := b.Outgoing(campaign, deliverytest.NewLeadID(), 1)
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
				if err := b.DB.QueryRow(b.Ctx, `SELECT count(*) FROM mail_sends WHERE status = 'sending'`).Scan(&sending); err != nil || sending == delivery.MarkAhead {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		b.OnAccept.Store(&wait)
		if _, err := b.Dispatcher.SendBatch(b.Ctx, batch); err == nil {
			t.Fatal("the batch went through with a sender the server refuses")
		}
		b.OnAccept.Store(nil)
		var statuses []string
		for _, out := range outs {
			status, _ := ledger(t, b, campaign, out.LeadID, 1)
			statuses = append(statuses, status)
		}
		want := []string{delivery.StatusSent}
		for range len(outs) - 1 {
			want = append(want, delivery.StatusFailed)
		}
		if diff := cmp.Diff(want, statuses); diff != "" {
			t.Errorf("the ledger after the refusal (-want +got):\n%s", diff)
		}
		if _, err := b.Dispatcher.SendBatch(b.Ctx, outs); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range b.Sandbox.Accepted() {
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
		b := deliverytest.Setup(t)
		if err := b.Suppressor.Suppress(b.Ctx, b.Workspace, "Sam@acme-corp.example", "unsubscribed"); err != nil {
			t.Fatal(err)
		}
		res, err := b.Dispatcher.Send(b.Ctx, b.Outgoing(deliverytest.NewCampaignID(), deliverytest.NewLeadID(), 1))
		if err != nil {
			t.Fatal(err)
		}
		var rows int
		b.DB.QueryRow(b.Ctx, `SELECT count(*) FROM mail_sends`).Scan(&rows)
		if diff := cmp.Diff([]any{true, 0, 0}, []any{res.Suppressed, rows, len(b.Sandbox.Accepted())}); diff != "" {
			t.Errorf("suppressed, ledger rows, accepted mismatch (-want +got):\n%s", diff)
		}
	})
}
