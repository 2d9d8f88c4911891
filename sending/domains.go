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
	"vibesell/store"
	"vibesell/workspace"
)

// Quote is what one domain name would cost and whether it can be had.
type Quote struct {
	Domain      string
	Available   *bool           // nil: the check could not complete
	YearlyPrice *vibesell.Money // nil: VibeSell does not sell names under this top-level domain
	Reason      string          // why the name cannot be had, or why availability is unknown; "" when it can be had
}

// Quotes are the answers for several names, checked together.
type Quotes struct {
	Provider  string // what answered: rdap or sandbox
	CheckedAt time.Time
	Quotes    []Quote
}

// MaxCheck is the most names one availability check takes.
const MaxCheck = 20

// CheckDomains checks whether each name can be registered, and what it
// costs per year. It records nothing.
//
// Refusals (EINVALID): a name that is not a domain name; more than
// [MaxCheck] names.
func (s *Service) CheckDomains(ctx context.Context, ws uuid.UUID, names []string) (Quotes, error) {
	clean, err := normalizeNames(names, "names")
	if err != nil {
		return Quotes{}, err
	}
	if len(clean) > MaxCheck {
		return Quotes{}, vibesell.Errorf(vibesell.EINVALID, "Check at most %d names at a time; there are %d.", MaxCheck, len(clean))
	}
	return s.quote(ctx, ws, clean)
}

func (s *Service) quote(ctx context.Context, ws uuid.UUID, names []string) (Quotes, error) {
	checks := s.availability.Check(ctx, names)
	// A name ordered through VibeSell is taken, whatever a registry (or the
	// sandbox, which registers nothing) says. Only the names are read
	// across workspaces, never whose they are.
	rows, err := s.db.Query(ctx, `SELECT domain, workspace_id = $2 FROM sending_domains WHERE status = 'ordered' AND domain = ANY($1)`, names, ws)
	if err != nil {
		return Quotes{}, fmt.Errorf("read ordered domains: %w", err)
	}
	ordered := map[string]bool{} // name → ordered by this workspace
	var name string
	var ours bool
	if _, err := pgx.ForEachRow(rows, []any{&name, &ours}, func() error { ordered[name] = ours; return nil }); err != nil {
		return Quotes{}, fmt.Errorf("read ordered domains: %w", err)
	}
	q := Quotes{Provider: s.availability.Name(), CheckedAt: s.clock.Now(), Quotes: make([]Quote, len(names))}
	for i, c := range checks {
		qt := Quote{Domain: c.Domain, Available: c.Available, Reason: c.Reason}
		if ours, ok := ordered[c.Domain]; ok {
			no := false
			qt.Available, qt.Reason = &no, "already registered"
			if ours {
				qt.Reason = "already part of your sending setup"
			}
		}
		tld := tldOf(c.Domain)
		if s.cfg.sellable(tld) {
			p := s.money(s.cfg.DomainPrices[tld])
			qt.YearlyPrice = &p
		} else {
			why := fmt.Sprintf("VibeSell registers %s names only", vibesell.JoinAnd(s.cfg.SoldTLDs()))
			if qt.Reason == "" {
				qt.Reason = why
			} else {
				qt.Reason += "; also, " + why
			}
		}
		q.Quotes[i] = qt
	}
	return q, nil
}

// canHave reports whether a quoted name can be registered now.
func (q Quote) canHave() bool {
	return q.Available != nil && *q.Available && q.YearlyPrice != nil
}

func normalizeNames(names []string, arg string) ([]string, error) {
	var out []string
	for _, n := range names {
		d, err := workspace.NormalizeDomain(n)
		if err != nil {
			return nil, vibesell.Errorf(vibesell.EINVALID, "%q in %s is not a domain name; give names like acme-mail.com.", n, arg)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}

func tldOf(domain string) string { return domain[strings.LastIndex(domain, ".")+1:] }

// Lookalikes returns names that look like company's domain, in a fixed
// order: the brand with a short prefix or suffix, under .com and, when it
// is sold and not .com, the company's own top-level domain.
func (s *Service) Lookalikes(company string) []string {
	labels := strings.Split(company, ".")
	brand := labels[0]
	if len(labels) > 2 && len(labels[len(labels)-2]) <= 3 {
		// acme.co.uk: the brand is the label before the public suffix.
		brand = labels[len(labels)-3]
	} else if len(labels) > 2 {
		brand = labels[len(labels)-2]
	}
	tlds := []string{"com"}
	if t := tldOf(company); t != "com" && s.cfg.sellable(t) {
		tlds = append(tlds, t)
	}
	forms := []string{
		"get%s", "try%s", "%shq", "%smail", "use%s", "%steam", "hello%s", "join%s",
		"%s-mail", "meet%s", "%sapp", "go%s", "%snow", "with%s", "%slabs", "%s-team",
	}
	var out []string
	for _, tld := range tlds {
		if !s.cfg.sellable(tld) {
			continue
		}
		for _, f := range forms {
			label := fmt.Sprintf(f, brand)
			if len(label) > 63 {
				continue
			}
			name := label + "." + tld
			if name != company {
				out = append(out, name)
			}
		}
	}
	return out
}

// DomainPick is a domain the person picked.
type DomainPick struct {
	Domain       string
	Origin       Origin
	YearlyPrice  vibesell.Money
	MailboxPrice vibesell.Money // per mailbox per month
	Mailboxes    int            // the mailboxes it will carry
	ReadyOn      time.Time
	RegisteredOn *time.Time // warmed: registered on
	Reputation   *int       // warmed

	card       string    // the card it was picked on
	answeredAt time.Time // when
}

// DomainsChoice is the settled answer to the domain questions.
type DomainsChoice struct {
	Decision Decision
	// Kept is the source the person kept when asked to switch (Decision
	// is then DecisionSource and nothing is picked), with the choice's
	// label; "" otherwise.
	Kept      SourceKind
	KeptLabel string
	Picks     []DomainPick
	Provider  string
	ChosenAt  time.Time
	Meaning   string
	Next      workspace.NextStep
}

// ProposeDomainsRequest is what propose_domains was asked: the feature's
// input and, in its canonical form, the identity of the cards it asks
// (written with the tool's argument names, which the card's arguments
// are).
type ProposeDomainsRequest struct {
	CompanyDomain string   `json:"companyDomain,omitempty"` // "" means the offer's
	Count         int      `json:"count,omitempty"`         // how many domains; 0 means the confirmed sizing's, or 1
	Include       []string `json:"include,omitempty"`       // names the person thought of, offered first when they can be had
}

// canonical writes the request in one form: domain names as names
// ("https://www.Acme.com/" is acme.com), each name once, so that the same
// request written differently asks the same cards.
//
// Refusals (EINVALID): a name that is not a domain name.
func (r ProposeDomainsRequest) canonical() (ProposeDomainsRequest, error) {
	if strings.TrimSpace(r.CompanyDomain) != "" {
		d, err := workspace.NormalizeDomain(r.CompanyDomain)
		if err != nil {
			return r, vibesell.Errorf(vibesell.EINVALID, "companyDomain %q is not a domain name; give it like acme.com.", r.CompanyDomain)
		}
		r.CompanyDomain = d
	} else {
		r.CompanyDomain = ""
	}
	include, err := normalizeNames(r.Include, "include")
	r.Include = include
	return r, err
}

// maxLookalikeChoices bounds the generated names offered on one card.
const maxLookalikeChoices = 6

// MaxDomains is the most domains one flow picks.
const MaxDomains = 10

// ProposeDomains offers lookalike domains of the company's domain that the
// availability check passes, with their yearly price, and asks the person
// to pick as many as asked, one card per domain. Once every pick is
// settled it records them as the workspace's chosen new domains (replacing
// earlier picks not yet ordered).
//
// Refusals (EINVALID): the workspace chose already-warmed addresses; no
// company domain to start from; a malformed name;
// fewer names available than domains asked for; those of package cards.
func (s *Service) ProposeDomains(ctx context.Context, ws uuid.UUID, req ProposeDomainsRequest, answers []cards.Answer) (Outcome[DomainsChoice], error) {
	req, err := req.canonical()
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	company, err := s.companyDomain(ctx, ws, req.CompanyDomain)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	include := req.Include
	n, flow, done, err := s.beginPicks(ctx, ws, vibesell.ToolProposeDomains, req, req.Count, SourceOwnNames, answers)
	if flow == nil {
		return done, err
	}

	taken, err := s.orderedDomains(ctx, ws)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	var names []string
	for _, name := range append(slices.Clone(include), s.Lookalikes(company)...) {
		if !slices.Contains(names, name) && !slices.Contains(taken, name) && name != company {
			names = append(names, name)
		}
	}
	quotes, err := s.quote(ctx, ws, names)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	var offered []Quote
	var notes []string
	lookalikes := 0
	for _, q := range quotes.Quotes {
		own := slices.Contains(include, q.Domain)
		switch {
		case q.canHave() && (own || lookalikes < maxLookalikeChoices):
			offered = append(offered, q)
			if !own {
				lookalikes++
			}
		case own:
			notes = append(notes, fmt.Sprintf("%s cannot be offered: %s.", q.Domain, orDefault(q.Reason, "it is not available")))
		}
	}
	if len(offered) < n {
		return Outcome[DomainsChoice]{}, vibesell.Errorf(vibesell.EINVALID,
			"Only %s that look like %s can be registered right now, and %d %s asked for. Ask for fewer with count, or add names the person likes with include.",
			vibesell.Plural(len(offered), "name", "names"), company, n, pickWord(n == 1, "was", "were")).Then(
			stepCheckNames)
	}

	readyOn := s.timeline(s.clock.Now(), SourceOwnNames).ReadyOn
	spread, err := s.newDomainsPlan(ctx, ws, n)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	var picks []DomainPick
	for k := 1; k <= n; k++ {
		q := cards.Question{
			Topic:    fmt.Sprintf("domain-%d", k),
			Question: domainQuestion(k, n, company),
			Reason: fmt.Sprintf("Your addresses are created on this domain, not on %s, so cold email never puts your main domain's reputation at risk. "+
				"Nothing is registered, reserved or billed by answering: the order, with its price, is approved later. "+
				"Names are offered only when the availability check passed just now.%s", company, s.sandboxPrices()),
		}
		for _, o := range offered {
			if slices.ContainsFunc(picks, func(p DomainPick) bool { return p.Domain == o.Domain }) {
				continue
			}
			desc := fmt.Sprintf("Available now (checked with %s).", quotes.Provider)
			if quotes.Provider == SandboxName {
				desc = "Available in the sandbox: no real registry was checked."
			}
			if slices.Contains(include, o.Domain) {
				desc = "Your own suggestion. " + desc
			}
			q.Choices = append(q.Choices, cards.Choice{ID: o.Domain, Label: fmt.Sprintf("%s, %s per year", o.Domain, *o.YearlyPrice), Description: desc})
		}
		ans, card, err := flow.Ask(ctx, q)
		if err != nil {
			return Outcome[DomainsChoice]{}, err
		}
		if card != nil {
			if quotes.Provider == SandboxName {
				notes = append(notes, "Sandbox: availability comes from the sandbox; no real registry was checked.")
			}
			return asked[DomainsChoice](s, flow, card, notes), nil
		}
		o := offered[slices.IndexFunc(offered, func(q Quote) bool { return q.Domain == ans.Answer })]
		picks = append(picks, DomainPick{
			Domain: o.Domain, Origin: OriginNew, YearlyPrice: *o.YearlyPrice, MailboxPrice: s.money(s.cfg.MailboxPrice),
			Mailboxes: spread[k-1], ReadyOn: readyOn, card: ans.Card, answeredAt: ans.AnsweredAt,
		})
	}
	choice := DomainsChoice{Decision: DecisionDomains, Picks: picks, Provider: quotes.Provider}
	more, err := s.recordPicks(ctx, ws, OriginNew, picks, &choice)
	if err != nil {
		return Outcome[DomainsChoice]{}, err
	}
	s.explainDomains(&choice)
	return settled(s, flow, choice, append(notes, more...)), nil
}

func domainQuestion(k, n int, company string) string {
	if n == 1 {
		return fmt.Sprintf("Which domain should your emails go out from, instead of %s?", company)
	}
	return fmt.Sprintf("Which domain should be sending domain %d of %d, instead of %s?", k, n, company)
}

func pickWord(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Service) companyDomain(ctx context.Context, ws uuid.UUID, given string) (string, error) {
	if strings.TrimSpace(given) != "" {
		d, err := workspace.NormalizeDomain(given)
		if err != nil {
			return "", vibesell.Errorf(vibesell.EINVALID, "companyDomain %q is not a domain name; give it like acme.com.", given)
		}
		return d, nil
	}
	offer, err := s.offers.FindOffer(ctx, ws)
	if err != nil {
		return "", err
	}
	if offer == nil || offer.CompanyDomain == "" {
		return "", vibesell.Errorf(vibesell.EINVALID,
			"There is no company domain to build lookalike domains from. Pass companyDomain (like acme.com), or save it in the offer.").Then(
			stepSaveDomain)
	}
	return offer.CompanyDomain, nil
}

// domainCount is how many domains to pick: as asked, else the confirmed
// sizing's when it was for this source, else 1.
func (s *Service) domainCount(ctx context.Context, ws uuid.UUID, asked int, source SourceKind) (int, error) {
	if asked > MaxDomains {
		return 0, vibesell.Errorf(vibesell.EINVALID, "Pick at most %d domains at a time; %d were asked for.", MaxDomains, asked)
	}
	if asked > 0 {
		return asked, nil
	}
	z, err := s.ConfirmedSizing(ctx, ws)
	if err != nil {
		return 0, err
	}
	if z != nil && z.Source == source {
		return min(z.Domains, MaxDomains), nil
	}
	return 1, nil
}

// newDomainMailboxes is how many mailboxes each of n new domains carries:
// the confirmed sizing's mailboxes spread over them as evenly as they go
// (at most its mailboxes per domain, at least one each), so that picks
// made to the sizing add up to it, mailbox for mailbox and price for
// price. A sizing for already-warmed addresses gives its mailboxes per
// domain each; no sizing, the configured number each.
func newDomainMailboxes(z *Sizing, n int, cfg Config) []int {
	out := make([]int, n)
	for i := range out {
		switch {
		case z == nil:
			out[i] = cfg.MailboxesPerDomain
		case z.Source != SourceOwnNames:
			out[i] = z.MailboxesPerDomain
		default:
			even := z.Mailboxes / n
			if i < z.Mailboxes%n {
				even++
			}
			out[i] = max(1, min(even, z.MailboxesPerDomain))
		}
	}
	return out
}

// newDomainsPlan is newDomainMailboxes for n new domains in workspace ws,
// with its confirmed sizing.
func (s *Service) newDomainsPlan(ctx context.Context, ws uuid.UUID, n int) ([]int, error) {
	z, err := s.ConfirmedSizing(ctx, ws)
	if err != nil {
		return nil, err
	}
	return newDomainMailboxes(z, n, s.cfg), nil
}

// orderedDomains lists the domains this workspace has already ordered.
func (s *Service) orderedDomains(ctx context.Context, ws uuid.UUID) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT domain FROM sending_domains WHERE workspace_id = $1 AND status = 'ordered'`, ws)
	if err != nil {
		return nil, fmt.Errorf("read ordered domains: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// recordPicks makes picks the workspace's chosen domains of origin,
// replacing earlier picks of that origin not yet ordered (their planned
// addresses go with them). Picks settled earlier than those on record (a
// stale flow replayed) leave the record alone; choice is then set to what
// is on record and a note says so.
func (s *Service) recordPicks(ctx context.Context, ws uuid.UUID, origin Origin, picks []DomainPick, choice *DomainsChoice) ([]string, error) {
	var at time.Time
	for _, p := range picks {
		if p.answeredAt.After(at) {
			at = p.answeredAt
		}
	}
	choice.ChosenAt = at
	var notes []string
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockSetup(ctx, tx, ws); err != nil {
			return err
		}
		var newer bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sending_domains
			WHERE workspace_id = $1 AND origin = $2 AND status = 'chosen' AND chosen_at > $3)`, ws, origin, at).Scan(&newer); err != nil {
			return fmt.Errorf("read chosen domains: %w", err)
		}
		if newer {
			notes = append(notes, "These answers are older than the domains on record, which were picked later; the later picks stand (the sending setup shows them).")
			return nil
		}
		names := make([]string, len(picks))
		for i, p := range picks {
			names[i] = p.Domain
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sending_domains WHERE workspace_id = $1 AND origin = $2 AND status = 'chosen' AND domain <> ALL($3)`,
			ws, origin, names); err != nil {
			return fmt.Errorf("replace chosen domains: %w", err)
		}
		for i, p := range picks {
			var shelf *int
			if origin == OriginWarmed {
				shelf = &p.Mailboxes
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents,
				    shelf_mailboxes, registered_on, reputation, card, chosen_at, position)
				VALUES ($1, $2, $3, 'chosen', $4, $5, $6, $7, $8, $9, $10, $11, $12)
				ON CONFLICT (workspace_id, domain) DO UPDATE SET
				    origin = EXCLUDED.origin, currency = EXCLUDED.currency, yearly_cents = EXCLUDED.yearly_cents,
				    mailbox_cents = EXCLUDED.mailbox_cents, shelf_mailboxes = EXCLUDED.shelf_mailboxes,
				    registered_on = EXCLUDED.registered_on, reputation = EXCLUDED.reputation,
				    card = EXCLUDED.card, chosen_at = EXCLUDED.chosen_at, position = EXCLUDED.position
				WHERE sending_domains.status = 'chosen'`,
				ws, p.Domain, origin, p.YearlyPrice.Currency, p.YearlyPrice.Minor, p.MailboxPrice.Minor,
				shelf, p.RegisteredOn, p.Reputation, p.card, at, i); err != nil {
				return fmt.Errorf("record chosen domain %s: %w", p.Domain, err)
			}
		}
		return nil
	})
	return notes, err
}

func (s *Service) explainDomains(c *DomainsChoice) {
	var names []string
	var yearly, monthly vibesell.Money
	yearly, monthly = s.money(0), s.money(0)
	mailboxes := 0
	for _, p := range c.Picks {
		names = append(names, p.Domain)
		yearly = yearly.Plus(p.YearlyPrice)
		monthly = monthly.Plus(p.MailboxPrice.Times(p.Mailboxes))
		mailboxes += p.Mailboxes
	}
	what := pickWord(len(names) == 1, "a new domain registered for you", "new domains registered for you")
	if c.Decision == DecisionWarmedDomains {
		what = pickWord(len(names) == 1, "an already-warmed domain that becomes yours", "already-warmed domains that become yours")
	}
	c.Meaning = fmt.Sprintf("Your addresses will be on %s: %s. Nothing is registered or billed yet; once ordered: %s.",
		what, vibesell.JoinAnd(names), Costs(yearly, monthly, len(names), mailboxes, s.Sandbox()))
	c.Next = workspace.NextStep{Next: []vibesell.Next{stepAddresses}}
}
