package toolkittest

import (
	"regexp"
	"strings"
)

// fenceLine is a CommonMark fence: up to three spaces, then three or more
// backticks or tildes.
var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

// Fenced is one fenced code block of a Markdown text: the line above it
// (where vibesell.FenceOutside labels what it holds) and what it holds.
type Fenced struct{ Label, Text string }

// FencedBlocks reads Markdown as CommonMark does for fenced code blocks,
// and returns each block and the lines outside every block: those a
// reader takes as the document's own words. A block left open counts as
// outside, as a reader would take what follows it.
func FencedBlocks(md string) (blocks []Fenced, outside []string) {
	open, prev := "", ""
	var cur []string
	for _, line := range strings.Split(md, "\n") {
		m := fenceLine.FindStringSubmatch(line)
		switch {
		case open == "" && m != nil:
			open, cur = m[1], nil
			blocks = append(blocks, Fenced{Label: prev})
		case open != "" && m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(line[len(m[0]):]) == "":
			open = ""
			blocks[len(blocks)-1].Text = strings.Join(cur, "\n")
		case open != "":
			cur = append(cur, line)
		default:
			outside = append(outside, line)
		}
		prev = line
	}
	if open != "" {
		outside = append(outside, cur...)
	}
	return blocks, outside
}
