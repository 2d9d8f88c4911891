package audience_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"vibesell"
	"vibesell/audience"
)

// `server directory import` reads what a spreadsheet writes as an upload
// does: Windows-1252 with semicolons, UTF-16 with tabs, an .xlsx
// workbook's first sheet, each loading José as written; a PNG is
// refused naming it, and a file UTF-8 in its first MB and Windows-1252
// later stops at that line with the directory as it was.
func TestDirectoryImportReadsSpreadsheetFiles(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	const rows = "email,first_name,company,country\njose@alpha.test,José,Crème & Co,FR\nbo@beta.test,Bo,Beta,DE\n"
	cp1252, err := charmap.Windows1252.NewEncoder().String(strings.ReplaceAll(rows, ",", ";"))
	if err != nil {
		t.Fatal(err)
	}
	var utf16LE strings.Builder
	utf16LE.WriteString("\xff\xfe")
	for _, u := range utf16.Encode([]rune(strings.ReplaceAll(rows, ",", "\t"))) {
		utf16LE.WriteByte(byte(u))
		utf16LE.WriteByte(byte(u >> 8))
	}
	xlsx := excelize.NewFile()
	for i, line := range strings.Split(strings.TrimSpace(rows), "\n") {
		cells := []any{}
		for _, c := range strings.Split(line, ",") {
			cells = append(cells, c)
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := xlsx.SetSheetRow("Sheet1", cell, &cells); err != nil {
			t.Fatal(err)
		}
	}
	var book bytes.Buffer
	if err := xlsx.Write(&book); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ name, content, read string }{
		{"Windows-1252 with semicolons", cp1252, "Read as Western European (Windows-1252), columns separated by semicolons."},
		{"UTF-16 with tabs", utf16LE.String(), "Read as Unicode (UTF-16, little-endian), columns separated by tabs."},
		{"an .xlsx workbook", book.String(), "Read from the Excel workbook's sheet \u201cSheet1\u201d."},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := audience.ImportDirectory(t.Context(), b.pool, strings.NewReader(c.content), "contacts", nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Read != c.read || rep.Rows != 2 || rep.Rejected != 0 {
				t.Errorf("read %q, %d rows, %d rejected; want %q, 2 and 0", rep.Read, rep.Rows, rep.Rejected, c.read)
			}
			var name, company, country string
			if err := b.pool.QueryRow(t.Context(), `SELECT first_name, company, country FROM directory_contacts WHERE email = 'jose@alpha.test'`).Scan(&name, &company, &country); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"José", "Crème & Co", "FR"}, []string{name, company, country}); d != "" {
				t.Errorf("José as loaded (-want +got):\n%s", d)
			}
		})
	}

	for _, c := range []struct{ name, content, want string }{
		{"a PNG image", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "The file looks like a PNG image, not a CSV file or an Excel workbook (.xlsx)."},
		{"Windows-1252 after the first MB", "email,first_name\n" + strings.Repeat("someone@alpha.test,Someone\n", 40_000) + "late@alpha.test,Jos\xe9\n",
			"Line 40,002 is not UTF-8 text (it has the byte 0xE9), though the file's first MB is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := audience.ImportDirectory(t.Context(), b.pool, strings.NewReader(c.content), "contacts", nil)
			if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), c.want) {
				t.Errorf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
	var n int
	if err := b.pool.QueryRow(t.Context(), `SELECT count(*) FROM directory_contacts WHERE email IN ('someone@alpha.test', 'late@alpha.test')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d contacts of the stopped load kept (%v)", n, err)
	}
}
