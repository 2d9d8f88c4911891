package approvals

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every value an approval stores reads as words, never as the stored value.
func TestEveryValueHasALabel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		of     func(string) string
	}{
		{"status", []string{string(Pending), string(Approved), string(Done), string(NotDone), string(Rejected)},
			func(v string) string { return Status(v).Label() }},
		{"via", []string{ViaCard, ViaConversation, ViaWeb, ViaSystem}, ViaLabels.Of},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var unlabelled []string
			for _, v := range tc.values {
				if tc.of(v) == v {
					unlabelled = append(unlabelled, v)
				}
			}
			if diff := cmp.Diff([]string(nil), unlabelled); diff != "" {
				t.Errorf("values without a label (-want +got):\n%s", diff)
			}
		})
	}
}
