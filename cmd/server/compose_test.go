package main

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is what the test reads of compose.yaml (anchors and merge
// keys resolved by the YAML decoder, as Compose resolves them).
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Command     []string          `yaml:"command"`
		NetworkMode string            `yaml:"network_mode"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
	} `yaml:"services"`
}

// pendingEnv are variables compose.yaml sets that this branch's server
// does not read yet: the shared sandbox mail server (`server sandbox
// serve` and MAIL_SANDBOX_CERT) comes with the three-replica work of the
// same issue. Once both are in, the server reads it and the entry can go.
var pendingEnv = map[string]bool{"MAIL_SANDBOX_CERT": true}

// serverEnv is every variable the server reads: each getenv("NAME") of
// this package's code.
func serverEnv(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`getenv\("([A-Z0-9_]+)"\)`)
	names := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
	}
	if !names["DATABASE_URL"] || !names["DATABASE_DIRECT_URL"] {
		t.Fatalf("found no getenv of DATABASE_URL and DATABASE_DIRECT_URL in %v: the test no longer reads the config", files)
	}
	return names
}

// compose.yaml runs the deployment of issue 31: PostgreSQL, PgBouncer in
// transaction mode, three replicas that reach PostgreSQL through it for
// queries and directly for sessions, the sandbox mail server they share,
// and Caddy in front of them, round robin, no stickiness. Docker is not
// on the test machines: the test checks the file's structure, that every
// variable it gives the server is one the server reads, and that the
// Caddyfile, PgBouncer's config and the replicas agree on where each
// listens.
func TestComposeRunsTheDeployment(t *testing.T) {
	raw, err := os.ReadFile("../../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "pgbouncer", "mail", "caddy"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("compose.yaml has no %s service", name)
		}
	}
	known := serverEnv(t)
	pgbouncerPort := iniValue(t, "../../deploy/pgbouncer.ini", "listen_port")
	if mode := iniValue(t, "../../deploy/pgbouncer.ini", "pool_mode"); mode != "transaction" {
		t.Errorf("PgBouncer's pool_mode is %q, want transaction", mode)
	}

	var replicas []string // the replicas' addresses, as Caddy reaches them
	secrets := map[string]bool{}
	for name, s := range c.Services {
		if s.Build == nil {
			continue // not the server's image
		}
		for k := range s.Environment {
			if !known[k] && !pendingEnv[k] {
				t.Errorf("%s sets %s, which the server does not read (config.go, mail.go)", name, k)
			}
		}
		env := s.Environment
		secrets[env["MAIL_SECRET_KEY"]] = true
		for _, k := range []string{"MAIL_SANDBOX_SMTP_ADDR", "MAIL_SANDBOX_IMAP_ADDR", "MAIL_SANDBOX_CERT", "MAIL_SECRET_KEY"} {
			if env[k] == "" {
				t.Errorf("%s does not set %s: the replicas and the sandbox must agree on it", name, k)
			}
		}
		pooled, direct := dbHost(t, env["DATABASE_URL"]), dbHost(t, env["DATABASE_DIRECT_URL"])
		if pooled != net.JoinHostPort("pgbouncer", pgbouncerPort) || direct != "postgres:5432" {
			t.Errorf("%s: queries go to %s and sessions to %s, want pgbouncer:%s and postgres:5432", name, pooled, direct, pgbouncerPort)
		}
		if slices.Equal(s.Command, []string{"sandbox", "serve"}) {
			continue // the shared sandbox mail server
		}
		if s.NetworkMode != "service:mail" {
			t.Errorf("%s's network_mode is %q: a replica shares the mail service's network (the sandbox listens on loopback)", name, s.NetworkMode)
		}
		_, port, err := net.SplitHostPort(env["LISTEN_ADDR"])
		if err != nil {
			t.Errorf("%s: LISTEN_ADDR %q: %v", name, env["LISTEN_ADDR"], err)
			continue
		}
		replicas = append(replicas, "mail:"+port)
	}
	if len(secrets) != 1 {
		t.Errorf("the server's services have %d different MAIL_SECRET_KEY values, want one (the sandbox's mailboxes' passwords come from it)", len(secrets))
	}
	if len(replicas) != 3 {
		t.Errorf("compose.yaml runs %d replicas (%v), want 3", len(replicas), replicas)
	}
	slices.Sort(replicas)
	if len(slices.Compact(slices.Clone(replicas))) != len(replicas) {
		t.Errorf("two replicas listen on one port: %v", replicas)
	}

	caddy, err := os.ReadFile("../../deploy/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	var upstreams []string
	var policy string
	for _, line := range strings.Split(string(caddy), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch fields[0] {
		case "reverse_proxy":
			for _, f := range fields[1:] {
				if f != "{" {
					upstreams = append(upstreams, f)
				}
			}
		case "lb_policy":
			policy = strings.Join(fields[1:], " ")
		}
	}
	slices.Sort(upstreams)
	if !slices.Equal(upstreams, replicas) {
		t.Errorf("Caddy proxies to %v, the replicas listen at %v", upstreams, replicas)
	}
	if policy != "round_robin" {
		t.Errorf("Caddy's lb_policy is %q, want round_robin (no stickiness: any replica serves any session)", policy)
	}
	caddySvc := c.Services["caddy"]
	if !slices.ContainsFunc(caddySvc.Volumes, func(v string) bool { return strings.HasPrefix(v, "./deploy/Caddyfile:") }) {
		t.Errorf("the caddy service does not mount deploy/Caddyfile: %v", caddySvc.Volumes)
	}
	if !slices.ContainsFunc(caddySvc.Ports, func(p string) bool { return strings.HasSuffix(p, ":8080") }) {
		t.Errorf("the caddy service publishes %v, want 8080 (PUBLIC_URL)", caddySvc.Ports)
	}
}

func dbHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return u.Host
}

// iniValue is key's value in the ini file at path.
func iniValue(t *testing.T, path, key string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s sets no %s", path, key)
	return ""
}
