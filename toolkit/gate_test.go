package toolkit

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit/toolkittest"
)

// The gate is the one place a tool is refused before its handler runs: it
// sees every call with what the tool's spec declares, and its refusal,
// whatever its code, reaches the client like any other.
func TestGateDecidesEveryCall(t *testing.T) {
	type asked struct {
		Tool  string
		Needs Needs
	}
	var mu sync.Mutex
	var seen []asked
	b := setup(t, func(o *Options) {
		o.Gate = func(ctx context.Context, p auth.Principal, tool string, n Needs) error {
			mu.Lock()
			seen = append(seen, asked{tool, n})
			mu.Unlock()
			if p.WorkspaceID != testPrincipal.WorkspaceID {
				return errors.New("the gate was not given the caller")
			}
			switch {
			case tool == "tag_leads":
				return vibesell.Errorf(vibesell.EPAYMENTREQUIRED, "Tagging leads is part of the Growth plan. Upgrade to use it.")
			case tool == "behave":
				return vibesell.Errorf(vibesell.EUNAUTHORIZED, "This connection may only read. Reconnect VibeSell and allow it to act.")
			case tool == "save_contact":
				return errors.New("plans table is unreachable")
			}
			return nil
		}
	})

	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code, text string
	}{
		{"a refusal for the plan is payment required", "tag_leads", map[string]any{"names": []string{"ada@acme.com"}},
			vibesell.EPAYMENTREQUIRED, "Tagging leads is part of the Growth plan. Upgrade to use it."},
		{"a missing scope is unauthorized", "behave", map[string]any{"mode": "ok"},
			vibesell.EUNAUTHORIZED, "This connection may only read. Reconnect VibeSell and allow it to act."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := b.client.For(t).Call(tc.tool, tc.args)
			if diff := cmp.Diff(refusalSeen{true, 1, tc.text, tc.code, nil}, seenRefusal(res)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a gate that cannot decide is an internal failure", func(t *testing.T) {
		res := b.client.For(t).Call("save_contact", map[string]any{"name": "Acme"})
		if code := refusalCode(res); code != vibesell.EINTERNAL || !refText.MatchString(toolkittest.TextOf(res)) {
			t.Errorf("result %q (%s), want the internal sentence with a ref", toolkittest.TextOf(res), code)
		}
	})
	t.Run("a call the gate lets through runs", func(t *testing.T) {
		b.client.For(t).Result("ping", nil, nil)
	})

	want := []asked{
		{"tag_leads", Needs{Scope: vibesell.ScopeWrite}},
		{"behave", Needs{Scope: vibesell.ScopeRead}},
		{"save_contact", Needs{Scope: vibesell.ScopeRead}},
		{"ping", Needs{Scope: vibesell.ScopeRead}},
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("what the gate was asked (-want +got):\n%s", diff)
	}
	if recs := b.logs.Records(t); len(recs) != 1 || recs[0]["err"] != "gate: plans table is unreachable" {
		t.Errorf("log = %v, want only the gate's failure, under a ref", recs)
	}
}
