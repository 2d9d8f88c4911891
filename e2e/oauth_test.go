package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	node := needTool(t, "node", "it runs the official MCP TypeScript SDK client")
	needNode(t, node, 20)
	dir := filepath.Join(repoRoot(t), "e2e", "sdk")
	npmCI(t, dir)
	bin := buildServer(t)

	dbURL := storetest.NewURL(t)
	ws, _ := newWorkspace(t, dbURL, "OAuth Check")
	const email, password = "ada@oauth-check.test", "correct horse battery staple"
	ctx := context.Background()
	pool, err := store.Connect(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.NewAccounts(pool, nil).CreateUser(ctx, auth.NewUser{WorkspaceID: ws.ID, Email: email, Password: password})
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, bin, "DATABASE_URL="+dbURL)

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth.mjs", "--http", srv.url)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VIBESELL_EMAIL="+email, "VIBESELL_PASSWORD="+password)
	cmd.WaitDelay = 10 * time.Second
	out, runErr := cmd.CombinedOutput()
	passes, fails, summary := readChecks(t, string(out), srv.stderr.String())
	if runErr != nil && fails == 0 || !summary || passes == 0 {
		t.Errorf("node oauth.mjs: %v (ran to the end: %v)\nserver stderr:\n%s", runErr, summary, tail(srv.stderr.String(), 20))
	}
}
