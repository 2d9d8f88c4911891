package audience

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"vibesell"
)

// directoryPeek is how much of a directory file its encoding and
// separator are detected from (and the size of the buffer it is read
// through).
const directoryPeek = 1 << 20

// directoryInput reads a directory file as a spreadsheet wrote it, as an
// upload is read ([readUpload]) but streamed: its encoding detected from
// its first MB, its separator from its first rows, an .xlsx workbook
// read from its first sheet. It returns the file as UTF-8 text, which
// the caller closes, and how it was read. A file read as UTF-8 whose
// later line is not is stopped there with an error naming the line
// (the load then leaves the directory as it was). Refusals: EINVALID for
// a file that is neither text nor a workbook, naming what it seems to be.
func directoryInput(r io.Reader) (io.ReadCloser, Reading, error) {
	in := bufio.NewReaderSize(r, directoryPeek)
	head, _ := in.Peek(directoryPeek) // less at the end of the file
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return directoryWorkbook(in)
	}
	if what := looksLike(head); what != "" {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file looks like %s, not a CSV file or an Excel workbook (.xlsx).", what)
	}
	enc, skip := detectEncoding(head) // a character cut by the peek's end is still UTF-8
	if enc != EncodingUTF16LE && enc != EncodingUTF16BE && isBinary(head) {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file does not look like text: it holds bytes no text has, as an image or another binary file does.")
	}
	if _, err := in.Discard(skip); err != nil {
		return nil, Reading{}, err
	}
	var text io.Reader
	switch enc {
	case EncodingUTF8, EncodingUTF8BOM:
		// The bytes as they are, checked on the way: the hot path of a
		// load of millions of rows. Checking costs 27 ms per 1,000,000
		// rows (126 MB), and reading them as CSV 690 ms against 600 ms
		// before (best of 9, two busy cores); the whole load, 21.2 s
		// against 22.2 s in the same conditions, is within its noise.
		return io.NopCloser(&utf8Reader{r: in, line: 1}), Reading{Encoding: enc, Separator: detectSeparator(fullLines(head[skip:]))}, nil
	case EncodingUTF16LE:
		text = transform.NewReader(in, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder())
	case EncodingUTF16BE:
		text = transform.NewReader(in, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder())
	default:
		text = transform.NewReader(in, charmap.Windows1252.NewDecoder())
	}
	decoded := bufio.NewReaderSize(text, 1<<16)
	dhead, _ := decoded.Peek(1 << 16)
	return io.NopCloser(decoded), Reading{Encoding: enc, Separator: detectSeparator(fullLines(dhead))}, nil
}

// fullLines is head up to its last line break, when it has one: the rows
// of a file's start, none cut.
func fullLines(head []byte) []byte {
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		return head[:i+1]
	}
	return head
}

// directoryWorkbook reads a zip file: an .xlsx workbook's first sheet as
// CSV text, written as the load reads it; anything else is refused.
func directoryWorkbook(in io.Reader) (io.ReadCloser, Reading, error) {
	file, err := io.ReadAll(in)
	if err != nil {
		return nil, Reading{}, err
	}
	if what := zipContents(file); what != "an Excel workbook (.xlsx)" {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file looks like %s, not a CSV file or an Excel workbook (.xlsx).", what)
	}
	// The sheets' XML past 16 MB is unpacked to temporary files, not
	// held: a workbook of a million rows unpacks to gigabytes.
	f, err := excelize.OpenReader(bytes.NewReader(file), excelize.Options{UnzipXMLSizeLimit: 16 << 20})
	if err != nil || len(f.GetSheetList()) == 0 {
		return nil, Reading{}, vibesell.Errorf(vibesell.EINVALID, "The file looks like an Excel workbook (.xlsx), but it cannot be read: it may be damaged or protected by a password. Save it again, or export its sheet as CSV, and load that.")
	}
	pr, pw := io.Pipe()
	go func() {
		err := writeSheet(pw, f, 0, false)
		f.Close()
		pw.CloseWithError(err)
	}()
	return pr, Reading{Encoding: EncodingXLSX, Separator: ',', Sheets: sheetNames(f)}, nil
}

// utf8Reader passes on a file read as UTF-8, and stops with an error
// naming the line where it is not: the encoding was told from the
// file's first MB, and a later line in another (a file of Windows-1252
// whose first accent comes late) must not load as mangled text.
type utf8Reader struct {
	r     io.Reader
	carry []byte // the start of a character cut by the last read
	line  int64  // of the next byte
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if len(p) < 2*utf8.UTFMax {
		return 0, io.ErrShortBuffer
	}
	for {
		n := copy(p, u.carry)
		u.carry = u.carry[:0]
		m, err := u.r.Read(p[n:])
		n += m
		end := n
		if err == nil {
			// Hold back a character cut at the end, for the next read.
			for i := n - 1; i >= max(0, n-utf8.UTFMax); i-- {
				if utf8.RuneStart(p[i]) {
					if !utf8.FullRune(p[i:n]) {
						end = i
					}
					break
				}
			}
			u.carry = append(u.carry, p[end:n]...)
		}
		if !utf8.Valid(p[:end]) {
			i := invalidUTF8(p[:end])
			line := u.line + int64(bytes.Count(p[:i], []byte{'\n'}))
			return 0, vibesell.Errorf(vibesell.EINVALID, "Line %s is not UTF-8 text (it has the byte 0x%02X), though the file's first MB is, so the file was read as UTF-8. Save the whole file in one encoding (UTF-8, or Windows-1252 as Excel's plain CSV) and load it again.",
				vibesell.Count(int(line)), p[i])
		}
		u.line += int64(bytes.Count(p[:end], []byte{'\n'}))
		if end > 0 || err != nil {
			return end, err
		}
	}
}
