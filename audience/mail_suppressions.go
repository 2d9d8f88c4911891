package audience

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// MailSuppressions is the suppression list as the sending engine asks
// and adds to it (it implements mail.Suppressor): an unsubscribe link, a
// hard bounce or a complaint suppresses the address in its workspace, so
// no import brings it back.
type MailSuppressions struct{ s *Service }

// MailSuppressions returns the list the sending engine uses.
func (s *Service) MailSuppressions() MailSuppressions { return MailSuppressions{s} }

// mailReasons maps the engine's reason words to the audience's.
var mailReasons = map[string]string{
	"unsubscribed": ReasonUnsubscribe,
	"hard_bounce":  ReasonHardBounce,
	"complaint":    ReasonComplaint,
}

// Suppress adds the address; adding it twice is not an error.
func (m MailSuppressions) Suppress(ctx context.Context, ws uuid.UUID, address, reason string) error {
	r, ok := mailReasons[reason]
	if !ok {
		return fmt.Errorf("audience: unknown mail suppression reason %q", reason)
	}
	_, err := m.s.Suppress(ctx, ws, []string{address}, r)
	return err
}

// Suppressed says whether the workspace must not write to the address,
// for itself or for its whole domain.
func (m MailSuppressions) Suppressed(ctx context.Context, ws uuid.UUID, address string) (bool, error) {
	email, domain, _, ok := normalEmail(address)
	if !ok {
		return false, nil
	}
	var suppressed bool
	err := m.s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM suppressions WHERE workspace_id = $1
		AND ((kind = 'address' AND value = $2) OR (kind = 'domain' AND value = $3)))`, ws, email, domain).Scan(&suppressed)
	if err != nil {
		return false, fmt.Errorf("read the suppression of an address: %w", err)
	}
	return suppressed, nil
}
