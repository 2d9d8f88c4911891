package oauth_test

import (
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "could not be fetched: it must be served over HTTPS on port 443") {
		t.Errorf("missing document: %d\n%s", resp.StatusCode, page)
	}
	resp, page = authorize(host.srv.URL + "/")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "must have a path") {
		t.Errorf("root URL: %d\n%s", resp.StatusCode, page)
	}
}

// Anyone can make the server fetch a metadata document, before signing
// in: a URL that failed is not fetched again for a while, each address
// fetches a few a minute, few fetches run at once, and the page never
// says what happened on the network.
func TestClientMetadataFetchesAreLimited(t *testing.T) {
	t.Parallel()
	host := newMetadataHost(t)
	slow := newMetadataHost(t)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	slow.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		http.NotFound(w, r)
	})
	fetches := host.testFetches()
	fetches.RootCAs.AddCert(slow.srv.Certificate())
	fetches.InFlight = 1
	e := setup(t, options{clientFetches: fetches, rateLimits: oauth.RateLimits{Metadata: 3}})
	b := e.browser(t)
	authorize := func(clientID string) (*http.Response, string) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback},
			"code_challenge": {challengeOf(strings.Repeat("v", 43))}, "code_challenge_method": {"S256"}, "resource": {e.srv.URL + "/mcp"}}
		return b.Get(oauth.PathAuthorize + "?" + q.Encode())
	}

	t.Run("a failure is remembered", func(t *testing.T) {
		missing := host.srv.URL + "/missing.json"
		authorize(missing)
		resp, page := authorize(missing)
		if n := host.fetches.Load(); n != 1 || resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "It is fetched again 5 minutes after this failure at the earliest.") {
			t.Errorf("asked twice: fetched %d times, want 1; %d\n%s", n, resp.StatusCode, page)
		}
	})
	t.Run("the page says nothing of the network", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "https://" + ln.Addr().String() + "/client.json"
		ln.Close()
		notFound := host.srv.URL + "/gone.json"
		_, refusedPage := authorize(closed)
		_, notFoundPage := authorize(notFound)
		if refusedPage != strings.ReplaceAll(notFoundPage, notFound, closed) || strings.Contains(refusedPage, "refused") || strings.Contains(notFoundPage, "404") {
			t.Errorf("a closed port and a 404 read differently:\n%s\n---\n%s", refusedPage, notFoundPage)
		}
	})
	t.Run("each address fetches a few a minute", func(t *testing.T) {
		before := host.fetches.Load()
		resp, page := authorize(host.srv.URL + "/third.json")
		if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(page, "Too many client metadata documents were fetched for your address: at most 3 a minute.") {
			t.Errorf("the fourth fetch in a minute: %d\n%s", resp.StatusCode, page)
		}
		if n := host.fetches.Load(); n != before {
			t.Errorf("fetched past the limit: %d fetches, want %d", n, before)
		}
		e.clock.Advance(time.Minute)
		if authorize(host.srv.URL + "/third.json"); host.fetches.Load() != before+1 {
			t.Error("not fetched a minute later")
		}
	})
	t.Run("few fetches run at once", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		done := make(chan struct{})
		go func() {
			defer close(done)
			authorize(slow.srv.URL + "/first.json")
		}()
		<-entered
		resp, page := authorize(slow.srv.URL + "/second.json")
		close(release)
		<-done
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "fetching too many client metadata documents at once") {
			t.Errorf("a second fetch while one runs: %d\n%s", resp.StatusCode, page)
		}
	})
}
