package proof_test

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"vibesell"
	"vibesell/proof"
	"vibesell/store/storetest"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// A token is kept only as its hash, for its subject and workspace, and
// works once before it expires.
func TestTokensAreStoredHashedAndWorkOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	two := workspacetest.Two(t, pool)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	tokens, err := proof.Issue(ctx, pool, clock, two.Acme.ID, "ap_0123456789abcdef", "0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	token := tokens["ap_0123456789abcdef"]
	if !strings.HasPrefix(token, "vsd_") || len(tokens) != 2 {
		t.Fatalf("tokens %v", tokens)
	}
	var stored int
	sum := sha256.Sum256([]byte(token))
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM decision_tokens WHERE token_hash = $1`, sum[:]).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("rows under the token's hash: %d, %v", stored, err)
	}
	var plain int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM decision_tokens t WHERE position($1::bytea IN t.token_hash) > 0 OR t.subject = $2`,
		[]byte(token), token).Scan(&plain); err != nil || plain != 0 {
		t.Errorf("the token is stored as it is: %d rows, %v", plain, err)
	}
	for name, c := range map[string]struct {
		ws      bool
		subject string
	}{
		"another workspace": {false, "ap_0123456789abcdef"},
		"another subject":   {true, "0123456789abcdef"},
	} {
		ws := two.Acme.ID
		if !c.ws {
			ws = two.Globex.ID
		}
		if err := proof.Redeem(ctx, pool, clock, ws, c.subject, token); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := proof.Redeem(ctx, pool, clock, two.Acme.ID, "ap_0123456789abcdef", token); err != nil {
		t.Fatalf("the first use: %v", err)
	}
	if err := proof.Redeem(ctx, pool, clock, two.Acme.ID, "ap_0123456789abcdef", token); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("the second use: %v", err)
	}
	clock.Advance(proof.TTL)
	if err := proof.Redeem(ctx, pool, clock, two.Acme.ID, "0123456789abcdef", tokens["0123456789abcdef"]); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("used at its expiry: %v", err)
	}
}
