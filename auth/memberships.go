package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Membership is a workspace a person belongs to.
type Membership struct {
	WorkspaceID uuid.UUID `json:"id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
}

// BelongsTo reports whether the person is a member of the workspace.
func (u User) BelongsTo(workspaceID uuid.UUID) bool {
	for _, m := range u.Workspaces {
		if m.WorkspaceID == workspaceID {
			return true
		}
	}
	return false
}

// ErrNoAccount answers [Accounts.AddMember] for an email without an account.
var ErrNoAccount = vibesell.Errorf(vibesell.ENOTFOUND, "There is no account with this email address.")

// AddMember makes the person with an existing account a member of one more
// workspace; their password stays as it is. It returns the person with
// that workspace as the one named. Refusals: [ErrNoAccount]; ECONFLICT when
// they already belong to it; ENOTFOUND for an unknown workspace.
func (a *Accounts) AddMember(ctx context.Context, workspaceID uuid.UUID, email string) (User, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	u := User{Email: email}
	var tz string
	var added bool
	err = a.db.QueryRow(ctx, `WITH person AS (SELECT id, name, time_zone FROM users WHERE email = $1),
			added AS (INSERT INTO memberships (user_id, workspace_id, created_at)
				SELECT p.id, w.id, $3 FROM person p, workspaces w WHERE w.id = $2
				ON CONFLICT DO NOTHING RETURNING user_id)
		SELECT p.id, p.name, p.time_zone, w.slug, w.name, EXISTS (SELECT 1 FROM added)
		FROM person p, workspaces w WHERE w.id = $2`, email, workspaceID, a.clock.Now()).
		Scan(&u.ID, &u.Name, &tz, &u.WorkspaceSlug, &u.WorkspaceName, &added)
	if errors.Is(err, pgx.ErrNoRows) {
		var known bool
		if err := a.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE email = $1)`, email).Scan(&known); err != nil {
			return User{}, fmt.Errorf("find user: %w", err)
		}
		if !known {
			return User{}, ErrNoAccount
		}
		return User{}, vibesell.Errorf(vibesell.ENOTFOUND, "There is no such workspace.")
	}
	if err != nil {
		return User{}, fmt.Errorf("add member: %w", err)
	}
	if !added {
		return User{}, vibesell.Errorf(vibesell.ECONFLICT, "%s already belongs to the workspace %s.", email, u.WorkspaceSlug)
	}
	u.WorkspaceID, u.TimeZone = workspaceID, loadLocation(tz)
	return u, nil
}

// membershipsOf is a SQL expression: the workspaces of the person whose id
// is userID, as JSON for [Membership], by name.
func membershipsOf(userID string) string {
	return `(SELECT coalesce(json_agg(json_build_object('id', mw.id, 'slug', mw.slug, 'name', mw.name) ORDER BY mw.name, mw.slug), '[]')
		FROM memberships mm JOIN workspaces mw ON mw.id = mm.workspace_id WHERE mm.user_id = ` + userID + `)`
}

func decodeMemberships(raw []byte) ([]Membership, error) {
	var ms []Membership
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, fmt.Errorf("read memberships: %w", err)
	}
	return ms, nil
}

// ErrNotMember answers opening a workspace the person does not belong to.
var ErrNotMember = vibesell.Errorf(vibesell.ENOTFOUND, "You do not belong to that workspace.")

// OpenWorkspace makes the web session show and act in another workspace of
// the person's; their next sign-in opens it too. Refusals: [ErrNotMember]
// (also for a token that is no session).
func (a *Accounts) OpenWorkspace(ctx context.Context, token string, workspaceID uuid.UUID) error {
	sum := sha256.Sum256([]byte(token))
	tag, err := a.db.Exec(ctx, `WITH ses AS (
			UPDATE web_sessions s SET workspace_id = $2 WHERE s.token_hash = $1
				AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = s.user_id AND m.workspace_id = $2)
			RETURNING s.user_id)
		UPDATE memberships m SET opened_at = $3 FROM ses WHERE m.user_id = ses.user_id AND m.workspace_id = $2`,
		sum[:], workspaceID, a.clock.Now())
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotMember
	}
	return nil
}

// MemberEmails returns the email addresses of the workspace's people, in
// the order they joined it.
func (a *Accounts) MemberEmails(ctx context.Context, workspaceID uuid.UUID) ([]string, error) {
	rows, err := a.db.Query(ctx, `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.workspace_id = $1 ORDER BY m.created_at, u.email`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("read the workspace's people: %w", err)
	}
	emails, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read the workspace's people: %w", err)
	}
	return emails, nil
}
