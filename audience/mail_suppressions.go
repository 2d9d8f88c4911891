package audience

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell/store"
	"vibesell/webhooks"
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

// Suppress adds the address; adding it twice is not an error. An address
// newly suppressed for an unsubscribe or a hard bounce is the workspace's
// webhook event, told in the same transaction.
func (m MailSuppressions) Suppress(ctx context.Context, ws uuid.UUID, address, reason string) error {
	r, ok := mailReasons[reason]
	if !ok {
		return fmt.Errorf("audience: unknown mail suppression reason %q", reason)
	}
	return store.InTx(ctx, m.s.db, func(tx pgx.Tx) error {
		added, err := m.s.suppress(ctx, tx, ws, []string{address}, r)
		if err != nil || len(added.Addresses) == 0 {
			return err
		}
		return m.s.webhooks.Emit(ctx, tx, ws, suppressionEvents(ctx, tx, ws, added.Addresses[0], r)...)
	})
}

// suppressionEvents are the webhook events of an address suppressed for
// reason, naming the workspace's lead of that address when there is one.
func suppressionEvents(ctx context.Context, tx pgx.Tx, ws uuid.UUID, email, reason string) []webhooks.Event {
	lead := webhooks.Lead{Email: email}
	// No lead of that address (a lead removed since): the address alone.
	_ = tx.QueryRow(ctx, `SELECT id, first_name, last_name, company FROM leads WHERE workspace_id = $1 AND email = $2`, ws, email).
		Scan(&lead.ID, &lead.FirstName, &lead.LastName, &lead.Company)
	switch reason {
	case ReasonUnsubscribe:
		return []webhooks.Event{webhooks.LeadUnsubscribed(lead)}
	case ReasonHardBounce:
		return []webhooks.Event{webhooks.LeadBounced(lead)}
	}
	return nil
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
