package sending_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/sending"
)

// vendor is a provider that is not the sandbox.
type vendor struct{ *sending.Sandbox }

func (vendor) Name() string { return "vendor" }

func TestSandboxReady(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)

	t.Run("nothing ordered, nothing to make ready", func(t *testing.T) {
		_, err := f.svc.SandboxReady(ctx, f.a.ID)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || vibesell.ErrorMessage(err) != "Nothing is ordered yet, so there is nothing to make ready. Order the sending setup first (the assistant asks for its approval), then use the shortcut." {
			t.Fatalf("before the order: %v", err)
		}
	})
	f.pick(t, f.a, "getacme.com")
	if _, err := f.svc.PlaceOrder(ctx, f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	type state struct {
		Name, State string
		Shortcut    bool
	}
	states := func() []state {
		st, err := f.svc.Summary(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []state
		for _, d := range st.Domains {
			out = append(out, state{d.Name, string(d.State), d.SandboxReadyAt != nil})
		}
		for _, m := range st.Mailboxes {
			out = append(out, state{m.Address, string(m.State), m.SandboxReadyAt != nil})
		}
		return out
	}
	want := []state{{"getacme.com", "preparing", false}, {"ada@getacme.com", "preparing", false}, {"ada.lovelace@getacme.com", "preparing", false}, {"a.lovelace@getacme.com", "preparing", false}}
	if diff := cmp.Diff(want, states()); diff != "" {
		t.Fatalf("ordered mismatch (-want +got):\n%s", diff)
	}

	t.Run("ready and warm at once, marked as a shortcut", func(t *testing.T) {
		r, err := f.svc.SandboxReady(ctx, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Domains) != 1 || len(r.Mailboxes) != 3 || r.Sentence() != "Made 1 domain and 3 mailboxes ready, and the mailboxes warm, at once: a sandbox shortcut. They can send at full volume now." {
			t.Errorf("readiness: domains %q, mailboxes %q, %q; want 1 domain, 3 mailboxes", r.Domains, r.Mailboxes, r.Sentence())
		}
		want := []state{{"getacme.com", "ready", true}, {"ada@getacme.com", "warm", true}, {"ada.lovelace@getacme.com", "warm", true}, {"a.lovelace@getacme.com", "warm", true}}
		if diff := cmp.Diff(want, states()); diff != "" {
			t.Errorf("after the shortcut mismatch (-want +got):\n%s", diff)
		}
		st, _ := f.svc.Summary(ctx, f.a.ID)
		if st.ReadyToSendOn == nil || st.ReadyToSendOn.Format("2006-01-02") != "2026-12-04" || st.Next.Tool() != "" {
			t.Errorf("ready to send on %v, next %q", st.ReadyToSendOn, st.Next.Tool())
		}
		w, err := f.svc.StartWarmup(ctx, f.a.ID)
		if err != nil || len(w.Started) != 0 || len(w.Prewarmed) != 3 {
			t.Errorf("a warmup after the shortcut: started %d, already warm %d (%v)", len(w.Started), len(w.Prewarmed), err)
		}
		mailboxes, err := sending.CampaignMailboxes(f.svc).Mailboxes(ctx, f.a.ID)
		if err != nil || len(mailboxes) != 3 {
			t.Errorf("campaign mailboxes: %d (%v); want 3", len(mailboxes), err)
		} else if m := mailboxes[0]; m.DailyLimit != m.FullVolume {
			t.Errorf("campaign mailbox %s: %d a day, want its full volume, %d", m.Address, m.DailyLimit, m.FullVolume)
		}
	})
	t.Run("again, it changes nothing", func(t *testing.T) {
		f.clock.Set(f.clock.Now().Add(time.Minute))
		r, err := f.svc.SandboxReady(ctx, f.a.ID)
		if err != nil || len(r.Mailboxes) != 0 || r.Already != 3 {
			t.Fatalf("again: mailboxes %q, %d already (%v); want none, 3 already", r.Mailboxes, r.Already, err)
		}
		if r.Sentence() != "Nothing more to do: the sandbox shortcut already made 3 mailboxes ready and warm." {
			t.Errorf("again: %q", r.Sentence())
		}
	})
	t.Run("another workspace's setup is untouched", func(t *testing.T) {
		if _, err := f.svc.SandboxReady(ctx, f.b.ID); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("Globex: %v", err)
		}
	})
	t.Run("a real provider has no shortcut", func(t *testing.T) {
		real := newFixtureWith(t, sending.Providers{Provisioner: vendor{sending.NewSandbox(f.clock, sending.DefaultConfig())}})
		_, err := real.svc.SandboxReady(ctx, real.a.ID)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || vibesell.ErrorMessage(err) != "This server sets up domains and mailboxes with a real provider (vendor): they are ready once the provider has prepared them, and warm once their warmup is over. The shortcut exists only in the sandbox." {
			t.Errorf("with a real provider: %v", err)
		}
	})
}
