package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"vibesell/store"
	"vibesell/store/storetest"
)

// pgbouncerPath finds PgBouncer, installing the Debian package when it is
// missing and the test may (root, with apt-get); "" when neither.
func pgbouncerPath(t *testing.T) (string, string) {
	t.Helper()
	for _, p := range []string{"pgbouncer", "/usr/sbin/pgbouncer"} {
		if path, err := exec.LookPath(p); err == nil {
			return path, ""
		}
	}
	if os.Getuid() != 0 {
		return "", "pgbouncer is not installed, and only root may install it (apt-get install -y pgbouncer)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "-qq", "pgbouncer")
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("pgbouncer is not installed and apt-get install -y pgbouncer failed: %v\n%s", err, out)
	}
	if path, err := exec.LookPath("/usr/sbin/pgbouncer"); err == nil {
		return path, ""
	}
	return "", "apt-get installed pgbouncer, but no /usr/sbin/pgbouncer"
}

// startPgBouncer runs PgBouncer in transaction mode on a free loopback
// port in front of the database server of direct, with a generated
// config (trust, as the test server's loopback is), and returns the URL
// of direct's database through it.
func startPgBouncer(t *testing.T, direct string) string {
	t.Helper()
	bin, why := pgbouncerPath(t)
	if bin == "" {
		t.Skip(why)
	}
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	user := u.User.Username()
	// PgBouncer refuses to run as root: as root, it runs as postgres,
	// which must read the config and write the log (t.TempDir's parent
	// is the test's own).
	dir, err := os.MkdirTemp("", "vibesell-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %s
unix_socket_dir =
auth_type = trust
auth_file = %s
admin_users = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 10
ignore_startup_parameters = extra_float_digits
stats_period = 1
logfile = %s
pidfile = %s
`, u.Hostname(), u.Port(), port, filepath.Join(dir, "userlist.txt"), user, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	for name, text := range map[string]string{"pgbouncer.ini": ini, "userlist.txt": strconv.Quote(user) + ` ""` + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{bin, filepath.Join(dir, "pgbouncer.ini")}
	if os.Getuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	through := *u
	through.Host = net.JoinHostPort("127.0.0.1", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := pgx.Connect(context.Background(), through.String())
		if err == nil {
			conn.Close(context.Background())
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Fatalf("pgbouncer did not answer: %v\n%s\n%s", err, out.String(), log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return through.String()
}

// pgbouncerQueries is how many queries PgBouncer passed to the database
// (SHOW STATS on its admin console, which it updates every stats_period).
func pgbouncerQueries(t *testing.T, through, database string) int64 {
	t.Helper()
	time.Sleep(1500 * time.Millisecond)
	u, _ := url.Parse(through)
	u.Path = "/pgbouncer"
	q := u.Query()
	q.Set("default_query_exec_mode", "simple_protocol")
	u.RawQuery = q.Encode()
	conn, err := pgx.Connect(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), "SHOW STATS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var db string
		var queries int64
		fields := rows.FieldDescriptions()
		dest := make([]any, len(fields))
		for i, f := range fields {
			switch f.Name {
			case "database":
				dest[i] = &db
			case "total_query_count":
				dest[i] = &queries
			default:
				dest[i] = new(any)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		if db == database {
			total += queries
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// Two replicas whose queries go through PgBouncer in transaction mode,
// with the connections that need a session (LISTEN, River, the
// migrations' lock) direct: a session opened on one is served by the
// other, the context and the tools answer, the end of the session
// reaches the other replica within a second (the notifications arrive),
// River runs its jobs, and PgBouncer carried the queries.
func TestJourneyBehindPgBouncer(t *testing.T) {
	t.Parallel()
	direct := storetest.NewURL(t)
	through := startPgBouncer(t, direct)
	pool := connect(t, direct)
	_, token := workspaceWithToken(t, pool, "Pooled")
	u, _ := url.Parse(direct)
	database := strings.TrimPrefix(u.Path, "/")
	before := pgbouncerQueries(t, through, database)

	env := []string{"DATABASE_URL=" + through, "DATABASE_DIRECT_URL=" + direct}
	one, two := startProcess(t, env...), startProcess(t, env...)
	session := initialize(t, one.addr, token)
	for i, call := range []string{contextCall, listTools, contextCall,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"remember","arguments":{}}}`} {
		srv := []*testServer{one, two}[i%2]
		status, body, err := mcpCall(srv.addr, token, session, call)
		if err != nil || status != 200 || strings.Contains(body, `"isError":true`) || strings.Contains(body, `"error":{`) {
			t.Fatalf("call %d through PgBouncer: %d %v %.300s", i, status, err, body)
		}
	}

	del, _ := http.NewRequest(http.MethodDelete, "http://"+one.addr+"/mcp", nil)
	del.Header.Set("Authorization", "Bearer "+token)
	del.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	took := storetest.WaitFor(t, "the other replica to answer the ended session with 404", func() bool {
		status, _, _ := mcpCall(two.addr, token, session, contextCall)
		return status == 404
	})
	t.Logf("the other replica saw the session end after %s", took)

	// River's periodic jobs run once at start, on its direct connection.
	storetest.WaitFor(t, "River to complete a job", func() bool {
		var n int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&n)
		return err == nil && n > 0
	})
	var listeners int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
		database, store.ListenerName).Scan(&listeners); err != nil {
		t.Fatal(err)
	}
	if listeners != 2 {
		t.Errorf("%d listening connections on the database, want one per replica", listeners)
	}
	carried := pgbouncerQueries(t, through, database) - before
	t.Logf("PgBouncer carried %d queries", carried)
	if carried < 20 {
		t.Errorf("PgBouncer carried %d queries: the replicas' queries do not go through it", carried)
	}
	for _, srv := range []*testServer{one, two} {
		if log := srv.stderr.String(); strings.Contains(log, "level=ERROR") || strings.Contains(log, "notifications do not arrive") {
			t.Errorf("a replica logged:\n%s", log)
		}
	}
}
