package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"vibesell"
	"vibesell/approvals"
	"vibesell/workspace"
)

// Ada belongs to Acme and Globex; Bob to Globex only; nobody here to
// Initech.
func newSharedApp(t *testing.T) (*app, workspace.Workspace) {
	t.Helper()
	a := setup(t)
	if _, err := a.accounts.AddMember(context.Background(), a.globex.ID, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	initech, err := workspace.New(workspace.Deps{DB: a.pool, Clock: vibesell.SystemClock{}}).Create(context.Background(), "Initech")
	if err != nil {
		t.Fatal(err)
	}
	return a, initech
}

// switchTo is the header's button that opens ws.
func switchTo(ws workspace.Workspace) string {
	return `<button class="btn-link" type="submit" name="workspace" value="` + ws.ID.String() + `">` + ws.Name + `</button>`
}

// The web app names the open workspace; a person in several switches
// between them, and only between theirs.
func TestSwitchingWorkspaces(t *testing.T) {
	t.Parallel()
	a, initech := newSharedApp(t)
	a.order(t, a.acme, "rocket", false)
	a.order(t, a.globex, "anvil", false)

	t.Run("a person in one workspace sees its name, no switcher", func(t *testing.T) {
		b := a.browser(t)
		b.signIn("bob@globex.test")
		list := b.Get("/app/approvals")
		if !strings.Contains(list.Body, `<span class="ws">Globex</span>`) || strings.Contains(list.Body, "switch-workspace") {
			t.Fatalf("Bob's page header:\n%s", list.Body)
		}
	})

	t.Run("a person in two opens either", func(t *testing.T) {
		b := a.browser(t)
		b.signIn("ada@acme.test")
		list := b.Get("/app/approvals")
		if !strings.Contains(list.Body, `<span class="ws">Acme</span>`) || !strings.Contains(list.Body, switchTo(a.globex)) ||
			strings.Contains(list.Body, switchTo(a.acme)) {
			t.Fatalf("with Acme open, the header does not name it and offer Globex:\n%s", list.Body)
		}
		if !strings.Contains(list.Body, "Order the rocket") || strings.Contains(list.Body, "anvil") {
			t.Fatal("with Acme open, the list is not Acme's")
		}
		p := b.Post("/app/workspace", url.Values{"csrf": {list.CSRF(t)}, "workspace": {a.globex.ID.String()}})
		if p.Status != http.StatusSeeOther || p.Location != "/app/approvals" {
			t.Fatalf("switch: %d %s\n%s", p.Status, p.Location, p.Body)
		}
		list = b.Get("/app/approvals")
		if !strings.Contains(list.Body, `<span class="ws">Globex</span>`) || !strings.Contains(list.Body, switchTo(a.acme)) ||
			!strings.Contains(list.Body, "Order the anvil") || strings.Contains(list.Body, "rocket") {
			t.Fatalf("after switching, Globex is not open:\n%s", list.Body)
		}
		if p := b.Post("/app/workspace", url.Values{"csrf": {list.CSRF(t)}, "workspace": {initech.ID.String()}}); p.Status != http.StatusNotFound {
			t.Fatalf("opening a workspace Ada is not in: %d", p.Status)
		}
		if list := b.Get("/app/approvals"); !strings.Contains(list.Body, "Order the anvil") {
			t.Fatal("the refused switch changed the open workspace")
		}
		if p := b.Post("/app/workspace", url.Values{"workspace": {a.acme.ID.String()}}); p.Status != http.StatusForbidden {
			t.Fatalf("a switch without the CSRF token: %d", p.Status)
		}
	})
}

// An approval link opens the approval's workspace when it is one of the
// person's, and is not found when it is not.
func TestApprovalLinksAcrossThePersonsWorkspaces(t *testing.T) {
	t.Parallel()
	a, initech := newSharedApp(t)
	acmes := a.order(t, a.acme, "rocket", false)
	globexs := a.order(t, a.globex, "anvil", false)
	initechs := a.order(t, initech, "stapler", false)

	b := a.browser(t)
	b.signIn("ada@acme.test")
	p := b.Get(approvals.AppPath(globexs.ID))
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "Order the anvil") ||
		!strings.Contains(p.Body, `<span class="ws">Globex</span>`) {
		t.Fatalf("Ada opening Globex's approval with Acme open: %d\n%s", p.Status, p.Body)
	}
	if list := b.Get("/app/approvals"); !strings.Contains(list.Body, "Order the anvil") {
		t.Fatal("the link did not leave Globex open")
	}
	// Deciding one of Acme's from Globex decides it in Acme.
	d := b.Post(approvals.AppPath(acmes.ID)+"/reject", url.Values{"csrf": {p.CSRF(t)}})
	if d.Status != http.StatusSeeOther {
		t.Fatalf("rejecting Acme's approval with Globex open: %d\n%s", d.Status, d.Body)
	}
	if got, _ := a.approvals.Find(context.Background(), a.acme.ID, acmes.ID); got.Status != approvals.Rejected {
		t.Fatalf("Acme's approval is %s, want rejected", got.Status)
	}

	for who, id := range map[string]string{"ada@acme.test": initechs.ID, "bob@globex.test": acmes.ID} {
		b := a.browser(t)
		b.signIn(who)
		p := b.Get(approvals.AppPath(id))
		if p.Status != http.StatusNotFound || strings.Contains(p.Body, "Order the") {
			t.Errorf("%s opening an approval of a workspace they are not in: %d", who, p.Status)
		}
		csrf := b.Get("/app/approvals").CSRF(t)
		if d := b.Post(approvals.AppPath(id)+"/approve", url.Values{"csrf": {csrf}}); d.Status != http.StatusNotFound {
			t.Errorf("%s approving an approval of a workspace they are not in: %d", who, d.Status)
		}
	}
	if got, _ := a.approvals.Find(context.Background(), initech.ID, initechs.ID); got.Status != approvals.Pending {
		t.Fatalf("Initech's approval is %s, want pending", got.Status)
	}
}
