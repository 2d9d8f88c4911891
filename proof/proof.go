// Package proof gives the card a way to prove that a person clicked: a
// one-time decision token for each approval or choice card a result shows.
//
// A result that shows an approval or a question carries a token in its
// _meta, which hosts give to the card (the view) and never to the model.
// The card's app-only tool ([vibesell.ToolDecideInCard]) decides or
// answers only with a token [Redeem] accepts, and the decision is then
// recorded as clicked in the card. The model has no token, so whatever it
// passes on is recorded as relayed.
//
// A token is bound to one subject (an approval id or a card id) of one
// workspace, never to an MCP session (hosts send the card's calls over
// another session than the model's); it lasts [TTL], is used once, and
// only its SHA-256 is stored.
package proof

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/store"
)

// TTL is how long a token may be used after the result that carried it.
// A card left open longer falls back to the assistant's path (recorded as
// relayed), or the person reloads it and gets a new token.
const TTL = 30 * time.Minute

// MetaKey is the key of the result's _meta that carries the tokens, as an
// object from subject (approval or card id) to token.
const MetaKey = "vibesell/decisionTokens"

// prefix marks a decision token, so a token pasted where another secret is
// expected is recognised for what it is.
const prefix = "vsd_"

// Issue makes one token for each subject of the workspace and returns them
// by subject. Expired tokens of the workspace are cleared on the way.
func Issue(ctx context.Context, db store.DBTX, clock vibesell.Clock, ws uuid.UUID, subjects ...string) (map[string]string, error) {
	if len(subjects) == 0 {
		return nil, nil
	}
	now := clock.Now()
	tokens := make(map[string]string, len(subjects))
	hashes := make([][]byte, 0, len(subjects))
	subs := make([]string, 0, len(subjects))
	for _, s := range subjects {
		if _, dup := tokens[s]; dup {
			continue
		}
		var b [32]byte
		_, _ = rand.Read(b[:])
		t := prefix + base64.RawURLEncoding.EncodeToString(b[:])
		tokens[s] = t
		h := hash(t)
		hashes = append(hashes, h[:])
		subs = append(subs, s)
	}
	_, err := db.Exec(ctx, `WITH cleared AS (
			DELETE FROM decision_tokens WHERE workspace_id = $1 AND expires_at < $3::timestamptz - interval '1 hour')
		INSERT INTO decision_tokens (token_hash, workspace_id, subject, created_at, expires_at)
		SELECT h, $1, s, $3, $4 FROM unnest($2::bytea[], $5::text[]) AS t(h, s)`,
		ws, hashes, now, now.Add(TTL), subs)
	if err != nil {
		return nil, fmt.Errorf("issue decision tokens: %w", err)
	}
	return tokens, nil
}

// Redeem uses token for subject in the workspace, in the caller's
// transaction (so that a decision that is not taken does not use it up).
// It refuses, with a sentence for the person, a token that is unknown,
// another approval's or card's, another workspace's, used already or
// expired: all read alike, so a refusal tells nothing about other
// workspaces.
func Redeem(ctx context.Context, tx store.DBTX, clock vibesell.Clock, ws uuid.UUID, subject, token string) error {
	h := hash(token)
	tag, err := tx.Exec(ctx, `UPDATE decision_tokens SET used_at = $4
		WHERE token_hash = $1 AND workspace_id = $2 AND subject = $3 AND used_at IS NULL AND expires_at > $4`,
		h[:], ws, subject, clock.Now())
	if err != nil {
		return fmt.Errorf("redeem decision token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return vibesell.Errorf(vibesell.EINVALID,
			"This card is out of date: its button was used already or has expired. Reload the card, or tell the assistant your decision.")
	}
	return nil
}

func hash(token string) [32]byte { return sha256.Sum256([]byte(token)) }
