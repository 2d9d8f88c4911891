package sending

import (
	"context"
	"fmt"
	"strings"
	"time"
	"vibesell"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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
	NextTool string
	NextStep string
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

// ChooseSource asks the person where their emails should go out from, or,
// when the call carries the answer, records it. args are the call's
// arguments (compared, without answers, with the card's).
//
// Refusals: those of [cards.Service.Begin] and [cards.Flow.Ask].
func (s *Service) ChooseSource(ctx context.Context, ws uuid.UUID, args any, answers []cards.Answer) (Outcome[SourceChoice], error) {
	flow, err := s.cards.Begin(ctx, ws, vibesell.ToolChooseSendingSource, args, answers)
	if err != nil {
		return Outcome[SourceChoice]{}, err
	}
	ans, card, err := flow.Ask(ctx, s.sourceQuestion(s.clock.Now()))
	if err != nil {
		return Outcome[SourceChoice]{}, err
	}
	if card != nil {
		return asked[SourceChoice](flow, card, nil), nil
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
	hasSizing, onRecord := s.sourceOnRecord(ctx, ws, ans)
	if !onRecord {
		if choice, notes, hasSizing, err = s.recordSource(ctx, ws, choice, text); err != nil {
			return Outcome[SourceChoice]{}, err
		}
	}
	s.explainSource(&choice, hasSizing)
	return settled(flow, choice, notes), nil
}

// recordedSource is what a workspace's setup records of its source: the
// source (nil: none chosen) and whether a sizing is confirmed.
type recordedSource struct {
	source    *Source
	hasSizing bool
}

// sourcesKept bounds the workspaces whose recorded source a replica keeps.
const sourcesKept = 10_000

// sourceOnRecord reports whether ans, an answer the card had before this
// call, is the source the workspace records (then nothing is to be
// written), and whether a sizing is confirmed, from what this replica
// keeps while the workspace's context stamp stands: a replayed answer
// then reads nothing. It says no when it cannot tell.
func (s *Service) sourceOnRecord(ctx context.Context, ws uuid.UUID, ans *cards.Settled) (hasSizing, onRecord bool) {
	if !ans.OnRecord || s.contexts == nil {
		return false, false
	}
	// Made on first use: the replica's notifications are wired by then
	// (workspace.Service.KeepContextsFresh comes before any call).
	s.sourcesOnce.Do(func() {
		s.sources = workspace.NewContextCache(s.contexts, sourcesKept, func(b *pgx.Batch, ws uuid.UUID) func() (recordedSource, error) {
			var (
				rec recordedSource
				err error
			)
			b.Queue(recordedSourceSQL, ws).QueryRow(func(row pgx.Row) error {
				rec.source, err = scanSource(row, &rec.hasSizing)
				return err
			})
			return func() (recordedSource, error) { return rec, err }
		})
	})
	rec, err := s.sources.Read(ctx, ws)
	if err != nil || rec.source == nil || rec.source.Card != ans.Card {
		return false, false // recordSource writes, or reads, and says
	}
	return rec.hasSizing, true
}

// recordedSourceSQL reads a workspace's source and whether it has a sizing.
const recordedSourceSQL = `SELECT ` + sourceColumns + `, EXISTS (SELECT 1 FROM sending_sizings WHERE workspace_id = $1)
	FROM sending_setups WHERE workspace_id = $1`

// recordSource records choice as the workspace's source (text: the
// person's words, for other), unless a later answer is on record: then the
// one on record is returned, with a note saying so. It also says whether
// the workspace has a sizing, which the answer's next step mentions.
//
// It is one round trip of two statements, in one batch, which PostgreSQL
// runs as one transaction: the record, then the read of what is recorded.
// An answer already on record (the same card answered again) writes,
// locks and waits for nothing.
func (s *Service) recordSource(ctx context.Context, ws uuid.UUID, choice SourceChoice, text *string) (SourceChoice, []string, bool, error) {
	var (
		rec       *Source
		hasSizing bool
	)
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
	b.Queue(recordedSourceSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		rec, err = scanSource(row, &hasSizing)
		return err
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return SourceChoice{}, nil, false, fmt.Errorf("record sending source: %w", err)
	}
	var notes []string
	if rec != nil && rec.Card != choice.Card {
		notes = append(notes, fmt.Sprintf("Card %s was answered earlier than the choice on record (card %s, answered %s), so the later choice stands.",
			choice.Card, rec.Card, vibesell.FormatDate(rec.ChosenAt)))
		choice = SourceChoice{Source: rec.Source, Text: rec.Text, Card: rec.Card, ChosenAt: rec.ChosenAt, Label: sourceLabel(rec.Source)}
	}
	return choice, notes, hasSizing, nil
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

func (s *Service) explainSource(c *SourceChoice, hasSizing bool) {
	sizing := ""
	if !hasSizing {
		sizing = fmt.Sprintf(" If the person does not know yet how many addresses they need, %s works it out from their daily volume or their lead count and deadline.", vibesell.ToolSizeSendingCapacity)
	}
	switch c.Source {
	case SourceAlreadyWarmed:
		c.Meaning = "Your emails will go out from addresses that are already prepared and warmed up, on domains that are not under your brand's name, so you can start sooner."
		c.NextTool = vibesell.ToolProposeWarmedDomains
		c.NextStep = fmt.Sprintf("Call %s to offer the person domains from the warmed shelf.%s", vibesell.ToolProposeWarmedDomains, sizing)
	case SourceOwnNames:
		c.Meaning = "Your emails will go out from new addresses created for you on lookalike domains of your brand, after preparation and warmup."
		c.NextTool = vibesell.ToolProposeDomains
		c.NextStep = fmt.Sprintf("Call %s to offer the person lookalike domains of their brand's domain, with their prices.%s", vibesell.ToolProposeDomains, sizing)
	default:
		c.Meaning = fmt.Sprintf("You described your own arrangement: %q. VibeSell sets up either already-warmed addresses or new addresses under your brand; it does not set anything up for other arrangements by itself.", c.Text)
		c.NextTool = vibesell.ToolContactSupport
		c.NextStep = fmt.Sprintf("Call %s with the person's words so someone can help with that arrangement. If the person meant one of the two options after all, call %s again without answers to ask again.", vibesell.ToolContactSupport, vibesell.ToolChooseSendingSource)
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

// confirmSource makes sure picks of want's kind agree with the source the
// workspace chose: mixed, the setup would send under both. When the other
// source is on record it asks the person first, in flow, whether to switch
// (and records the switch); keeping it refuses the picks with the reason.
// It returns the card to put to the person, or nil when the picks may go
// ahead.
func (s *Service) confirmSource(ctx context.Context, ws uuid.UUID, flow *cards.Flow, want SourceKind) (*cards.Card, error) {
	src, err := s.source(ctx, s.db, ws)
	if err != nil || src == nil || src.Source == want || src.Source == SourceOther {
		return nil, err
	}
	q := cards.Question{
		Topic: "source-switch",
		Reason: "Your emails go out either from addresses under your brand or from already-warmed ones, not both. " +
			"Nothing is set up, reserved or billed by answering.",
		Choices: []cards.Choice{
			{ID: string(want), Label: sourceLabel(want)},
			{ID: keepSource, Label: "Keep " + strings.ToLower(sourceLabel(src.Source))},
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
		return card, err
	}
	if ans.Answer == keepSource {
		if want == SourceAlreadyWarmed {
			return nil, vibesell.Errorf(vibesell.EINVALID,
				"The person keeps sending under their brand (new addresses on lookalike domains), so no already-warmed domains are picked: the two would mix. Call %s to pick lookalike domains.",
				vibesell.ToolProposeDomains)
		}
		return nil, vibesell.Errorf(vibesell.EINVALID,
			"The person keeps already-warmed addresses, so no new domains under their brand are picked: the two would mix. Call %s to pick already-warmed domains.",
			vibesell.ToolProposeWarmedDomains)
	}
	_, _, _, err = s.recordSource(ctx, ws, SourceChoice{Source: want, Label: sourceLabel(want), Card: ans.Card, ChosenAt: ans.AnsweredAt}, nil)
	return nil, err
}
