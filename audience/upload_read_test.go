package audience

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"vibesell"
)

// utf16Bytes is s in UTF-16 of either byte order, without a mark.
func utf16Bytes(s string, bigEndian bool) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b.WriteByte(byte(u >> 8))
			b.WriteByte(byte(u))
		} else {
			b.WriteByte(byte(u))
			b.WriteByte(byte(u >> 8))
		}
	}
	return b.String()
}

// A file is read as the spreadsheet that wrote it meant: its encoding
// from its mark, its NULs or its bytes, its separator from how it splits
// the header and the rows after it; the text kept is UTF-8.
func TestReadUploadDetects(t *testing.T) {
	t.Parallel()
	const leads = "email;name;company\npriya@ledgerbase.example.com;Priya;Ledgerbase\njose@alpha.test;José;Alpha\n"
	for _, c := range []struct {
		name, content string
		want          Reading
		wantText      string
	}{
		{"UTF-8", "email,name\nana@alpha.test,José\n", Reading{Encoding: EncodingUTF8, Separator: ','}, "email,name\nana@alpha.test,José\n"},
		{"UTF-8 with its mark", "\ufeffemail,name\r\nana@alpha.test,José\r\n", Reading{Encoding: EncodingUTF8BOM, Separator: ','}, "email,name\r\nana@alpha.test,José\r\n"},
		{"Windows-1252", "email,name\nana@alpha.test,Jos\xe9 \x80\n", Reading{Encoding: EncodingWindows1252, Separator: ','}, "email,name\nana@alpha.test,José €\n"},
		{"UTF-16 LE with its mark", "\xff\xfe" + utf16Bytes(leads, false), Reading{Encoding: EncodingUTF16LE, Separator: ';'}, leads},
		{"UTF-16 BE with its mark", "\xfe\xff" + utf16Bytes(leads, true), Reading{Encoding: EncodingUTF16BE, Separator: ';'}, leads},
		{"UTF-16 LE without a mark", utf16Bytes(leads, false), Reading{Encoding: EncodingUTF16LE, Separator: ';'}, leads},
		{"UTF-16 BE without a mark", utf16Bytes(leads, true), Reading{Encoding: EncodingUTF16BE, Separator: ';'}, leads},
		{"UTF-8 cut inside its last character", "email\nana@alpha.test,Jos\xc3", Reading{Encoding: EncodingUTF8, Separator: ','}, "email\nana@alpha.test,Jos\xc3"},
		{"semicolons", leads, Reading{Encoding: EncodingUTF8, Separator: ';'}, leads},
		{"tabs", "email\tname\tnotes\nana@alpha.test\tAna\tlikes a, b; c\n", Reading{Encoding: EncodingUTF8, Separator: '\t'}, "email\tname\tnotes\nana@alpha.test\tAna\tlikes a, b; c\n"},
		{"commas beat semicolons inside the cells", "email,notes\nana@alpha.test,a;b;c;d\nbo@beta.test,x\n", Reading{Encoding: EncodingUTF8, Separator: ','}, "email,notes\nana@alpha.test,a;b;c;d\nbo@beta.test,x\n"},
		{"a quoted semicolon is not a separator", "\"a;b\",email,name\nx,ana@alpha.test,Ana\n", Reading{Encoding: EncodingUTF8, Separator: ','}, "\"a;b\",email,name\nx,ana@alpha.test,Ana\n"},
		{"one column", "email\nana@alpha.test\n", Reading{Encoding: EncodingUTF8, Separator: ','}, "email\nana@alpha.test\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, r, err := readUpload([]byte(c.content))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if d := cmp.Diff(c.want, r); d != "" {
				t.Errorf("reading (-want +got):\n%s", d)
			}
			if string(text) != c.wantText {
				t.Errorf("text %q, want %q", text, c.wantText)
			}
		})
	}
}

// workbook is an .xlsx file with the given sheets, each a list of rows.
func workbook(t *testing.T, sheets []string, rows map[string][][]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, row := range rows[name] {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A workbook is read from its first sheet, or the one chosen, as CSV
// text: numbers as Excel shows them, a row's missing cells filled, a line
// break inside a cell a space (a row is a line), an empty row kept as
// an empty line.
func TestReadUploadWorkbook(t *testing.T) {
	t.Parallel()
	xlsx := workbook(t, []string{"Leads", "Other"}, map[string][][]any{
		"Leads": {{"Email", "Name", "Company", "Employees"}, {"jose@alpha.test", "José", "Alpha, Inc.", 120}, {"bo@beta.test"}, {}, {"cy@gamma.test", "Cy", "Line\nbreak"}},
		"Other": {{"email"}, {"zed@zeta.test"}},
	})
	text, r, err := readUpload(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Reading{Encoding: EncodingXLSX, Separator: ',', Sheets: []string{"Leads", "Other"}}, r); d != "" {
		t.Errorf("reading (-want +got):\n%s", d)
	}
	want := "Email,Name,Company,Employees\njose@alpha.test,José,\"Alpha, Inc.\",120\nbo@beta.test,,,\n\ncy@gamma.test,Cy,Line break,\n"
	if string(text) != want {
		t.Errorf("text:\n%q\nwant\n%q", text, want)
	}
	if said := r.Said(); said != "Read from the Excel workbook's sheet \u201cLeads\u201d." {
		t.Errorf("said %q", said)
	}
	other, _, err := sheetText(xlsx, 1)
	if err != nil || string(other) != "email\nzed@zeta.test\n" {
		t.Errorf("the second sheet: %q, %v", other, err)
	}
	if _, _, err := sheetText(xlsx, 2); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("a third sheet: %v, want a refusal", err)
	}
	wide := make([]any, MaxUploadColumns+1)
	for i := range wide {
		wide[i] = "c"
	}
	_, _, err = readUpload(workbook(t, []string{"Wide"}, map[string][][]any{"Wide": {{"email"}, wide}}))
	if want := "Row 2 of the sheet \u201cWide\u201d has 201 columns; a file may have 200 at most."; !strings.Contains(vibesell.ErrorMessage(err), want) {
		t.Errorf("a row of 201 cells: %v, want %q", err, want)
	}
}

// Said names the encoding and the separator as a person reads them.
func TestReadingSaid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    Reading
		want string
	}{
		{Reading{Encoding: EncodingWindows1252, Separator: ';'}, "Read as Western European (Windows-1252), columns separated by semicolons."},
		{Reading{Encoding: EncodingUTF16LE, Separator: '\t'}, "Read as Unicode (UTF-16, little-endian), columns separated by tabs."},
		{Reading{Encoding: EncodingUTF8, Separator: ','}, "Read as UTF-8, columns separated by commas."},
	} {
		if got := c.r.Said(); got != c.want {
			t.Errorf("%+v said %q, want %q", c.r, got, c.want)
		}
	}
}
