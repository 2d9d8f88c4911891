package audit

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Export writes the workspace's chain to w as JSON lines, one [Record]
// each, oldest first, streamed from the database as it reads them. With
// since (not zero) it starts at the first record at or after since and
// goes on to the end: a piece of the chain whose first prev_hash is the
// hash of a record it leaves out, which [Verify] starts from. It returns
// how many records it wrote.
func (c *Chains) Export(ctx context.Context, ws uuid.UUID, since time.Time, w io.Writer) (int64, error) {
	// A contiguous piece from the first record at since: moments come
	// from each replica's clock, seq alone orders the chain.
	rows, err := c.db.Query(ctx, `SELECT seq, at, kind, subject, body::text, prev_hash, hash FROM audit_events
		WHERE workspace_id = $1 AND seq >= coalesce((SELECT min(seq) FROM audit_events WHERE workspace_id = $1 AND at >= $2), 9223372036854775807)
		ORDER BY seq`, ws, since)
	if err != nil {
		return 0, fmt.Errorf("export the audit chain: %w", err)
	}
	defer rows.Close()
	// Read as they come, without a value decoded: the export's speed is
	// the database's (BenchmarkExport). pgx asks for these types in binary.
	for i, f := range rows.FieldDescriptions() {
		if f.Format != pgx.BinaryFormatCode && i < 2 {
			return 0, fmt.Errorf("export the audit chain: column %s came as text, not binary", f.Name)
		}
	}
	out := bufio.NewWriterSize(w, 256<<10)
	var n int64
	var line []byte
	for rows.Next() {
		v := rows.RawValues()
		// seq is an int8, at microseconds since 2000 in UTC, the rest text.
		seq := int64(binary.BigEndian.Uint64(v[0]))
		at := pgEpoch.Add(time.Duration(int64(binary.BigEndian.Uint64(v[1]))) * time.Microsecond)
		line = appendRecord(line[:0], seq, at, string(v[2]), string(v[3]), v[4], string(v[5]), string(v[6]))
		if _, err := out.Write(line); err != nil {
			return n, fmt.Errorf("export the audit chain: %w", err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("export the audit chain: %w", err)
	}
	if err := out.Flush(); err != nil {
		return n, fmt.Errorf("export the audit chain: %w", err)
	}
	return n, nil
}

// appendRecord writes one line of an export by hand: encoding/json would
// compact the body, which is hashed exactly as PostgreSQL wrote it.
// pgEpoch is where PostgreSQL's binary timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func appendRecord(b []byte, seq int64, at time.Time, kind, subject string, body []byte, prev, hash string) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"at":"`...)
	b = at.UTC().AppendFormat(b, AtLayout)
	b = append(b, `","kind":`...)
	b = appendString(b, kind)
	b = append(b, `,"subject":`...)
	b = appendString(b, subject)
	b = append(b, `,"body":`...)
	b = append(b, body...)
	b = append(b, `,"prev_hash":`...)
	b = appendString(b, prev)
	b = append(b, `,"hash":`...)
	b = appendString(b, hash)
	return append(b, "}\n"...)
}

// appendString writes s as a JSON string: quotes, backslashes and
// control characters escaped, the rest as it is (UTF-8).
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
}
