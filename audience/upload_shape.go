package audience

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"vibesell"
)

// The bounds of an uploaded file, besides [MaxUploadBytes]. Whatever a
// person sends, what is kept of it and what its page shows stay small: a
// header of 1,000,000 columns once made a page of 552 MB.
const (
	// MaxUploadColumns bounds the columns of any line of a file: a lead
	// has 8 fields, and an export of a CRM rarely has 100 columns.
	MaxUploadColumns = 200
	// MaxHeaderCellChars bounds a column's name.
	MaxHeaderCellChars = 100
	// MaxUploadLineBytes bounds one line (one row, quoted line breaks
	// included).
	MaxUploadLineBytes = 64 << 10
)

// signatures are the first bytes of the files people most often upload
// by mistake, with what such a file is.
var signatures = []struct {
	prefix string
	what   string
}{
	{"\x89PNG\r\n\x1a\n", "a PNG image"},
	{"\xff\xd8\xff", "a JPEG image"},
	{"GIF87a", "a GIF image"},
	{"GIF89a", "a GIF image"},
	{"%PDF-", "a PDF document"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an older Excel workbook (.xls), a workbook protected by a password, or another Office document"},
	{"\x1f\x8b", "a gzip-compressed file"},
	{"\x00\x00\xfe\xff", "UTF-32 text"},
	{"\xff\xfe\x00\x00", "UTF-32 text"},
}

// looksLike names what a file that is not text seems to be, from its
// first bytes (and a zip file's parts); "" when it may be text.
func looksLike(content []byte) string {
	for _, s := range signatures {
		if bytes.HasPrefix(content, []byte(s.prefix)) {
			return s.what
		}
	}
	if bytes.HasPrefix(content, []byte("PK\x03\x04")) {
		return zipContents(content)
	}
	return ""
}

// checkLines refuses a line with more than [MaxUploadColumns] fields
// (separated by sep) or longer than [MaxUploadLineBytes]. It follows
// CSV's quoting as encoding/csv does: a quote opens a field only at its
// start, "" inside it is a quote, and line breaks inside it belong to
// the line.
func checkLines(content []byte, sep byte) error {
	line, start, startLine := 1, 0, 1 // the line of the file, where its row starts
	fields, fieldStart, quoted := 1, true, false
	for i := 0; i < len(content); i++ {
		c := content[i]
		switch {
		case quoted:
			if c == '"' {
				if i+1 < len(content) && content[i+1] == '"' {
					i++
				} else {
					quoted = false
				}
			} else if c == '\n' {
				line++
			}
			continue
		case c == '"' && fieldStart:
			quoted = true
		case c == sep:
			fields++
			fieldStart = true
			if fields > MaxUploadColumns {
				return tooManyColumns(content, sep, start, startLine)
			}
			continue
		case c == '\n':
			if err := checkLineLength(i-start, startLine, false); err != nil {
				return err
			}
			line++
			start, startLine, fields = i+1, line, 1
		}
		fieldStart = c == '\n'
		if i-start > MaxUploadLineBytes {
			return checkLineLength(i-start, startLine, quoted)
		}
	}
	return checkLineLength(len(content)-start, startLine, quoted)
}

func checkLineLength(n, line int, quoted bool) error {
	if n <= MaxUploadLineBytes {
		return nil
	}
	why := ""
	if quoted {
		why = " (a quote opened on it may not be closed)"
	}
	return vibesell.Errorf(vibesell.EINVALID, "Line %s of the file is longer than %d KB%s; a line may be %d KB at most. Shorten it, or remove the columns that are not about the lead, and upload the file again.",
		vibesell.Count(line), MaxUploadLineBytes>>10, why, MaxUploadLineBytes>>10)
}

// tooManyColumns words the refusal of a line of more than
// [MaxUploadColumns] columns, with how many it has.
func tooManyColumns(content []byte, sep byte, start, line int) error {
	n := 1
	quoted := false
	for _, c := range content[start:] {
		if c == '"' {
			quoted = !quoted // "" toggles twice: enough to count commas
		}
		if c == '\n' && !quoted {
			break
		}
		if c == sep && !quoted {
			n++
		}
	}
	what := fmt.Sprintf("Line %s of the file has", vibesell.Count(line))
	if line == 1 {
		what = "The file's header has"
	}
	return vibesell.Errorf(vibesell.EINVALID, "%s %s columns; a file may have %d at most. Keep the columns about the leads (email, names, company…) and upload it again.",
		what, vibesell.Count(n), MaxUploadColumns)
}

// checkHeader refuses a column name longer than [MaxHeaderCellChars].
func checkHeader(header []string) error {
	for i, h := range header {
		if n := utf8.RuneCountInString(h); n > MaxHeaderCellChars {
			return vibesell.Errorf(vibesell.EINVALID, "Column %d of the header is named with %s characters; a column's name may have %d at most. Shorten it and upload the file again.",
				i+1, vibesell.Count(n), MaxHeaderCellChars)
		}
	}
	return nil
}

// lineAt is the line of content that byte i is on, from 1.
func lineAt(content []byte, i int) int {
	return bytes.Count(content[:i], []byte{'\n'}) + 1
}

// invalidUTF8 is where content stops being UTF-8.
func invalidUTF8(content []byte) int {
	for i := 0; i < len(content); {
		r, size := utf8.DecodeRune(content[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(content)
}
