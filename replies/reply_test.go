package replies_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell/delivery/deliverytest"
	"vibesell/replies"
)

type keptReply struct {
	From           string
	Lead           string
	MatchedBy      string
	Classification string
	Rule           string
	ReturnsOn      string
	Bounce         string
}

func TestReplies(t *testing.T) {
	b := deliverytest.Setup(t)
	campaign := deliverytest.NewCampaignID()
	leads := map[string]int64{}
	ids := map[string]string{}
	for _, l := range []struct{ name, email string }{
		{"Sam Okafor", "sam@acme-corp.example"},
		{"Lee Park", "lee@bolt.example"},
		{"Gus Host", "ghost@bolt.example"},
		{"Kim Vance", "kim@corvid.example"},
	} {
		leads[l.email] = deliverytest.NewLeadID()
		ids[l.email] = b.SendTo(t, campaign, leads[l.email], l.name, l.email)
	}
	leadName := map[int64]string{}
	for email, id := range leads {
		leadName[id] = email
	}

	corpus := []string{
		// The lead answers in the thread, above the quoted message,
		// whose footer says "Not interested? Unsubscribe".
		fmt.Sprintf(`
From: Sam Okafor <sam@acme-corp.example>
To: Dana Reyes <dana@getacme.com>
Subject: Re: Quick question about Acme's onboarding
Date: Tue, 1 Dec 2026 11:02:00 -0500
Message-ID: <CAB1x7@mail.acme-corp.example>
In-Reply-To: %[1]s
References: %[1]s
Content-Type: text/plain; charset=utf-8

Yes, this is timely. Can you send over a few times for Thursday?

Sam

On Tue, 1 Dec 2026 at 09:00, Dana Reyes <dana@getacme.com> wrote:
> Hi Sam,
>
> Would a shorter onboarding help your team this quarter?
>
> --
> Not interested? Unsubscribe with one click: https://vibesell.example.com/u/x
`, ids["sam@acme-corp.example"]),

		// An Exchange out-of-office: no threading headers, a return date.
		`
From: Lee Park <lee@bolt.example>
To: dana@getacme.com
Subject: Automatic reply: Quick question about Acme's onboarding
Date: Tue, 1 Dec 2026 09:00:04 +0000
Message-ID: <ooo-7781@bolt.example>
Auto-Submitted: auto-replied
X-Auto-Response-Suppress: All
Content-Type: text/plain; charset=us-ascii

Thank you for your message. I am out of the office with limited access to
email and will be back on Monday 14 December. For anything urgent, please
contact ops@bolt.example.
`,

		// A permanent failure for ghost@, as Postfix reports it.
		fmt.Sprintf(`
From: MAILER-DAEMON@mx.bolt.example (Mail Delivery System)
To: dana@getacme.com
Subject: Undelivered Mail Returned to Sender
Date: Tue, 1 Dec 2026 09:00:09 +0000
Message-ID: <20261201090009.4F2A1@mx.bolt.example>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="4F2A1.1764579609/mx.bolt.example"

--4F2A1.1764579609/mx.bolt.example
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.bolt.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<ghost@bolt.example>: host mx.bolt.example said: 550 5.1.1 <ghost@bolt.example>:
    Recipient address rejected: User unknown in local recipient table

--4F2A1.1764579609/mx.bolt.example
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.bolt.example
X-Postfix-Queue-ID: 4F2A1
Arrival-Date: Tue,  1 Dec 2026 09:00:08 +0000 (UTC)

Final-Recipient: rfc822; ghost@bolt.example
Original-Recipient: rfc822;ghost@bolt.example
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.bolt.example
Diagnostic-Code: smtp; 550 5.1.1 <ghost@bolt.example>: Recipient address
    rejected: User unknown in local recipient table

--4F2A1.1764579609/mx.bolt.example
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

From: Dana Reyes <dana@getacme.com>
To: Gus Host <ghost@bolt.example>
Subject: Quick question about Acme's onboarding
Message-ID: %[1]s
Date: Tue, 1 Dec 2026 09:00:00 +0000

--4F2A1.1764579609/mx.bolt.example--
`, ids["ghost@bolt.example"]),

		// A temporary failure: Lee's mailbox is full.
		fmt.Sprintf(`
From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: dana@getacme.com
Subject: Delivery Status Notification (Delay)
Date: Tue, 1 Dec 2026 13:00:00 +0000
Message-ID: <delay-19@mx.google.com>
MIME-Version: 1.0
Content-Type: multipart/report; boundary="b1"; report-type=delivery-status

--b1
Content-Type: text/plain; charset="UTF-8"

Delivery to lee@bolt.example is delayed: the recipient's inbox is full.
We'll keep trying for 44 more hours.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; googlemail.com

Final-Recipient: rfc822; lee@bolt.example
Action: delayed
Status: 4.2.2
Diagnostic-Code: smtp; 452 4.2.2 The email account that you tried to reach is over quota.

--b1
Content-Type: message/rfc822

Message-ID: %[1]s
From: dana@getacme.com
Subject: Quick question about Acme's onboarding

(body left out)
--b1--
`, ids["lee@bolt.example"]),

		// Sam forwarded it to a colleague, who answers from her own
		// address with none of our threading headers.
		`
From: Priya Nair <priya@acme-corp.example>
To: dana@getacme.com
Subject: Fwd: Quick question about Acme's onboarding
Date: Wed, 2 Dec 2026 08:15:00 -0500
Message-ID: <fw-5521@mail.acme-corp.example>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Hi Dana, Sam passed this on to me =E2=80=93 I run onboarding. Not right now,
we=E2=80=99re mid-migration. Could you circle back next quarter?

---------- Forwarded message ---------
From: Sam Okafor <sam@acme-corp.example>
Subject: Quick question about Acme's onboarding

Would a shorter onboarding help your team this quarter? I'm interested to hear.

--alt
Content-Type: text/html; charset=utf-8

<p>Hi Dana, Sam passed this on to me. Not right now.</p>
--alt--
`,

		// A colleague answers in Lee's thread.
		fmt.Sprintf(`
From: "Jordan Lee" <jordan@bolt.example>
To: dana@getacme.com
Cc: lee@bolt.example
Subject: RE: Quick question about Acme's onboarding
Date: Wed, 2 Dec 2026 10:00:00 +0000
Message-ID: <DM6PR11MB@namprd11.prod.outlook.com>
In-Reply-To: %[1]s
Content-Type: text/html; charset=utf-8

<div>Lee is away this month. We are all set on onboarding tools, thanks.</div>
<div><br></div>
<div>-----Original Message-----<br>From: Dana Reyes</div>
`, ids["lee@bolt.example"]),

		// Kim asks to be taken off the list.
		fmt.Sprintf(`
From: kim@corvid.example
To: dana@getacme.com
Subject: Re: Quick question about Acme's onboarding
Date: Wed, 2 Dec 2026 12:00:00 +0000
Message-ID: <k1@corvid.example>
References: <unrelated@elsewhere.example> %[1]s
Content-Type: text/plain

Please remove me from your list.
`, ids["kim@corvid.example"]),

		// Someone we never wrote to.
		`
From: curious.person@gmail.com
To: dana@getacme.com
Subject: hello
Date: Wed, 2 Dec 2026 13:00:00 +0000
Message-ID: <x9@mail.gmail.com>
Content-Type: text/plain

Who is this?
`,
	}
	for _, m := range corpus {
		if err := b.Sandbox.DeliverReply("dana@getacme.com", deliverytest.CRLF(m)); err != nil {
			t.Fatal(err)
		}
	}

	poller := replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock})
	n, err := poller.Poll(b.Ctx, b.Workspace, b.Mailbox)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(corpus) {
		t.Errorf("the poll kept %d replies, want %d", n, len(corpus))
	}

	rows, err := b.DB.Query(b.Ctx, `SELECT from_address, lead_id, matched_by, classification, rule, returns_on, coalesce(bounce, '')
	                                  FROM mail_replies WHERE workspace_id = $1 ORDER BY received_at, message_id`, b.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	var got []keptReply
	for rows.Next() {
		var r keptReply
		var lead *int64
		var returns *time.Time
		if err := rows.Scan(&r.From, &lead, &r.MatchedBy, &r.Classification, &r.Rule, &returns, &r.Bounce); err != nil {
			t.Fatal(err)
		}
		if lead != nil {
			r.Lead = leadName[*lead]
		}
		if returns != nil {
			r.ReturnsOn = returns.Format(time.DateOnly)
		}
		got = append(got, r)
	}
	want := []keptReply{
		{From: "lee@bolt.example", Lead: "lee@bolt.example", MatchedBy: "address", Classification: replies.OutOfOffice,
			Rule: `an automatic reply that says "out of the office"`, ReturnsOn: "2026-12-14"},
		{From: "mailer-daemon@mx.bolt.example", Lead: "ghost@bolt.example", MatchedBy: "thread", Classification: replies.Bounce, Bounce: "hard",
			Rule: "a delivery report says the address ghost@bolt.example failed permanently (status 5.1.1)"},
		{From: "mailer-daemon@googlemail.com", Lead: "lee@bolt.example", MatchedBy: "thread", Classification: replies.Bounce, Bounce: "soft",
			Rule: "a delivery report says delivery to lee@bolt.example failed for now (status 4.2.2)"},
		{From: "sam@acme-corp.example", Lead: "sam@acme-corp.example", MatchedBy: "thread", Classification: replies.Interested,
			Rule: `the reply says "thursday" (a time proposed)`},
		{From: "jordan@bolt.example", Lead: "lee@bolt.example", MatchedBy: "thread", Classification: replies.NotInterested,
			Rule: `the reply says "we are all set"`},
		{From: "kim@corvid.example", Lead: "kim@corvid.example", MatchedBy: "thread", Classification: replies.Unsubscribe,
			Rule: `the reply says "remove me"`},
		{From: "curious.person@gmail.com", MatchedBy: "none", Classification: replies.Other, Rule: "no rule matched the reply's words"},
		{From: "priya@acme-corp.example", Lead: "sam@acme-corp.example", MatchedBy: "domain", Classification: replies.NotNow,
			Rule: `the reply says "not right now" (not now, until next quarter)`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept replies (-want +got):\n%s", diff)
	}

	wantSuppressed := []string{"ghost@bolt.example hard_bounce", "kim@corvid.example unsubscribed"}
	if diff := cmp.Diff(wantSuppressed, b.Suppressor.List(t, b.Workspace)); diff != "" {
		t.Errorf("suppressed (-want +got):\n%s", diff)
	}

	t.Run("a second poll keeps nothing new", func(t *testing.T) {
		n, err := poller.Poll(b.Ctx, b.Workspace, b.Mailbox)
		if err != nil || n != 0 {
			t.Fatalf("second poll kept %d, %v", n, err)
		}
	})

	t.Run("a reply delivered later is read by the next poll", func(t *testing.T) {
		late := fmt.Sprintf("From: lee@bolt.example\nTo: dana@getacme.com\nSubject: Re: hi\nDate: Thu, 3 Dec 2026 10:00:00 +0000\nMessage-ID: <late@bolt.example>\nIn-Reply-To: %s\n\nBack now - happy to chat next week.\n", ids["lee@bolt.example"])
		if err := b.Sandbox.DeliverReply("dana@getacme.com", deliverytest.CRLF(late)); err != nil {
			t.Fatal(err)
		}
		n, err := poller.Poll(b.Ctx, b.Workspace, b.Mailbox)
		if err != nil || n != 1 {
			t.Fatalf("poll kept %d, %v", n, err)
		}
	})
}
