package sending

import (
	"fmt"
	"strconv"

	"vibesell"
)

// Money is an amount in cents of a currency.
type Money struct {
	Cents    int64
	Currency string // ISO 4217
}

// Amount returns the amount as a decimal with two places, "15.00".
func (m Money) Amount() string {
	sign := ""
	c := m.Cents
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// String writes the amount for a reader: "USD 1,215.00".
func (m Money) String() string { return vibesell.FormatMoney(m.Currency, m.Amount()) }

func (m Money) times(n int) Money { return Money{Cents: m.Cents * int64(n), Currency: m.Currency} }

func (m Money) plus(o Money) Money { return Money{Cents: m.Cents + o.Cents, Currency: m.Currency} }

// count writes "1 mailbox" or "3 mailboxes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
