// Package vibesell holds what every feature shares: the refusal type that
// carries a sentence written for the person.
package vibesell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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

// Error is a refusal the person should hear. Message is one or two full
// sentences: what is wrong and what to do next.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns a refusal with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
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
