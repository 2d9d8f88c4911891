package audience_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
)

// A lead's story says where it came from: the file a person uploaded,
// by name, and when it was imported; a lead of another workspace, or
// an address that is no lead, has no story here.
func TestStorySaysWhichFileALeadCameFrom(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{UploadURL: "https://vibesell.example.test/app/leads"})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	up, err := b.svc.StoreUpload(ctx, acme, "december fair.csv", []byte("email,first name,company\nana@alpha.test,Ana,Alpha\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.CheckUpload(ctx, acme, up.ID, up.Suggested); err != nil {
		t.Fatal(err)
	}
	a, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Upload: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}
	if err := b.approvals.Execute(ctx, acme, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	st, err := b.svc.Story(ctx, acme, "Ana@Alpha.test")
	if err != nil {
		t.Fatal(err)
	}
	type from struct {
		Email, Name, Source, FileName, Status string
		AddedAt                               time.Time
	}
	want := from{Email: "ana@alpha.test", Name: "Ana", Source: audience.SourceUpload, FileName: "december fair.csv",
		Status: audience.LeadNotEmailed, AddedAt: b.clock.Now()}
	if d := cmp.Diff(want, from{st.Lead.Email, st.Lead.Name(), st.Source, st.FileName, st.Lead.Status, st.Lead.AddedAt.UTC()}); d != "" {
		t.Errorf("story mismatch (-want +got):\n%s", d)
	}
	if _, err := b.svc.Story(ctx, b.ws.Globex.ID, "ana@alpha.test"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Errorf("Globex reads Acme's lead: %v", err)
	}
	if _, err := b.svc.RemoveLead(ctx, b.ws.Globex.ID, st.Lead.ID, "bob"); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Errorf("Globex removes Acme's lead: %v", err)
	}
}
