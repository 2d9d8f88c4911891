package cards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/proof"
)

// Tokens issues the card's one-time tokens (package proof) for the cards
// a result shows, by card id: what the result carries in its _meta.
func (s *Service) Tokens(ctx context.Context, ws uuid.UUID, ids ...string) (map[string]string, error) {
	return proof.Issue(ctx, s.db, s.clock, ws, ids...)
}

// Asked is what a card asked for: the tool and its arguments (canonical),
// which is what answering it in the card calls again, with the answer
// carrying the card's token (see [Answer]).
type Asked struct {
	Tool      string
	Arguments json.RawMessage
}

// FindAsked returns what card asked for in the workspace.
//
// Refusals (EINVALID): a card id that is malformed or not a card of this
// workspace (the two read alike).
func (s *Service) FindAsked(ctx context.Context, ws uuid.UUID, card string) (Asked, error) {
	if !cardID.MatchString(card) {
		return Asked{}, vibesell.Errorf(vibesell.EINVALID, "There is no such question in this workspace.")
	}
	if r, ok := s.answered.Get(cardKey{ws, card}); ok {
		return Asked{Tool: r.tool, Arguments: recanonical(r.arguments)}, nil
	}
	var a Asked
	var args []byte
	err := s.db.QueryRow(ctx, `SELECT tool, arguments FROM choice_cards WHERE workspace_id = $1 AND id = $2`, ws, card).Scan(&a.Tool, &args)
	if errors.Is(err, pgx.ErrNoRows) {
		return Asked{}, vibesell.Errorf(vibesell.EINVALID, "There is no such question in this workspace.")
	}
	if err != nil {
		return Asked{}, fmt.Errorf("read card %s: %w", card, err)
	}
	a.Arguments = recanonical(args)
	return a, nil
}
