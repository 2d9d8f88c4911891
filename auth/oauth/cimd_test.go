package oauth_test

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"vibesell/auth/oauth"
)

// metadataHost serves client ID metadata documents over https on a second
// loopback server, and counts the fetches.
type metadataHost struct {
	srv     *httptest.Server
	docs    map[string]map[string]any
	fetches atomic.Int32
}

func newMetadataHost(t testing.TB) *metadataHost {
	h := &metadataHost{docs: map[string]map[string]any{}}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fetches.Add(1)
		doc, ok := h.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *metadataHost) publish(path string, doc map[string]any) string {
	u := h.srv.URL + path
	if _, ok := doc["client_id"]; !ok {
		doc["client_id"] = u
	}
	h.docs[path] = doc
	return u
}

// testFetches is the test configuration: loopback allowed, the metadata
// host's certificate trusted.
func (h *metadataHost) testFetches() oauth.FetchConfig {
	roots := x509.NewCertPool()
	roots.AddCert(h.srv.Certificate())
	return oauth.FetchConfig{AllowLoopback: true, RootCAs: roots}
}

// The official Go SDK client identifies itself by a metadata document URL
// served from another loopback server; the person signs in, sees the
// client named without the unverified mark, allows, and a tool answers.
func TestGoSDKClientConnectsWithClientMetadataDocument(t *testing.T) {
	t.Parallel()
	host := newMetadataHost(t)
	clientID := host.publish("/oauth/client.json", map[string]any{
		"client_name": "Metadata Client", "redirect_uris": []string{callback},
		"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none",
	})
	e := setup(t, options{clientFetches: host.testFetches()})
	b := e.browser(t)
	var page string
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		ClientIDMetadataDocumentConfig: &sdkauth.ClientIDMetadataDocumentConfig{URL: clientID},
		RedirectURL:                    callback,
		AuthorizationCodeFetcher:       b.Fetcher(func(p string) { page = p }),
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, h)
	if got, want := whoami(t, cs), "acme-sales "+e.ada.ID.String()+" ada@acme.test via Metadata Client"; got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}
	if !strings.Contains(page, "Connect Metadata Client to VibeSell?") || strings.Contains(page, "unverified") ||
		!strings.Contains(page, `<dd id="published-by">127.0.0.1</dd>`) {
		t.Errorf("consent page for a metadata-document client:\n%s", page)
	}
	// Authorize and token each needed the client; the document was fetched
	// once and then read from the cache.
	if n := host.fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times, want 1", n)
	}
}

func TestClientMetadataDocumentRefusals(t *testing.T) {
	t.Parallel()
	host := newMetadataHost(t)
	e := setup(t, options{clientFetches: host.testFetches()})
	b := e.browser(t)
	authorize := func(clientID string) (*http.Response, string) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback},
			"code_challenge": {challengeOf(strings.Repeat("v", 43))}, "code_challenge_method": {"S256"}, "resource": {e.srv.URL + "/mcp"}}
		return b.Get(oauth.PathAuthorize + "?" + q.Encode())
	}
	for name, tc := range map[string]struct {
		doc  map[string]any
		want string
	}{
		"client_id is not the URL": {map[string]any{"client_id": "https://claude.ai/oauth/client.json", "redirect_uris": []string{callback}},
			"names client_id &#34;https://claude.ai/oauth/client.json&#34;, not its own URL"},
		"redirect not listed": {map[string]any{"client_name": "X", "redirect_uris": []string{"https://app.example/cb"}},
			"did not register"},
		"confidential client": {map[string]any{"redirect_uris": []string{callback}, "token_endpoint_auth_method": "private_key_jwt"},
			"public clients only"},
	} {
		id := host.publish("/"+strings.ReplaceAll(name, " ", "-")+".json", tc.doc)
		resp, page := authorize(id)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, tc.want) {
			t.Errorf("%s: %d, want 400 saying %q\n%s", name, resp.StatusCode, tc.want, page)
		}
	}
	resp, page := authorize(host.srv.URL + "/missing.json")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "answered 404 Not Found") {
		t.Errorf("missing document: %d\n%s", resp.StatusCode, page)
	}
	resp, page = authorize(host.srv.URL + "/")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "must have a path") {
		t.Errorf("root URL: %d\n%s", resp.StatusCode, page)
	}
}
