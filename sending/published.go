package sending

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// DKIMRecordFunc gives the DKIM record a domain publishes: the public half
// of the key the sending engine signs the domain's mail with (the engine
// makes the key the first time it is asked).
type DKIMRecordFunc func(ctx context.Context, ws uuid.UUID, domain string) (Record, error)

// PublishedTXT returns the TXT values the workspace's sending setup
// publishes at name (the SPF, DKIM and DMARC records of its ordered
// domains, once they are ready): the DNS as the workspace set it up, for
// checking a signature without asking the internet.
func (s *Service) PublishedTXT(ctx context.Context, ws uuid.UUID, name string) ([]string, error) {
	rows, err := s.db.Query(ctx, `
		SELECT r.value FROM sending_dns_records r
		  JOIN sending_domains d ON d.workspace_id = r.workspace_id AND d.domain = r.domain
		 WHERE r.workspace_id = $1 AND lower(r.host) = lower($2) AND r.type IN ('SPF', 'DKIM', 'DMARC')
		   AND d.status = 'ordered' AND d.ready_at <= $3
		 ORDER BY r.type`, ws, name, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("published records at %s: %w", name, err)
	}
	values, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("published records at %s: %w", name, err)
	}
	return values, nil
}
