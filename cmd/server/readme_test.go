package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/audit"
	"vibesell/auth"
	"vibesell/mail"
	"vibesell/workspace"
)

// A command line the README shows is a promise: someone copies it. Every
// one of them (in a code block, in the Commands table or in the prose) runs
// here, flags included, through the binary's own run, against a fresh
// database, and must not fail. The test reads the README, so a line added
// later is run too. serve and stdio run until stopped: their lines are
// parsed (the command found, its flags and arguments accepted) but not run.
func TestEveryCommandLineInTheREADMERuns(t *testing.T) {
	t.Parallel()
	lines := readmeCommandLines(t, readREADME(t))
	f := setupFlow(t)
	ctx := context.Background()
	// The README's examples name the workspace the first start creates.
	first, err := workspace.New(workspace.Deps{DB: f.pool, Clock: vibesell.SystemClock{}}).Create(ctx, "My workspace")
	if err != nil {
		t.Fatal(err)
	}
	if first.Slug != "my-workspace" {
		t.Fatalf("the README's workspace got the slug %q", first.Slug)
	}
	// SLUG stands for a workspace with an order, which `sandbox ready`
	// makes ready (with nothing ordered it rightly refuses).
	ws := f.two.Acme
	f.planSetup()
	if _, err := f.svc.sending.PlaceOrder(ctx, ws.ID, nil); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "contacts.csv")
	if err := os.WriteFile(csv, []byte("email,first_name,company\nada@acme.example,Ada,Acme\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := auth.NewTokens(auth.TokensDeps{DB: f.pool})
	emails := 0
	// values gives each placeholder the README uses a value that works.
	values := map[string]func() string{
		"SLUG": func() string { return ws.Slug },
		"NAME": func() string { return "Acme Sales" },
		"ZONE": func() string { return "Europe/Paris" },
		"FILE": func() string { return csv },
		"DATE": func() string { return "2026-12-01" },
		// An export of SLUG's audit chain, as `audit export` writes it.
		"EXPORT": func() string {
			path := filepath.Join(t.TempDir(), "chain.jsonl")
			var out bytes.Buffer
			if _, err := audit.New(audit.Deps{DB: f.pool}).Export(ctx, ws.ID, time.Time{}, &out); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		},
		// Each account line makes a new account: the same email twice
		// in one workspace is refused, rightly.
		"EMAIL": func() string { emails++; return fmt.Sprintf("person%d@example.com", emails) },
		"ID": func() string {
			if _, err := tokens.Create(ctx, ws.ID); err != nil {
				t.Fatal(err)
			}
			list, err := tokens.List(ctx, ws.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, tok := range list {
				if tok.RevokedAt == nil {
					return tok.ID.String()
				}
			}
			t.Fatal("no token to revoke")
			return ""
		},
	}
	// The demo sends, and signs what it sends with the mail secret key.
	getenv := env("DATABASE_URL", f.pool.Config().ConnString(), "LOG_LEVEL", "error", "MAIL_SECRET_KEY", mail.NewRandomSecret())

	ran := map[string]bool{}
	demos := 0
	for _, line := range lines {
		cmd, _, err := findCommand(line.words)
		if err != nil {
			t.Errorf("%s: `server %s` names no command: %v", line.where, strings.Join(line.words, " "), err)
			continue
		}
		if line.mention {
			// `server user create` in a sentence names the command; it
			// is not a line to run.
			t.Logf("%s: server %s (named, not run)", line.where, strings.Join(line.words, " "))
			continue
		}
		for _, words := range expandOptional(line.words) {
			vals := values
			if cmd.name == "demo" {
				// The demo fills only an empty workspace: SLUG stands
				// for a new one each time.
				vals = maps.Clone(values)
				vals["SLUG"] = func() string {
					demos++
					w, err := workspace.Create(ctx, f.pool, fmt.Sprintf("Demo %d", demos))
					if err != nil {
						t.Fatal(err)
					}
					return w.Slug
				}
			}
			args, stdin := fillPlaceholders(t, line.where, words, vals)
			shown := "server " + strings.Join(words, " ")
			t.Logf("%s: %s", line.where, shown)
			if cmd.longRunning {
				if _, err := (console{stderr: &bytes.Buffer{}}).parse(args); err != nil {
					t.Errorf("%s: `%s` does not parse: %v", line.where, shown, err)
				}
				ran[cmd.name] = true
				continue
			}
			var stdout, stderr bytes.Buffer
			err := run(ctx, append([]string{"server"}, args...), getenv, strings.NewReader(stdin), &stdout, &stderr)
			if err != nil {
				t.Errorf("%s: `%s` failed: %v\nstderr:\n%s", line.where, shown, err, stderr.String())
			}
			ran[cmd.name] = true
		}
	}
	for _, cmd := range commands {
		if !ran[cmd.name] {
			t.Errorf("the README shows no line of `server %s` that runs", cmd.name)
		}
	}
}

// Each command's flags are the one source of what it is documented to
// take: its usage line is written from them, the README's Commands table
// shows that very line for it, and any --flag the README or the usage
// names beside a command is one the command defines.
func TestUsageAndREADMEShowTheFlagsEachCommandDefines(t *testing.T) {
	t.Parallel()
	readme := readREADME(t)
	rows := readmeCommandRows(t, readme)
	help := usage()
	for _, cmd := range commands {
		fs := cmd.flags()
		synopsis := cmd.synopsis(fs)
		t.Run(cmd.name, func(t *testing.T) {
			for _, name := range cmd.required {
				if fs.Lookup(name) == nil {
					t.Fatalf("it requires --%s, which it does not define", name)
				}
			}
			fs.VisitAll(func(f *flag.Flag) {
				if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(synopsis) {
					t.Errorf("its usage line %q leaves out --%s", synopsis, f.Name)
				}
				if isBoolFlag(f) {
					return
				}
				if name, _ := flag.UnquoteUsage(f); !strings.Contains(f.Usage, "`") || strings.ToUpper(name) != name {
					t.Errorf("--%s's help %q names no `METAVAR` for the usage line", f.Name, f.Usage)
				}
			})
			checkFlagsDefined(t, "its usage line", synopsis, cmd, fs)
			if !strings.Contains(help, "  "+strings.TrimPrefix(synopsis, "server ")+" ") {
				t.Errorf("the help does not show its usage line %q:\n%s", synopsis, help)
			}
			var found []readmeRow
			for _, row := range rows {
				if slices.Contains(row.spans, synopsis) {
					found = append(found, row)
				}
			}
			if len(found) != 1 {
				t.Fatalf("the README's Commands table has %d rows showing `%s`, want 1", len(found), synopsis)
			}
			checkFlagsDefined(t, found[0].where, found[0].text, cmd, fs)
		})
	}
	t.Run("every row of the Commands table is a command's", func(t *testing.T) {
		for _, row := range rows {
			cmd, _, err := findCommand(row.words)
			if err != nil {
				t.Errorf("%s: `%s` names no command", row.where, row.spans[0])
				continue
			}
			if !slices.Contains(row.spans, cmd.synopsis(cmd.flags())) {
				t.Errorf("%s: the row of `server %s` shows %q, not its usage line %q", row.where, cmd.name, row.spans, cmd.synopsis(cmd.flags()))
			}
		}
	})
	t.Run("every --flag beside a command line in the README is defined", func(t *testing.T) {
		for _, line := range readmeCommandLines(t, readme) {
			cmd, _, err := findCommand(line.words)
			if err != nil {
				continue // TestEveryCommandLineInTheREADMERuns says so
			}
			checkFlagsDefined(t, line.where, strings.Join(line.words, " "), cmd, cmd.flags())
		}
	})
}

// checkFlagsDefined fails for each --flag in text that cmd does not define.
func checkFlagsDefined(t *testing.T, where, text string, cmd command, fs *flag.FlagSet) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?:^|[\s\[(`+"`"+`])--([a-z][a-z0-9.-]*[a-z0-9])`).FindAllStringSubmatch(text, -1) {
		if fs.Lookup(m[1]) == nil {
			t.Errorf("%s names --%s, which `server %s` does not define", where, m[1], cmd.name)
		}
	}
}

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeLine is a command line the README shows.
type readmeLine struct {
	where string   // README.md:LINE
	words []string // its words after the program (server, ./vibesell, go run ./cmd/server)
	// mention is a command's bare name in a sentence (`server user
	// create`), naming it rather than showing a line to run.
	mention bool
}

var (
	fence    = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```\n")
	codeSpan = regexp.MustCompile("`([^`]+)`")
)

// readmeCommandLines finds every command line of the binary the README
// shows: lines of its shell code blocks, the args of its client
// configurations (JSON), and its inline code spans (the Commands table's
// included), in the order they come.
func readmeCommandLines(t *testing.T, readme string) []readmeLine {
	t.Helper()
	lineAt := func(offset int) string { return fmt.Sprintf("README.md:%d", strings.Count(readme[:offset], "\n")+1) }
	var lines []readmeLine
	prose := []byte(readme)
	for _, m := range fence.FindAllStringSubmatchIndex(readme, -1) {
		lang, body, bodyAt := readme[m[2]:m[3]], readme[m[4]:m[5]], m[4]
		for i := m[0]; i < m[1]; i++ {
			if prose[i] != '\n' {
				prose[i] = ' '
			}
		}
		switch lang {
		case "sh", "":
			// A line continued with \ is one command.
			var cont strings.Builder
			contAt := 0
			offset := bodyAt
			for l := range strings.SplitSeq(body, "\n") {
				if cont.Len() == 0 {
					contAt = offset
				}
				offset += len(l) + 1
				if i := strings.Index(l, " #"); i >= 0 {
					l = l[:i]
				}
				if s, ok := strings.CutSuffix(strings.TrimSpace(l), `\`); ok {
					cont.WriteString(s + " ")
					continue
				}
				cont.WriteString(l)
				if words, ok := programWords(strings.Fields(cont.String())); ok {
					lines = append(lines, readmeLine{where: lineAt(contAt), words: words})
				}
				cont.Reset()
			}
		case "json":
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatalf("%s: a JSON block that does not parse: %v", lineAt(bodyAt), err)
			}
			for _, args := range clientArgs(v) {
				lines = append(lines, readmeLine{where: lineAt(bodyAt), words: args})
			}
		}
	}
	for _, m := range codeSpan.FindAllSubmatchIndex(prose, -1) {
		words, ok := programWords(strings.Fields(string(prose[m[2]:m[3]])))
		if !ok {
			continue
		}
		line := readmeLine{where: lineAt(m[0]), words: words}
		if cmd, rest, err := findCommand(words); err == nil && len(rest) == 0 && len(words) > 0 && !canRunBare(cmd) {
			line.mention = true
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		t.Fatal("found no command line in the README")
	}
	return lines
}

// canRunBare says whether cmd runs with no flags and no arguments, so that
// its name alone is a line to run.
func canRunBare(cmd command) bool {
	return len(cmd.required) == 0 && cmd.args == ""
}

// programWords returns the words after the program when fields call the
// binary: server, ./vibesell (the README's build of it) or go run
// ./cmd/server.
func programWords(fields []string) ([]string, bool) {
	for len(fields) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(fields[0]) {
		fields = fields[1:] // the environment it runs in: DATABASE_URL=…
	}
	switch {
	case len(fields) >= 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/server":
		return fields[3:], true
	case len(fields) >= 1 && (fields[0] == "server" || isBinary(fields[0])):
		return fields[1:], true
	}
	return nil, false
}

// isBinary says whether path is the README's build of the binary
// (./vibesell, /path/to/vibesell), not a URL that ends the same.
func isBinary(path string) bool {
	return filepath.Base(path) == "vibesell" && !strings.Contains(path, ":")
}

// clientArgs finds, in a client's configuration, the args of every server
// whose command is the binary.
func clientArgs(v any) [][]string {
	var found [][]string
	switch v := v.(type) {
	case map[string]any:
		if c, ok := v["command"].(string); ok && isBinary(c) {
			var args []string
			list, _ := v["args"].([]any)
			for _, a := range list {
				s, _ := a.(string)
				args = append(args, s)
			}
			found = append(found, args)
		}
		for _, e := range v {
			found = append(found, clientArgs(e)...)
		}
	case []any:
		for _, e := range v {
			found = append(found, clientArgs(e)...)
		}
	}
	return found
}

// readmeRow is a row of the README's Commands table.
type readmeRow struct {
	where string
	spans []string // the code spans of its first cell: the command lines it shows
	words []string // the first one's words after the program
	text  string   // the whole row, what it does included
}

func readmeCommandRows(t *testing.T, readme string) []readmeRow {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Commands\n")
	if !ok {
		t.Fatal("the README has no Commands section")
	}
	at := strings.Count(readme[:len(readme)-len(section)], "\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []readmeRow
	for i, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(l, " | ")
		row := readmeRow{where: fmt.Sprintf("README.md:%d", at+i+1), text: l}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
			row.spans = append(row.spans, m[1])
		}
		row.words, _ = programWords(strings.Fields(row.spans[0]))
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatal("the README's Commands section has no table of commands")
	}
	return rows
}

// expandOptional returns the lines words stands for: without its [optional]
// parts and, when it has some, with all of them.
func expandOptional(words []string) [][]string {
	var without, with []string
	optional, inside := false, false
	for _, w := range words {
		if strings.HasPrefix(w, "[") {
			inside, optional = true, true
		}
		bare := strings.Trim(w, "[]")
		if !inside {
			without = append(without, bare)
		}
		with = append(with, bare)
		if strings.HasSuffix(w, "]") {
			inside = false
		}
	}
	if !optional {
		return [][]string{without}
	}
	return [][]string{without, with}
}

var placeholder = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

// fillPlaceholders gives the README's placeholders (SLUG, EMAIL…) and
// examples (you@example.com, contacts.csv) values that work, and returns
// what standard input gets: a password when the line reads one from it.
func fillPlaceholders(t *testing.T, where string, words []string, values map[string]func() string) ([]string, string) {
	t.Helper()
	args := make([]string, len(words))
	stdin := ""
	for i, w := range words {
		key := w
		switch {
		case strings.Contains(w, "@"):
			key = "EMAIL"
		case strings.HasSuffix(w, ".csv"):
			key = "FILE"
		case w == "--password-stdin":
			stdin = "a password typed into standard input\n"
		}
		if !placeholder.MatchString(key) {
			args[i] = w
			continue
		}
		value, ok := values[key]
		if !ok {
			t.Fatalf("%s: the placeholder %s has no value in the test: add one", where, key)
		}
		args[i] = value()
	}
	return args, stdin
}

// The code and its documents show command lines too: a refusal's way out
// (`server token create --workspace SLUG`), the first start's greeting, a
// page's hint. Each --flag written after a command's name there is one the
// command defines.
func TestCommandLinesInTheCodeUseDefinedFlags(t *testing.T) {
	t.Parallel()
	exts := []string{".go", ".md", ".html", ".tmpl", ".ts", ".json"}
	seen := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" || n == "dist" || n == ".vibesell" {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(exts, filepath.Ext(path)) || strings.HasSuffix(path, "generated.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		for _, m := range commandInText.FindAllStringSubmatchIndex(text, -1) {
			words := strings.Fields(text[m[2]:m[3]])
			cmd, ok := commandNamed(words)
			if !ok {
				continue
			}
			seen++
			where := fmt.Sprintf("%s:%d", strings.TrimPrefix(path, "../../"), strings.Count(text[:m[0]], "\n")+1)
			checkFlagsDefined(t, where, text[m[2]:m[3]], cmd, cmd.flags())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("found no command line in the code: the search is broken")
	}
}

// commandInText finds "server" and what follows it on its line, up to the
// end of the quote, code span or sentence part it is in.
var commandInText = regexp.MustCompile("\\bserver ([^\n`\"';)]*)")
