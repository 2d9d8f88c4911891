package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Report is what a verification found.
type Report struct {
	Records int64 // how many records were read
	// First is the seq of the first record read, and From the prev_hash it
	// follows: [Genesis] for a whole chain, the hash of a record left out
	// for an export made with a since.
	First int64
	From  string
	// Last is the last record read, when all read before it were sound.
	Last Head
	// Problem is the first record altered, removed or reordered; nil when
	// the chain is sound.
	Problem *Problem
}

// Problem names the first record found altered, removed or reordered.
type Problem struct {
	Seq  int64  // the record's seq
	Line int64  // its line in the file (or its place in the database's order), from 1
	What string // a sentence saying what is wrong with it
}

func (p *Problem) String() string { return p.What }

// next gives the records one at a time, in the order they are stored;
// ok false at the end.
type next func() (r Record, ok bool, err error)

// check walks records and stops at the first problem. A record's seq must
// follow the one before it, its prev_hash must be that record's hash,
// and its hash must be what it holds hashes to. At the first break it
// reads on, when that tells apart a record removed from one moved.
func check(read next) (Report, error) {
	var rep Report
	var prev Record
	for {
		r, ok, err := read()
		if err != nil {
			return rep, err
		}
		if !ok {
			return rep, nil
		}
		rep.Records++
		line := rep.Records
		problem := func(seq int64, format string, args ...any) (Report, error) {
			rep.Problem = &Problem{Seq: seq, Line: line, What: fmt.Sprintf(format, args...)}
			return rep, nil
		}
		if line == 1 {
			rep.First, rep.From = r.Seq, r.PrevHash
			if r.Seq == 1 && r.PrevHash != Genesis {
				return problem(1, "Record 1 was altered: the first record must follow nothing, and its prev_hash is not 64 zeros.")
			}
		} else {
			want := prev.Seq + 1
			switch {
			case r.Seq > want:
				moved, err := find(read, func(x Record) bool { return x.Seq == want })
				if err != nil {
					return rep, err
				}
				if moved != nil {
					return problem(want, "Record %d is out of order: it comes after record %d instead of right after record %d.", want, r.Seq, prev.Seq)
				}
				return problem(want, "Record %d was removed: record %d comes right after record %d.", want, r.Seq, prev.Seq)
			case r.Seq < want:
				return problem(r.Seq, "Record %d is out of order: it comes after record %d.", r.Seq, prev.Seq)
			case r.PrevHash != prev.Hash:
				// Either this record and a later one swapped places (its
				// prev_hash is a later record's hash), or the record before
				// it was altered and its hash made again to match.
				before, err := find(read, func(x Record) bool { return x.Hash == r.PrevHash })
				if err != nil {
					return rep, err
				}
				if before != nil {
					return problem(r.Seq, "Records %d and %d were reordered: what stands as record %d follows what stands as record %d.", r.Seq, before.Seq, r.Seq, before.Seq)
				}
				return problem(prev.Seq, "Record %d was altered: record %d does not follow from it (its prev_hash is not record %d's hash).", prev.Seq, r.Seq, prev.Seq)
			}
		}
		if r.Sum() != r.Hash {
			return problem(r.Seq, "Record %d was altered: what it holds does not hash to its hash.", r.Seq)
		}
		prev = r
		rep.Last = Head{Seq: r.Seq, Hash: r.Hash}
	}
}

// find reads on until a record meets match; nil when none does.
func find(read next, match func(Record) bool) (*Record, error) {
	for {
		r, ok, err := read()
		if err != nil || !ok {
			return nil, err
		}
		if match(r) {
			return &r, nil
		}
	}
}

// Verify checks an export ([Chains.Export]) read from r, line by line.
// An export made with a since starts mid-chain: its first record is
// checked against the prev_hash it carries, which the records before it
// (not in the file) would have to end with. A line that is not a record
// is an error, naming the line.
func Verify(r io.Reader) (Report, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var line int64
	return check(func() (Record, bool, error) {
		for sc.Scan() {
			line++
			if len(sc.Bytes()) == 0 {
				continue
			}
			var rec Record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return Record{}, false, fmt.Errorf("line %d is not an audit record: %w", line, err)
			}
			return rec, true, nil
		}
		return Record{}, false, sc.Err()
	})
}

// VerifyDB checks the workspace's chain as the database holds it, then
// its head: records removed from the end leave the head ahead of them.
func (c *Chains) VerifyDB(ctx context.Context, ws uuid.UUID) (Report, error) {
	tx, err := c.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return Report{}, fmt.Errorf("verify the audit chain: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	head := Head{Hash: Genesis}
	if err := tx.QueryRow(ctx, `SELECT seq, hash FROM audit_heads WHERE workspace_id = $1`, ws).Scan(&head.Seq, &head.Hash); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Report{}, fmt.Errorf("verify the audit chain: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT seq, at, kind, subject, body::text, prev_hash, hash FROM audit_events
		WHERE workspace_id = $1 ORDER BY seq`, ws)
	if err != nil {
		return Report{}, fmt.Errorf("verify the audit chain: %w", err)
	}
	rep, err := check(func() (Record, bool, error) {
		if !rows.Next() {
			return Record{}, false, rows.Err()
		}
		var r Record
		var at time.Time
		var body []byte
		if err := rows.Scan(&r.Seq, &at, &r.Kind, &r.Subject, &body, &r.PrevHash, &r.Hash); err != nil {
			return Record{}, false, err
		}
		r.At, r.Body = FormatAt(at), body
		return r, true, nil
	})
	rows.Close()
	if err != nil {
		return rep, fmt.Errorf("verify the audit chain: %w", err)
	}
	switch {
	case rep.Problem != nil:
	case rep.Records == 0 && head.Seq > 0:
		rep.Problem = &Problem{Seq: 1, Line: 1, What: fmt.Sprintf("Record 1 was removed: the chain holds no record, but its head is record %d.", head.Seq)}
	case rep.Records == 0:
	case rep.From != Genesis:
		rep.Problem = &Problem{Seq: 1, Line: 1, What: fmt.Sprintf("Record 1 was removed: the chain starts at record %d.", rep.First)}
	case rep.Last.Seq < head.Seq:
		rep.Problem = &Problem{Seq: rep.Last.Seq + 1, Line: rep.Records + 1, What: fmt.Sprintf(
			"Record %d was removed: the chain ends at record %d, but its head is record %d.", rep.Last.Seq+1, rep.Last.Seq, head.Seq)}
	case rep.Last.Seq == head.Seq && rep.Last.Hash != head.Hash:
		rep.Problem = &Problem{Seq: head.Seq, Line: rep.Records, What: fmt.Sprintf(
			"Record %d was altered: its hash is not the head's.", head.Seq)}
	}
	return rep, nil
}

// Compare checks an export read from r (verified already, with [Verify])
// against the workspace's chain in the database: each of its records
// must be the database's record of the same seq. A chain made again in
// the database after the export (every hash recomputed) verifies on its
// own; against an export noted before, it does not.
func (c *Chains) Compare(ctx context.Context, ws uuid.UUID, r io.Reader) (*Problem, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var line int64
	var rows pgx.Rows
	defer func() {
		if rows != nil {
			rows.Close()
		}
	}()
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("line %d is not an audit record: %w", line, err)
		}
		if rows == nil {
			var err error
			rows, err = c.db.Query(ctx, `SELECT seq, hash FROM audit_events WHERE workspace_id = $1 AND seq >= $2 ORDER BY seq`, ws, rec.Seq)
			if err != nil {
				return nil, fmt.Errorf("compare with the database: %w", err)
			}
		}
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("compare with the database: %w", err)
			}
			return &Problem{Seq: rec.Seq, Line: line, What: fmt.Sprintf("Record %d of the export is not in the database: it was removed there.", rec.Seq)}, nil
		}
		var seq int64
		var hash string
		if err := rows.Scan(&seq, &hash); err != nil {
			return nil, fmt.Errorf("compare with the database: %w", err)
		}
		switch {
		case seq != rec.Seq:
			return &Problem{Seq: rec.Seq, Line: line, What: fmt.Sprintf("Record %d of the export is not in the database: it was removed there.", rec.Seq)}, nil
		case hash != rec.Hash:
			return &Problem{Seq: rec.Seq, Line: line, What: fmt.Sprintf("Record %d differs between the export and the database: the database's was changed after the export was made.", rec.Seq)}, nil
		}
	}
	return nil, sc.Err()
}
