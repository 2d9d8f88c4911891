package audience

import (
	"strings"
	"testing"

	"vibesell"
)

// readUpload on what the web tests do not send: text whose first
// 4 KB end inside a character is still text, quoting follows
// encoding/csv (a quoted comma or line break is not a column or a line),
// and a bare quote does not run a line to the end of the file.
func TestCheckUploadShape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, content string
		want          string // "" for accepted; else a part of the refusal
	}{
		{"a NUL after 4 KB cut inside a character", strings.Repeat("a", 4095) + "é,x\n\x00", "Line 2 of the file holds a NUL character"},
		{"quoted commas are not columns", "email,notes\nana@alpha.test,\"" + strings.Repeat("a,", 300) + "\"\n", ""},
		{"quoted line breaks belong to the line", "email,notes\nana@alpha.test,\"" + strings.Repeat("a\n", 100) + "\"\nbo@beta.test," + strings.Repeat("x,", 200) + "\n", "Line 103 of the file has 202 columns"},
		{"an escaped quote stays inside", "email,notes\nana@alpha.test,\"say \"\"hi\"\", " + strings.Repeat("a,", 300) + "\"\n", ""},
		{"a bare quote ends with its line", "email,notes\nana@alpha.test,5\" tall\n" + strings.Repeat("bo@beta.test,x\n", 10_000), ""},
		{"a UTF-8 mark and CRLF", "\ufeffemail,name\r\nana@alpha.test,Ana\r\n", ""},
		{"a form feed", "email\n\fana@alpha.test\n", "Line 2 of the file holds a control character (U+000C)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readUpload([]byte(c.content))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), c.want)):
				t.Errorf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
}
