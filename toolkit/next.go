package toolkit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"vibesell"
)

// The assistant's half of a refusal's steps: a feature writes each step
// once, for a person, with the tool that does it beside the sentence
// ([vibesell.Next]); the text the assistant reads names the tool here, and
// only here, so that no sentence a person reads carries a tool name.

// argsText writes arguments in prose, by name in a stable order: "sequence
// sq_1 and version 2"; a text with spaces is quoted so that it reads as one
// value.
func argsText(args map[string]any) string {
	parts := make([]string, 0, len(args))
	for _, name := range slices.Sorted(maps.Keys(args)) {
		v := fmt.Sprint(args[name])
		if s, ok := args[name].(string); ok && (s == "" || strings.ContainsFunc(s, unicode.IsSpace)) {
			v = strconv.Quote(s)
		}
		parts = append(parts, name+" "+v)
	}
	return vibesell.JoinAnd(parts)
}

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
// that does it, "Pick other domains. Call propose_domains with
// companyDomain acme.com."
func StepText(n vibesell.Next) string {
	if n.Tool == "" {
		return n.Do
	}
	call := "Call " + n.Tool
	if len(n.Args) > 0 {
		call += " with " + argsText(n.Args)
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
