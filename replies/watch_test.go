package replies_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"vibesell/delivery/deliverytest"
	"vibesell/replies"
)

// With an interval of an hour, only the server's IDLE announcement can
// make the watcher read a reply within the test's bound.
func TestWatchReadsARepliesAsTheServerAnnouncesIt(t *testing.T) {
	b := deliverytest.Setup(t)
	sent := b.SendTo(t, deliverytest.NewCampaignID(), deliverytest.NewLeadID(), "Sam Okafor", "sam@acme-corp.example")

	ctx, cancel := context.WithCancel(b.Ctx)
	polls := make(chan string, 10)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		replies.NewPoller(replies.PollerDeps{DB: b.DB, Suppressor: b.Suppressor, Clock: b.Clock}).Watch(ctx, b.Workspace, b.Mailbox, time.Hour, func(kept int, err error) {
			polls <- fmt.Sprintf("kept %d, error %v", kept, err)
		})
	}()
	defer func() { cancel(); <-stopped }()

	next := func() string {
		t.Helper()
		select {
		case p := <-polls:
			return p
		case <-time.After(30 * time.Second):
			t.Fatal("no poll within 30 seconds")
			return ""
		}
	}
	if got := next(); got != "kept 0, error <nil>" {
		t.Fatalf("first poll: %s", got)
	}
	deliver := func(n int) {
		t.Helper()
		reply := fmt.Sprintf("From: sam@acme-corp.example\nTo: dana@getacme.com\nSubject: Re: hi\nDate: Tue, 1 Dec 2026 10:00:00 +0000\nMessage-ID: <r%d@acme-corp.example>\nIn-Reply-To: %s\n\nHappy to chat next week.\n", n, sent)
		if err := b.Sandbox.DeliverReply("dana@getacme.com", deliverytest.CRLF(reply)); err != nil {
			t.Fatal(err)
		}
	}
	deliver(1)
	// go-imap's memory server answers "+ idling" before the session starts
	// listening for updates, so a reply landing in that gap (a loaded
	// machine) is announced only with the next one. A second reply after a
	// few seconds is then announced, and the poll keeps both; with an
	// interval of an hour, any poll at all proves the announcement woke it.
	replies, kept := 1, 0
	for kept < replies {
		var got string
		select {
		case got = <-polls:
		case <-time.After(5 * time.Second):
			if replies == 2 {
				t.Fatal("no poll within 5 seconds of the second reply")
			}
			deliver(2)
			replies++
			continue
		}
		var n int
		if _, err := fmt.Sscanf(got, "kept %d, error <nil>", &n); err != nil || n == 0 {
			t.Fatalf("poll after the reply: %s, want the reply kept", got)
		}
		kept += n
	}
	if kept != replies {
		t.Fatalf("kept %d replies, want %d", kept, replies)
	}
}
