package audience

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"vibesell"
)

// The encodings a file of leads is read in: what spreadsheets write.
// Stored with an upload (lead_uploads.encoding).
const (
	EncodingUTF8        = "utf-8"
	EncodingUTF8BOM     = "utf-8-bom" // UTF-8 after a byte-order mark (Excel's "CSV UTF-8")
	EncodingUTF16LE     = "utf-16le"  // Excel's "Unicode text" on Windows
	EncodingUTF16BE     = "utf-16be"
	EncodingWindows1252 = "windows-1252" // Excel's plain "CSV" on most desktops
	EncodingXLSX        = "xlsx"         // an Excel workbook, read from one of its sheets
)

// Reading is how a file was read: what was detected when it was
// uploaded, kept with it so that its preview, its check and its import
// read the same text the same way.
type Reading struct {
	Encoding  string   // one of the Encoding constants
	Separator rune     // ',', ';' or '\t'
	Sheets    []string // a workbook's sheets, in its order (at most maxSheets)
	Sheet     int      // the sheet read, from 0
}

// Said says how the file was read, for the person: which encoding (or
// sheet) and which separator.
func (r Reading) Said() string {
	var how string
	switch r.Encoding {
	case EncodingUTF8:
		how = "Read as UTF-8"
	case EncodingUTF8BOM:
		how = "Read as UTF-8 (with a byte-order mark)"
	case EncodingUTF16LE:
		how = "Read as Unicode (UTF-16, little-endian)"
	case EncodingUTF16BE:
		how = "Read as Unicode (UTF-16, big-endian)"
	case EncodingWindows1252:
		how = "Read as Western European (Windows-1252)"
	case EncodingXLSX:
		if r.Sheet < len(r.Sheets) {
			return fmt.Sprintf("Read from the Excel workbook's sheet \u201c%s\u201d.", r.Sheets[r.Sheet])
		}
		return "Read from an Excel workbook."
	}
	return how + ", columns separated by " + separatorNames[r.Separator] + "."
}

var separatorNames = map[rune]string{',': "commas", ';': "semicolons", '\t': "tabs"}

// separators are the ones detected, the first winning a tie.
var separators = []rune{',', ';', '\t'}

// The bounds of reading a workbook: its parts unpacked, and the sheets
// listed. Parts bigger than maxWorkbookPartBytes go to a temporary file
// rather than memory (excelize's UnzipXMLSizeLimit).
const (
	maxWorkbookUnpacked  = 4 * MaxUploadBytes
	maxWorkbookPartBytes = 4 << 20
	maxSheets            = 50
)

// What is answered for a file that is not read.
const saveAsCSV = "Save the leads as CSV or as an Excel workbook (.xlsx), with Save as, Export or Download in Excel, Numbers or Google Sheets, then upload that file."

// readUpload turns an uploaded file into bounded UTF-8 text, with how
// it was read: an .xlsx workbook from its first sheet, any other file as
// text in the encoding and with the separator detected. Whatever the
// format, the text is then held to the same bounds ([checkText]).
// Refusals: EINVALID, naming what the file seems to be, or what is out
// of bounds and where.
func readUpload(content []byte) ([]byte, Reading, error) {
	what := looksLike(content)
	if what == "an Excel workbook (.xlsx)" {
		text, sheets, err := sheetText(content, 0)
		if err != nil {
			return nil, Reading{}, err
		}
		r := Reading{Encoding: EncodingXLSX, Separator: ',', Sheets: sheets}
		return text, r, checkText(text, r.Separator)
	}
	if what != "" {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file looks like %s, which cannot be read as a list of leads. %s", what, saveAsCSV)
	}
	enc, skip := detectEncoding(content)
	if enc != EncodingUTF16LE && enc != EncodingUTF16BE && isBinary(content) {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file does not look like text: it holds bytes no text has, as an image or another binary file does. %s", saveAsCSV)
	}
	text, err := decodeText(content[skip:], enc)
	if err != nil {
		return nil, Reading{}, err
	}
	r := Reading{Encoding: enc, Separator: detectSeparator(text)}
	return text, r, checkText(text, r.Separator)
}

// detectEncoding tells the encoding of a text file, and how many bytes
// of it are its byte-order mark: a mark says; UTF-16 without one has a
// NUL beside every ASCII character; UTF-8 is valid as such (a character
// cut at the end aside); anything else is taken for Windows-1252, the
// encoding of a spreadsheet's plain CSV on most desktops (a superset of
// Latin-1's letters).
func detectEncoding(content []byte) (string, int) {
	switch {
	case bytes.HasPrefix(content, []byte("\xef\xbb\xbf")):
		return EncodingUTF8BOM, 3
	case bytes.HasPrefix(content, []byte("\xff\xfe")):
		return EncodingUTF16LE, 2
	case bytes.HasPrefix(content, []byte("\xfe\xff")):
		return EncodingUTF16BE, 2
	}
	head := content[:min(len(content), 512)]
	var even, odd int
	for i, c := range head {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	if pairs := len(head) / 2; pairs >= 4 {
		switch {
		case odd > pairs/2 && even == 0:
			return EncodingUTF16LE, 0
		case even > pairs/2 && odd == 0:
			return EncodingUTF16BE, 0
		}
	}
	if i := invalidUTF8(content); i == len(content) || i > len(content)-utf8.UTFMax && !utf8.FullRune(content[i:]) {
		return EncodingUTF8, 0
	}
	return EncodingWindows1252, 0
}

// isBinary reports whether a file that is not UTF-16 is binary data rather
// than text: it holds a control character no text has, and its first
// 4 KB are not UTF-8 (a character cut at their end does not count). A
// control character in UTF-8 text is refused later, naming its line.
func isBinary(content []byte) bool {
	if bytes.IndexFunc(content, isControl) < 0 {
		return false
	}
	head := content[:min(len(content), 4096)]
	return invalidUTF8(head) < len(head)-utf8.UTFMax
}

func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
}

// decodeText decodes content in enc into UTF-8, refusing text that would
// be longer than [MaxUploadBytes] (Windows-1252 grows by up to three
// times): what is kept stays bounded whatever the encoding.
func decodeText(content []byte, enc string) ([]byte, error) {
	var dec *encoding.Decoder
	switch enc {
	case EncodingUTF8, EncodingUTF8BOM:
		return content, nil
	case EncodingUTF16LE:
		dec = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
	case EncodingUTF16BE:
		dec = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()
	case EncodingWindows1252:
		dec = charmap.Windows1252.NewDecoder()
	default:
		return nil, fmt.Errorf("decode text: unknown encoding %q", enc)
	}
	size := len(content) + len(content)/8 // Windows-1252: most characters one byte, some two or three
	if enc != EncodingWindows1252 {
		size = len(content)/2 + len(content)/8 // UTF-16: most characters two bytes, read as one
	}
	var out bytes.Buffer
	out.Grow(min(size, MaxUploadBytes+1))
	if _, err := out.ReadFrom(io.LimitReader(transform.NewReader(bytes.NewReader(content), dec), MaxUploadBytes+1)); err != nil {
		return nil, fmt.Errorf("decode text from %s: %w", enc, err)
	}
	if out.Len() > MaxUploadBytes {
		return nil, tooBigAsText()
	}
	return out.Bytes(), nil
}

func tooBigAsText() error {
	return vibesell.Errorf(vibesell.EINVALID, "Read as text, the file is more than %d MB; files of up to %d MB can be uploaded. Split it and upload each part.", MaxUploadBytes>>20, MaxUploadBytes>>20)
}

// detectSeparator tells which of commas, semicolons and tabs separate the
// columns of a text: the one that splits the header into the most
// columns among those that split the next rows (up to 20) as the header
// most often; commas when none splits the header. It counts, in the
// text's first MB, without parsing: a header of a million columns costs
// no more than one of three (a quote, as in [tooManyColumns], turns
// quoting on or off).
func detectSeparator(text []byte) rune {
	const rows = 21
	var fields [rows][3]int // of each line, per separator, separators seen
	line, quoted, empty := 0, false, true
	for _, c := range text[:min(len(text), 1<<20)] {
		if c == '"' {
			quoted = !quoted
		}
		if quoted {
			continue
		}
		switch c {
		case '\n':
			if !empty {
				line++
			}
			empty = true
		case '\r':
		default:
			empty = false
			for i, sep := range separators {
				if rune(c) == sep {
					fields[line][i]++
				}
			}
		}
		if line == rows {
			break
		}
	}
	best, bestSame, bestCols := ',', -1, 0
	for i, sep := range separators {
		cols := fields[0][i]
		if cols == 0 {
			continue
		}
		same := 0
		for _, f := range fields[1:min(line+1, rows)] {
			if f[i] == cols {
				same++
			}
		}
		if same > bestSame || same == bestSame && cols > bestCols {
			best, bestSame, bestCols = sep, same, cols
		}
	}
	return best
}

// checkText holds decoded text to the bounds of a file: no control
// character, and [checkLines].
func checkText(text []byte, sep rune) error {
	if i := bytes.IndexFunc(text, isControl); i >= 0 {
		what := fmt.Sprintf("a control character (U+%04X)", text[i])
		if text[i] == 0 {
			what = "a NUL character (byte 0)"
		}
		return vibesell.Errorf(vibesell.EINVALID, "Line %s of the file holds %s, which text never has. Remove it, or export the file again as CSV, and upload it again.",
			vibesell.Count(lineAt(text, i)), what)
	}
	return checkLines(text, byte(sep))
}

// zipContents names what a zip file holds, from the names of its parts:
// "an Excel workbook (.xlsx)" is read, anything else is refused.
func zipContents(content []byte) string {
	z, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return "a zip archive (or a damaged Office document)"
	}
	has := func(prefix string) bool {
		for _, f := range z.File {
			if strings.HasPrefix(f.Name, prefix) {
				return true
			}
		}
		return false
	}
	switch {
	case has("xl/workbook.xml"):
		return "an Excel workbook (.xlsx)"
	case has("xl/workbook.bin"):
		return "an Excel binary workbook (.xlsb)"
	case has("word/"):
		return "a Word document (.docx)"
	case has("ppt/"):
		return "a PowerPoint presentation (.pptx)"
	case has("Index/Document.iwa"):
		return "a Numbers spreadsheet (.numbers)"
	case has("content.xml") && bytes.Contains(content[:min(len(content), 200)], []byte("opendocument.spreadsheet")):
		return "an OpenDocument spreadsheet (.ods)"
	case has("content.xml"):
		return "an OpenDocument file (.odt, .ods)"
	}
	return "a zip archive"
}

// sheetText reads sheet (from 0) of an .xlsx workbook as CSV text (see
// [writeSheet]), with the names of its sheets. The text is bounded as a
// CSV file is, and the workbook's parts unpacked to at most
// [maxWorkbookUnpacked].
func sheetText(workbook []byte, sheet int) ([]byte, []string, error) {
	f, err := excelize.OpenReader(bytes.NewReader(workbook), excelize.Options{UnzipSizeLimit: maxWorkbookUnpacked, UnzipXMLSizeLimit: maxWorkbookPartBytes})
	if err != nil {
		return nil, nil, unreadableWorkbook()
	}
	defer f.Close()
	sheets := sheetNames(f)
	if sheet < 0 || sheet >= len(sheets) {
		if len(sheets) == 0 {
			return nil, nil, unreadableWorkbook()
		}
		return nil, nil, vibesell.Errorf(vibesell.EINVALID, "The workbook has no sheet %d: it has %s. Choose one of them.", sheet+1, vibesell.Plural(len(sheets), "sheet", "sheets"))
	}
	var out bytes.Buffer
	if err := writeSheet(&out, f, sheet, true); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), sheets, nil
}

// sheetNames are the names of a workbook's sheets, in its order: at most
// [maxSheets], each cut to 100 characters.
func sheetNames(f *excelize.File) []string {
	list := f.GetSheetList()
	var sheets []string
	for _, name := range list[:min(len(list), maxSheets)] {
		sheets = append(sheets, shorten(name, 100))
	}
	return sheets
}

// writeSheet writes sheet (from 0) of f to w as CSV, with commas. Each
// row is a line: a line break inside a cell becomes a space, so that the
// line numbers of a check are the sheet's row numbers, and an empty row
// is an empty line. Rows shorter than the header (Excel leaves out the
// empty cells at a row's end) are filled with empty cells. Bounded, as
// an upload, a row has at most [MaxUploadColumns] cells and the text at
// most [MaxUploadBytes]. Refusals: EINVALID.
func writeSheet(w io.Writer, f *excelize.File, sheet int, bounded bool) error {
	name := f.GetSheetList()[sheet]
	rows, err := f.Rows(name)
	if err != nil {
		return unreadableWorkbook()
	}
	defer rows.Close()
	counted := &countingWriter{w: w}
	out := csv.NewWriter(counted)
	line, header := 0, 0
	cut := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
	for rows.Next() {
		line++
		cells, err := rows.Columns()
		if err != nil {
			return unreadableWorkbook()
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		if bounded && len(cells) > MaxUploadColumns {
			return vibesell.Errorf(vibesell.EINVALID, "Row %s of the sheet \u201c%s\u201d has %s columns; a file may have %d at most. Keep the columns about the leads (email, names, company…) and upload it again.",
				vibesell.Count(line), shorten(name, 100), vibesell.Count(len(cells)), MaxUploadColumns)
		}
		if header == 0 {
			header = len(cells)
		}
		for i, c := range cells {
			cells[i] = cut.Replace(c)
		}
		for len(cells) > 0 && len(cells) < header {
			cells = append(cells, "")
		}
		if err := out.Write(cells); err != nil {
			return fmt.Errorf("write sheet %d: %w", sheet, err)
		}
		if bounded {
			if out.Flush(); counted.n > MaxUploadBytes {
				return tooBigAsText()
			}
		}
	}
	if out.Flush(); out.Error() != nil {
		return fmt.Errorf("write sheet %d: %w", sheet, out.Error())
	}
	if rows.Error() != nil {
		return unreadableWorkbook()
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

func unreadableWorkbook() error {
	return vibesell.Errorf(vibesell.EINVALID, "The file looks like an Excel workbook (.xlsx), but it cannot be read: it may be damaged, protected by a password, or unpack to more than %d MB. Open it in Excel, save it again or export the sheet as CSV, and upload that.",
		maxWorkbookUnpacked>>20)
}
