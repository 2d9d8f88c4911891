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
// per block of text, without scripts, styles or code, and without what an
// element marked data-verbatim holds: words someone else wrote (a file's
// cells, a lead's reply), shown as they are, which are not ours to correct.
func VisibleText(document string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(document))
	skip := 0     // inside script, style, pre or code
	verbatim := 0 // elements open inside a data-verbatim one, itself included
	for {
		tt := z.Next()
		if verbatim > 0 {
			switch tt {
			case html.ErrorToken:
				return b.String()
			case html.StartTagToken:
				if name, _ := z.TagName(); !voidElements[string(name)] {
					verbatim++
				}
			case html.EndTagToken:
				verbatim--
			}
			continue
		}
		switch tt {
		case html.ErrorToken:
			return b.String()
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "script", "style", "pre", "code", "textarea":
				skip++
			}
			var labels []byte
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				switch string(key) {
				case "alt", "aria-label", "placeholder", "title":
					labels = append(append(append(labels, '\n'), val...), '\n')
				case "data-verbatim":
					if tt == html.StartTagToken && !voidElements[string(name)] {
						verbatim = 1
					}
				}
			}
			if verbatim == 0 {
				b.Write(labels)
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

// voidElements have no end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}
