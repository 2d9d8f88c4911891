package vibesell

import "testing"

func TestFormatMoney(t *testing.T) {
	for _, c := range []struct{ currency, amount, want string }{
		{"INR", "1450.00", "INR 1,450.00"},
		{"USD", "15.00", "USD 15.00"},
		{"USD", "1234567.5", "USD 1,234,567.5"},
		{"EUR", "999", "EUR 999"},
		{"EUR", "1000", "EUR 1,000"},
		{"USD", "-1215.00", "USD -1,215.00"},
		{"USD", "0.00", "USD 0.00"},
	} {
		if got := FormatMoney(c.currency, c.amount); got != c.want {
			t.Errorf("FormatMoney(%q, %q) = %q, want %q", c.currency, c.amount, got, c.want)
		}
	}
}
