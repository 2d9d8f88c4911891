package cards_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/cards"
	"vibesell/store"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		helperProcess()
		return
	}
	storetest.Main(m)
}

var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// env is one test's bundle: its database, the service on a clock that
// stands still at now, and two workspaces (workspacetest.Two): a asks, b
// must see nothing of a's cards.
type env struct {
	pool *pgxpool.Pool
	svc  *cards.Service
	a, b uuid.UUID
}

func setup(t *testing.T) env {
	t.Helper()
	pool := storetest.New(t)
	return newEnv(t, pool)
}

func newEnv(t *testing.T, pool *pgxpool.Pool) env {
	t.Helper()
	two := workspacetest.Two(t, pool)
	return env{pool: pool, svc: cards.New(cards.Deps{DB: pool, Clock: vibesell.NewManualClock(now)}), a: two.Acme.ID, b: two.Globex.ID}
}

type sourceArgs struct {
	Count   int            `json:"count,omitempty"`
	Domain  string         `json:"domain,omitempty"`
	Answers []cards.Answer `json:"answers,omitempty"`
}

func sourceQuestion() cards.Question {
	return cards.Question{
		Topic:    "source",
		Question: "Choose your sending addresses",
		Reason:   "This decides where your emails go out from. Nothing is set up, reserved or billed by answering.",
		Choices: []cards.Choice{
			{ID: "already_warmed", Label: "Start sooner", Description: "Addresses already prepared."},
			{ID: "own_names", Label: "Send under my brand", Description: "Addresses created for you."},
		},
		AllowFreeText: true,
	}
}

// ask runs one call: Begin with the answers, then Ask q.
func ask(t *testing.T, svc *cards.Service, ws uuid.UUID, tool string, args any, answers []cards.Answer, q cards.Question) (*cards.Settled, *cards.Card, error) {
	t.Helper()
	f, err := svc.Begin(context.Background(), ws, tool, args, answers)
	if err != nil {
		return nil, nil, err
	}
	return f.Ask(context.Background(), q)
}

// mustCard checks a call that must return a card: mustCard(t)(ask(...)).
func mustCard(t *testing.T) func(*cards.Settled, *cards.Card, error) *cards.Card {
	return func(s *cards.Settled, c *cards.Card, err error) *cards.Card {
		t.Helper()
		return mustBe(t, "a card", c, outcomeOf(s, c), err)
	}
}

// mustSettle checks a call that must settle: mustSettle(t)(ask(...)).
func mustSettle(t *testing.T) func(*cards.Settled, *cards.Card, error) *cards.Settled {
	return func(s *cards.Settled, c *cards.Card, err error) *cards.Settled {
		t.Helper()
		return mustBe(t, "settled", s, outcomeOf(s, c), err)
	}
}

// mustBe returns got, the outcome the call must have had, or fails with
// the one it had instead.
func mustBe[T any](t *testing.T, want string, got *T, instead string, err error) *T {
	t.Helper()
	if err != nil {
		t.Fatalf("want %s, got the refusal: %v", want, err)
	}
	if got == nil {
		t.Fatalf("want %s, got %s", want, instead)
	}
	return got
}

// outcomeOf says what a call that was not refused returned: the answer
// it settled with, or the card it asked.
func outcomeOf(s *cards.Settled, c *cards.Card) string {
	switch {
	case s != nil:
		return fmt.Sprintf("settled with %q on card %s", s.Answer, s.Card)
	case c != nil:
		return fmt.Sprintf("card %s asking %q", c.ID, c.Question)
	}
	return "neither an answer nor a card"
}

// mustRefuse checks a call that must be refused with code and a sentence
// containing each of want; use it as mustRefuse(t, code, want)(ask(...)).
func mustRefuse(t *testing.T, code string, want []string) func(*cards.Settled, *cards.Card, error) string {
	return func(s *cards.Settled, c *cards.Card, err error) string {
		t.Helper()
		return refused(t, code, want, s, c, err)
	}
}

func refused(t *testing.T, code string, want []string, s *cards.Settled, c *cards.Card, err error) string {
	t.Helper()
	if err == nil {
		t.Fatalf("want a refusal, got %s", outcomeOf(s, c))
	}
	if got := vibesell.ErrorCode(err); got != code {
		t.Fatalf("refusal code %q, want %q: %v", got, code, err)
	}
	msg := vibesell.ErrorMessage(err)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal %q does not say %q", msg, w)
		}
	}
	return msg
}

func TestCanonicalArguments(t *testing.T) {
	t.Parallel()
	a, err := cards.Canonical(json.RawMessage(`{"b": [1.0, 2e1, {"y": true, "x": null}], "a": "x<y", "answers": [{"card": "0123456789abcdef", "answer": "z"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := cards.Canonical(map[string]any{"a": "x<y", "b": []any{1, 20, map[string]any{"x": nil, "y": true}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"x<y","b":[1,20,{"x":null,"y":true}]}`
	if string(a) != want || string(b) != want {
		t.Fatalf("canonical forms\n%s\n%s\nwant %s", a, b, want)
	}
	big, err := cards.Canonical(json.RawMessage(`{"n": 12345678901234567890123, "f": 0.10}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(big) != `{"f":0.1,"n":12345678901234567890123}` {
		t.Fatalf("numbers: %s", big)
	}
	if _, err := cards.Canonical([]int{1}); err == nil {
		t.Fatal("a list was taken for arguments")
	}
}

func TestCardIsIssuedOnceAndBindsItsAnswer(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	if len(card.ID) != 16 || strings.Trim(card.ID, "0123456789abcdef") != "" {
		t.Fatalf("card id %q is not 16 lowercase hex characters", card.ID)
	}
	type issued struct {
		Tool, Arguments, Replaces string
		Answers                   int
	}
	if diff := cmp.Diff(issued{Tool: "choose_sending_source", Arguments: "{}"}, issued{card.Tool, string(card.Arguments), card.Replaces, len(card.Answers)}); diff != "" {
		t.Fatalf("card (-want +got):\n%s", diff)
	}
	// Asking again without an answer gives the same open card.
	again := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	if again.ID != card.ID {
		t.Fatalf("second call issued card %s, want the open card %s", again.ID, card.ID)
	}

	s := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "  Own_Names "}}, q))
	want := cards.Settled{Card: card.ID, Topic: "source", Answer: "own_names", Choice: &q.Choices[1], AnsweredAt: now, Via: cards.ViaConversation}
	if diff := cmp.Diff(want, *s); diff != "" {
		t.Fatalf("settled (-want +got):\n%s", diff)
	}
	// The same answer again settles again: idempotent, and on record.
	s2 := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "own_names"}}, q))
	want.OnRecord = true
	if diff := cmp.Diff(want, *s2); diff != "" {
		t.Fatalf("settled again mismatch (-want +got):\n%s", diff)
	}
	// A different answer is refused with the answer on record.
	mustRefuse(t, vibesell.ECONFLICT, []string{card.ID, `"own_names" (Send under my brand)`, "Tue 1 Dec 2026, 09:00 UTC", "without that answer"})(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "already_warmed"}}, q))
	// A call without answers now gets a new question: the answered card
	// keeps its answer.
	fresh := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	if fresh.ID == card.ID {
		t.Fatal("an answered card was handed out again as open")
	}
	var status, answer string
	if err := e.pool.QueryRow(context.Background(), `SELECT status, answer FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card.ID).Scan(&status, &answer); err != nil {
		t.Fatal(err)
	}
	if status != "answered" || answer != "own_names" {
		t.Fatalf("stored %s %q", status, answer)
	}
}

// An answer clicked in the card carries the card's token: it is bound in
// the transaction that redeems the token, recorded as clicked. The click
// binds: the same answer relayed later reads as clicked, another is
// refused with the clicked one named. Tokens bind to one card of one
// workspace and work once; a refused token binds nothing.
func TestClickedAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	q := sourceQuestion()
	tokenOf := func(t *testing.T, ws uuid.UUID, card string) string {
		t.Helper()
		tokens, err := e.svc.Tokens(ctx, ws, card)
		if err != nil {
			t.Fatal(err)
		}
		return tokens[card]
	}
	yes := true
	clicked := func(card, answer, token string) []cards.Answer {
		return []cards.Answer{{Card: card, Answer: answer, Token: token, HostApps: &yes}}
	}

	t.Run("clicked", func(t *testing.T) {
		card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 1}, nil, q))
		token := tokenOf(t, e.a, card.ID)
		s := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 1}, clicked(card.ID, "own_names", token), q))
		want := cards.Settled{Card: card.ID, Topic: "source", Answer: "own_names", Choice: &q.Choices[1], AnsweredAt: now, Via: cards.ViaCard}
		if diff := cmp.Diff(want, *s); diff != "" {
			t.Fatalf("settled (-want +got):\n%s", diff)
		}
		var via string
		var hostApps *bool
		if err := e.pool.QueryRow(ctx, `SELECT answered_via, answered_host_apps FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card.ID).Scan(&via, &hostApps); err != nil {
			t.Fatal(err)
		}
		if via != cards.ViaCard || hostApps == nil || !*hostApps {
			t.Errorf("stored via %q, host apps %v; want card, true", via, hostApps)
		}
		// The same answer through the model changes nothing and still
		// reads as clicked.
		s = mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 1}, []cards.Answer{{Card: card.ID, Answer: "own_names"}}, q))
		want.OnRecord = true
		if diff := cmp.Diff(want, *s); diff != "" {
			t.Errorf("relayed again (-want +got):\n%s", diff)
		}
	})

	t.Run("another answer than the one clicked is refused", func(t *testing.T) {
		card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 2}, nil, q))
		mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 2}, clicked(card.ID, "own_names", tokenOf(t, e.a, card.ID)), q))
		mustRefuse(t, vibesell.ECONFLICT, []string{card.ID, `"own_names" (Send under my brand)`, "clicked in the card"})(
			ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 2}, []cards.Answer{{Card: card.ID, Answer: "already_warmed"}}, q))
	})

	t.Run("refused tokens", func(t *testing.T) {
		card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 3}, nil, q))
		other := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 4}, nil, q))
		theirs := mustCard(t)(ask(t, e.svc, e.b, "choose_sending_source", sourceArgs{Count: 3}, nil, q))
		used := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 5}, nil, q))
		usedToken := tokenOf(t, e.a, used.ID)
		mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 5}, clicked(used.ID, "own_names", usedToken), q))
		for name, token := range map[string]string{
			"made up":             "vsd_made-up",
			"another card's":      tokenOf(t, e.a, other.ID),
			"another workspace's": tokenOf(t, e.b, theirs.ID),
			"used":                usedToken,
		} {
			t.Run(name, func(t *testing.T) {
				mustRefuse(t, vibesell.EINVALID, []string{"out of date"})(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 3}, clicked(card.ID, "own_names", token), q))
			})
		}
		// Nothing was bound: the card is still open, and the assistant's
		// answer to it is relayed.
		s := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 3}, []cards.Answer{{Card: card.ID, Answer: "already_warmed"}}, q))
		if s.Via != cards.ViaConversation || s.OnRecord {
			t.Errorf("after refused clicks, answer via %q (on record %v), want conversation, new", s.Via, s.OnRecord)
		}
	})
}

func TestAnswerCountsOnlyForTheSameArguments(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", json.RawMessage(`{"domain":"acme.com","count":2}`), nil, q))
	if string(card.Arguments) != `{"count":2,"domain":"acme.com"}` {
		t.Fatalf("arguments %s", card.Arguments)
	}
	// The same arguments written differently are the same arguments.
	mustSettle(t)(ask(t, e.svc, e.a, "propose_domains", json.RawMessage(`{"count":2.0, "domain":"acme.com"}`),
		[]cards.Answer{{Card: card.ID, Answer: "own_names"}}, q))
	// Other arguments are not.
	mustRefuse(t, vibesell.EINVALID, []string{card.ID, `{"count":2,"domain":"acme.com"}`, `{"count":3,"domain":"acme.com"}`, "propose_domains"})(ask(t, e.svc, e.a, "propose_domains", sourceArgs{Count: 3, Domain: "acme.com"}, []cards.Answer{{Card: card.ID, Answer: "own_names"}}, q))
}

func TestCardOfAnotherWorkspaceOrToolIsUnknown(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	answer := []cards.Answer{{Card: card.ID, Answer: "own_names"}}
	other := mustRefuse(t, vibesell.EINVALID, []string{"Card " + card.ID + " is not a question choose_sending_source asked in this workspace"})(ask(t, e.svc, e.b, "choose_sending_source", sourceArgs{}, answer, q))
	tool := mustRefuse(t, vibesell.EINVALID, []string{"Card " + card.ID + " is not a question propose_email asked in this workspace"})(ask(t, e.svc, e.a, "propose_email", sourceArgs{}, answer, q))
	never := mustRefuse(t, vibesell.EINVALID, nil)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: "00000000000000ff", Answer: "own_names"}}, q))
	// The three read alike: nothing tells a card of another workspace or
	// tool from one that never existed.
	if strings.ReplaceAll(other, card.ID, "X") != strings.ReplaceAll(never, "00000000000000ff", "X") {
		t.Fatalf("another workspace's card reads differently from an unknown one:\n%s\n%s", other, never)
	}
	if !strings.Contains(tool, "propose_email") {
		t.Fatal(tool)
	}
	// The card is still open for its own workspace and tool.
	mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, answer, q))
	mustRefuse(t, vibesell.EINVALID, []string{`"not-a-card"`})(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: "not-a-card", Answer: "x"}}, q))
}

func TestFreeTextOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	strict := sourceQuestion()
	strict.AllowFreeText = false
	card := mustCard(t)(ask(t, e.svc, e.a, "propose_warmed_domains", sourceArgs{}, nil, strict))
	mustRefuse(t, vibesell.EINVALID, []string{`"maybe later" is not one of the choices of card ` + card.ID, `"already_warmed" (Start sooner) or "own_names" (Send under my brand)`})(ask(t, e.svc, e.a, "propose_warmed_domains", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "maybe later"}}, strict))
	mustRefuse(t, vibesell.EINVALID, []string{"empty"})(ask(t, e.svc, e.a, "propose_warmed_domains", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "   "}}, strict))

	loose := sourceQuestion()
	loose.CheckFreeText = func(ctx context.Context, text string) error {
		if !strings.Contains(text, "@") {
			return vibesell.Errorf(vibesell.EINVALID, "Write the addresses like ada@.")
		}
		return nil
	}
	card2 := mustCard(t)(ask(t, e.svc, e.a, "propose_email", sourceArgs{}, nil, loose))
	mustRefuse(t, vibesell.EINVALID, []string{"like ada@"})(ask(t, e.svc, e.a, "propose_email", sourceArgs{}, []cards.Answer{{Card: card2.ID, Answer: "whatever"}}, loose))
	s := mustSettle(t)(ask(t, e.svc, e.a, "propose_email", sourceArgs{}, []cards.Answer{{Card: card2.ID, Answer: " ada@  and  sales@ "}}, loose))
	if diff := cmp.Diff(cards.Settled{Card: card2.ID, Topic: "source", Answer: "ada@ and sales@", AnsweredAt: now, Via: cards.ViaConversation}, *s); diff != "" {
		t.Fatalf("free text settled mismatch (-want +got):\n%s", diff)
	}
	var isChoice bool
	if err := e.pool.QueryRow(context.Background(), `SELECT answer_is_choice FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card2.ID).Scan(&isChoice); err != nil || isChoice {
		t.Fatalf("answer_is_choice %v %v", isChoice, err)
	}
	// PostgreSQL itself refuses free text on a card that does not allow it.
	_, err := e.pool.Exec(context.Background(), `UPDATE choice_cards SET status = 'answered', answer = 'x', answer_is_choice = false, answered_at = now()
		WHERE workspace_id = $1 AND id = $2`, e.a, card.ID)
	if err == nil || !strings.Contains(err.Error(), "check constraint") {
		t.Fatalf("free text stored on a strict card: %v", err)
	}
}

func TestChangedQuestionIsAskedAgain(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := cards.Question{
		Topic: "domain-1", Question: "Which domain should be your sending domain?", Reason: "Nothing is registered by answering.",
		Choices: []cards.Choice{{ID: "getacme.com", Label: "getacme.com, USD 15.00 per year"}, {ID: "tryacme.com", Label: "tryacme.com, USD 15.00 per year"}},
	}
	card := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, nil, q))
	// tryacme.com was registered by someone else in the meantime.
	q2 := q
	q2.Choices = []cards.Choice{{ID: "getacme.com", Label: "getacme.com, USD 15.00 per year"}, {ID: "acmehq.com", Label: "acmehq.com, USD 15.00 per year"}}
	answer := []cards.Answer{{Card: card.ID, Answer: "getacme.com"}}
	next := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, answer, q2))
	if next.ID == card.ID || next.Replaces != card.ID {
		t.Fatalf("new card %s replaces %q, want a new card replacing %s", next.ID, next.Replaces, card.ID)
	}
	for _, w := range []string{card.ID, `"tryacme.com, USD 15.00 per year" is no longer offered`, `"acmehq.com, USD 15.00 per year" is now offered`} {
		if !strings.Contains(next.Changed, w) {
			t.Errorf("changed %q does not say %q", next.Changed, w)
		}
	}
	// The old card was not answered; answering it again still asks the
	// current question, on the same new card.
	again := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, answer, q2))
	if again.ID != next.ID || again.Replaces != card.ID {
		t.Fatalf("old card answered again: card %s replaces %q", again.ID, again.Replaces)
	}
	var status string
	if err := e.pool.QueryRow(context.Background(), `SELECT status FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card.ID).Scan(&status); err != nil || status != "superseded" {
		t.Fatalf("old card %s %v", status, err)
	}
	// A call without answers also learns that the card it may hold is stale.
	q3 := q2
	q3.Choices = q2.Choices[:1]
	third := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, nil, q3))
	if third.Replaces != next.ID || !strings.Contains(third.Changed, `"acmehq.com, USD 15.00 per year" is no longer offered`) {
		t.Fatalf("third card %s replaces %q, changed %q; want it to replace %s, saying acmehq.com is no longer offered", third.ID, third.Replaces, third.Changed, next.ID)
	}
	s := mustSettle(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, []cards.Answer{{Card: third.ID, Answer: "getacme.com"}}, q3))
	if diff := cmp.Diff(&q3.Choices[0], s.Choice); diff != "" {
		t.Fatalf("settled choice mismatch (-want +got):\n%s", diff)
	}
	// An answered card whose question has since changed is asked again too.
	q4 := q3
	q4.Question = "Which domain should be your first sending domain?"
	fourth := mustCard(t)(ask(t, e.svc, e.a, "propose_domains", sourceArgs{}, []cards.Answer{{Card: third.ID, Answer: "getacme.com"}}, q4))
	if fourth.Replaces != third.ID || !strings.Contains(fourth.Changed, "the question now reads") {
		t.Fatalf("fourth card %s replaces %q, changed %q; want it to replace %s, saying the question now reads otherwise", fourth.ID, fourth.Replaces, fourth.Changed, third.ID)
	}
}

// A flow asking two questions: answers for both arrive together, and each is
// checked on its own.
func TestSeveralCardsInOneCall(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	first := sourceQuestion()
	second := func(prev string) cards.Question {
		return cards.Question{Topic: "style", Question: "Which style after " + prev + "?", Reason: "Nothing is set up by answering.",
			Choices: []cards.Choice{{ID: "short", Label: "Short"}, {ID: "long", Label: "Long"}}}
	}
	run := func(answers []cards.Answer) (*cards.Settled, *cards.Card, []cards.Answer, error) {
		f, err := e.svc.Begin(ctx, e.a, "propose_email", sourceArgs{}, answers)
		if err != nil {
			return nil, nil, nil, err
		}
		s1, c, err := f.Ask(ctx, first)
		if err != nil || c != nil {
			return nil, c, f.Answers(), err
		}
		s2, c, err := f.Ask(ctx, second(s1.Answer))
		return s2, c, f.Answers(), err
	}
	// asked runs the flow with answers, which must ask the topic's card.
	asked := func(answers []cards.Answer, topic string) *cards.Card {
		t.Helper()
		s, c, _, err := run(answers)
		c = mustBe(t, "a card", c, outcomeOf(s, c), err)
		if c.Topic != topic {
			t.Fatalf("card %s asks about %s, want %s", c.ID, c.Topic, topic)
		}
		return c
	}
	c1 := asked(nil, "source")
	a1 := cards.Answer{Card: c1.ID, Answer: "already_warmed"}
	c2 := asked([]cards.Answer{a1}, "style")
	if diff := cmp.Diff([]cards.Answer{{Card: a1.Card, Answer: a1.Answer, Via: cards.ViaConversation}}, c2.Answers); diff != "" {
		t.Fatalf("second card's answers mismatch, want the first, relayed (-want +got):\n%s", diff)
	}
	// A bad answer to the second card is refused on its own.
	_, _, _, err := run([]cards.Answer{a1, {Card: c2.ID, Answer: "medium"}})
	refused(t, vibesell.EINVALID, []string{c2.ID, `"short" (Short) or "long" (Long)`}, nil, nil, err)
	// Both together settle the flow.
	s, c, settled, err := run([]cards.Answer{a1, {Card: c2.ID, Answer: "long"}})
	s = mustBe(t, "settled", s, outcomeOf(s, c), err)
	if s.Answer != "long" {
		t.Fatalf("the flow settled with %q, want long", s.Answer)
	}
	wantSettled := []cards.Answer{{Card: c1.ID, Answer: "already_warmed", Via: cards.ViaConversation}, {Card: c2.ID, Answer: "long", Via: cards.ViaConversation}}
	if diff := cmp.Diff(wantSettled, settled); diff != "" {
		t.Fatalf("the flow's answers mismatch (-want +got):\n%s", diff)
	}
	// A conflicting answer to the first, with a fine second, is refused
	// for the first.
	_, _, _, err = run([]cards.Answer{{Card: c1.ID, Answer: "own_names"}, {Card: c2.ID, Answer: "long"}})
	refused(t, vibesell.ECONFLICT, []string{c1.ID, `"already_warmed" (Start sooner)`}, nil, nil, err)
	// The same card given two different answers in one call.
	_, _, _, err = run([]cards.Answer{a1, {Card: c1.ID, Answer: "own_names"}})
	refused(t, vibesell.EINVALID, []string{"two different answers"}, nil, nil, err)
}

// outcome counts how concurrent calls ended.
type outcome struct {
	mu       sync.Mutex
	settled  map[string]int // answer → calls that settled with it
	conflict int
	cards    map[string]int
	other    []error
}

func newOutcome() *outcome { return &outcome{settled: map[string]int{}, cards: map[string]int{}} }

func (o *outcome) add(s *cards.Settled, c *cards.Card, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case vibesell.ErrorCode(err) == vibesell.ECONFLICT:
		o.conflict++
	case err != nil:
		o.other = append(o.other, err)
	case c != nil:
		o.cards[c.ID]++
	default:
		o.settled[s.Answer]++
	}
}

func raceAnswers(t *testing.T, svcs []*cards.Service, ws uuid.UUID, card string, q cards.Question, answerOf func(i int) string) *outcome {
	t.Helper()
	o := newOutcome()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 32 {
		wg.Go(func() {
			<-start
			svc := svcs[i%len(svcs)]
			f, err := svc.Begin(context.Background(), ws, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: card, Answer: answerOf(i)}})
			if err != nil {
				o.add(nil, nil, err)
				return
			}
			o.add(f.Ask(context.Background(), q))
		})
	}
	close(start)
	wg.Wait()
	if len(o.other) > 0 {
		t.Fatalf("unexpected errors: %v", o.other)
	}
	return o
}

func TestConcurrentAnswersBindOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	// 32 different answers at once: one binds, 31 hear the one on record.
	o := raceAnswers(t, []*cards.Service{e.svc}, e.a, card.ID, q, func(i int) string { return fmt.Sprintf("my own plan number %d", i) })
	if len(o.settled) != 1 || o.conflict != 31 {
		t.Fatalf("settled %v, refused %d: want one answer bound and 31 refused", o.settled, o.conflict)
	}
	var answer string
	if err := e.pool.QueryRow(context.Background(), `SELECT answer FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card.ID).Scan(&answer); err != nil {
		t.Fatal(err)
	}
	for got := range o.settled {
		if got != answer {
			t.Fatalf("settled %q but stored %q", got, answer)
		}
	}
	// 32 identical answers at once: all settle (idempotent).
	card2 := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	o = raceAnswers(t, []*cards.Service{e.svc}, e.a, card2.ID, q, func(int) string { return "own_names" })
	if o.settled["own_names"] != 32 || o.conflict != 0 {
		t.Fatalf("same answer: settled %v, refused %d", o.settled, o.conflict)
	}
}

func TestConcurrentCallsShareOneCard(t *testing.T) {
	t.Parallel()
	e := setup(t)
	pool2 := connectAgain(t, e.pool)
	svcs := []*cards.Service{e.svc, cards.New(cards.Deps{DB: pool2, Clock: vibesell.NewManualClock(now)})}
	o := newOutcome()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 32 {
		wg.Go(func() {
			<-start
			o.add(ask(t, svcs[i%2], e.a, "choose_sending_source", sourceArgs{}, nil, sourceQuestion()))
		})
	}
	close(start)
	wg.Wait()
	if len(o.other) > 0 || len(o.cards) != 1 {
		t.Fatalf("32 concurrent calls got cards %v (errors %v), want one card", o.cards, o.other)
	}
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM choice_cards WHERE workspace_id = $1`, e.a).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d cards stored (%v), want 1", n, err)
	}
}

// connectAgain opens a second pool on the same database: what a second
// server replica has.
func connectAgain(t *testing.T, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	p, err := store.Connect(context.Background(), pool.Config().ConnString(), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func TestTwoReplicasBindOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	other := cards.New(cards.Deps{DB: connectAgain(t, e.pool), Clock: vibesell.NewManualClock(now)})
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	o := raceAnswers(t, []*cards.Service{e.svc, other}, e.a, card.ID, q, func(i int) string {
		return []string{"own_names", "already_warmed"}[i%2]
	})
	if len(o.settled) != 1 || o.conflict != 16 {
		t.Fatalf("two replicas: settled %v, refused %d: want one answer (16 calls) and 16 refused", o.settled, o.conflict)
	}
}

const helperEnv = "VIBESELL_CARDS_HELPER"

// helperProcess is the second server process of TestTwoProcessesBindOnce:
// it answers one card 16 times at once and prints how each call ended.
func helperProcess() {
	var in struct {
		URL    string
		WS     uuid.UUID
		Card   string
		Answer string
	}
	if err := json.Unmarshal([]byte(os.Getenv(helperEnv)), &in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	pool, err := store.Connect(context.Background(), in.URL, 8)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer pool.Close()
	svc := cards.New(cards.Deps{DB: pool, Clock: vibesell.NewManualClock(now)})
	results := make([]string, 16)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			f, err := svc.Begin(context.Background(), in.WS, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: in.Card, Answer: in.Answer}})
			if err == nil {
				var s *cards.Settled
				if s, _, err = f.Ask(context.Background(), sourceQuestion()); err == nil && s != nil {
					results[i] = "settled:" + s.Answer
					return
				}
			}
			results[i] = "refused:" + vibesell.ErrorCode(err)
			if vibesell.ErrorCode(err) == vibesell.EINTERNAL {
				results[i] += ":" + fmt.Sprint(err)
			}
		})
	}
	wg.Wait()
	_ = json.NewEncoder(os.Stdout).Encode(results)
}

// Two operating-system processes answer the same card at the same time;
// PostgreSQL lets exactly one answer bind.
func TestTwoProcessesBindOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd *exec.Cmd
		out strings.Builder
	}
	var procs []*proc
	for _, answer := range []string{"own_names", "already_warmed"} {
		in, _ := json.Marshal(map[string]any{"URL": e.pool.Config().ConnString(), "WS": e.a, "Card": card.ID, "Answer": answer})
		p := &proc{cmd: exec.Command(exe, "-test.run=^$")}
		p.cmd.Env = append(os.Environ(), helperEnv+"="+string(in))
		p.cmd.Stdout = &p.out
		p.cmd.Stderr = os.Stderr
		procs = append(procs, p)
	}
	for _, p := range procs {
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]int{}
	for _, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
		var results []string
		if err := json.Unmarshal([]byte(p.out.String()), &results); err != nil {
			t.Fatalf("helper output %q: %v", p.out.String(), err)
		}
		for _, r := range results {
			counts[r]++
		}
	}
	var answer string
	if err := e.pool.QueryRow(context.Background(), `SELECT answer FROM choice_cards WHERE workspace_id = $1 AND id = $2`, e.a, card.ID).Scan(&answer); err != nil {
		t.Fatal(err)
	}
	if counts["settled:"+answer] != 16 || counts["refused:"+vibesell.ECONFLICT] != 16 || len(counts) != 2 {
		t.Fatalf("two processes ended %v; stored answer %q: want 16 settled with it and 16 refused", counts, answer)
	}
}

func TestInvalidQuestionIsAProgramError(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := sourceQuestion()
	q.Choices = append(q.Choices, q.Choices[0])
	_, _, err := ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q)
	var refusal *vibesell.Error
	if err == nil || errors.As(err, &refusal) {
		t.Fatalf("a duplicated choice gave %v, want an internal error", err)
	}
}

// An answered card never changes, so each replica keeps it once read or
// bound: answering it again, with the same answer or another, reads
// nothing from the database, and the rules still hold (another answer is
// refused, another workspace or tool or other arguments do not find it).
func TestAnsweredCardsAreKeptInMemory(t *testing.T) {
	t.Parallel()
	pool, trips := storetest.NewCounted(t)
	e := newEnv(t, pool)
	q := sourceQuestion()
	card := mustCard(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, nil, q))
	answer := []cards.Answer{{Card: card.ID, Answer: "own_names"}}
	first := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, answer, q))

	costs := func(what string, want int64, call func()) {
		t.Helper()
		before := trips.Count()
		call()
		if n := trips.Count() - before; n != want {
			t.Errorf("%s cost %d round trips, want %d", what, n, want)
		}
	}
	costs("the same answer again", 0, func() {
		again := mustSettle(t)(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, answer, q))
		if first.OnRecord || !again.OnRecord {
			t.Errorf("on record: first %t, again %t; want false, true", first.OnRecord, again.OnRecord)
		}
		again.OnRecord = false
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("settled again (-first +again):\n%s", diff)
		}
	})
	costs("another answer", 0, func() {
		mustRefuse(t, vibesell.ECONFLICT, []string{card.ID, `"own_names" (Send under my brand)`})(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{}, []cards.Answer{{Card: card.ID, Answer: "already_warmed"}}, q))
	})
	costs("other arguments", 0, func() {
		mustRefuse(t, vibesell.EINVALID, []string{card.ID, "other arguments"})(ask(t, e.svc, e.a, "choose_sending_source", sourceArgs{Count: 2}, answer, q))
	})
	costs("another tool", 0, func() {
		mustRefuse(t, vibesell.EINVALID, []string{"Card " + card.ID + " is not a question propose_email asked"})(ask(t, e.svc, e.a, "propose_email", sourceArgs{}, answer, q))
	})
	// Another workspace is not served from a's memory: it reads, and finds
	// nothing.
	costs("another workspace", 1, func() {
		mustRefuse(t, vibesell.EINVALID, []string{"Card " + card.ID + " is not a question choose_sending_source asked in this workspace"})(ask(t, e.svc, e.b, "choose_sending_source", sourceArgs{}, answer, q))
	})
	// Another replica reads the card once, then keeps it too.
	replica := cards.New(cards.Deps{DB: pool, Clock: vibesell.NewManualClock(now)})
	costs("the answer on another replica", 1, func() {
		mustSettle(t)(ask(t, replica, e.a, "choose_sending_source", sourceArgs{}, answer, q))
	})
	costs("the answer again on another replica", 0, func() {
		mustSettle(t)(ask(t, replica, e.a, "choose_sending_source", sourceArgs{}, answer, q))
	})
}

// A question the flow no longer asks (a switch made on an earlier call is
// not asked again) keeps its answer in the flow's answers: a settled
// result lists every answer given, not only those asked this time.
func TestAnAnswerNotAskedAgainIsKept(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	style := cards.Question{Topic: "style", Question: "Which style?", Reason: "Nothing is set up by answering.",
		Choices: []cards.Choice{{ID: "short", Label: "Short"}, {ID: "long", Label: "Long"}}}
	f, err := e.svc.Begin(ctx, e.a, "propose_email", sourceArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, c1, err := f.Ask(ctx, sourceQuestion())
	if err != nil || c1 == nil {
		t.Fatalf("first call: card %v, %v", c1, err)
	}
	a1 := cards.Answer{Card: c1.ID, Answer: "already_warmed"}
	if f, err = e.svc.Begin(ctx, e.a, "propose_email", sourceArgs{}, []cards.Answer{a1}); err != nil {
		t.Fatal(err)
	}
	if s, _, err := f.Ask(ctx, sourceQuestion()); err != nil || s == nil {
		t.Fatalf("answering the source: %v", err)
	}
	// The next call carries the source's answer, but what it settled is on
	// record now: only the style is asked.
	if f, err = e.svc.Begin(ctx, e.a, "propose_email", sourceArgs{}, []cards.Answer{a1}); err != nil {
		t.Fatal(err)
	}
	_, c2, err := f.Ask(ctx, style)
	if err != nil || c2 == nil {
		t.Fatalf("style: card %v, %v", c2, err)
	}
	relayed := cards.Answer{Card: a1.Card, Answer: a1.Answer, Via: cards.ViaConversation}
	if diff := cmp.Diff([]cards.Answer{relayed}, c2.Answers); diff != "" {
		t.Errorf("the style card's answers (-want +got):\n%s", diff)
	}
	a2 := cards.Answer{Card: c2.ID, Answer: "long"}
	if f, err = e.svc.Begin(ctx, e.a, "propose_email", sourceArgs{}, []cards.Answer{a1, a2}); err != nil {
		t.Fatal(err)
	}
	if s, _, err := f.Ask(ctx, style); err != nil || s == nil {
		t.Fatalf("answering the style: %v", err)
	}
	if diff := cmp.Diff([]cards.Answer{relayed, {Card: a2.Card, Answer: "long", Via: cards.ViaConversation}}, f.Answers()); diff != "" {
		t.Errorf("the settled answers (-want +got):\n%s", diff)
	}
}
