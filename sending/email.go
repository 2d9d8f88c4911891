package sending

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/cards"
	"vibesell/store"
	"vibesell/workspace"
)

// ProposeEmailRequest is what propose_email was asked: the feature's
// input and the identity of the cards it asks.
type ProposeEmailRequest struct {
	SenderNames []string `json:"senderNames"` // the people the emails are signed by, "Ada Lovelace"
}

// Address is one sending address to create.
type Address struct {
	Address      string
	Domain       string
	SenderName   string // "" when the person wrote the address themselves
	Prewarmed    bool
	MonthlyPrice vibesell.Money
}

// EmailStep is the settled answer to "how should the addresses look": the
// exact addresses that will be created.
type EmailStep struct {
	Style        string // the choice id, or "own_words"
	StyleLabel   string
	Addresses    []Address
	Domains      []string
	MonthlyCost  vibesell.Money // the mailboxes, per month
	YearlyCost   vibesell.Money // the domains, per year
	ReadyOn      time.Time
	FullVolumeOn time.Time
	ChosenAt     time.Time
	Sandbox      bool // nothing is real or charged
	Next         workspace.NextStep
}

// sender is a name split for addresses: lower-case ASCII letters and digits.
type sender struct {
	name, first, last string
}

var localPart = regexp.MustCompile(`([a-z0-9][a-z0-9._+-]{0,63})@`)

// styles are the address styles offered: each an order of formats, tried
// for every sender until a domain has its mailboxes.
var styles = []struct {
	id, label string
	formats   []string
}{
	{"first_name", "First name first", []string{"first", "first.last", "f.last", "firstlast", "first.l", "flast"}},
	{"full_name", "Full name", []string{"first.last", "firstlast", "f.last", "first.l", "flast", "first"}},
	{"initial_last", "Initial and last name", []string{"f.last", "flast", "first.l", "first.last", "firstlast", "first"}},
}

func (n sender) format(f string) string {
	if n.last == "" && f != "first" {
		return "" // every other format needs a last name
	}
	switch f {
	case "first":
		return n.first
	case "first.last":
		return n.first + "." + n.last
	case "firstlast":
		return n.first + n.last
	case "f.last":
		return n.first[:1] + "." + n.last
	case "flast":
		return n.first[:1] + n.last
	case "first.l":
		return n.first + "." + n.last[:1]
	}
	return ""
}

// localParts returns m distinct local parts in a style, each with the
// sender it is for; fewer when the names cannot make m.
func localParts(senders []sender, formats []string, m int) (parts, names []string) {
	for _, f := range formats {
		for _, s := range senders {
			p := s.format(f)
			if p == "" || slices.Contains(parts, p) {
				continue
			}
			parts, names = append(parts, p), append(names, s.name)
			if len(parts) == m {
				return parts, names
			}
		}
	}
	return parts, names
}

// ProposeEmail proposes the sending addresses on the workspace's chosen
// domains (not yet ordered), in a few styles built from the senders'
// names, and asks the person to pick one (or write the addresses they
// want). Once settled it records the addresses as planned, replacing
// earlier planned ones.
//
// Refusals (EINVALID): no chosen domains; a name without letters an
// address can use; names that cannot make enough addresses; those of
// package cards.
func (s *Service) ProposeEmail(ctx context.Context, ws uuid.UUID, req ProposeEmailRequest, answers []cards.Answer) (Outcome[EmailStep], error) {
	var senders []sender
	for _, raw := range req.SenderNames {
		sn, err := splitName(raw)
		if err != nil {
			return Outcome[EmailStep]{}, err
		}
		if !slices.ContainsFunc(senders, func(o sender) bool { return o.first == sn.first && o.last == sn.last }) {
			senders = append(senders, sn)
		}
	}
	if len(senders) == 0 {
		return Outcome[EmailStep]{}, vibesell.Errorf(vibesell.EINVALID, "Give senderNames: the people the emails are signed by, like \"Ada Lovelace\".")
	}
	all, err := s.domains(ctx, s.db, ws)
	if err != nil {
		return Outcome[EmailStep]{}, err
	}
	var domains []Domain
	for _, d := range all {
		if d.Status == DomainChosen {
			domains = append(domains, d)
		}
	}
	if len(domains) == 0 {
		return Outcome[EmailStep]{}, vibesell.Errorf(vibesell.EINVALID,
			"No sending domains are picked yet (or all are already ordered).").Then(stepPickNew, stepPickWarmed)
	}
	var newNames []string
	for _, d := range domains {
		if d.Origin == OriginNew {
			newNames = append(newNames, d.Name)
		}
	}
	spread, err := s.newDomainsPlan(ctx, ws, len(newNames))
	if err != nil {
		return Outcome[EmailStep]{}, err
	}
	mailboxesOf := func(d Domain) int {
		if d.Origin == OriginWarmed {
			return d.ShelfMailboxes
		}
		return spread[slices.Index(newNames, d.Name)]
	}
	flow, err := s.cards.Begin(ctx, ws, vibesell.ToolProposeEmail, req, answers)
	if err != nil {
		return Outcome[EmailStep]{}, err
	}

	names := make([]string, len(domains))
	for i, d := range domains {
		names[i] = d.Name
	}
	q := cards.Question{
		Topic:    "addresses",
		Question: fmt.Sprintf("How should the sending addresses on %s look?", vibesell.JoinAnd(names)),
		Reason: "This decides the exact addresses your emails are signed from. Nothing is created or billed by answering: " +
			"the addresses are created only when the order is approved.",
		AllowFreeText: true,
		CheckFreeText: func(ctx context.Context, text string) error {
			if len(ownParts(text)) == 0 {
				return vibesell.Errorf(vibesell.EINVALID,
					"No addresses could be read from %q. Ask the person to write the part before the @ of each address, like \"ada@ and sales@\", or answer with a choice id.", text)
			}
			return nil
		},
	}
	byStyle := map[string][]Address{}
	for _, st := range styles {
		var addrs []Address
		var example []string
		for i, d := range domains {
			m := mailboxesOf(d)
			parts, who := localParts(senders, st.formats, m)
			if len(parts) < m {
				return Outcome[EmailStep]{}, vibesell.Errorf(vibesell.EINVALID,
					"The names given make only %s per domain, and %s needs %d. Give full names (first and last), or more people who send.",
					vibesell.Plural(len(parts), "distinct address", "distinct addresses"), d.Name, m)
			}
			for j, p := range parts {
				addrs = append(addrs, s.address(d, p+"@"+d.Name, who[j]))
				if i == 0 {
					example = append(example, p+"@")
				}
			}
		}
		byStyle[st.id] = addrs
		q.Choices = append(q.Choices, cards.Choice{
			ID:          st.id,
			Label:       fmt.Sprintf("%s: %s", st.label, strings.Join(example, ", ")),
			Description: "Creates " + addressList(addrs) + "." + signsMore(senders, addrs[:mailboxesOf(domains[0])], domains[0].Name),
		})
	}
	ans, card, err := flow.Ask(ctx, q)
	if err != nil {
		return Outcome[EmailStep]{}, err
	}
	if card != nil {
		return asked[EmailStep](s, flow, card, nil), nil
	}

	step := EmailStep{Domains: names, ChosenAt: ans.AnsweredAt}
	var notes []string
	if ans.Choice != nil {
		step.Style, step.StyleLabel = ans.Choice.ID, ans.Choice.Label
		step.Addresses = byStyle[ans.Choice.ID]
	} else {
		parts := ownParts(ans.Answer)
		signers := signersOf(senders, parts)
		shown := make([]string, len(parts))
		for i, p := range parts {
			shown[i] = p + "@"
		}
		// The label is what will be created, not the person's sentence
		// repeated back ("ada@ and sales@ please").
		step.Style, step.StyleLabel = "own_words", "Written by you: "+strings.Join(shown, ", ")
		for _, d := range domains {
			for i, p := range parts {
				step.Addresses = append(step.Addresses, s.address(d, p+"@"+d.Name, signers[i]))
			}
			if m := mailboxesOf(d); len(parts) != m {
				notes = append(notes, fmt.Sprintf("%s gets %s as written, where %s planned.", d.Name, vibesell.Plural(len(parts), "address", "addresses"), vibesell.Plural(m, "was", "were")))
			}
		}
	}
	more, err := s.recordAddresses(ctx, ws, names, ans, step.Addresses)
	if err != nil {
		return Outcome[EmailStep]{}, err
	}
	hasSizing, err := s.hasSizing(ctx, ws)
	if err != nil {
		return Outcome[EmailStep]{}, err
	}
	s.explainEmail(&step, domains, hasSizing)
	return settled(s, flow, step, append(notes, more...)), nil
}

// signsMore says why a sender signs more than one address on a domain
// (more mailboxes than senders), so two near-identical addresses for one
// person and one for another do not look like a mistake.
// first are the addresses of the first domain, named domain.
func signsMore(senders []sender, first []Address, domain string) string {
	perDomain := len(first)
	addrs := first
	if perDomain <= len(senders) {
		return ""
	}
	var more []string
	for _, sn := range senders {
		n := 0
		for _, a := range addrs[:perDomain] {
			if a.SenderName == sn.name {
				n++
			}
		}
		if n > 1 {
			more = append(more, fmt.Sprintf("%s signs %d", sn.name, n))
		}
	}
	return fmt.Sprintf(" %s carries %s for %s, so %s.", domain, mailboxesCounted(perDomain).Count(), vibesell.Plural(len(senders), "sender", "senders"), vibesell.JoinAnd(more))
}

// signersOf gives each address the person wrote a sender: the one whose
// name it is built from, else the senders in turn, so every address is
// signed by someone.
func signersOf(senders []sender, parts []string) []string {
	out := make([]string, len(parts))
	next := 0
	for i, p := range parts {
		for _, sn := range senders {
			for _, f := range styles[0].formats {
				if sn.format(f) == p {
					out[i] = sn.name
				}
			}
		}
		if out[i] == "" {
			out[i] = senders[next%len(senders)].name
			next++
		}
	}
	return out
}

func (s *Service) address(d Domain, addr, who string) Address {
	a := Address{Address: addr, Domain: d.Name, SenderName: who, Prewarmed: d.Origin == OriginWarmed, MonthlyPrice: d.MailboxPrice}
	return a
}

func addressList(addrs []Address) string {
	const show = 12
	var list []string
	for i, a := range addrs {
		if i == show {
			list = append(list, fmt.Sprintf("%d more", len(addrs)-show))
			break
		}
		list = append(list, a.Address)
	}
	return vibesell.JoinAnd(list)
}

// ownParts reads the local parts the person wrote ("ada@ and sales@").
func ownParts(text string) []string {
	var out []string
	for _, m := range localPart.FindAllStringSubmatch(strings.ToLower(text), -1) {
		p := strings.TrimRight(m[1], ".-_+")
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// recordAddresses makes addrs the workspace's planned addresses, replacing
// the planned ones before, unless planned ones on record are newer than
// this answer (a stale card replayed).
func (s *Service) recordAddresses(ctx context.Context, ws uuid.UUID, domains []string, ans *cards.Settled, addrs []Address) ([]string, error) {
	var notes []string
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockSetup(ctx, tx, ws); err != nil {
			return err
		}
		var newer bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sending_mailboxes
			WHERE workspace_id = $1 AND status = 'planned' AND planned_at > $2)`, ws, ans.AnsweredAt).Scan(&newer); err != nil {
			return fmt.Errorf("read planned addresses: %w", err)
		}
		if newer {
			notes = append(notes, "This answer is older than the addresses on record, which were chosen later; the later addresses stand (the sending setup shows them).")
			return nil
		}
		var still int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM sending_domains WHERE workspace_id = $1 AND status = 'chosen' AND domain = ANY($2)`,
			ws, domains).Scan(&still); err != nil {
			return fmt.Errorf("read chosen domains: %w", err)
		}
		if still != len(domains) {
			return vibesell.Errorf(vibesell.ECONFLICT, "The picked domains changed while this question was open.").Then(
				stepAddresses)
		}
		list := make([]string, len(addrs))
		for i, a := range addrs {
			list[i] = a.Address
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sending_mailboxes WHERE workspace_id = $1 AND status = 'planned' AND address <> ALL($2)`, ws, list); err != nil {
			return fmt.Errorf("replace planned addresses: %w", err)
		}
		for i, a := range addrs {
			var who *string
			if a.SenderName != "" {
				who = &a.SenderName
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, position)
				VALUES ($1, $2, $3, $4, 'planned', $5, $6, $7, $8, $9, $10)
				ON CONFLICT (workspace_id, address) DO UPDATE SET
				    sender_name = EXCLUDED.sender_name, card = EXCLUDED.card, planned_at = EXCLUDED.planned_at, position = EXCLUDED.position
				WHERE sending_mailboxes.status = 'planned'`,
				ws, a.Address, a.Domain, who, a.Prewarmed, a.MonthlyPrice.Currency, a.MonthlyPrice.Minor, ans.Card, ans.AnsweredAt, i); err != nil {
				return fmt.Errorf("record planned address %s: %w", a.Address, err)
			}
		}
		return nil
	})
	return notes, err
}

func (s *Service) explainEmail(step *EmailStep, domains []Domain, hasSizing bool) {
	step.MonthlyCost, step.YearlyCost = s.money(0), s.money(0)
	for _, a := range step.Addresses {
		step.MonthlyCost = step.MonthlyCost.Plus(a.MonthlyPrice)
	}
	now := s.clock.Now()
	for _, d := range domains {
		step.YearlyCost = step.YearlyCost.Plus(d.YearlyPrice)
		source := SourceOwnNames
		if d.Origin == OriginWarmed {
			source = SourceAlreadyWarmed
		}
		t := s.timeline(now, source)
		if t.ReadyOn.After(step.ReadyOn) {
			step.ReadyOn = t.ReadyOn
		}
		if t.FullVolumeOn.After(step.FullVolumeOn) {
			step.FullVolumeOn = t.FullVolumeOn
		}
	}
	step.Sandbox = s.Sandbox()
	step.Next = workspace.NextStep{Why: fmt.Sprintf("The order sets up %s and %s: %s. Nothing is registered, created or billed until a person approves it.",
		vibesell.Plural(len(domains), "domain", "domains"), vibesell.Plural(len(step.Addresses), "mailbox", "mailboxes"),
		Costs(step.YearlyCost, step.MonthlyCost, len(domains), len(step.Addresses), step.Sandbox)), Next: []vibesell.Next{stepOrder}}
	if !hasSizing {
		step.Next.Why = "Before ordering, confirm the sizing. " + step.Next.Why
		step.Next.Next = append(slices.Clip(stepsSizing), stepOrder)
	}
}

// splitName turns "Ada Lovelace" into first "ada" and last "lovelace", in
// the letters an address can use.
func splitName(raw string) (sender, error) {
	words := strings.Fields(raw)
	var clean []string
	for _, w := range words {
		if c := asciiLetters(w); c != "" {
			clean = append(clean, c)
		}
	}
	if len(clean) == 0 {
		return sender{}, vibesell.Errorf(vibesell.EINVALID,
			"The name %q has no letters an address can use. Give it in Latin letters, for example \"Ada Lovelace\".", raw)
	}
	sn := sender{name: strings.Join(words, " "), first: clean[0]}
	if len(clean) > 1 {
		sn.last = clean[len(clean)-1]
	}
	return sn, nil
}

// folded maps accented Latin letters to the letters addresses use.
var folded = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae", 'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'œ': "oe",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'ÿ': "y", 'ß': "ss", 'ł': "l", 'ś': "s", 'ź': "z", 'ż': "z", 'č': "c",
	'š': "s", 'ž': "z", 'ř': "r", 'ě': "e", 'ů': "u", 'ğ': "g", 'ı': "i", 'ş': "s", 'ń': "n", 'ą': "a", 'ę': "e", 'ő': "o", 'ű': "u",
}

func asciiLetters(w string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case folded[r] != "":
			b.WriteString(folded[r])
		case r < utf8.RuneSelf:
			// apostrophes, hyphens and dots inside names are dropped
		}
	}
	return b.String()
}
