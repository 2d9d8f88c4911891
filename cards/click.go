package cards

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/proof"
	"vibesell/store"
)

// Tokens issues the card's one-time tokens (package proof) for the cards
// a result shows, by card id: what the result carries in its _meta.
func (s *Service) Tokens(ctx context.Context, ws uuid.UUID, ids ...string) (map[string]string, error) {
	return proof.Issue(ctx, s.db, s.clock, ws, ids...)
}

// Click records the answer the person clicked (or typed) in the card,
// proven by the card's token, which it uses up. It binds nothing: the
// card then calls the card's tool with the answer, as the assistant
// would, and that call binds it as clicked (the answer the token
// recorded) rather than relayed. hostApps is whether the session of the
// click declared the MCP Apps extension (nil when not known).
//
// Refusals (EINVALID): a token [proof.Redeem] refuses; a card that is not
// open (answered or replaced: the tool's call says what stands); an
// answer that is empty, too long, or not a choice of a card that takes
// only its choices.
func (s *Service) Click(ctx context.Context, ws uuid.UUID, card, answer, token string, hostApps *bool) error {
	if !cardID.MatchString(card) {
		return vibesell.Errorf(vibesell.EINVALID, "%q is not a card id.", card)
	}
	answer = normalizeAnswer(answer)
	switch {
	case answer == "":
		return vibesell.Errorf(vibesell.EINVALID, "The answer is empty. Pick a choice or type an answer.")
	case utf8.RuneCountInString(answer) > maxAnswer:
		return vibesell.Errorf(vibesell.EINVALID, "The answer is too long: keep it to %d characters.", maxAnswer)
	}
	return store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := proof.Redeem(ctx, tx, s.clock, ws, card, token); err != nil {
			return err
		}
		var status string
		var takes bool
		err := tx.QueryRow(ctx, `SELECT status, allow_free_text OR choices @> jsonb_build_array(jsonb_build_object('id', $3::text))
			FROM choice_cards WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, ws, card, answer).Scan(&status, &takes)
		if errors.Is(err, pgx.ErrNoRows) {
			return vibesell.Errorf(vibesell.EINVALID, "There is no such question in this workspace.")
		}
		if err != nil {
			return fmt.Errorf("read card %s: %w", card, err)
		}
		switch {
		case status != "open":
			return vibesell.Errorf(vibesell.EINVALID, "This question was answered or replaced already. Reload the card to see where it stands.")
		case !takes:
			return vibesell.Errorf(vibesell.EINVALID, "This question takes one of its choices only. Pick one of them.")
		}
		if _, err := tx.Exec(ctx, `UPDATE choice_cards SET clicked_answer = $3, clicked_at = $4, answered_host_apps = $5
			WHERE workspace_id = $1 AND id = $2`, ws, card, answer, s.clock.Now(), hostApps); err != nil {
			return fmt.Errorf("record the click on card %s: %w", card, err)
		}
		return nil
	})
}
