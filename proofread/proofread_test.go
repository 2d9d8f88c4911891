package proofread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		text   string
		reader Reader
		want   []string // the rules broken, in order
	}{
		{"Metrics: not available (null).", Assistant, []string{"a value leaked into prose"}},
		{"Opens: NaN, clicks: undefined.", Assistant, []string{"a value leaked into prose", "a value leaked into prose"}},
		{`Saved {"kind":"offer"} for you.`, Assistant, []string{"JSON in prose"}},
		{`Call it with answers = ` + "`" + `[{"card": "ab", "answer": "x"}]` + "`" + `.`, Assistant, nil},
		{"1 with an invalid or role address..", Assistant, []string{"a doubled full stop"}},
		{"It waits until it is resumed.. Then", Assistant, []string{"a doubled full stop"}},
		{"Wait for it... then go on.", Assistant, nil},
		{"ready, ready Tue 1 Dec 2026", Person, []string{"a word twice in a row"}},
		{"It is ready. Ready is what it is.", Person, nil},
		{"1 mailboxes on 2 domain.", Assistant, []string{"a plural noun after 1", "a singular noun after 2"}},
		{"3 mailbox addresses on 1 domain, 1,200 leads and 0 replies.", Assistant, nil},
		{"Open https://x.test/a..b?null=1 or mail a@b.test.", Person, nil},
		{"Approval 3f2b9c1e-8a4d-4e1f-9b2a-0c1d2e3f4a5b is pending.", Person, []string{"an internal id shown to a person"}},
		{"Approval 3f2b9c1e-8a4d-4e1f-9b2a-0c1d2e3f4a5b is pending.", Assistant, nil},
		{"Card 0123456789abcdef.", Person, []string{"an internal id shown to a person"}},
		{"Token vs_abcdefghijk", Person, []string{"an internal id shown to a person"}},
		{"Ask the assistant to call get_workspace_context.", Person, []string{"a name from the code shown to a person"}},
		{"Call get_workspace_context first.", Assistant, nil},
		{"USD 15.00 each, 2 times a day, on Tue 1 Dec 2026.", Assistant, nil},
		{"```\n{\"kind\": null}\n```\nDone.", Assistant, nil},
	} {
		var got []string
		for _, f := range Text(tc.text, tc.reader) {
			got = append(got, f.Rule)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: findings mismatch (-want +got):\n%s", tc.text, diff)
		}
	}
}

func TestPage(t *testing.T) {
	page := `<html><head><title>Leads</title><style>p{}</style></head><body>
<h1 data-verbatim>long long file.csv</h1><p>Uploaded on Tue 1 Dec 2026.</p>
<table data-verbatim><tr><td>x x</td><td><br>null</td></tr></table>
<p>Your 1 leads are ready..</p><input placeholder="Type it it here"></body></html>`
	var got []string
	for _, f := range Page(page) {
		got = append(got, f.Rule)
	}
	want := []string{"a doubled full stop", "a word twice in a row", "a plural noun after 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
}
