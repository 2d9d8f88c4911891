package sending_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell/cards"
	"vibesell/sending"
	"vibesell/sending/sendingtest"
	"vibesell/workspace"
)

// An order publishes the DKIM record the engine signs with, and the
// published records answer TXT questions for the workspace only, once the
// domain is ready.
func TestOrderPublishesTheEnginesDKIMKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	asked := map[string]uuid.UUID{}
	svc := sending.New(sending.Deps{DB: f.pool, Clock: f.clock, Config: sending.DefaultConfig(), Cards: cards.New(cards.Deps{DB: f.pool, Clock: f.clock}),
		Offers:    workspace.New(workspace.Deps{DB: f.pool, Clock: f.clock}),
		Providers: sending.Providers{Availability: sendingtest.FreeNames{}},
		DKIMRecord: func(ctx context.Context, ws uuid.UUID, domain string) (sending.Record, error) {
			asked[domain] = ws
			return sending.Record{Type: "DKIM", Host: "vs1._domainkey." + domain, Value: "v=DKIM1; k=rsa; p=ENGINEKEY"}, nil
		}})
	f.svc = svc
	f.pick(t, f.a, "getacme.com")
	ctx := context.Background()
	if _, err := svc.PlaceOrder(ctx, f.a.ID, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]uuid.UUID{"getacme.com": f.a.ID}, asked); diff != "" {
		t.Errorf("keys asked for (-want +got):\n%s", diff)
	}
	txt := func(ws uuid.UUID, name string) []string {
		t.Helper()
		v, err := svc.PublishedTXT(ctx, ws, name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := txt(f.a.ID, "vs1._domainkey.getacme.com"); len(v) != 0 {
		t.Errorf("published before the domain is ready: %v", v)
	}
	f.clock.Set(f.clock.Now().AddDate(0, 0, 14))
	if diff := cmp.Diff([]string{"v=DKIM1; k=rsa; p=ENGINEKEY"}, txt(f.a.ID, "vs1._domainkey.getacme.com")); diff != "" {
		t.Errorf("DKIM (-want +got):\n%s", diff)
	}
	if v := txt(f.a.ID, "_dmarc.getacme.com"); len(v) != 1 {
		t.Errorf("DMARC: %v", v)
	}
	if v := txt(f.b.ID, "vs1._domainkey.getacme.com"); len(v) != 0 {
		t.Errorf("Globex reads Acme's records: %v", v)
	}
}
