package tools

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hintsDoc is the file that says, for reviewers of the directories, why
// each tool's hints are true.
const hintsDoc = "../docs/tool-hints.md"

var (
	hintHeading = regexp.MustCompile(`^## ([a-z_]+)$`)
	hintLine    = regexp.MustCompile(`^- (readOnlyHint|destructiveHint|idempotentHint|openWorldHint) (true|false): (.+)$`)
)

// readHintReasons reads the file: for each tool, each hint's declared
// value and the sentence that says why.
func readHintReasons(t *testing.T) map[string]map[string]struct {
	value  bool
	reason string
} {
	t.Helper()
	f, err := os.Open(hintsDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := map[string]map[string]struct {
		value  bool
		reason string
	}{}
	tool := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := hintHeading.FindStringSubmatch(line); m != nil {
			tool = m[1]
			if _, dup := doc[tool]; dup {
				t.Errorf("%s:%d: %s has two sections", hintsDoc, n, tool)
			}
			doc[tool] = map[string]struct {
				value  bool
				reason string
			}{}
			continue
		}
		if tool == "" || !strings.HasPrefix(line, "- ") {
			continue
		}
		m := hintLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s:%d: %q is not `- <hint> <true|false>: <sentence>`", hintsDoc, n, line)
			continue
		}
		if _, dup := doc[tool][m[1]]; dup {
			t.Errorf("%s:%d: %s's %s is given twice", hintsDoc, n, tool, m[1])
		}
		v, _ := strconv.ParseBool(m[2])
		doc[tool][m[1]] = struct {
			value  bool
			reason string
		}{v, m[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Every tool's four hints have a reason in docs/tool-hints.md, with the
// value the tool declares: a tool added, a hint changed or a reason left
// out fails here until the file says why.
func TestEveryHintHasItsReason(t *testing.T) {
	doc := readHintReasons(t)
	var names []string
	for _, tool := range Registry(Deps{}) {
		names = append(names, tool.Name())
		a := tool.Definition().Annotations
		declared := map[string]*bool{
			"readOnlyHint": a.ReadOnlyHint, "destructiveHint": a.DestructiveHint,
			"idempotentHint": a.IdempotentHint, "openWorldHint": a.OpenWorldHint,
		}
		reasons, ok := doc[tool.Name()]
		if !ok {
			t.Errorf("%s has no section in %s", tool.Name(), hintsDoc)
			continue
		}
		for hint, v := range declared {
			r, ok := reasons[hint]
			switch {
			case v == nil:
				t.Errorf("%s declares no %s", tool.Name(), hint)
			case !ok:
				t.Errorf("%s: %s gives no reason for %s", hintsDoc, tool.Name(), hint)
			case r.value != *v:
				t.Errorf("%s: %s's %s is %v there, the tool declares %v", hintsDoc, tool.Name(), hint, r.value, *v)
			case !strings.HasSuffix(r.reason, ".") || strings.Count(strings.TrimSuffix(r.reason, "."), ". ") > 0:
				t.Errorf("%s: %s's %s: the reason is not one sentence: %q", hintsDoc, tool.Name(), hint, r.reason)
			}
		}
	}
	for tool := range doc {
		if !slices.Contains(names, tool) {
			t.Errorf("%s gives reasons for %s, which is no tool", hintsDoc, tool)
		}
	}
}
