// Package proofread checks the text people and assistants read for the
// mistakes a reader notices at once and a unit test of one sentence never
// catches: a value leaking into prose as null, undefined, NaN or JSON; a
// doubled full stop; a word written twice in a row; a count whose noun
// disagrees with it; an internal id shown to a person. The end-to-end
// journey and the web app's pages run every text they produce through it,
// so a new sentence with one of these mistakes fails the build wherever it
// was written.
package proofread

import (
	"regexp"
	"strconv"
	"strings"
)

// Reader says who reads a text: the assistant may be given ids to pass
// back; a person never reads one.
type Reader int

const (
	Assistant Reader = iota
	Person
)

// Finding is one mistake: what rule it breaks and the words around it.
type Finding struct {
	Rule    string
	Excerpt string
}

func (f Finding) String() string { return f.Rule + ": …" + f.Excerpt + "…" }

// Text returns the mistakes in text, for its reader. Code (Markdown code
// spans and fenced blocks: arguments to pass back, a lead's own words) and
// web addresses are not prose and are not checked.
func Text(text string, r Reader) []Finding {
	prose := stripCode(text)
	var out []Finding
	add := func(rule string, loc []int) {
		from, to := max(loc[0]-40, 0), min(loc[1]+40, len(prose))
		out = append(out, Finding{Rule: rule, Excerpt: strings.Join(strings.Fields(prose[from:to]), " ")})
	}
	for _, loc := range leakedValue.FindAllStringIndex(prose, -1) {
		add("a value leaked into prose", loc)
	}
	for _, loc := range jsonInProse.FindAllStringIndex(prose, -1) {
		add("JSON in prose", loc)
	}
	for _, loc := range doubledStop.FindAllStringIndex(prose, -1) {
		add("a doubled full stop", loc)
	}
	repeatedWords(prose, add)
	for _, m := range counted.FindAllStringSubmatchIndex(prose, -1) {
		n, noun := prose[m[2]:m[3]], strings.ToLower(prose[m[4]:m[5]])
		next := ""
		if m[6] >= 0 {
			next = strings.ToLower(prose[m[6]:m[7]])
		}
		if msg := agreement(n, noun, next); msg != "" {
			add(msg, m[:2])
		}
	}
	if r == Person {
		for _, re := range internalIDs {
			for _, loc := range re.FindAllStringIndex(prose, -1) {
				add("an internal id shown to a person", loc)
			}
		}
		for _, loc := range identifier.FindAllStringIndex(prose, -1) {
			if !strings.HasPrefix(prose[loc[0]:], "vs_") { // a token, found above
				add("a name from the code shown to a person", loc)
			}
		}
	}
	return out
}

var (
	codeSpan   = regexp.MustCompile("`[^`\\n]*`")
	webAddress = regexp.MustCompile(`\b(?:https?|mailto|ui)://\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)

	leakedValue = regexp.MustCompile(`\b(?:null|undefined|NaN|nil|<nil>)\b|\[object Object\]|%!\w?\(`)
	// A JSON member ("name": value) or an object or array of them.
	jsonInProse = regexp.MustCompile(`\{\s*"\w+"\s*:|"\w+"\s*:\s*[\[{"\d]|\[\s*\{\s*"`)
	// Two full stops with no third: an ellipsis written as three is fine.
	doubledStop = regexp.MustCompile(`(?:^|[^.])\.\s?\.(?:[^.]|$)`)
	words       = regexp.MustCompile(`\pL+`)
	// A count and the word after it (and the one after that, which tells
	// "3 mailbox addresses", a noun used as an adjective, from "3 mailbox").
	counted = regexp.MustCompile(`(?:^|[^\w.,/:-])(\d{1,3}(?:,\d{3})*|\d+)[ \t]+(\pL+)(?:[ \t]+(\pL+))?`)

	// A tool's name or a stored value (get_workspace_context, own_names):
	// words of the code, not of a person.
	identifier = regexp.MustCompile(`\b[a-z]+(?:_[a-z0-9]+)+\b`)

	internalIDs = []*regexp.Regexp{
		regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`),
		regexp.MustCompile(`\b[0-9a-f]{16}\b`),
		regexp.MustCompile(`\bvs_[A-Za-z0-9_-]{8,}`),
	}
)

// stripCode blanks out code, fenced blocks and web addresses, keeping the
// text's length so excerpts stay where they were.
func stripCode(s string) string {
	blank := func(m string) string { return strings.Repeat(" ", len(m)) }
	s = stripFences(s)
	s = codeSpan.ReplaceAllStringFunc(s, blank)
	return webAddress.ReplaceAllStringFunc(s, blank)
}

// stripFences blanks out fenced blocks: from a line opening with three or
// more backticks or tildes to the line that closes it with at least as
// many, or to the end.
func stripFences(s string) string {
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(s) {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" {
			if f := fenceOf(trimmed); f != "" {
				fence = f
				b.WriteString(strings.Repeat(" ", len(line)-1) + "\n")
				continue
			}
			b.WriteString(line)
			continue
		}
		if f := fenceOf(trimmed); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "" {
			fence = ""
		}
		b.WriteString(strings.Repeat(" ", max(len(line)-1, 0)))
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\n")
		} else if len(line) > 0 {
			b.WriteString(" ")
		}
	}
	return b.String()
}

// fenceOf is the run of three or more backticks or tildes a line opens
// with, or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// repeatedWords finds a word written twice in a row ("ready, ready"),
// letters only: "2 2" is not a word, and a repeated number is checked by
// nothing here.
func repeatedWords(prose string, add func(string, []int)) {
	locs := words.FindAllStringIndex(prose, -1)
	for i := 1; i < len(locs); i++ {
		a, b := prose[locs[i-1][0]:locs[i-1][1]], prose[locs[i][0]:locs[i][1]]
		if !strings.EqualFold(a, b) || len(a) < 2 && a != "a" {
			continue
		}
		between := prose[locs[i-1][1]:locs[i][0]]
		if strings.Trim(between, " ,\t") != "" || strings.Contains(between, "\n") {
			continue // a sentence or a line ends between them
		}
		add("a word twice in a row", []int{locs[i-1][0], locs[i][1]})
	}
}

// agreement says what is wrong when a count and its noun disagree: "1
// mailboxes" always; "3 mailbox" when no noun follows that it describes.
func agreement(n, noun, next string) string {
	count, err := strconv.Atoi(strings.ReplaceAll(n, ",", ""))
	if err != nil {
		return ""
	}
	if count == 1 {
		if _, plural := singularOf[noun]; plural {
			return "a plural noun after 1"
		}
		return ""
	}
	if _, singular := pluralOf[noun]; singular && !describes(next) {
		return "a singular noun after " + n
	}
	return ""
}

// describes tells whether a word after a singular noun shows it is used as
// an adjective ("3 mailbox addresses", "2 domain names").
func describes(next string) bool {
	_, isNoun := singularOf[next]
	_, isSingular := pluralOf[next]
	return isNoun || isSingular
}

// The product's nouns, singular and plural: the ones its texts count.
var nouns = [][2]string{
	{"mailbox", "mailboxes"}, {"domain", "domains"}, {"lead", "leads"}, {"email", "emails"},
	{"reply", "replies"}, {"contact", "contacts"}, {"person", "people"}, {"step", "steps"},
	{"day", "days"}, {"campaign", "campaigns"}, {"approval", "approvals"}, {"address", "addresses"},
	{"fact", "facts"}, {"company", "companies"}, {"minute", "minutes"}, {"hour", "hours"},
	{"week", "weeks"}, {"month", "months"}, {"year", "years"}, {"row", "rows"}, {"column", "columns"},
	{"message", "messages"}, {"question", "questions"}, {"filter", "filters"}, {"version", "versions"},
	{"sequence", "sequences"}, {"token", "tokens"}, {"upload", "uploads"}, {"import", "imports"},
	{"ticket", "tickets"}, {"app", "apps"}, {"session", "sessions"}, {"send", "sends"},
	{"bounce", "bounces"}, {"unsubscribe", "unsubscribes"}, {"result", "results"}, {"blocker", "blockers"},
	{"second", "seconds"}, {"suppression", "suppressions"}, {"member", "members"}, {"invoice", "invoices"},
	{"seat", "seats"}, {"plan", "plans"}, {"line", "lines"}, {"sample", "samples"}, {"card", "cards"},
	{"choice", "choices"}, {"answer", "answers"}, {"event", "events"}, {"workspace", "workspaces"},
	{"character", "characters"}, {"time", "times"}, {"zone", "zones"}, {"name", "names"},
}

var singularOf, pluralOf = func() (map[string]string, map[string]string) {
	s, p := map[string]string{}, map[string]string{}
	for _, n := range nouns {
		s[n[1]], p[n[0]] = n[0], n[1]
	}
	return s, p
}()
