package proofread

import (
	"regexp"
	"strings"
)

// Result returns what a tool result's text lacks by the result protocol,
// beyond its prose: a result ends with what to do next (a refusal is a
// way out, a result the next step), and every link in it says that only
// the person opens it, so the assistant neither fetches it nor says it
// was opened.
func Result(text string, isError bool) []Finding {
	var out []Finding
	paragraphs := strings.Split(strings.TrimSpace(text), "\n\n")
	last := paragraphs[len(paragraphs)-1]
	if !isError && !nextStep.MatchString(last) {
		out = append(out, Finding{Rule: "a result that does not end with what to do next", Excerpt: excerptOf(last)})
	}
	for _, p := range paragraphs {
		if link.MatchString(p) && !onlyThePerson.MatchString(p) {
			out = append(out, Finding{Rule: "a link without saying only the person opens it", Excerpt: excerptOf(p)})
		}
	}
	return out
}

var (
	// What to do next names a tool to call, tells the assistant what to
	// put to the person, or says "Next".
	nextStep = regexp.MustCompile(`(?i)\bnext\b|\bcall\s+` + "`?" + `[a-z]+_[a-z_]+|\b(?:ask|tell|give|show|put|offer)\b[^.]{0,60}\bthe person\b|\bthe person (?:can|may|decides|approves|picks|opens)\b`)
	link     = regexp.MustCompile(`https?://`)
	// Only the person opens a link: "only they open it", "Only the
	// person opens it", "only a signed-in person can approve it, at …".
	onlyThePerson = regexp.MustCompile(`(?i)\bonly (?:the person|they|a signed-in person|the workspace's people)\b`)
)

func excerptOf(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	if len(p) > 160 {
		return p[len(p)-160:]
	}
	return p
}
