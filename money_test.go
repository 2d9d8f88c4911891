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

func TestMoneyInMinorUnits(t *testing.T) {
	for _, c := range []struct {
		amount, currency string
		minor            int64
		text             string
	}{
		{"15", "usd", 1500, "USD 15.00"},
		{"15.5", "USD", 1550, "USD 15.50"},
		{"1215.00", "USD", 121500, "USD 1,215.00"},
		{"0", "EUR", 0, "EUR 0.00"},
		{"1450", "JPY", 1450, "JPY 1,450"},
	} {
		t.Run(c.amount+c.currency, func(t *testing.T) {
			m, err := ParseMoney(c.amount, c.currency)
			if err != nil {
				t.Fatal(err)
			}
			if m.Minor != c.minor || m.String() != c.text {
				t.Errorf("ParseMoney(%q, %q) = %d, %q; want %d, %q", c.amount, c.currency, m.Minor, m.String(), c.minor, c.text)
			}
		})
	}
	for _, bad := range []struct{ amount, currency string }{{"15.005", "USD"}, {"1.5", "JPY"}, {"-3", "USD"}, {"1e3", "USD"}, {"", "USD"}, {"12,00", "EUR"}} {
		if m, err := ParseMoney(bad.amount, bad.currency); err == nil {
			t.Errorf("ParseMoney(%q, %q) = %v, want a refusal", bad.amount, bad.currency, m)
		}
	}
	if got := NewMoney(-350, "USD").Amount(); got != "-3.50" {
		t.Errorf("negative amount = %q, want -3.50", got)
	}
	if got := NewMoney(500, "USD").Times(3).Plus(NewMoney(25, "USD")); got != NewMoney(1525, "USD") {
		t.Errorf("5.00 × 3 + 0.25 = %v", got)
	}
}

func TestProse(t *testing.T) {
	for got, want := range map[string]string{
		JoinAnd(nil):                     "",
		JoinAnd([]string{"a"}):           "a",
		JoinAnd([]string{"a", "b"}):      "a and b",
		JoinAnd([]string{"a", "b", "c"}): "a, b and c",
		JoinOr([]string{"a", "b", "c"}):  "a, b or c",
		Plural(1, "domain", "domains"):   "1 domain",
		Plural(0, "domain", "domains"):   "0 domains",
		Plural(6000, "email", "emails"):  "6,000 emails",
		Count(-1234567):                  "-1,234,567",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
