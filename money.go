package vibesell

import (
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in the minor units of a currency (cents for USD, yen
// for JPY), as Stripe counts it, so that amounts add up exactly and pass to
// Stripe unchanged. Zero is a real amount ("nothing to pay"), never
// "unknown": an unknown amount is a nil *Money.
type Money struct {
	Minor    int64  `json:"minor"`
	Currency string `json:"currency"` // ISO 4217, upper case
}

// NewMoney returns minor units of currency.
func NewMoney(minor int64, currency string) Money {
	return Money{Minor: minor, Currency: strings.ToUpper(currency)}
}

// zeroDecimal are the currencies Stripe counts without minor units.
var zeroDecimal = map[string]bool{
	"BIF": true, "CLP": true, "DJF": true, "GNF": true, "JPY": true, "KMF": true, "KRW": true, "MGA": true,
	"PYG": true, "RWF": true, "UGX": true, "VND": true, "VUV": true, "XAF": true, "XOF": true, "XPF": true,
}

// Decimals is how many decimal places the currency's amounts have: 0 for
// JPY and the other zero-decimal currencies, 2 otherwise.
func Decimals(currency string) int {
	if zeroDecimal[strings.ToUpper(currency)] {
		return 0
	}
	return 2
}

// Amount returns the amount as a plain decimal with the currency's places:
// "15.00", "-3.50", "1450" (JPY).
func (m Money) Amount() string {
	sign := ""
	v := m.Minor
	if v < 0 {
		sign, v = "-", -v
	}
	if Decimals(m.Currency) == 0 {
		return sign + strconv.FormatInt(v, 10)
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// String writes the amount for a reader, the one way the product shows
// money: "USD 1,215.00".
func (m Money) String() string { return FormatMoney(m.Currency, m.Amount()) }

// Times returns the amount n times over.
func (m Money) Times(n int) Money { return Money{Minor: m.Minor * int64(n), Currency: m.Currency} }

// Plus adds o, which must be in the same currency; amounts of different
// currencies are never added (a program error, so it panics).
func (m Money) Plus(o Money) Money {
	if m.Currency == "" {
		return o
	}
	if o.Currency != "" && o.Currency != m.Currency {
		panic(fmt.Sprintf("vibesell: adding %s to %s", o.Currency, m.Currency))
	}
	return Money{Minor: m.Minor + o.Minor, Currency: m.Currency}
}

// IsZero reports whether there is nothing to pay.
func (m Money) IsZero() bool { return m.Minor == 0 }

// ParseMoney reads a plain decimal amount ("15", "15.5", "15.00") of
// currency into minor units. More places than the currency has, a sign or
// anything but digits and one point is refused.
func ParseMoney(amount, currency string) (Money, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	whole, frac, _ := strings.Cut(strings.TrimSpace(amount), ".")
	places := Decimals(currency)
	if whole == "" || len(frac) > places || !digits(whole) || !digits(frac) {
		return Money{}, fmt.Errorf("%q is not an amount of %s (a number with at most %d decimal places)", amount, currency, places)
	}
	frac += strings.Repeat("0", places-len(frac))
	v, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return Money{}, fmt.Errorf("%q is not an amount of %s: %w", amount, currency, err)
	}
	return Money{Minor: v, Currency: currency}, nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FormatMoney writes an amount for a reader, the one way the product shows
// money everywhere (tool text, the web app): the ISO 4217 code, then the
// amount as given, its whole part grouped by thousands: FormatMoney("INR",
// "1450.00") is "INR 1,450.00". amount is a plain decimal ("-3.50", "12").
func FormatMoney(currency, amount string) string {
	whole, frac, hasFrac := strings.Cut(amount, ".")
	sign := ""
	if rest, ok := strings.CutPrefix(whole, "-"); ok {
		sign, whole = "-", rest
	}
	out := sign + groupThousands(whole)
	if hasFrac {
		out += "." + frac
	}
	return currency + " " + out
}

func groupThousands(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
