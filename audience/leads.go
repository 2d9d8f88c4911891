package audience

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/campaigns"
)

// The service is what campaigns read their leads from.
var _ campaigns.Leads = (*Service)(nil)

// leadSuppressedSQL is true for a lead l whose address or domain the
// workspace $1 suppressed after it was imported.
const leadSuppressedSQL = `(l.email IN (SELECT value FROM suppressions WHERE workspace_id = $1 AND kind = 'address')
	OR split_part(l.email, '@', 2) IN (SELECT value FROM suppressions WHERE workspace_id = $1 AND kind = 'domain'))`

const leadColumns = `l.id, l.email, l.first_name, l.last_name, l.title, l.company, l.company_domain, l.country, l.time_zone`

func scanLead(r pgx.CollectableRow) (vibesell.Lead, error) {
	var l vibesell.Lead
	err := r.Scan(&l.ID, &l.Email, &l.FirstName, &l.LastName, &l.Title, &l.Company, &l.CompanyDomain, &l.Country, &l.TimeZone)
	return l, err
}

// ImportedLeads returns the workspace's imported leads that may be written
// to: every lead not suppressed since its import nor removed, oldest
// first.
func (s *Service) ImportedLeads(ctx context.Context, ws uuid.UUID) ([]vibesell.Lead, error) {
	rows, err := s.db.Query(ctx, `SELECT `+leadColumns+` FROM leads l
		WHERE l.workspace_id = $1 AND l.removed_at IS NULL AND NOT `+leadSuppressedSQL+` ORDER BY l.id`, ws)
	if err != nil {
		return nil, fmt.Errorf("read leads of workspace %s: %w", ws, err)
	}
	out, err := pgx.CollectRows(rows, scanLead)
	if err != nil {
		return nil, fmt.Errorf("read leads of workspace %s: %w", ws, err)
	}
	return out, nil
}

// ImportedLead returns the imported lead with that address. Refusals:
// ENOTFOUND when the workspace has no such lead, or it is suppressed.
func (s *Service) ImportedLead(ctx context.Context, ws uuid.UUID, email string) (vibesell.Lead, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	rows, err := s.db.Query(ctx, `SELECT `+leadColumns+` FROM leads l
		WHERE l.workspace_id = $1 AND l.email = $2 AND l.removed_at IS NULL AND NOT `+leadSuppressedSQL, ws, email)
	if err != nil {
		return vibesell.Lead{}, fmt.Errorf("read lead %s: %w", email, err)
	}
	out, err := pgx.CollectRows(rows, scanLead)
	if err != nil {
		return vibesell.Lead{}, fmt.Errorf("read lead %s: %w", email, err)
	}
	if len(out) == 0 {
		return vibesell.Lead{}, vibesell.Errorf(vibesell.ENOTFOUND,
			"%s is not one of the workspace's imported leads (or it was suppressed or removed). Name an imported lead's address, or leave lead out to use the first one.", email)
	}
	return out[0], nil
}
