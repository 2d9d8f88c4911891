package vibesell

import "strings"

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
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := sign + b.String()
	if hasFrac {
		out += "." + frac
	}
	return currency + " " + out
}
