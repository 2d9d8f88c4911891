// Package cards asks the person questions and binds their answers to the
// exact question asked (a "choice card").
//
// A tool that needs the person's decision starts a [Flow] for its call
// ([Service.Begin]: the workspace, the tool, its arguments and the answers
// the call carries) and asks its questions in order ([Flow.Ask]). Each
// question is either settled by an answer the call carries, or comes back
// as a [Card] for the tool to return (kind "choice"): the assistant puts it
// to the person and calls the same tool again with the same arguments and
// the answer added.
//
// An answer counts only for the card it was given to. Every rule below is
// enforced by PostgreSQL (one guarded UPDATE binds an answer), so it holds
// under concurrent calls and across replicas:
//
//   - the card belongs to the same workspace and the same tool; any other
//     card id reads as unknown;
//   - the call's arguments, compared in canonical form ([Canonical]), are
//     the card's;
//   - the question is unchanged: same question, same choice ids and
//     labels, same free-text rule. When it changed (a domain on the list
//     was taken), the tool asks again with a new card saying what changed;
//   - an answer that is not a choice id stands only on a card that allows
//     free text; otherwise it is refused with the valid ids;
//   - a card answered once keeps its answer: the same answer again is
//     accepted, a different one is refused with the answer on record;
//   - an answer clicked in the card carries the card's one-time token
//     ([Answer].Token): it is bound in the transaction that redeems the
//     token, recorded as clicked, so the person's click binds at once and
//     the assistant cannot answer otherwise afterwards.
//
// Because an answered card never changes again (nothing updates a card
// that is not open), each replica keeps the answered cards it has read or
// bound in memory: a call that carries answers already on record, as
// every later step of a flow does, reads no card from the database.
package cards

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/proof"
	"vibesell/store"
)

// Choice is one answer the person can pick.
type Choice struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is what a tool asks. Topic names the question within the tool's
// flow ("source", "domain-2"): an answer settles the question of its card's
// topic only.
type Question struct {
	Topic         string
	Question      string
	Reason        string // what this decides, and that answering sets up, reserves and bills nothing
	Choices       []Choice
	AllowFreeText bool
	// CheckFreeText, when set, vets an answer in the person's own words
	// before it is bound; a refusal it returns is passed on and the card
	// stays open.
	CheckFreeText func(ctx context.Context, text string) error
}

// Answer is one answer a call carries: the card it answers and the choice
// id or the person's own words.
type Answer struct {
	Card   string `json:"card"`
	Answer string `json:"answer"`
	// Via is where a settled answer came from (ViaCard or
	// ViaConversation); empty on the answers a call carries.
	Via string `json:"-"`
	// Token, on an answer the person clicked in the card, is the card's
	// one-time token (package proof): the answer is then bound in the
	// transaction that redeems it, recorded as clicked, or not at all.
	// HostApps is whether the session of the click declared the MCP Apps
	// extension (nil when not known), kept beside the answer.
	Token    string `json:"-"`
	HostApps *bool  `json:"-"`
}

// Card is a question put to the person: what a tool returns as kind
// "choice".
type Card struct {
	ID            string
	Tool          string
	Arguments     json.RawMessage // canonical; the arguments to call back with
	Topic         string
	Question      string
	Reason        string
	Choices       []Choice
	AllowFreeText bool
	Answers       []Answer // the answers that settled the flow's earlier questions
	// Replaces is the card this one replaces because its question changed
	// ("" when it replaces none), and Changed says what changed, in a
	// sentence for the person.
	Replaces string
	Changed  string
}

// Settled is a question's answer.
type Settled struct {
	Card       string
	Topic      string
	Answer     string  // the choice id, or the person's words
	Choice     *Choice // the choice picked; nil for an answer in the person's words
	AnsweredAt time.Time
	// Via is where the answer came from: ViaCard (clicked in the card,
	// proven by its token) or ViaConversation (relayed by the assistant).
	Via string
	// OnRecord says the card had this answer before the call (a later
	// step of the flow, or a call replayed): what the answer settled
	// may be on record already too.
	OnRecord bool
}

// Where an answer came from.
const (
	ViaCard         = "card"         // clicked in the card, with the card's one-time token
	ViaConversation = "conversation" // relayed by the assistant
)

// Service keeps choice cards in PostgreSQL.
type Service struct {
	db    *pgxpool.Pool
	clock vibesell.Clock
	// answered holds answered cards as read or bound; they never change
	// again, so no replica has to be told of anything.
	answered *lru.Cache[cardKey, *row]
}

type cardKey struct {
	ws uuid.UUID
	id string
}

// answeredKept bounds the answered cards a replica keeps: about 2 KB
// each, so 20 MB at most.
const answeredKept = 10_000

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Clock stamps cards and answers. Default: the system clock.
	Clock vibesell.Clock
}

// New returns the cards' Service on d.DB.
func New(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	answered, _ := lru.New[cardKey, *row](answeredKept)
	return &Service{db: d.DB, clock: d.Clock, answered: answered}
}

// keepAnswered remembers r, when it is answered, for later calls. r must
// not be changed afterwards: flows of concurrent calls share it.
func (s *Service) keepAnswered(ws uuid.UUID, r *row) {
	if r.status == "answered" {
		s.answered.Add(cardKey{ws, r.id}, r)
	}
}

// Flow is one tool call's questions. It is not safe for concurrent use;
// concurrent calls each have their own.
type Flow struct {
	s        *Service
	ws       uuid.UUID
	tool     string
	args     json.RawMessage
	argsHash string
	given    []Answer        // the call's answers, one per card, in the order given
	rows     map[string]*row // the cards they name
	settled  []Answer
	asked    map[string]bool // the topics asked in this call
}

// row is a card as stored.
type row struct {
	id            string
	tool          string
	argsHash      string
	arguments     json.RawMessage
	topic         string
	questionHash  string
	question      string
	choices       []Choice
	allowFreeText bool
	status        string
	answer        *string
	answeredAt    *time.Time
	answeredVia   *string
}

var cardID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// maxAnswer bounds an answer in the person's own words.
const maxAnswer = 1000

// Begin starts the flow of one call of tool in workspace ws with args (the
// call's arguments; a top-level "answers" member is ignored) and the
// answers the call carries.
//
// Refusals (EINVALID, naming the card): a card that is not this tool's in
// this workspace; a card asked for other arguments; one card given two
// different answers.
func (s *Service) Begin(ctx context.Context, ws uuid.UUID, tool string, args any, answers []Answer) (*Flow, error) {
	canon, err := Canonical(args)
	if err != nil {
		return nil, err
	}
	f := &Flow{s: s, ws: ws, tool: tool, args: canon, argsHash: sha256Hex(canon), rows: map[string]*row{}}

	seen := map[string]int{}
	var ids []string
	for _, a := range answers {
		id := strings.ToLower(strings.TrimSpace(a.Card))
		if !cardID.MatchString(id) {
			return nil, vibesell.Errorf(vibesell.EINVALID,
				"%q is not a card id; a card id is the 16 letters and digits in the card's \"card\" field, for example 3f9a0c12d4e5b678.", a.Card)
		}
		text := normalizeAnswer(a.Answer)
		if i, ok := seen[id]; ok {
			if prev := f.given[i].Answer; prev != text {
				return nil, vibesell.Errorf(vibesell.EINVALID,
					"The answers give card %s two different answers (%q and %q). Give each card one answer: the one the person gave.", id, prev, text)
			}
			continue
		}
		seen[id] = len(f.given)
		f.given = append(f.given, Answer{Card: id, Answer: text, Token: a.Token, HostApps: a.HostApps})
		ids = append(ids, id)
	}
	var unread []string
	for _, id := range ids {
		if r, ok := s.answered.Get(cardKey{ws, id}); ok {
			f.rows[id] = r
		} else {
			unread = append(unread, id)
		}
	}
	if len(unread) > 0 {
		rows, err := s.db.Query(ctx, `
			SELECT id, tool, arguments_hash, arguments, topic, question_hash, question, choices,
			       allow_free_text, status, answer, answered_at, answered_via
			FROM choice_cards WHERE workspace_id = $1 AND id = ANY($2)`, ws, unread)
		if err != nil {
			return nil, fmt.Errorf("read answered cards: %w", err)
		}
		found, err := pgx.CollectRows(rows, scanRow)
		if err != nil {
			return nil, fmt.Errorf("read answered cards: %w", err)
		}
		for _, r := range found {
			f.rows[r.id] = r
			s.keepAnswered(ws, r)
		}
	}
	var unknown []string
	for _, a := range f.given {
		r := f.rows[a.Card]
		// Another tool's card reads exactly like a card that does not exist.
		if r == nil || r.tool != tool {
			unknown = append(unknown, a.Card)
			delete(f.rows, a.Card)
		}
	}
	if len(unknown) > 0 {
		return nil, vibesell.Errorf(vibesell.EINVALID,
			"%s not a question %s asked in this workspace. Pass only card ids from %s's own results, or call %s without %s to get a new question.",
			cardList(unknown), tool, tool, tool, pick(len(unknown) == 1, "that answer", "those answers"))
	}
	for _, a := range f.given {
		r := f.rows[a.Card]
		if r.argsHash != f.argsHash {
			return nil, vibesell.Errorf(vibesell.EINVALID,
				"Card %s was asked for other arguments (%s), not these (%s). Call %s again with the card's arguments and its answers, or without that answer to get a new question.",
				r.id, shorten(string(recanonical(r.arguments))), shorten(string(canon)), tool)
		}
	}
	return f, nil
}

// Tool returns the tool the flow belongs to.
func (f *Flow) Tool() string { return f.tool }

// Arguments returns the call's arguments in canonical form, without answers.
func (f *Flow) Arguments() json.RawMessage { return f.args }

// Answers returns every answer the flow holds, as the format keeps them:
// first the call's answers to cards of this flow that are answered on
// record but whose question this call did not ask (a switch already
// made is not asked again, yet it was answered and stays in the list),
// in the order given; then the answers that settled the questions asked
// so far, in the order asked.
func (f *Flow) Answers() []Answer {
	var out []Answer
	for _, g := range f.given {
		r := f.rows[g.Card]
		if r == nil || r.status != "answered" || f.asked[r.topic] {
			continue
		}
		via := ViaConversation
		if r.answeredVia != nil {
			via = *r.answeredVia
		}
		out = append(out, Answer{Card: r.id, Answer: *r.answer, Via: via})
	}
	return append(out, f.settled...)
}

// Ask settles q with the call's answer to it, or returns the card to put to
// the person: a new one when q was never asked with these arguments, the
// open one when it was, and a replacement saying what changed when the
// answered card asked something else. Exactly one of the settled answer
// and the card is non-nil when err is nil.
//
// Refusals (EINVALID): an empty answer; an answer that is not a choice id
// on a card that takes only its choices; a different answer to a card
// already answered; whatever q.CheckFreeText refuses.
func (f *Flow) Ask(ctx context.Context, q Question) (*Settled, *Card, error) {
	if err := q.valid(); err != nil {
		return nil, nil, fmt.Errorf("ask %s/%s: %w", f.tool, q.Topic, err)
	}
	if f.asked == nil {
		f.asked = map[string]bool{}
	}
	f.asked[q.Topic] = true
	qh := questionHash(q)
	given, r := f.answerFor(q.Topic)
	if r == nil && f.answersLater(q.Topic) {
		// The call answers a later question of this flow but dropped this
		// one's answer (a model passing only the latest card's answer):
		// the answer on record for the same question and arguments stands,
		// instead of the flow silently starting over.
		rec, err := f.s.answeredCard(ctx, f.ws, f.tool, f.argsHash, q.Topic, qh)
		if err != nil {
			return nil, nil, err
		}
		if rec != nil {
			return f.settle(rec, q, *rec.answer, *rec.answeredAt, true), nil, nil
		}
	}
	if r == nil {
		card, err := f.issue(ctx, q, qh, nil)
		return nil, card, err
	}
	if r.status == "superseded" || r.questionHash != qh {
		card, err := f.issue(ctx, q, qh, r)
		return nil, card, err
	}

	text := given.Answer
	if text == "" {
		return nil, nil, vibesell.Errorf(vibesell.EINVALID,
			"The answer to card %s is empty. Put the question to the person and pass their answer.", r.id)
	}
	if utf8.RuneCountInString(text) > maxAnswer {
		return nil, nil, vibesell.Errorf(vibesell.EINVALID,
			"The answer to card %s is %d characters long; an answer can be at most %d.", r.id, utf8.RuneCountInString(text), maxAnswer)
	}
	choice := q.match(text)
	if choice != nil {
		text = choice.ID
	}
	if r.status == "answered" {
		return f.onRecord(ctx, r, q, text)
	}
	if choice == nil {
		if !q.AllowFreeText {
			return nil, nil, vibesell.Errorf(vibesell.EINVALID,
				"%q is not one of the choices of card %s, and this question takes only its choices. Answer with %s.",
				shorten(text), r.id, choiceList(q.Choices))
		}
		if q.CheckFreeText != nil {
			if err := q.CheckFreeText(ctx, text); err != nil {
				return nil, nil, err
			}
		}
	}

	answeredAt, via, err := f.bind(ctx, r, given, text, qh)
	if err == nil {
		bound := *r
		bound.status, bound.answer, bound.answeredAt, bound.answeredVia = "answered", &text, &answeredAt, &via
		f.rows[r.id] = &bound
		f.s.keepAnswered(f.ws, &bound)
		return f.settle(&bound, q, text, answeredAt, false), nil, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("bind answer to card %s: %w", r.id, err)
	}
	now, err := f.s.find(ctx, f.ws, r.id)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case now == nil:
		return nil, nil, fmt.Errorf("card %s vanished while being answered", r.id)
	case now.status == "answered":
		f.s.keepAnswered(f.ws, now)
		return f.onRecord(ctx, now, q, text)
	case now.status == "superseded":
		card, err := f.issue(ctx, q, qh, now)
		return nil, card, err
	}
	return nil, nil, fmt.Errorf("card %s is open but did not take answer %q", r.id, text)
}

// bind binds text to the open card r. The binding is one statement that
// holds only for the open card of this workspace, tool, arguments and
// question, with an answer the card takes: of concurrent answers exactly
// one matches, and the others (pgx.ErrNoRows) read the card again. An
// answer clicked in the card (given.Token) is bound in the transaction
// that redeems its token, recorded as clicked; a token that is refused,
// or an answer that is not taken, leaves both the card and the token as
// they were.
func (f *Flow) bind(ctx context.Context, r *row, given Answer, text, qh string) (time.Time, string, error) {
	const update = `
		UPDATE choice_cards
		SET status = 'answered', answer = $5,
		    answer_is_choice = choices @> jsonb_build_array(jsonb_build_object('id', $5::text)),
		    answered_at = $6, answered_via = $8, answered_host_apps = $9
		WHERE workspace_id = $1 AND id = $2 AND tool = $3 AND arguments_hash = $4
		  AND question_hash = $7 AND status = 'open'
		  AND (allow_free_text OR choices @> jsonb_build_array(jsonb_build_object('id', $5::text)))
		RETURNING answered_at`
	now := f.s.clock.Now()
	var at time.Time
	if given.Token == "" {
		err := f.s.db.QueryRow(ctx, update, f.ws, r.id, f.tool, f.argsHash, text, now, qh, ViaConversation, nil).Scan(&at)
		return at, ViaConversation, err
	}
	err := store.InTx(ctx, f.s.db, func(tx pgx.Tx) error {
		if err := proof.Redeem(ctx, tx, f.s.clock, f.ws, r.id, given.Token); err != nil {
			return err
		}
		return tx.QueryRow(ctx, update, f.ws, r.id, f.tool, f.argsHash, text, now, qh, ViaCard, given.HostApps).Scan(&at)
	})
	return at, ViaCard, err
}

// onRecord answers for a card that already has an answer: the same one
// settles the question again, another is refused with the one on record.
func (f *Flow) onRecord(ctx context.Context, r *row, q Question, text string) (*Settled, *Card, error) {
	if *r.answer == text {
		return f.settle(r, q, text, *r.answeredAt, true), nil, nil
	}
	recorded := fmt.Sprintf("%q", *r.answer)
	if c := q.match(*r.answer); c != nil {
		recorded = fmt.Sprintf("%q (%s)", c.ID, c.Label)
	}
	given := "given " + vibesell.FormatTimeFor(ctx, *r.answeredAt)
	if r.answeredVia != nil && *r.answeredVia == ViaCard {
		given = "which the person clicked in the card themselves (" + vibesell.FormatTimeFor(ctx, *r.answeredAt) + ")"
	}
	return nil, nil, vibesell.Errorf(vibesell.ECONFLICT,
		"Card %s already has the answer %s, %s; an answered card keeps its answer. If the person has changed their mind, call %s with the same arguments and without that answer: it asks the question again on a new card.",
		r.id, recorded, given, f.tool)
}

func (f *Flow) settle(r *row, q Question, text string, at time.Time, onRecord bool) *Settled {
	s := &Settled{Card: r.id, Topic: q.Topic, Answer: text, AnsweredAt: at, Via: ViaConversation, OnRecord: onRecord}
	if r.answeredVia != nil {
		s.Via = *r.answeredVia
	}
	f.settled = append(f.settled, Answer{Card: r.id, Answer: text, Via: s.Via})
	if c := q.match(text); c != nil {
		cc := *c
		s.Choice = &cc
	}
	return s
}

// answersLater reports whether the call carries an answer to a card of
// this flow other than topic's that no question settled yet: one asked
// after topic.
func (f *Flow) answersLater(topic string) bool {
	for _, g := range f.given {
		r := f.rows[g.Card]
		if r == nil || r.topic == topic {
			continue
		}
		used := false
		for _, s := range f.settled {
			used = used || s.Card == g.Card
		}
		if !used {
			return true
		}
	}
	return false
}

// answeredCard returns the latest answered card of tool with these
// arguments, topic and question, or nil.
func (s *Service) answeredCard(ctx context.Context, ws uuid.UUID, tool, argsHash, topic, questionHash string) (*row, error) {
	return s.oneCard(ctx, "answered card",
		`workspace_id = $1 AND tool = $2 AND arguments_hash = $3 AND topic = $4 AND question_hash = $5 AND status = 'answered'`,
		ws, tool, argsHash, topic, questionHash)
}

// answerFor returns the call's answer to the question of topic, if the call
// carries one: the last given, when several cards of that topic were.
func (f *Flow) answerFor(topic string) (Answer, *row) {
	for i := len(f.given) - 1; i >= 0; i-- {
		if r := f.rows[f.given[i].Card]; r != nil && r.topic == topic {
			return f.given[i], r
		}
	}
	return Answer{}, nil
}

// issue returns the open card for q: the one already open for this
// question, or a new one. An open card that asks something else is
// superseded first. stale is the card the call answered, when its question
// changed; the new card says what changed since it.
func (f *Flow) issue(ctx context.Context, q Question, qh string, stale *row) (*Card, error) {
	choices, err := json.Marshal(q.Choices)
	if err != nil {
		return nil, fmt.Errorf("encode choices: %w", err)
	}
	replaced := stale
	for range 8 {
		id := newID()
		tag, err := f.s.db.Exec(ctx, `
			INSERT INTO choice_cards (workspace_id, id, tool, arguments, arguments_hash, topic, question_hash,
			                          question, reason, choices, allow_free_text, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			ON CONFLICT DO NOTHING`,
			f.ws, id, f.tool, string(f.args), f.argsHash, q.Topic, qh, q.Question, q.Reason, choices, q.AllowFreeText, f.s.clock.Now())
		if err != nil {
			return nil, fmt.Errorf("issue card: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return f.card(id, q, replaced), nil
		}
		// Another call holds an open card for this question, or (once in
		// 2^64) the id was taken.
		open, err := f.s.openCard(ctx, f.ws, f.tool, f.argsHash, q.Topic)
		if err != nil {
			return nil, err
		}
		if open == nil {
			continue // answered or superseded in between: try again
		}
		if open.questionHash == qh {
			return f.card(open.id, q, replaced), nil
		}
		if _, err := f.s.db.Exec(ctx, `
			UPDATE choice_cards SET status = 'superseded', superseded_at = $3
			WHERE workspace_id = $1 AND id = $2 AND status = 'open'`, f.ws, open.id, f.s.clock.Now()); err != nil {
			return nil, fmt.Errorf("supersede card %s: %w", open.id, err)
		}
		if replaced == nil {
			replaced = open
		}
	}
	return nil, fmt.Errorf("issue card for %s/%s: gave up after repeated conflicts", f.tool, q.Topic)
}

func (f *Flow) card(id string, q Question, replaced *row) *Card {
	c := &Card{
		ID: id, Tool: f.tool, Arguments: f.args, Topic: q.Topic, Question: q.Question, Reason: q.Reason,
		Choices: append([]Choice{}, q.Choices...), AllowFreeText: q.AllowFreeText, Answers: f.Answers(),
	}
	if replaced != nil && replaced.id != id {
		c.Replaces = replaced.id
		c.Changed = describeChange(replaced, q)
	}
	return c
}

func (s *Service) find(ctx context.Context, ws uuid.UUID, id string) (*row, error) {
	return s.oneCard(ctx, "card "+id, `workspace_id = $1 AND id = $2`, ws, id)
}

func (s *Service) openCard(ctx context.Context, ws uuid.UUID, tool, argsHash, topic string) (*row, error) {
	return s.oneCard(ctx, "open card", `workspace_id = $1 AND tool = $2 AND arguments_hash = $3 AND topic = $4 AND status = 'open'`,
		ws, tool, argsHash, topic)
}

// oneCard reads the card where holds (the latest answered first), or nil;
// what names it in errors.
func (s *Service) oneCard(ctx context.Context, what, where string, args ...any) (*row, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, tool, arguments_hash, arguments, topic, question_hash, question, choices,
		       allow_free_text, status, answer, answered_at, answered_via
		FROM choice_cards WHERE `+where+` ORDER BY answered_at DESC NULLS LAST LIMIT 1`, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	r, err := pgx.CollectOneRow(rows, scanRow)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return r, nil
}

func scanRow(rows pgx.CollectableRow) (*row, error) {
	var r row
	var args []byte
	err := rows.Scan(&r.id, &r.tool, &r.argsHash, &args, &r.topic, &r.questionHash, &r.question, &r.choices,
		&r.allowFreeText, &r.status, &r.answer, &r.answeredAt, &r.answeredVia)
	r.arguments = args
	return &r, err
}

// recanonical writes stored arguments (jsonb spaces them its own way) in
// canonical form again, so they read like the arguments they are compared
// with.
func recanonical(stored json.RawMessage) json.RawMessage {
	if c, err := Canonical(stored); err == nil {
		return c
	}
	return stored
}

func (q Question) valid() error {
	if q.Topic == "" || q.Question == "" || q.Reason == "" {
		return errors.New("a question needs a topic, the question and a reason")
	}
	if len(q.Choices) == 0 {
		return errors.New("a question needs at least one choice")
	}
	seen := map[string]bool{}
	for _, c := range q.Choices {
		if c.ID == "" || c.Label == "" || c.ID != strings.ToLower(strings.TrimSpace(c.ID)) || strings.ContainsAny(c.ID, " \t\n") {
			return fmt.Errorf("choice %q: an id is lower-case text without spaces, and a label is required", c.ID)
		}
		if seen[c.ID] {
			return fmt.Errorf("choice %q is listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	return nil
}

// match returns the choice whose id the answer is (letter case aside).
func (q Question) match(answer string) *Choice {
	for i, c := range q.Choices {
		if strings.EqualFold(c.ID, answer) {
			return &q.Choices[i]
		}
	}
	return nil
}

// describeChange says, for the person, how q differs from the card old.
func describeChange(old *row, q Question) string {
	oldLabel := map[string]string{}
	for _, c := range old.choices {
		oldLabel[c.ID] = c.Label
	}
	newLabel := map[string]string{}
	for _, c := range q.Choices {
		newLabel[c.ID] = c.Label
	}
	var removed, added, relabeled []string
	for _, c := range old.choices {
		if _, ok := newLabel[c.ID]; !ok {
			removed = append(removed, fmt.Sprintf("%q", c.Label))
		}
	}
	for _, c := range q.Choices {
		l, ok := oldLabel[c.ID]
		switch {
		case !ok:
			added = append(added, fmt.Sprintf("%q", c.Label))
		case l != c.Label:
			relabeled = append(relabeled, fmt.Sprintf("%q now reads %q", l, c.Label))
		}
	}
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, vibesell.JoinAnd(removed)+pick(len(removed) == 1, " is", " are")+" no longer offered")
	}
	if len(added) > 0 {
		parts = append(parts, vibesell.JoinAnd(added)+pick(len(added) == 1, " is", " are")+" now offered")
	}
	parts = append(parts, relabeled...)
	if old.allowFreeText != q.AllowFreeText {
		parts = append(parts, pick(q.AllowFreeText, "answers in the person's own words are now accepted", "only the listed choices are accepted now"))
	}
	if len(parts) == 0 && old.question != q.Question {
		parts = append(parts, fmt.Sprintf("the question now reads %q", q.Question))
	}
	if len(parts) == 0 {
		parts = append(parts, "it was asked again")
	}
	return fmt.Sprintf("The question of card %s changed since it was asked: %s.", old.id, strings.Join(parts, "; "))
}

func choiceList(choices []Choice) string {
	items := make([]string, len(choices))
	for i, c := range choices {
		items[i] = fmt.Sprintf("%q (%s)", c.ID, c.Label)
	}
	return vibesell.JoinOr(items)
}

func cardList(ids []string) string {
	if len(ids) == 1 {
		return "Card " + ids[0] + " is"
	}
	return "Cards " + vibesell.JoinAnd(ids) + " are"
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// shorten keeps quoted text short enough to sit in a sentence.
func shorten(s string) string {
	const limit = 200
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit-3]) + "..."
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
	return hex.EncodeToString(b[:])
}
