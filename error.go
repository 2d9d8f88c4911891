// Package vibesell holds what every feature shares: the refusal type that
// carries a sentence written for the person.
package vibesell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Error codes. A refusal carries one of these; anything that is not a
// *Error is internal and is never shown to the person.
const (
	EINVALID         = "invalid"          // the request is wrong: bad argument, bad state
	ENOTFOUND        = "not_found"        // no such thing in this workspace
	ECONFLICT        = "conflict"         // it clashes with what is on record
	EUNAUTHORIZED    = "unauthorized"     // who is asking is not known
	EPAYMENTREQUIRED = "payment_required" // the plan does not cover it
	ERATELIMITED     = "rate_limited"     // too many attempts; wait
	EINTERNAL        = "internal"         // our fault; never shown raw
)

// Error is a refusal, written once for both of its readers. Message is
// one or two full sentences for a person: what is wrong, and, when no
// tool does it, what to do. It never names a tool. Next holds what to do
// about it, in order: the toolkit writes each step for the assistant as
// the tool to call with its arguments, the web app as a link to the page
// that does it.
type Error struct {
	Code    string
	Message string
	Next    []Next
}

// Next is one step that gets past a refusal (or, in a result, the step
// the workspace needs next).
type Next struct {
	// Do says, for a person, what to do: one short sentence in the
	// imperative ("Pick other domains."), with no tool name in it.
	Do string
	// Tool is the tool the assistant calls to do it (a vibesell.Tool*
	// name); "" when only the person can, outside the conversation.
	Tool string
	// Args are the arguments to call Tool with that the refusal knows
	// (a campaign's id, the plan to change to); the assistant supplies
	// the rest from the tool's schema and the conversation.
	Args map[string]any
}

func (e *Error) Error() string { return e.Message }

// Blocker is one of several things that stand in the way at once (of an
// order, of a launch): what, for a person, and the steps that clear it,
// none when only time does.
type Blocker struct {
	What string
	Next []Next
}

// StepsOf lists the steps of blockers once each, in order: two domains
// without addresses are one step to take.
func StepsOf(blockers []Blocker) []Next {
	var out []Next
	for _, b := range blockers {
		for _, n := range b.Next {
			if !slices.ContainsFunc(out, func(m Next) bool { return m.Do == n.Do && m.Tool == n.Tool && maps.Equal(m.Args, n.Args) }) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Errorf returns a refusal with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Then returns a copy of e with steps added after its own; e itself is
// unchanged, so that a refusal declared once can be given different steps.
func (e *Error) Then(steps ...Next) *Error {
	c := *e
	c.Next = append(slices.Clip(e.Next), steps...)
	return &c
}

// With returns a copy of n with more arguments (name, value pairs): a
// step written once, given the arguments of the case at hand.
func (n Next) With(args ...any) Next {
	out := Call(n.Do, n.Tool, args...)
	for k, v := range n.Args {
		if _, ok := out.Args[k]; !ok {
			if out.Args == nil {
				out.Args = map[string]any{}
			}
			out.Args[k] = v
		}
	}
	return out
}

// Call is the step do, taken by calling tool with args: name, value
// pairs, as in log/slog ("campaign", c.ID).
func Call(do, tool string, args ...any) Next {
	n := Next{Do: do, Tool: tool}
	for i := 0; i+1 < len(args); i += 2 {
		if n.Args == nil {
			n.Args = map[string]any{}
		}
		n.Args[args[i].(string)] = args[i+1]
	}
	return n
}

// ErrorCode returns the code of a refusal anywhere in err's chain, or
// EINTERNAL when err is not a refusal. It returns "" for a nil error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the person-facing sentence of a refusal, or a
// generic sentence for internal errors (their text is never shown).
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side."
}

// ErrorNext returns the steps of a refusal anywhere in err's chain, or nil.
func ErrorNext(err error) []Next {
	var e *Error
	if errors.As(err, &e) {
		return e.Next
	}
	return nil
}

// ErrorForPerson returns a refusal's sentence followed by each step's Do,
// for a person reading it as plain text where no link can be drawn (an
// approval's outcome), or the generic sentence for internal errors.
func ErrorForPerson(err error) string {
	out := ErrorMessage(err)
	for _, n := range ErrorNext(err) {
		if n.Do != "" {
			out += " " + n.Do
		}
	}
	return out
}

// NewRef returns a reference for an internal failure: 8 hex characters,
// short enough to read out to support and unique enough to find one line
// in a day of logs. The log line and the sentence the person reads carry
// the same ref.
func NewRef() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
	return hex.EncodeToString(b[:])
}

// InternalSentence is what the person reads when something broke on our
// side, the one wording for the tools, the web app and every other door.
func InternalSentence(ref string) string {
	return fmt.Sprintf("Something went wrong on our side (ref %s). Try again in a minute.", ref)
}
