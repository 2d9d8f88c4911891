package vibesell

import "testing"

func TestLabelsOf(t *testing.T) {
	states := Labels{{Value: "planned", Text: "Planned, not ordered"}, {Value: "warm", Text: "Warm"}}
	for value, want := range map[string]string{
		"planned": "Planned, not ordered",
		"warm":    "Warm",
		// A value the table does not know yet shows as stored, not as nothing.
		"paused": "paused",
	} {
		t.Run(value, func(t *testing.T) {
			if got := states.Of(value); got != want {
				t.Errorf("Of(%q) = %q, want %q", value, got, want)
			}
		})
	}
}
