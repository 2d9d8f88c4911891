package proofread

import (
	"strings"

	"golang.org/x/net/html"
)

// Page returns the mistakes in what a person reads on an HTML page: its
// text, the title and the labels a screen reader says (alt, aria-label,
// placeholder), not its markup, scripts or styles.
func Page(document string) []Finding {
	return Text(VisibleText(document), Person)
}

// VisibleText is the text of an HTML page as a person reads it: one line
// per block of text, without scripts, styles or code.
func VisibleText(document string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(document))
	skip := 0 // inside script, style, pre or code
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "script", "style", "pre", "code", "textarea":
				skip++
			}
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				switch string(key) {
				case "alt", "aria-label", "placeholder", "title":
					b.WriteString("\n")
					b.Write(val)
					b.WriteString("\n")
				}
			}
			b.WriteString("\n")
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "pre", "code", "textarea":
				skip = max(skip-1, 0)
			case "a", "b", "strong", "em", "i", "span", "abbr", "time", "small", "label":
				continue // inline: the sentence goes on
			}
			b.WriteString("\n")
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		}
	}
}
