package proofread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResult(t *testing.T) {
	for _, tc := range []struct {
		text    string
		isError bool
		want    []string
	}{
		{"No replies yet.", false, []string{"a result that does not end with what to do next"}},
		{"No replies yet.\n\nNext: call get_campaign to see what was sent.", false, nil},
		{"Saved.\n\nPut the question to the person and wait.", false, nil},
		{"There is no campaign cp_1 in this workspace. Call get_workspace_context for the campaigns it has.", true, nil},
		{"No such upload.", true, nil},
		{"Opened ticket VS-1 on the Support page (http://x.test/app/support).\n\nNext: tell the person.", false,
			[]string{"a link without saying only the person opens it"}},
		{"Give the person this link; only they open it: https://x.test/pay\n\nNext: wait for them.", false, nil},
	} {
		var got []string
		for _, f := range Result(tc.text, tc.isError) {
			got = append(got, f.Rule)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: findings mismatch (-want +got):\n%s", tc.text, diff)
		}
	}
}
