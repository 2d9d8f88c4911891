package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibesell/auth"
	"vibesell/store"
	"vibesell/store/storetest"
)

// The official MCP TypeScript SDK's OAuth client (e2e/sdk/oauth.mjs)
// connects as the Claude app does: it registers itself, the person signs
// in and allows on the web app's pages, it calls a tool, and its refresh
// token rotates (the old one is then refused).
func TestOfficialTypeScriptClientWithOAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the server and runs Node")
	}
	t.Parallel()
	runOAuthScript(t, buildServer(t), nil)
}

// The same client identifies itself by a client ID metadata document
// instead of registering, as the Claude app does on servers that offer
// it. The document is served over https from a second loopback server;
// a normal build never fetches from loopback, so the server is the test
// build (cmd/server/testbuild_unsafe.go), told which certificate to trust.
func TestOfficialTypeScriptClientWithClientMetadataDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the server and runs Node")
	}
	t.Parallel()
	var docURL, home string
	host := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oauth/client.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id": docURL, "client_name": "TypeScript SDK check", "client_uri": home,
			"redirect_uris": []string{"http://127.0.0.1:9/callback"}, "grant_types": []string{"authorization_code", "refresh_token"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none",
		})
	}))
	t.Cleanup(host.Close)
	home, docURL = host.URL, host.URL+"/oauth/client.json"
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: host.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	switchOn := []string{"VIBESELL_TEST_CLIENT_METADATA_CA=" + ca}
	runOAuthScript(t, buildServer(t, "vibesell_unsafe_test_build"), switchOn, "--client-metadata-url", docURL)

	t.Run("a normal build refuses the same document", func(t *testing.T) {
		srv := startServer(t, buildServer(t), append([]string{"DATABASE_URL=" + storetest.NewURL(t)}, switchOn...)...)
		resp, err := http.Get("http://" + srv.addr + "/oauth/authorize?" + url.Values{"client_id": {docURL},
			"redirect_uri": {"http://127.0.0.1:9/callback"}, "response_type": {"code"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "could not be fetched: it must be served over HTTPS on port 443 from a public address") {
			t.Fatalf("authorize with a loopback document on a normal build: %s\n%s", resp.Status, body)
		}
	})
}

// runOAuthScript starts bin on a fresh database with one person, runs
// oauth.mjs against it as that person and fails the test on any FAIL.
func runOAuthScript(t *testing.T, bin string, serverEnv []string, scriptArgs ...string) {
	t.Helper()
	node := needTool(t, "node", "it runs the official MCP TypeScript SDK client")
	needNode(t, node, 20)
	dir := filepath.Join(repoRoot(t), "e2e", "sdk")
	npmCI(t, dir)

	dbURL := storetest.NewURL(t)
	ws, _ := newWorkspace(t, dbURL, "OAuth Check")
	const email, password = "ada@oauth-check.test", "correct horse battery staple"
	ctx := context.Background()
	pool, err := store.Connect(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.NewAccounts(auth.AccountsDeps{DB: pool}).CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Password: password})
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, bin, append([]string{"DATABASE_URL=" + dbURL}, serverEnv...)...)

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"oauth.mjs", "--http", srv.url}, scriptArgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VIBESELL_EMAIL="+email, "VIBESELL_PASSWORD="+password)
	cmd.WaitDelay = 10 * time.Second
	out, runErr := cmd.CombinedOutput()
	passes, fails, summary := readChecks(t, string(out), srv.stderr.String())
	if runErr != nil && fails == 0 || !summary || passes == 0 {
		t.Errorf("node oauth.mjs: %v (ran to the end: %v)\nserver stderr:\n%s", runErr, summary, tail(srv.stderr.String(), 20))
	}
}
