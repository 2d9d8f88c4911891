package approvals_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/store/storetest"
)

// Impacts stored with decimal costs, before costs were kept in minor
// units, read as what they cost once migration 00067 has run.
func TestStoredDecimalCostsAreConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	yen := e.open(t, e.a.ID, "anvil", true)
	dollars := e.open(t, e.a.ID, "rocket", true)
	for id, impact := range map[string]string{
		yen.ID:     `{"costOnce": {"amount": "1450", "currency": "JPY"}, "costMonthly": {"amount": "0", "currency": "JPY"}}`,
		dollars.ID: `{"costOnce": {"amount": "15.5", "currency": "USD"}, "costMonthly": {"amount": "1215.00", "currency": "USD"}}`,
	} {
		if _, err := e.pool.Exec(ctx, `UPDATE approvals SET impact = impact || $2::jsonb WHERE id = $1`, id, impact); err != nil {
			t.Fatal(err)
		}
	}
	up, _ := storetest.Migration(t, "00067_approval_costs_minor_units.sql")
	if _, err := e.pool.Exec(ctx, up); err != nil {
		t.Fatal(err)
	}
	type costs struct{ Once, Monthly vibesell.Money }
	for id, want := range map[string]costs{
		yen.ID:     {vibesell.NewMoney(1450, "JPY"), vibesell.NewMoney(0, "JPY")},
		dollars.ID: {vibesell.NewMoney(1550, "USD"), vibesell.NewMoney(121500, "USD")},
	} {
		a, err := e.svc.Find(ctx, e.a.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, costs{a.Impact.CostOnce, a.Impact.CostMonthly}); diff != "" {
			t.Errorf("costs of %s (-want +got):\n%s", id, diff)
		}
	}
}
