package sending

import (
	"strings"

	"vibesell"
)

// counted is a count of things with the words that refer to them, agreeing
// with the count: every sentence of the sending setup that says "the
// domains", "them" or "are" of things it counted takes its words from
// here, so that one domain is never "the domains" or "them".
type counted struct {
	n         int
	one, many string
}

func domainsCounted(n int) counted   { return counted{n, "domain", "domains"} }
func mailboxesCounted(n int) counted { return counted{n, "mailbox", "mailboxes"} }
func addressesCounted(n int) counted { return counted{n, "address", "addresses"} }

// capital starts a sentence with s: "The domain".
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Count is the number and the noun: "1 domain", "3 domains".
func (c counted) Count() string { return vibesell.Plural(c.n, c.one, c.many) }

// The is the noun with its article: "the domain", "the domains".
func (c counted) The() string { return "the " + c.noun() }

// Of is the possessive: "the domain's", "the domains'".
func (c counted) Of() string {
	if c.n == 1 {
		return "the " + c.one + "'s"
	}
	return "the " + c.many + "'"
}

// Them is the object pronoun: "it", "them".
func (c counted) Them() string { return c.pick("it", "them") }

// They is the subject pronoun: "it", "they".
func (c counted) They() string { return c.pick("it", "they") }

// Are is the verb that agrees: "is", "are".
func (c counted) Are() string { return c.pick("is", "are") }

// Were is the verb that agrees, in the past: "was", "were".
func (c counted) Were() string { return c.pick("was", "were") }

func (c counted) noun() string { return c.pick(c.one, c.many) }

func (c counted) pick(one, many string) string {
	if c.n == 1 {
		return one
	}
	return many
}
