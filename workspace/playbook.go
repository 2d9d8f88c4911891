package workspace

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Playbook is how the workspace wants its emails to sound and argue.
type Playbook struct {
	Tone       string
	Angles     []string
	Objections []Objection
	Dos        []string
	Donts      []string
	UpdatedAt  time.Time
}

// Objection is something buyers say, and how to answer it.
type Objection struct {
	Objection string `json:"objection"`
	Answer    string `json:"answer"`
}

func cleanList(name string, items []string, maxItems, maxLen int) ([]string, error) {
	if len(items) > maxItems {
		return nil, vibesell.Errorf(vibesell.EINVALID, "Give at most %d %s; there are %d.", maxItems, name, len(items))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if len([]rune(it)) > maxLen {
			return nil, vibesell.Errorf(vibesell.EINVALID, "Each of the %s can be at most %d characters long.", name, maxLen)
		}
		out = append(out, it)
	}
	return out, nil
}

// SavedPlaybook is the playbook as stored, and what the workspace needs
// next.
type SavedPlaybook struct {
	Playbook
	NextStep NextStep
}

// SavePlaybook replaces the workspace's playbook. Refusals: EINVALID.
func (s *Service) SavePlaybook(ctx context.Context, ws uuid.UUID, p Playbook) (SavedPlaybook, error) {
	p.Tone = strings.TrimSpace(p.Tone)
	if p.Tone == "" {
		return SavedPlaybook{}, vibesell.Errorf(vibesell.EINVALID, "The playbook needs a tone, for example \"plain-spoken and brief, no hype\".")
	}
	if len([]rune(p.Tone)) > 300 {
		return SavedPlaybook{}, vibesell.Errorf(vibesell.EINVALID, "The tone can be at most 300 characters long.")
	}
	var err error
	if p.Angles, err = cleanList("angles", p.Angles, 10, 500); err != nil {
		return SavedPlaybook{}, err
	}
	if p.Dos, err = cleanList("dos", p.Dos, 20, 300); err != nil {
		return SavedPlaybook{}, err
	}
	if p.Donts, err = cleanList("don'ts", p.Donts, 20, 300); err != nil {
		return SavedPlaybook{}, err
	}
	if len(p.Objections) > 10 {
		return SavedPlaybook{}, vibesell.Errorf(vibesell.EINVALID, "Give at most 10 objections; there are %d.", len(p.Objections))
	}
	objections := make([]Objection, 0, len(p.Objections))
	for _, o := range p.Objections {
		o.Objection, o.Answer = strings.TrimSpace(o.Objection), strings.TrimSpace(o.Answer)
		if o.Objection == "" {
			continue
		}
		if o.Answer == "" {
			return SavedPlaybook{}, vibesell.Errorf(vibesell.EINVALID, "The objection %q needs an answer.", o.Objection)
		}
		if len([]rune(o.Objection))+len([]rune(o.Answer)) > 1000 {
			return SavedPlaybook{}, vibesell.Errorf(vibesell.EINVALID, "An objection and its answer can be at most 1,000 characters together.")
		}
		objections = append(objections, o)
	}
	p.Objections = objections
	var hasOffer bool
	err = s.db.QueryRow(ctx, `
		INSERT INTO playbooks (workspace_id, tone, angles, objections, dos, donts, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (workspace_id) DO UPDATE SET tone = EXCLUDED.tone, angles = EXCLUDED.angles,
		    objections = EXCLUDED.objections, dos = EXCLUDED.dos, donts = EXCLUDED.donts, updated_at = EXCLUDED.updated_at
		RETURNING updated_at, EXISTS (SELECT 1 FROM offers WHERE workspace_id = $1)`,
		ws, p.Tone, p.Angles, p.Objections, p.Dos, p.Donts, s.clock.Now()).Scan(&p.UpdatedAt, &hasOffer)
	if err != nil {
		return SavedPlaybook{}, fmt.Errorf("save playbook: %w", err)
	}
	return SavedPlaybook{Playbook: p, NextStep: savedNext(hasOffer, true)}, nil
}

// playbookSQL reads the playbook of workspace $1, as scanPlaybook scans it.
const playbookSQL = `SELECT tone, angles, objections, dos, donts, updated_at FROM playbooks WHERE workspace_id = $1`

// FindPlaybook returns the workspace's playbook, or nil when none is saved.
func (s *Service) FindPlaybook(ctx context.Context, ws uuid.UUID) (*Playbook, error) {
	return scanPlaybook(s.db.QueryRow(ctx, playbookSQL, ws))
}

// scanPlaybook reads the row of playbookSQL: nil when there is none.
func scanPlaybook(row pgx.Row) (*Playbook, error) {
	var p Playbook
	err := row.Scan(&p.Tone, &p.Angles, &p.Objections, &p.Dos, &p.Donts, &p.UpdatedAt)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find playbook: %w", err)
	}
	return &p, nil
}
