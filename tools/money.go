package tools

import "vibesell"

// moneyData is how every tool writes an amount in structuredContent: the
// decimal text a person reads, never minor units a client must divide.
type moneyData struct {
	Amount   string `json:"amount" jsonschema:"the amount as a decimal number with the currency's decimal places, e.g. 15.00; 0.00 means nothing to pay"`
	Currency string `json:"currency" jsonschema:"ISO 4217 currency code, e.g. USD"`
}

func moneyOf(m vibesell.Money) moneyData { return moneyData{Amount: m.Amount(), Currency: m.Currency} }
