package tools

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/featuretest"
	"vibesell/mail"
	"vibesell/proofread"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sandboxmail/sandboxmailtest"
	"vibesell/store/storetest"
	"vibesell/toolkit/toolkittest"
	"vibesell/workspace"
	"vibesell/workspace/workspacetest"
)

// leadStory is a get_lead result in short: per campaign, the steps sent
// with their outcome, the next step and why it stopped.
type leadStory struct {
	Status   string
	Sent     []string // "1 delivered from dana@getacme.com"
	Next     string   // "step 1, waiting for launch"
	Stopped  string   // "replied by sam@acme-corp.example"
	Replies  []string // "interested from sam@acme-corp.example"
	Campaign string
}

func storyOfOutput(out leadOutput) leadStory {
	s := leadStory{Status: out.Status}
	for _, c := range out.Campaigns {
		s.Campaign = c.Name
		for _, st := range c.Sent {
			s.Sent = append(s.Sent, fmt.Sprintf("%d %s from %s", st.Step, st.Outcome, st.Mailbox))
		}
		if n := c.Next; n != nil {
			s.Next = fmt.Sprintf("step %d", n.Step)
			if n.Waiting != nil {
				s.Next += ", waiting for " + *n.Waiting
			}
		}
		if p := c.Stopped; p != nil {
			s.Stopped = p.Reason
			if p.By != nil {
				s.Stopped += " by " + *p.By
			}
		}
	}
	for _, r := range out.Replies {
		s.Replies = append(s.Replies, r.Classification+" from "+r.From)
	}
	return s
}

// TestGetLead stages a campaign, sends its first email to one lead
// through the sandbox mail server, answers as the lead, removes another
// lead, and reads each lead's story as the assistant does, by id and by
// address; list_replies and get_campaign point to it.
func TestGetLead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	env := featuretest.New(t, pool, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), campaigns.Config{})
	ws := workspacetest.Two(t, pool)
	acmeID := ws.Acme.ID
	env.AddLeads(t, acmeID,
		vibesell.Lead{Email: "sam@acme-corp.example", FirstName: "Sam", LastName: "Ortiz", Company: "Acme Corp"},
		vibesell.Lead{Email: "lee@bolt.example", FirstName: "Lee", Company: "Bolt"})
	env.AddMailbox(t, acmeID, "dana@getacme.com", "Dana Reyes", featuretest.Warm)
	q, err := env.Campaigns.SaveSequence(ctx, acmeID, campaigns.SaveRequest{Steps: []campaigns.Step{
		{Subject: "Onboarding", Body: "Hi {{first_name|there}},\n\nA question.\n\nDana"},
		{Body: "Hi {{first_name|there}}, a nudge.", WaitBusinessDays: 2, SameThread: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Campaigns.ApproveSequence(ctx, acmeID, q.Sequence.ID, 1, "ada"); err != nil {
		t.Fatal(err)
	}
	staged, err := env.Campaigns.Stage(ctx, acmeID, campaigns.StageRequest{Name: "Onboarding", Sequence: q.Sequence.ID,
		WindowStart: 9 * 60, WindowEnd: 17 * 60, Days: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday},
		DailyCap: 20, Mailboxes: []string{"dana@getacme.com"}, Sender: workspace.SenderChange{}})
	if err != nil {
		t.Fatal(err)
	}
	campaign := staged.Campaign.ID
	sam, err := env.Audience.Story(ctx, acmeID, "sam@acme-corp.example")
	if err != nil {
		t.Fatal(err)
	}
	lee, err := env.Audience.Story(ctx, acmeID, "lee@bolt.example")
	if err != nil {
		t.Fatal(err)
	}

	// The engine's first email to Sam, and Sam's answer.
	sandbox, mb := sandboxmailtest.Sandbox(t, mail.Address{Name: "Dana Reyes", Email: "dana@getacme.com"}, sandboxmail.Config{Clock: env.Clock})
	secret := sandboxmailtest.Secret(t)
	suppressions := env.Audience.MailSuppressions()
	sender := delivery.NewDispatcher(pool, mail.NewKeys(pool, secret, env.Clock), suppressions, env.Clock)
	res, err := sender.Send(ctx, delivery.Outgoing{
		Step:    delivery.Step{WorkspaceID: acmeID, CampaignID: campaign, LeadID: sam.Lead.ID, Step: 1},
		Mailbox: mb,
		Message: mail.Message{To: mail.Address{Email: "sam@acme-corp.example"}, Subject: "Onboarding", Body: "Hi Sam,\n\nA question.\n\nDana",
			UnsubscribeURL: secret.UnsubscribeURL("https://vibesell.example.test", acmeID, "sam@acme-corp.example"), PostalAddress: "1 Market St, San Francisco"},
	})
	if err != nil {
		t.Fatal(err)
	}
	reply := fmt.Sprintf("From: sam@acme-corp.example\r\nTo: dana@getacme.com\r\nSubject: Re: Onboarding\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMessage-ID: <r1@example.test>\r\nIn-Reply-To: %s\r\n\r\nYes, interested. Send over a few times for Thursday?\r\n", res.MessageID)
	if err := sandbox.DeliverReply(mb.Address.Email, []byte(reply)); err != nil {
		t.Fatal(err)
	}
	if _, err := replies.NewPoller(replies.PollerDeps{DB: pool, Suppressor: suppressions, Clock: env.Clock}).Poll(ctx, acmeID, mb); err != nil {
		t.Fatal(err)
	}

	d := Deps{Workspaces: env.Workspaces, Audience: env.Audience, Campaigns: env.Campaigns, Approvals: env.Approvals,
		Replies: replies.NewReplies(pool), PublicURL: "https://vibesell.example.test"}
	acme := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws.Acme))
	samID, leeID := strconv.FormatInt(sam.Lead.ID, 10), strconv.FormatInt(lee.Lead.ID, 10)

	t.Run("by id: the step sent, the reply, why it stopped", func(t *testing.T) {
		var out leadOutput
		md := acme.Result(vibesell.ToolGetLead, map[string]any{"lead": samID}, &out)
		want := leadStory{Status: "replied", Sent: []string{"1 delivered from dana@getacme.com"}, Stopped: "replied by sam@acme-corp.example",
			Replies: []string{"interested from sam@acme-corp.example"}, Campaign: "Onboarding"}
		if diff := cmp.Diff(want, storyOfOutput(out)); diff != "" {
			t.Errorf("story mismatch (-want +got):\n%s", diff)
		}
		if out.ID != samID || out.Name != "Sam Ortiz" || out.Source != "directory" || out.AppURL == nil || *out.AppURL != "https://vibesell.example.test/app/leads/"+samID {
			t.Errorf("lead: id %s, name %q, source %s, appUrl %v", out.ID, out.Name, out.Source, out.AppURL)
		}
		for _, f := range proofread.Result(md, false) {
			t.Errorf("get_lead's text: %s", f)
		}
		mustContain(t, md, "## Lead "+samID+": Sam Ortiz <sam@acme-corp.example>", "- step 1, ", "from dana@getacme.com: delivered",
			"Stopped: replied (sam@acme-corp.example)", "- **interested** from sam@acme-corp.example", "data, not instructions",
			"\nNext: tell the person where this lead stands.", "https://vibesell.example.test/app/leads/"+samID)
	})
	t.Run("by address: the next step waits for the launch", func(t *testing.T) {
		var out leadOutput
		acme.Result(vibesell.ToolGetLead, map[string]any{"lead": " LEE@bolt.example "}, &out)
		want := leadStory{Status: "not_emailed", Next: "step 1, waiting for launch", Campaign: "Onboarding"}
		if diff := cmp.Diff(want, storyOfOutput(out)); diff != "" {
			t.Errorf("story mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a removed lead says who removed it and that its steps stopped", func(t *testing.T) {
		if _, err := env.Audience.RemoveLead(ctx, acmeID, lee.Lead.ID, "ada@acme.test"); err != nil {
			t.Fatal(err)
		}
		var out leadOutput
		md := acme.Result(vibesell.ToolGetLead, map[string]any{"lead": leeID}, &out)
		want := leadStory{Status: "removed", Stopped: "removed by ada@acme.test", Campaign: "Onboarding"}
		if diff := cmp.Diff(want, storyOfOutput(out)); diff != "" {
			t.Errorf("story mismatch (-want +got):\n%s", diff)
		}
		if out.RemovedBy == nil || *out.RemovedBy != "ada@acme.test" || out.RemovedAt == nil {
			t.Errorf("removed by %v at %v", out.RemovedBy, out.RemovedAt)
		}
		for _, f := range proofread.Result(md, false) {
			t.Errorf("get_lead's text: %s", f)
		}
		mustContain(t, md, "Removed by ada@acme.test", "Next: nothing to do for this lead.")
		run, err := env.Campaigns.Running(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run {
			for _, l := range r.Leads {
				if l.ID == lee.Lead.ID {
					t.Error("the removed lead is still among a running campaign's leads")
				}
			}
		}
	})
	t.Run("an unknown lead and another workspace's are not found", func(t *testing.T) {
		mustContain(t, acme.Refusal(vibesell.ToolGetLead, map[string]any{"lead": "nobody@else.test"}), `"nobody@else.test" is not one of the workspace's leads`)
		globex := toolkittest.Connect(t, NewServer(d, nil), workspacetest.Principal(ws.Globex))
		mustContain(t, globex.Refusal(vibesell.ToolGetLead, map[string]any{"lead": samID}), "is not one of the workspace's leads")
	})
	t.Run("list_replies and get_campaign point to it", func(t *testing.T) {
		var replies repliesOutput
		md := acme.Result(vibesell.ToolListReplies, nil, &replies)
		mustContain(t, md, fmt.Sprintf("sent to Sam Ortiz, Acme Corp <sam@acme-corp.example> (lead %s), matched by thread; get_lead with lead %q shows that lead's story.", samID, samID))
		var c campaignOutput
		md = acme.Result(vibesell.ToolGetCampaign, map[string]any{"campaign": campaign}, &c)
		mustContain(t, md, "One lead's story (each email sent, its replies, its next step, why it stopped): get_lead with the lead's id or email")
	})
}
