package vibesell

import "testing"

// Each scope is a step up from the one before: a token that may act may
// write and read, and nothing covers a scope that is not the catalog's.
func TestScopeCovers(t *testing.T) {
	for _, tc := range []struct {
		granted []string
		needed  string
		want    bool
	}{
		{[]string{ScopeRead}, ScopeRead, true},
		{[]string{ScopeRead}, ScopeWrite, false},
		{[]string{ScopeRead}, ScopeAct, false},
		{[]string{ScopeWrite}, ScopeRead, true},
		{[]string{ScopeWrite}, ScopeAct, false},
		{[]string{ScopeAct}, ScopeRead, true},
		{[]string{ScopeAct}, ScopeWrite, true},
		{[]string{ScopeRead, ScopeAct}, ScopeWrite, true},
		{[]string{"offline_access", ScopeWrite}, ScopeWrite, true},
		{nil, ScopeRead, false},
		{[]string{"mcp"}, ScopeRead, false},
		{[]string{ScopeAct}, "mcp", false},
		{[]string{ScopeAct}, "", false},
	} {
		if got := ScopeCovers(tc.granted, tc.needed); got != tc.want {
			t.Errorf("ScopeCovers(%q, %q) = %v, want %v", tc.granted, tc.needed, got, tc.want)
		}
	}
}
