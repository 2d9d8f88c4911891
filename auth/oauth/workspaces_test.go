package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"vibesell"
	"vibesell/auth"
	"vibesell/auth/oauth/oauthtest"
	"vibesell/workspace"
)

var workspaceChoice = regexp.MustCompile(`<input type="radio" name="workspace" value="([^"]+)"([^>]*)> ([^<]+)</label>`)

// A person in two workspaces picks, on the consent page, the one the app
// will act in; nothing is picked beforehand, Allow without a pick or with
// a workspace not theirs is refused, and the grant acts in the one picked,
// as that person.
func TestConsentPicksOneOfThePersonsWorkspaces(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if _, err := auth.NewAccounts(auth.AccountsDeps{DB: e.pool}).AddMember(ctx, e.globex.ID, "ada@acme.test"); err != nil {
		t.Fatal(err)
	}
	initech, err := workspace.New(workspace.Deps{DB: e.pool, Clock: vibesell.SystemClock{}}).Create(ctx, "Initech")
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	fetcher := func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
		path, page := b.ToConsent(args.URL)
		type choice struct{ ID, Attrs, Name string }
		var choices []choice
		for _, m := range workspaceChoice.FindAllStringSubmatch(page, -1) {
			choices = append(choices, choice{m[1], m[2], m[3]})
		}
		want := []choice{{e.acme.ID.String(), " required", "Acme Sales"}, {e.globex.ID.String(), " required", "Globex"}}
		if diff := cmp.Diff(want, choices); diff != "" {
			t.Errorf("workspaces to pick from (-want +got):\n%s", diff)
		}
		csrf := oauthtest.CSRF(t, page)
		for name, picked := range map[string]string{"none": "", "not hers": initech.ID.String(), "not an id": "globex"} {
			resp, body := b.Post(path, url.Values{"csrf": {csrf}, "decision": {"allow"}, "workspace": {picked}}, b.Origin)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Choose the workspace the app will work in, then allow again.") {
				t.Errorf("allow with %s picked: %d\n%s", name, resp.StatusCode, body)
			}
		}
		resp, body := b.Post(path, url.Values{"csrf": {csrf}, "decision": {"allow"}, "workspace": {e.globex.ID.String()}}, b.Origin)
		oauthtest.WantStatus(t, resp, http.StatusSeeOther, body)
		to, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || to.Query().Get("code") == "" {
			return nil, errors.New("no code in the redirect: " + resp.Header.Get("Location"))
		}
		return &sdkauth.AuthorizationResult{Code: to.Query().Get("code"), State: to.Query().Get("state"), Iss: to.Query().Get("iss")}, nil
	}
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Test Client", RedirectURIs: []string{callback}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: fetcher,
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, h)
	if diff := cmp.Diff("globex "+e.ada.ID.String()+" ada@acme.test via Test Client", whoami(t, cs)); diff != "" {
		t.Errorf("whoami (-want +got):\n%s", diff)
	}
	if conns, _ := e.oauth.Connections(ctx, e.acme.ID); len(conns) != 0 {
		t.Errorf("Acme has %d connections, want none: the grant is Globex's", len(conns))
	}
}
