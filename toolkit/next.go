package toolkit

import (
	"encoding/json"
	"errors"
	"strings"

	"vibesell"
)

// The assistant's half of a refusal's steps: a feature writes each step
// once, for a person, with the tool that does it beside the sentence
// ([vibesell.Next]); the text the assistant reads names the tool here, and
// only here, so that no sentence a person reads carries a tool name.

// RefusalText is a refusal as the assistant reads it: the sentence, then
// each step as the tool to call and its arguments.
func RefusalText(e *vibesell.Error) string {
	return e.Message + StepsText(e.Next)
}

// StepsText writes steps for the assistant as a list after a paragraph:
// "\n\nNext:\n- ...", or "" without steps.
func StepsText(steps []vibesell.Next) string {
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nNext:")
	for _, n := range steps {
		b.WriteString("\n- ")
		b.WriteString(StepText(n))
	}
	return b.String()
}

// StepText writes one step for the assistant: what to do, then the call
// that does it, `Pick other domains. Call propose_domains with
// {"companyDomain":"acme.com"}.`
func StepText(n vibesell.Next) string {
	if n.Tool == "" {
		return n.Do
	}
	call := "Call " + n.Tool
	if len(n.Args) > 0 {
		// Keys sorted and values exact: the arguments as they go in the call.
		args, err := json.Marshal(n.Args)
		if err == nil {
			call += " with " + string(args)
		}
	}
	if n.Do == "" {
		return call + "."
	}
	return n.Do + " " + call + "."
}

// BlockerText writes one blocker for the assistant on one line: what
// stands in the way, then each step as the call that clears it.
func BlockerText(b vibesell.Blocker) string {
	out := b.What
	for _, n := range b.Next {
		out += " " + StepText(n)
	}
	return out
}

// ForAssistant is what the assistant reads of err: a refusal with its
// steps ([RefusalText]), or the generic sentence of an internal error.
func ForAssistant(err error) string {
	var refusal *vibesell.Error
	if errors.As(err, &refusal) {
		return RefusalText(refusal)
	}
	return vibesell.ErrorMessage(err)
}

// GuidanceText writes a next step for the assistant in one paragraph: why,
// then each step as the call that takes it.
func GuidanceText(why string, steps []vibesell.Next) string {
	parts := make([]string, 0, len(steps)+1)
	if why != "" {
		parts = append(parts, why)
	}
	for _, n := range steps {
		parts = append(parts, StepText(n))
	}
	return strings.Join(parts, " ")
}
