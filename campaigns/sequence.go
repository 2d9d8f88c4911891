package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// MaxSteps is the most emails a sequence may have.
const MaxSteps = 7

// Step is one email of a sequence.
type Step struct {
	// Subject is the subject line; "" for a follow-up sent in the same
	// thread, which goes out as "Re: " and the first step's subject.
	Subject string `json:"subject"`
	// Body is plain text with merge fields.
	Body string `json:"body"`
	// WaitBusinessDays is how many business days (Monday to Friday) after
	// the step before it a follow-up waits; 0 for the first step.
	WaitBusinessDays int `json:"waitBusinessDays"`
	// SameThread says a follow-up replies in the thread of the first
	// email.
	SameThread bool `json:"sameThread"`
}

// Sequence is one saved version of a sequence.
type Sequence struct {
	ID            string
	Name          string
	Version       int
	LatestVersion int // the newest version of this sequence
	Steps         []Step
	CreatedAt     time.Time
	ApprovedAt    *time.Time // nil: this version is not approved
	ApprovedBy    *string
}

// Approved reports whether this exact version was approved.
func (q Sequence) Approved() bool { return q.ApprovedAt != nil }

// SubjectOf returns the subject step i (0-based) goes out with.
func (q Sequence) SubjectOf(i int) string {
	if i > 0 && q.Steps[i].SameThread {
		return "Re: " + q.Steps[0].Subject
	}
	return q.Steps[i].Subject
}

var sequenceIDPattern = regexp.MustCompile(`^sq_[0-9a-f]{16}$`)

// parsed holds a step's parsed subject and body.
type parsed struct{ subject, body Template }

// parseSteps checks steps and parses their templates. The refusal names
// the step and the mistake.
// MaxBodyLength is the most characters a step's body has. Every step of
// a sequence is shown whole for the person to approve, in one result of
// at most 25,000 characters (vibesell.MaxResultText): seven steps of
// 2,500 characters and subjects of 200 fit with room for the rest. A cold
// email reads best under 150 words (about 900 characters).
const MaxBodyLength = 2500

func parseSteps(steps []Step) ([]parsed, error) {
	if len(steps) < 1 || len(steps) > MaxSteps {
		return nil, vibesell.Errorf(vibesell.EINVALID, "A sequence has 1 to %d steps; this one has %d.", MaxSteps, len(steps))
	}
	out := make([]parsed, len(steps))
	for i, st := range steps {
		n := i + 1
		st.Subject, st.Body = strings.TrimSpace(st.Subject), strings.TrimSpace(st.Body)
		switch {
		case i == 0 && st.WaitBusinessDays != 0:
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step 1 is sent first: its waitBusinessDays must be 0 (the campaign's schedule says when it starts).")
		case i == 0 && st.SameThread:
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step 1 starts the thread, so sameThread must be false for it.")
		case i > 0 && (st.WaitBusinessDays < 1 || st.WaitBusinessDays > 30):
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d waits %d business days; a follow-up waits 1 to 30 business days after the step before it (2 to 7 is usual).", n, st.WaitBusinessDays)
		case i > 0 && st.SameThread && st.Subject != "":
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d replies in the same thread, so it goes out as \"Re: \" and step 1's subject: leave its subject empty, or set sameThread false to give it its own.", n)
		case (i == 0 || !st.SameThread) && st.Subject == "":
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d needs a subject (a follow-up in the same thread needs none).", n)
		case len([]rune(st.Subject)) > 200:
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d's subject is %d characters; keep it under 200 (under 60 reads best).", n, len([]rune(st.Subject)))
		case st.Body == "":
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d needs a body.", n)
		case len([]rune(st.Body)) > MaxBodyLength:
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d's body is %s characters; a cold email is at most %s (under 150 words reads best).", n, vibesell.Count(len([]rune(st.Body))), vibesell.Count(MaxBodyLength))
		}
		var err error
		if out[i].subject, err = ParseTemplate(st.Subject); err != nil {
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d's subject: %s.", n, err)
		}
		if out[i].body, err = ParseTemplate(st.Body); err != nil {
			return nil, vibesell.Errorf(vibesell.EINVALID, "Step %d's body: %s.", n, err)
		}
	}
	return out, nil
}

func normalizeSteps(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		out[i] = Step{Subject: strings.TrimSpace(st.Subject), Body: strings.TrimSpace(st.Body), WaitBusinessDays: st.WaitBusinessDays, SameThread: st.SameThread}
	}
	return out
}

// SaveRequest is one call of save_sequence.
type SaveRequest struct {
	Sequence string // "" starts a new sequence; an id saves a new version of it
	Name     string
	Steps    []Step
}

// Saved is a saved version with what its merge fields do to the leads.
type Saved struct {
	Sequence Sequence
	Changed  bool // false: the steps were the latest version's already, nothing was saved
	Fields   []FieldReport
	Leads    int // imported leads the report counted
}

// FieldReport is one merge field of a sequence against the imported leads.
type FieldReport struct {
	Field    string
	Steps    []int // the steps (1-based) using it
	Lacking  int   // imported leads without it
	Fallback *string
	// Receives is what a lead without it gets: the fallback, or nothing
	// at all (the email cannot go to them) when no fallback is given.
	Receives string
}

// SaveSequence saves steps as a new version (version 1 of a new sequence,
// or the next version of an existing one). Saving the steps of the latest
// version again saves nothing and keeps its approval. Refusals: EINVALID
// for steps that break a rule, ENOTFOUND for an unknown sequence.
func (s *Service) SaveSequence(ctx context.Context, ws uuid.UUID, r SaveRequest) (Saved, error) {
	if _, err := parseSteps(r.Steps); err != nil {
		return Saved{}, err
	}
	steps := normalizeSteps(r.Steps)
	name := strings.TrimSpace(r.Name)
	if len([]rune(name)) > 100 {
		return Saved{}, vibesell.Errorf(vibesell.EINVALID, "name is %d characters; give a sequence name of at most 100.", len([]rune(name)))
	}
	raw, err := json.Marshal(steps)
	if err != nil {
		return Saved{}, fmt.Errorf("encode steps: %w", err)
	}
	var out Saved
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		id := r.Sequence
		version := 1
		if id == "" {
			id = newID("sq_")
			if name == "" {
				name = "Sequence"
			}
		} else {
			latest, err := latestVersion(ctx, tx, ws, id, true)
			if err != nil {
				return err
			}
			if name == "" {
				name = latest.Name
			}
			if name == latest.Name && jsonEqual(latest.Steps, steps) {
				out.Sequence = latest
				return nil
			}
			version = latest.Version + 1
		}
		_, err := tx.Exec(ctx, `INSERT INTO sequence_versions (workspace_id, sequence_id, version, name, steps, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, ws, id, version, name, raw, s.clock.Now())
		if err != nil {
			return err
		}
		out.Changed = true
		out.Sequence, err = s.sequence(ctx, tx, ws, id, version)
		return err
	})
	if err != nil {
		return Saved{}, refusalOrWrap(err, "save sequence")
	}
	out.Fields, out.Leads, err = s.fieldReport(ctx, ws, out.Sequence)
	return out, err
}

func jsonEqual(a, b []Step) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// fieldReport counts, for each merge field of q, the imported leads that
// lack it and says what they receive.
func (s *Service) fieldReport(ctx context.Context, ws uuid.UUID, q Sequence) ([]FieldReport, int, error) {
	leads, err := s.leads.ImportedLeads(ctx, ws)
	if err != nil {
		return nil, 0, err
	}
	ps, err := parseSteps(q.Steps)
	if err != nil {
		return nil, 0, fmt.Errorf("parse stored sequence %s version %d: %w", q.ID, q.Version, err)
	}
	var out []FieldReport
	index := map[string]int{}
	for i, p := range ps {
		for _, use := range append(p.subject.Uses(), p.body.Uses()...) {
			k, ok := index[use.Field]
			if !ok {
				k = len(out)
				index[use.Field] = k
				out = append(out, FieldReport{Field: use.Field})
			}
			fr := &out[k]
			if len(fr.Steps) == 0 || fr.Steps[len(fr.Steps)-1] != i+1 {
				fr.Steps = append(fr.Steps, i+1)
			}
			// One use without a fallback is enough to leave a lead
			// without an email.
			switch {
			case !use.HasFallback:
				fr.Receives = "nothing: the email cannot be sent to them until the field has a fallback, such as {{" + use.Field + "|…}}"
				fr.Fallback = nil
			case fr.Receives == "" || fr.Fallback != nil:
				fb := use.Fallback
				fr.Fallback = &fb
				fr.Receives = fmt.Sprintf("%q in its place", fb)
			}
		}
	}
	for k := range out {
		for _, l := range leads {
			if Value(l.MergeFields()[out[k].Field]) == "" {
				out[k].Lacking++
			}
		}
	}
	return out, len(leads), nil
}

// Sequence returns one version of a sequence; version 0 means the latest.
// Refusals: ENOTFOUND.
func (s *Service) Sequence(ctx context.Context, ws uuid.UUID, id string, version int) (Sequence, error) {
	if version == 0 {
		q, err := latestVersion(ctx, s.db, ws, id, false)
		return q, refusalOrWrap(err, "read sequence %s", id)
	}
	q, err := s.sequence(ctx, s.db, ws, id, version)
	if errors.Is(err, pgx.ErrNoRows) {
		return Sequence{}, vibesell.Errorf(vibesell.ENOTFOUND, "Sequence %s has no version %d.", id, version).Then(
			stepSeeCampaign)
	}
	return q, refusalOrWrap(err, "read sequence %s", id)
}

const sequenceColumns = `sequence_id, name, version, steps, created_at, approved_at, approved_by,
	(SELECT max(version) FROM sequence_versions l WHERE l.workspace_id = v.workspace_id AND l.sequence_id = v.sequence_id)`

func scanSequence(r pgx.Row) (Sequence, error) {
	var q Sequence
	var raw []byte
	if err := r.Scan(&q.ID, &q.Name, &q.Version, &raw, &q.CreatedAt, &q.ApprovedAt, &q.ApprovedBy, &q.LatestVersion); err != nil {
		return Sequence{}, err
	}
	if err := json.Unmarshal(raw, &q.Steps); err != nil {
		return Sequence{}, fmt.Errorf("read steps: %w", err)
	}
	return q, nil
}

func (s *Service) sequence(ctx context.Context, db store.DBTX, ws uuid.UUID, id string, version int) (Sequence, error) {
	return scanSequence(db.QueryRow(ctx, `SELECT `+sequenceColumns+` FROM sequence_versions v
		WHERE workspace_id = $1 AND sequence_id = $2 AND version = $3`, ws, id, version))
}

// latestVersion reads the newest version of a sequence, locking it when
// lock is set (so two saves of one sequence number their versions one
// after the other).
func latestVersion(ctx context.Context, db store.DBTX, ws uuid.UUID, id string, lock bool) (Sequence, error) {
	if !sequenceIDPattern.MatchString(id) {
		return Sequence{}, vibesell.Errorf(vibesell.ENOTFOUND, "%q is not a sequence id; they look like sq_ and 16 hexadecimal characters, and saving the emails returns one.", id).Then(
			stepWrite)
	}
	sql := `SELECT ` + sequenceColumns + ` FROM sequence_versions v WHERE workspace_id = $1 AND sequence_id = $2 ORDER BY version DESC LIMIT 1`
	if lock {
		sql += ` FOR UPDATE`
	}
	q, err := scanSequence(db.QueryRow(ctx, sql, ws, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Sequence{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no sequence %s in this workspace; saving the emails without a sequence starts one.", id).Then(
			stepWrite)
	}
	return q, err
}

// ApproveSequence records that the person read and approved exactly
// version of sequence id. Approving it again changes nothing. Refusals:
// ENOTFOUND; ECONFLICT when a newer version exists (the person must read
// that one).
func (s *Service) ApproveSequence(ctx context.Context, ws uuid.UUID, id string, version int, by string) (Saved, error) {
	var out Saved
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		latest, err := latestVersion(ctx, tx, ws, id, true)
		if err != nil {
			return err
		}
		if version != latest.Version {
			if version < 1 || version > latest.Version {
				return vibesell.Errorf(vibesell.ENOTFOUND, "Sequence %s has no version %d; its latest is version %d.", id, version, latest.Version)
			}
			return vibesell.Errorf(vibesell.ECONFLICT,
				"Version %d of sequence %s was edited since: version %d is the latest. Show the person version %d and approve that one if they agree.",
				version, id, latest.Version, latest.Version)
		}
		if !latest.Approved() {
			if _, err := tx.Exec(ctx, `UPDATE sequence_versions SET approved_at = $4, approved_by = $5
				WHERE workspace_id = $1 AND sequence_id = $2 AND version = $3`, ws, id, version, s.clock.Now(), by); err != nil {
				return err
			}
			out.Changed = true
		}
		out.Sequence, err = s.sequence(ctx, tx, ws, id, version)
		return err
	})
	if err != nil {
		return Saved{}, refusalOrWrap(err, "approve sequence %s", id)
	}
	out.Fields, out.Leads, err = s.fieldReport(ctx, ws, out.Sequence)
	return out, err
}

// refusalOrWrap keeps refusals as they are and wraps anything else.
func refusalOrWrap(err error, format string, args ...any) error {
	if err == nil || vibesell.ErrorCode(err) != vibesell.EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
