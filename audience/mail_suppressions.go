package audience

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/store"
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

// Unsubscribed says which of the addresses unsubscribed (or were
// suppressed for a complaint) in the workspace: a campaign's metrics
// count them.
func (m MailSuppressions) Unsubscribed(ctx context.Context, ws uuid.UUID, addresses []string) (map[string]bool, error) {
	rows, err := m.s.db.Query(ctx, `SELECT a FROM unnest($2::text[]) AS a WHERE EXISTS (SELECT 1 FROM suppressions
		WHERE workspace_id = $1 AND kind = 'address' AND value = lower(btrim(a)) AND reason IN ('unsubscribe', 'complaint'))`, ws, addresses)
	if err != nil {
		return nil, fmt.Errorf("read the unsubscribed addresses: %w", err)
	}
	out := map[string]bool{}
	var a string
	if _, err := pgx.ForEachRow(rows, []any{&a}, func() error { out[a] = true; return nil }); err != nil {
		return nil, fmt.Errorf("read the unsubscribed addresses: %w", err)
	}
	return out, nil
}

// SuppressedAmong is [MailSuppressions.Suppressed] for many addresses in
// one read: the ones the workspace must not write to.
func (m MailSuppressions) SuppressedAmong(ctx context.Context, ws uuid.UUID, addresses []string) (map[string]bool, error) {
	return m.SuppressedIn(ctx, m.s.db, ws, addresses)
}

// SuppressedIn is [MailSuppressions.SuppressedAmong] read on db: the
// sending engine's transaction that claims the sends.
func (m MailSuppressions) SuppressedIn(ctx context.Context, db store.DBTX, ws uuid.UUID, addresses []string) (map[string]bool, error) {
	emails, domains := make([]string, 0, len(addresses)), make([]string, 0, len(addresses))
	originals := map[string][]string{}
	for _, a := range addresses {
		email, domain, _, ok := normalEmail(a)
		if !ok {
			continue
		}
		emails, domains = append(emails, email), append(domains, domain)
		originals[email] = append(originals[email], a)
	}
	rows, err := db.Query(ctx, `SELECT e FROM unnest($2::text[], $3::text[]) AS u (e, d) WHERE EXISTS (SELECT 1 FROM suppressions
		WHERE workspace_id = $1 AND ((kind = 'address' AND value = u.e) OR (kind = 'domain' AND value = u.d)))`, ws, emails, domains)
	if err != nil {
		return nil, fmt.Errorf("read the suppression of addresses: %w", err)
	}
	out := map[string]bool{}
	var e string
	if _, err := pgx.ForEachRow(rows, []any{&e}, func() error {
		for _, a := range originals[e] {
			out[a] = true
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the suppression of addresses: %w", err)
	}
	return out, nil
}
