package sending

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/cards"
)

// ShelfItem is one already-warmed domain on offer, priced.
type ShelfItem struct {
	Domain       string
	RegisteredOn time.Time
	AgeDays      int
	Mailboxes    int
	Reputation   *int
	YearlyPrice  vibesell.Money // the domain, per year
	MailboxPrice vibesell.Money // one mailbox, per month
	MonthlyPrice vibesell.Money // all its mailboxes, per month
	ReadyOn      time.Time
}

// ShelfPage is one page of the warmed shelf.
type ShelfPage struct {
	Provider   string
	Items      []ShelfItem
	Total      int    // domains on the shelf now
	NextCursor string // "" on the last page
}

// shelf returns what is on the warmed shelf now, sorted by domain: the
// provider's list without the domains any workspace has ordered.
func (s *Service) shelfNow(ctx context.Context) ([]ShelfItem, error) {
	list, err := s.shelf.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the warmed shelf: %w", err)
	}
	names := make([]string, len(list))
	for i, d := range list {
		names[i] = d.Domain
	}
	// Which shelf domains are sold is the one thing read across
	// workspaces: a domain can be sold once, and only its name is read.
	rows, err := s.db.Query(ctx, `SELECT domain FROM sending_domains WHERE status = 'ordered' AND domain = ANY($1)`, names)
	if err != nil {
		return nil, fmt.Errorf("read sold shelf domains: %w", err)
	}
	sold, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read sold shelf domains: %w", err)
	}
	now := s.clock.Now()
	ready := s.timeline(now, SourceAlreadyWarmed).ReadyOn
	var out []ShelfItem
	for _, d := range list {
		if slices.Contains(sold, d.Domain) {
			continue
		}
		price := s.money(s.cfg.WarmedMailboxPrice)
		out = append(out, ShelfItem{
			Domain: d.Domain, RegisteredOn: d.RegisteredOn, AgeDays: int(day(now).Sub(day(d.RegisteredOn)).Hours() / 24),
			Mailboxes: d.Mailboxes, Reputation: d.Reputation,
			YearlyPrice: s.money(s.cfg.DomainPrice()), MailboxPrice: price, MonthlyPrice: price.Times(d.Mailboxes),
			ReadyOn: ready,
		})
	}
	slices.SortFunc(out, func(a, b ShelfItem) int { return strings.Compare(a.Domain, b.Domain) })
	return out, nil
}

// ListWarmed returns a page of the warmed shelf as it is now: limit items
// after cursor (the last domain of the previous page; "" for the first).
func (s *Service) ListWarmed(ctx context.Context, ws uuid.UUID, limit int, cursor string) (ShelfPage, error) {
	items, err := s.shelfNow(ctx)
	if err != nil {
		return ShelfPage{}, err
	}
	if limit <= 0 {
		limit = 20
	}
	page := ShelfPage{Provider: s.shelf.Name(), Total: len(items)}
	start := 0
	if cursor != "" {
		start = len(items)
		for i, it := range items {
			if it.Domain > cursor {
				start = i
				break
			}
		}
	}
	end := min(start+limit, len(items))
	page.Items = items[start:end]
	if end < len(items) {
		page.NextCursor = items[end-1].Domain
	}
	return page, nil
}

// ProposeWarmedRequest is what propose_warmed_domains was asked: the
// feature's input and the identity of the cards it asks.
type ProposeWarmedRequest struct {
	Count int `json:"count,omitempty"` // how many domains; 0 means the confirmed sizing's, or 1
}

// ProposeWarmed offers domains from the warmed shelf and asks the person to
// pick as many as asked, one card per domain. Once settled it records them
// as the workspace's chosen warmed domains (replacing earlier warmed picks
// not yet ordered).
//
// Refusals (EINVALID): the workspace chose to send under its brand; fewer
// domains on the shelf than asked for; those of package cards.
func (s *Service) ProposeWarmed(ctx context.Context, ws uuid.UUID, req ProposeWarmedRequest, answers []cards.Answer) (Outcome[DomainsChoice], error) {
	n, flow, done, err := s.beginPicks(ctx, ws, vibesell.ToolProposeWarmedDomains, req, req.Count, SourceAlreadyWarmed, answers)
	if flow == nil {
		return done, err
	}
	items, err := s.shelfNow(ctx)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	if len(items) < n {
		return Outcome[DomainsChoice]{}, vibesell.Errorf(vibesell.EINVALID,
			"Only %s already warmed up %s on offer right now, fewer than the %d asked for. Ask for fewer with count, or add new domains under your brand.",
			vibesell.Plural(len(items), "domain", "domains"), pickWord(len(items) == 1, "is", "are"), n).Then(
			stepPickNew)
	}
	sandbox := s.shelf.Name() == SandboxName
	var picks []DomainPick
	for k := 1; k <= n; k++ {
		q := cards.Question{
			Topic:    fmt.Sprintf("warmed-%d", k),
			Question: warmedQuestion(k, n),
			Reason: "Your addresses will be on this domain; it has been sending warmup emails for months, so it can send at full volume soon after handover. " +
				"Nothing is reserved or billed by answering, and the domain stays on offer to others until the order is approved." + s.sandboxPrices(),
		}
		for _, it := range items {
			if slices.ContainsFunc(picks, func(p DomainPick) bool { return p.Domain == it.Domain }) {
				continue
			}
			desc := fmt.Sprintf("Registered %s (%s ago)%s; handed over %s if ordered today; plus %s per year for the domain.",
				vibesell.FormatDate(it.RegisteredOn), Age(it.AgeDays), reputationPhrase(it.Reputation), vibesell.FormatDate(it.ReadyOn), it.YearlyPrice)
			if sandbox {
				desc += " Sandbox: not a real domain, and nothing is charged."
			}
			q.Choices = append(q.Choices, cards.Choice{
				ID:          it.Domain,
				Label:       fmt.Sprintf("%s, %s, %s per month", it.Domain, vibesell.Plural(it.Mailboxes, "mailbox", "mailboxes"), it.MonthlyPrice),
				Description: desc,
			})
		}
		ans, card, err := flow.Ask(ctx, q)
		if err != nil {
			return Outcome[DomainsChoice]{}, err
		}
		if card != nil {
			return asked[DomainsChoice](s, flow, card, nil), nil
		}
		it := items[slices.IndexFunc(items, func(it ShelfItem) bool { return it.Domain == ans.Answer })]
		reg := it.RegisteredOn
		picks = append(picks, DomainPick{
			Domain: it.Domain, Origin: OriginWarmed, YearlyPrice: it.YearlyPrice, MailboxPrice: it.MailboxPrice,
			Mailboxes: it.Mailboxes, ReadyOn: it.ReadyOn, RegisteredOn: &reg, Reputation: it.Reputation, card: ans.Card, answeredAt: ans.AnsweredAt,
		})
	}
	choice := DomainsChoice{Decision: DecisionWarmedDomains, Picks: picks, Provider: s.shelf.Name()}
	notes, err := s.recordPicks(ctx, ws, OriginWarmed, picks, &choice)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	s.explainDomains(&choice)
	return settled(s, flow, choice, notes), nil
}

func warmedQuestion(k, n int) string {
	if n == 1 {
		return "Which already-warmed domain should your emails go out from?"
	}
	return fmt.Sprintf("Which already-warmed domain should be sending domain %d of %d?", k, n)
}

func reputationPhrase(r *int) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("; reputation %d of 100", *r)
}

// Age writes a domain's age in days as a reader would say it, the one
// way every text gives it: "45 days", "8 months", "2 years".
func Age(days int) string {
	switch {
	case days < 60:
		return vibesell.Plural(days, "day", "days")
	case days < 730:
		return vibesell.Plural(days/30, "month", "months")
	}
	return vibesell.Plural(days/365, "year", "years")
}
