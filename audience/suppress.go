package audience

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/store"
	"vibesell/workspace"
)

// Why an address or domain is suppressed.
const (
	ReasonUnsubscribe = "unsubscribe"
	ReasonHardBounce  = "hard_bounce"
	ReasonComplaint   = "complaint"
	ReasonManual      = "manual"
)

// Suppressed says what one call to [Service.Suppress] kept.
type Suppressed struct {
	Addresses []string // newly suppressed addresses
	Domains   []string // newly suppressed whole domains
	Already   []string // suppressed before
}

// Suppress keeps addresses ("ana@acme.com") and whole domains
// ("acme.com") that the workspace must never write to again. Nothing
// removes a suppression: no import brings one back. Refusals: EINVALID
// naming every entry that is neither an address nor a domain.
func (s *Service) Suppress(ctx context.Context, ws uuid.UUID, entries []string, reason string) (Suppressed, error) {
	return s.suppress(ctx, s.db, ws, entries, reason)
}

func (s *Service) suppress(ctx context.Context, db store.DBTX, ws uuid.UUID, entries []string, reason string) (Suppressed, error) {
	switch reason {
	case ReasonUnsubscribe, ReasonHardBounce, ReasonComplaint, ReasonManual:
	default:
		return Suppressed{}, fmt.Errorf("audience: unknown suppression reason %q", reason)
	}
	var kinds, values, bad []string
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		if strings.Contains(e, "@") {
			email, _, _, ok := normalEmail(e)
			if !ok {
				bad = append(bad, "'"+strings.TrimSpace(e)+"'")
				continue
			}
			kinds, values = append(kinds, "address"), append(values, email)
			continue
		}
		d, err := workspace.NormalizeDomain(e)
		if err != nil {
			bad = append(bad, "'"+strings.TrimSpace(e)+"'")
			continue
		}
		kinds, values = append(kinds, "domain"), append(values, d)
	}
	if len(bad) > 0 {
		return Suppressed{}, vibesell.Errorf(vibesell.EINVALID,
			"%s %s neither an email address nor a domain: give addresses like ana@acme.com or whole domains like acme.com.",
			vibesell.JoinAnd(bad), plural(len(bad), "is", "are"))
	}
	var out Suppressed
	rows, err := db.Query(ctx, `
		WITH wanted AS (SELECT DISTINCT kind, value FROM unnest($2::text[], $3::text[]) AS w (kind, value)),
		added AS (
			INSERT INTO suppressions (workspace_id, kind, value, reason, created_at)
			SELECT $1, kind, value, $4, $5 FROM wanted ON CONFLICT DO NOTHING RETURNING kind, value)
		SELECT w.kind, w.value, a.value IS NOT NULL FROM wanted w LEFT JOIN added a USING (kind, value) ORDER BY 1, 2`,
		ws, kinds, values, reason, s.clock.Now())
	if err != nil {
		return Suppressed{}, fmt.Errorf("suppress: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, value string
		var added bool
		if err := rows.Scan(&kind, &value, &added); err != nil {
			return Suppressed{}, fmt.Errorf("suppress: %w", err)
		}
		switch {
		case !added:
			out.Already = append(out.Already, value)
		case kind == "address":
			out.Addresses = append(out.Addresses, value)
		default:
			out.Domains = append(out.Domains, value)
		}
	}
	if err := rows.Err(); err != nil {
		return Suppressed{}, fmt.Errorf("suppress: %w", err)
	}
	return out, nil
}

// suppressedSQL is true for a contact c whose address or domain the
// workspace $ws suppresses.
func suppressedSQL(ws string) string {
	return `(c.email IN (SELECT value FROM suppressions WHERE workspace_id = ` + ws + ` AND kind = 'address')
		OR c.email_domain IN (SELECT value FROM suppressions WHERE workspace_id = ` + ws + ` AND kind = 'domain'))`
}
