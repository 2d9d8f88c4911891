package web

import (
	"net/http"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
)

// openWorkspace opens another of the person's workspaces in their web
// session, then shows its approvals: what was on screen belonged to the
// workspace left.
func (s *server) openWorkspace(w http.ResponseWriter, r *http.Request, _ auth.User, ses auth.WebSession) {
	id, err := uuid.Parse(r.PostFormValue("workspace"))
	if err == nil {
		err = s.Accounts.OpenWorkspace(r.Context(), ses.Token, id)
	} else {
		err = auth.ErrNotMember
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/approvals", http.StatusSeeOther)
}

// inApprovalsWorkspace runs next in the workspace of the approval the path
// names: the open one, or else another workspace the person belongs to,
// which it opens (a link from a conversation in that workspace leads
// there). An approval of a workspace the person does not belong to is
// never looked for, so it reads as not found.
func (s *server) inApprovalsWorkspace(next signedInHandler) signedInHandler {
	return func(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
		ctx := r.Context()
		id := r.PathValue("id")
		if len(u.Workspaces) < 2 {
			next(w, r, u, ses)
			return
		}
		_, err := s.Approvals.Find(ctx, u.WorkspaceID, id)
		if vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
			next(w, r, u, ses)
			return
		}
		for _, m := range u.Workspaces {
			if m.WorkspaceID == u.WorkspaceID {
				continue
			}
			_, err := s.Approvals.Find(ctx, m.WorkspaceID, id)
			if vibesell.ErrorCode(err) == vibesell.ENOTFOUND {
				continue
			}
			if err == nil {
				err = s.Accounts.OpenWorkspace(ctx, ses.Token, m.WorkspaceID)
			}
			if err != nil {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			u.WorkspaceID, u.WorkspaceSlug, u.WorkspaceName = m.WorkspaceID, m.Slug, m.Name
			break
		}
		next(w, r, u, ses)
	}
}
