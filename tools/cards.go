package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"vibesell/cards"
)

// This file holds what every tool that asks the person (a choice card)
// shares: the answers argument, the fields of kind "choice", and the text
// that tells the assistant how to put the question and call back.

// answerInput is one answer a call carries.
type answerInput struct {
	Card   string `json:"card" jsonschema:"the id of the card that asked: its card field, 16 lowercase hex characters" pattern:"^[0-9a-f]{16}$"`
	Answer string `json:"answer" jsonschema:"the id of the choice the person picked, or the person's own words when the card allows free text" minLength:"1" maxLength:"1000"`
}

func toCardAnswers(in []answerInput) []cards.Answer {
	out := make([]cards.Answer, len(in))
	for i, a := range in {
		out[i] = cards.Answer{Card: a.Card, Answer: a.Answer}
	}
	return out
}

type choiceItem struct {
	ID          string `json:"id" jsonschema:"what to pass as the answer when the person picks this choice"`
	Label       string `json:"label" jsonschema:"the choice as the person sees it"`
	Description string `json:"description,omitempty" jsonschema:"what picking it means"`
}

type answerItem struct {
	Card   string `json:"card" jsonschema:"the card answered"`
	Answer string `json:"answer" jsonschema:"the choice id or the person's own words"`
}

// choiceFields are the fields of kind "choice". An output that is either a
// choice or a settled decision embeds them: on the settled kinds card,
// question, reason, choices and allowFreeText are null, while tool,
// arguments and answers say which call and answers settled it.
type choiceFields struct {
	Card          *string        `json:"card" jsonschema:"choice: the id of this question, 16 lowercase hex characters, to pass back with the answer; null once settled" pattern:"^[0-9a-f]{16}$"`
	Tool          string         `json:"tool" jsonschema:"the tool to call back with the answer (this one)"`
	Arguments     map[string]any `json:"arguments" jsonschema:"the arguments to call back with, unchanged (without answers)"`
	Question      *string        `json:"question" jsonschema:"choice: the question to put to the person; null once settled"`
	Reason        *string        `json:"reason" jsonschema:"choice: what the answer decides, and that nothing is set up, reserved or billed by answering; null once settled"`
	Choices       []choiceItem   `json:"choices" jsonschema:"choice: the answers the person can pick; null once settled"`
	AllowFreeText *bool          `json:"allowFreeText" jsonschema:"choice: whether the person may answer in their own words instead of picking; null once settled"`
	Answers       []answerItem   `json:"answers" jsonschema:"the answers given so far (on a choice, to send back followed by the new one); on a settled result, the answers that settled it"`
	Clicked       []string       `json:"clicked" jsonschema:"the cards among answers whose answer the person clicked in the card themselves (proven by the card's one-time token); the others' answers were relayed by you"`
}

func argumentsMap(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(raw, &m) // canonical arguments are always an object
	return m
}

func answerItems(as []cards.Answer) []answerItem {
	out := make([]answerItem, len(as))
	for i, a := range as {
		out[i] = answerItem{Card: a.Card, Answer: a.Answer}
	}
	return out
}

// askedFields fills the choice fields from a card.
func askedFields(c *cards.Card) choiceFields {
	f := choiceFields{
		Card: &c.ID, Tool: c.Tool, Arguments: argumentsMap(c.Arguments), Question: &c.Question, Reason: &c.Reason,
		Choices: make([]choiceItem, len(c.Choices)), AllowFreeText: &c.AllowFreeText, Answers: answerItems(c.Answers),
		Clicked: clickedCards(c.Answers),
	}
	for i, ch := range c.Choices {
		f.Choices[i] = choiceItem(ch)
	}
	return f
}

// settledFields fills the choice fields of a settled result.
func settledFields(tool string, args json.RawMessage, answers []cards.Answer) choiceFields {
	return choiceFields{Tool: tool, Arguments: argumentsMap(args), Answers: answerItems(answers), Clicked: clickedCards(answers)}
}

// clickedCards lists the cards whose answer the person clicked in the card.
func clickedCards(as []cards.Answer) []string {
	out := []string{}
	for _, a := range as {
		if a.Via == cards.ViaCard {
			out = append(out, a.Card)
		}
	}
	return out
}

// choiceMarkdown tells the assistant what to ask and how to call back.
func choiceMarkdown(c *cards.Card, notes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## A question for the person (card %s)\n\n**%s**\n\n", c.ID, c.Question)
	if c.Changed != "" {
		fmt.Fprintf(&b, "This card replaces card %s, which can no longer be answered. %s Put the new question to the person.\n\n", c.Replaces, c.Changed)
	}
	fmt.Fprintf(&b, "Why it is asked: %s\n\nChoices:\n", c.Reason)
	for _, ch := range c.Choices {
		fmt.Fprintf(&b, "- **%s** (choice id `%s`)", ch.Label, ch.ID)
		if ch.Description != "" {
			fmt.Fprintf(&b, ": %s", ch.Description)
		}
		b.WriteString("\n")
	}
	if c.AllowFreeText {
		b.WriteString("\nThe person may also answer in their own words instead of picking a choice.\n")
	} else {
		b.WriteString("\nOnly these choices can be picked.\n")
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	answers := append(answerItems(c.Answers), answerItem{Card: c.ID, Answer: "ANSWER"})
	list, _ := json.Marshal(answers)
	args := argumentsMap(c.Arguments)
	argText := "no other arguments"
	if len(args) > 0 {
		raw, _ := json.Marshal(args)
		argText = "the same arguments `" + string(raw) + "`"
	}
	what := "the choice id the person picked"
	if c.AllowFreeText {
		what += ", or their own words"
	}
	fmt.Fprintf(&b, "\nNext: put this question and its choices to the person and wait for THEIR answer. Never pick an answer for them, even if one looks obvious. "+
		"Then call %s again with %s and `\"answers\": %s`, where ANSWER is %s.\n", c.Tool, argText, list, what)
	return b.String()
}
