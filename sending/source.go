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
	"vibesell/workspace"
)

// SourceChoice is the settled answer to "Choose your sending addresses".
type SourceChoice struct {
	Source   SourceKind
	Label    string // the choice's label, or "In your own words"
	Text     string // the person's words, for other
	Card     string
	ChosenAt time.Time
	Meaning  string // what the choice means, for the person
	Standing string // what the setup holds now: nothing yet, or what is picked and ordered
	Next     workspace.NextStep
}

// sandboxPrices is what a question showing prices adds in the sandbox.
func (s *Service) sandboxPrices() string {
	if !s.Sandbox() {
		return ""
	}
	return " This is the sandbox: the prices are sandbox amounts, and nothing is ever charged."
}

func (s *Service) sourceQuestion(now time.Time) cards.Question {
	own := s.timeline(now, SourceOwnNames)
	warm := s.timeline(now, SourceAlreadyWarmed)
	return cards.Question{
		Topic:    "source",
		Question: "Choose your sending addresses",
		Reason: "This decides which addresses your cold emails go out from. Nothing is set up, reserved or billed by answering: " +
			"prices are shown again, and approved, before anything is ordered." + s.sandboxPrices(),
		Choices: []cards.Choice{
			{
				ID:    string(SourceAlreadyWarmed),
				Label: "Start sooner",
				Description: fmt.Sprintf("Addresses that are already prepared and warmed up, on domains that are not under your brand's name. "+
					"Handed over %s after ordering (%s if ordered today) and able to send at full volume from then. %s per mailbox per month.",
					vibesell.Plural(s.cfg.WarmedPrepBusinessDays, "business day", "business days"), vibesell.FormatDate(warm.ReadyOn), s.money(s.cfg.WarmedMailboxPrice)),
			},
			{
				ID:    string(SourceOwnNames),
				Label: "Send under my brand",
				Description: fmt.Sprintf("Addresses created for you on lookalike domains of your brand's domain. "+
					"Ready after about %s of preparation, %s not counted (%s if ordered today), then %d days of warmup before full volume (from %s). "+
					"%s per domain per year and %s per mailbox per month.",
					vibesell.Plural(s.cfg.PrepBusinessDays, "business day", "business days"), s.cfg.DaysOff(), vibesell.FormatDate(own.ReadyOn), s.cfg.WarmupDays, vibesell.FormatDate(own.FullVolumeOn),
					s.money(s.cfg.DomainPrice()), s.money(s.cfg.MailboxPrice)),
			},
		},
		AllowFreeText: true,
	}
}

// ChooseSourceRequest is what choose_sending_source was asked: nothing
// but the answers, so every call asks the same cards.
type ChooseSourceRequest struct{}

// ChooseSource asks the person where their emails should go out from, or,
// when the call carries the answer, records it.
//
// Refusals: those of [cards.Service.Begin] and [cards.Flow.Ask].
func (s *Service) ChooseSource(ctx context.Context, ws uuid.UUID, req ChooseSourceRequest, answers []cards.Answer) (Outcome[SourceChoice], error) {
	flow, err := s.cards.Begin(ctx, ws, vibesell.ToolChooseSendingSource, req, answers)
	if err != nil {
		return Outcome[SourceChoice]{}, err
	}
	ans, card, err := flow.Ask(ctx, s.sourceQuestion(s.clock.Now()))
	if err != nil {
		return Outcome[SourceChoice]{}, err
	}
	if card != nil {
		return asked[SourceChoice](s, flow, card, nil), nil
	}

	choice := SourceChoice{Card: ans.Card, ChosenAt: ans.AnsweredAt}
	var text *string
	if ans.Choice != nil {
		choice.Source, choice.Label = SourceKind(ans.Choice.ID), ans.Choice.Label
	} else {
		choice.Source, choice.Label, choice.Text = SourceOther, "In your own words", ans.Answer
		text = &choice.Text
	}
	var notes []string
	rows, onRecord := s.sourceOnRecord(ctx, ws, ans)
	if !onRecord {
		if choice, notes, rows, err = s.recordSource(ctx, ws, choice, text); err != nil {
			return Outcome[SourceChoice]{}, err
		}
	}
	// An order waiting for the person's decision is the next step, not
	// another order.
	st, err := s.withPendingOrder(ctx, ws, s.SetupFrom(rows))
	if err != nil {
		return Outcome[SourceChoice]{}, err
	}
	s.explainSource(&choice, st)
	return settled(s, flow, choice, notes), nil
}

// sourcesKept bounds the workspaces whose setup rows a replica keeps for
// replayed answers.
const sourcesKept = 10_000

// sourceOnRecord reports whether ans, an answer the card had before this
// call, is the source the workspace records (then nothing is to be
// written), with the setup's rows, from what this replica keeps while the
// workspace's context stamp stands (every table of the setup moves it): a
// replayed answer then reads nothing, and still says where the setup
// stands now. It says no when it cannot tell.
func (s *Service) sourceOnRecord(ctx context.Context, ws uuid.UUID, ans *cards.Settled) (Rows, bool) {
	if !ans.OnRecord || s.contexts == nil {
		return Rows{}, false
	}
	// Made on first use: a replica that never replays keeps nothing.
	s.sourcesOnce.Do(func() {
		s.sources = workspace.NewContextCache(s.contexts, sourcesKept, s.QueueRows)
	})
	rows, err := s.sources.Read(ctx, ws)
	if err != nil || rows.r.source == nil || rows.r.source.Card != ans.Card {
		return Rows{}, false // recordSource writes, or reads, and says
	}
	return rows, true
}

// recordSource records choice as the workspace's source (text: the
// person's words, for other), unless a later answer is on record: then the
// one on record is returned, with a note saying so. It also returns the
// setup's rows as they are once recorded: the answer says where the setup
// stands now.
//
// It is one round trip, in one batch, which PostgreSQL runs as one
// transaction: the record, then the reads of the setup. An answer already
// on record (the same card answered again) writes, locks and waits for
// nothing.
func (s *Service) recordSource(ctx context.Context, ws uuid.UUID, choice SourceChoice, text *string) (SourceChoice, []string, Rows, error) {
	b := &pgx.Batch{}
	// An answer older than the one on record (a stale card replayed)
	// does not undo the newer decision.
	b.Queue(`
		INSERT INTO sending_setups AS s (workspace_id, source, source_text, source_card, source_chosen_at, updated_at)
		SELECT $1::uuid, $2::text, $3::text, $4::text, $5::timestamptz, now()
		WHERE NOT EXISTS (SELECT 1 FROM sending_setups WHERE workspace_id = $1 AND source_card = $4)
		ON CONFLICT (workspace_id) DO UPDATE
		SET source = excluded.source, source_text = excluded.source_text, source_card = excluded.source_card,
		    source_chosen_at = excluded.source_chosen_at, updated_at = excluded.updated_at
		WHERE s.source_card IS DISTINCT FROM excluded.source_card
		  AND (s.source_chosen_at IS NULL OR s.source_chosen_at <= excluded.source_chosen_at)`,
		ws, choice.Source, text, choice.Card, choice.ChosenAt)
	done := s.QueueRows(b, ws)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return SourceChoice{}, nil, Rows{}, fmt.Errorf("record sending source: %w", err)
	}
	rows, err := done()
	if err != nil {
		return SourceChoice{}, nil, Rows{}, err
	}
	var notes []string
	if rec := rows.r.source; rec != nil && rec.Card != choice.Card {
		notes = append(notes, fmt.Sprintf("Card %s was answered earlier than the choice on record (card %s, answered %s), so the later choice stands.",
			choice.Card, rec.Card, vibesell.FormatDate(rec.ChosenAt)))
		choice = SourceChoice{Source: rec.Source, Text: rec.Text, Card: rec.Card, ChosenAt: rec.ChosenAt, Label: sourceLabel(rec.Source)}
	}
	return choice, notes, rows, nil
}

func sourceLabel(source SourceKind) string {
	switch source {
	case SourceAlreadyWarmed:
		return "Start sooner"
	case SourceOwnNames:
		return "Send under my brand"
	}
	return "In your own words"
}

// explainSource says what the choice means and what comes next, from the
// setup as it stands now (st): an answer given again once the setup is
// ordered, ready or warm says so, and its next step is the setup's.
func (s *Service) explainSource(c *SourceChoice, st Setup) {
	var sizing []vibesell.Next
	if st.Sizing == nil {
		sizing = append(sizing, stepSize) // if the person does not know yet how many they need
	}
	c.Standing = st.Standing()
	origin := OriginNew
	switch c.Source {
	case SourceAlreadyWarmed:
		origin = OriginWarmed
		c.Meaning = "Your emails will go out from addresses that are already prepared and warmed up, on domains that are not under your brand's name, so you can start sooner."
		c.Next = workspace.NextStep{Next: append([]vibesell.Next{stepPickWarmed}, sizing...)}
	case SourceOwnNames:
		c.Meaning = "Your emails will go out from new addresses created for you on lookalike domains of your brand, after preparation and warmup."
		c.Next = workspace.NextStep{Next: append([]vibesell.Next{stepPickNew}, sizing...)}
	default:
		c.Meaning = fmt.Sprintf("You described your own arrangement: %q. VibeSell sets up either already-warmed addresses or new addresses under your brand; it does not set anything up for other arrangements by itself.", c.Text)
		c.Next = workspace.NextStep{Why: "If the person meant one of the two options after all, ask again (without answers).", Next: []vibesell.Next{stepSupport, stepChooseSource}}
		return
	}
	// Domains of this source are picked or ordered already: the next step
	// is the setup's, whatever it needs now.
	if slices.ContainsFunc(st.Domains, func(d DomainStatus) bool { return d.Origin == origin }) {
		if st.DomainCount(DomainChosen) < len(st.Domains) {
			c.Meaning = strings.Replace(strings.Replace(c.Meaning, "will go out", "go out", 1), ", after preparation and warmup", "", 1)
		}
		c.Next = st.Next
	}
}

func (s *Service) hasSizing(ctx context.Context, ws uuid.UUID) (bool, error) {
	var ok bool
	if err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sending_sizings WHERE workspace_id = $1)`, ws).Scan(&ok); err != nil {
		return false, fmt.Errorf("read sizing: %w", err)
	}
	return ok, nil
}

// keepSource is the answer that keeps the source on record.
const keepSource = "keep"

// beginPicks begins tool's flow of picking domains of source's kind: how
// many (count, or the sizing's) and, before any pick, whether the
// workspace's source agrees (confirmSource). Without a flow (nil), done is
// the outcome to give at once: the person is asked about the source or
// keeps the one on record, or err refuses.
func (s *Service) beginPicks(ctx context.Context, ws uuid.UUID, tool string, req any, count int, source SourceKind, answers []cards.Answer) (n int, flow *cards.Flow, done Outcome[DomainsChoice], err error) {
	if n, err = s.domainCount(ctx, ws, count, source); err != nil {
		return 0, nil, done, err
	}
	if flow, err = s.cards.Begin(ctx, ws, tool, req, answers); err != nil {
		return 0, nil, done, err
	}
	card, kept, err := s.confirmSource(ctx, ws, flow, source)
	switch {
	case err != nil:
		return 0, nil, done, err
	case card != nil:
		return 0, nil, asked[DomainsChoice](s, flow, card, nil), nil
	case kept != nil:
		return 0, nil, settled(s, flow, *kept, nil), nil
	}
	return n, flow, done, nil
}

// confirmSource makes sure picks of want's kind agree with the source the
// workspace chose: mixed, the setup would send under both. When the other
// source is on record it asks the person first, in flow, whether to switch
// (and records the switch). It returns the card to put to the person, or
// the settled decision when the person keeps the source on record (then
// no picks are made: the answer is theirs to give, not a mistake), or
// neither when the picks may go ahead.
func (s *Service) confirmSource(ctx context.Context, ws uuid.UUID, flow *cards.Flow, want SourceKind) (*cards.Card, *DomainsChoice, error) {
	src, err := s.source(ctx, s.db, ws)
	if err != nil || src == nil || src.Source == want || src.Source == SourceOther {
		return nil, nil, err
	}
	q := cards.Question{
		Topic: "source-switch",
		Reason: "Your emails go out either from addresses under your brand or from already-warmed ones, not both. " +
			"Nothing is set up, reserved or billed by answering.",
		Choices: []cards.Choice{
			{ID: string(want), Label: sourceLabel(want)},
			{ID: keepSource, Label: keepLabel(src.Source)},
		},
	}
	if want == SourceOwnNames {
		q.Question = "You chose to start sooner with already-warmed addresses. Send under your brand instead?"
		q.Choices[0].Description = "Switch to new addresses on lookalike domains of your brand; the domains are proposed next."
		q.Choices[1].Description = "Stay with already-warmed addresses; no new domains are picked."
	} else {
		q.Question = "You chose to send under your brand. Start sooner with already-warmed addresses instead?"
		q.Choices[0].Description = "Switch to already-warmed addresses; the domains on offer are proposed next."
		q.Choices[1].Description = "Stay with new addresses under your brand; no already-warmed domains are picked."
	}
	ans, card, err := flow.Ask(ctx, q)
	if err != nil || card != nil {
		return card, nil, err
	}
	if ans.Answer == keepSource {
		kept := &DomainsChoice{Decision: DecisionSource, Kept: src.Source, KeptLabel: keepLabel(src.Source), ChosenAt: ans.AnsweredAt, Picks: []DomainPick{}}
		if src.Source == SourceOwnNames {
			kept.Meaning = "You keep sending under your brand, from new addresses on lookalike domains, so no already-warmed domains are picked: the two would mix. Nothing was picked, set up, reserved or billed."
			kept.Next = workspace.NextStep{Why: "The person keeps their source.", Next: []vibesell.Next{
				stepPickNew, stepSeeSetup}}
		} else {
			kept.Meaning = "You keep already-warmed addresses, so no new domains under your brand are picked: the two would mix. Nothing was picked, set up, reserved or billed."
			kept.Next = workspace.NextStep{Why: "The person keeps their source.", Next: []vibesell.Next{
				stepPickWarmed, stepSeeSetup}}
		}
		return nil, kept, nil
	}
	_, _, _, err = s.recordSource(ctx, ws, SourceChoice{Source: want, Label: sourceLabel(want), Card: ans.Card, ChosenAt: ans.AnsweredAt}, nil)
	return nil, nil, err
}

// keepLabel is the choice that keeps source.
func keepLabel(source SourceKind) string { return "Keep " + strings.ToLower(sourceLabel(source)) }
