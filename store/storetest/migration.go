package storetest

import (
	"strings"
	"testing"

	"vibesell/migrations"
)

// Migration returns the Up and Down SQL of one migration file (such as
// "00066_offer_price_minor_units.sql"), so that a test can run a data
// migration again over rows written in the form it converts from.
func Migration(t testing.TB, file string) (up, down string) {
	t.Helper()
	b, err := migrations.FS.ReadFile(file)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	text := string(b)
	_, rest, ok := strings.Cut(text, "-- +goose Up")
	if !ok {
		t.Fatalf("storetest: %s has no Up section", file)
	}
	up, down, _ = strings.Cut(rest, "-- +goose Down")
	return up, down
}
