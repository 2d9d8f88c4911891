package mail

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/mail"
	"strings"

	"github.com/google/uuid"
)

// Suppressor keeps the workspace's suppression list: addresses that must
// never be emailed again. The audience feature owns the list; the engine
// only asks and adds.
type Suppressor interface {
	// Suppress adds the address; adding it twice is not an error. reason is
	// a short word: "unsubscribed", "hard_bounce", "complaint".
	Suppress(ctx context.Context, workspaceID uuid.UUID, address, reason string) error
	Suppressed(ctx context.Context, workspaceID uuid.UUID, address string) (bool, error)
}

// Unsubscribe links name a workspace and an address, signed with a key
// derived from MAIL_SECRET_KEY: whoever holds the link can unsubscribe that
// address from that workspace, and nothing else.
//
// A token is base64url(workspace id ‖ address) "." base64url(HMAC-SHA256).

// UnsubscribeToken returns the token for the address.
func (s Secret) UnsubscribeToken(workspaceID uuid.UUID, address string) string {
	payload := append(workspaceID[:], strings.ToLower(strings.TrimSpace(address))...)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

// UnsubscribeURL is the link that goes in List-Unsubscribe and the footer.
func (s Secret) UnsubscribeURL(publicURL string, workspaceID uuid.UUID, address string) string {
	return strings.TrimRight(publicURL, "/") + "/u/" + s.UnsubscribeToken(workspaceID, address)
}

var errBadToken = errors.New("unsubscribe token is not valid")

// readToken returns what a token names, or errBadToken when it was not
// signed with this secret.
func (s Secret) readToken(token string) (uuid.UUID, string, error) {
	payloadText, macText, ok := strings.Cut(token, ".")
	if !ok {
		return uuid.Nil, "", errBadToken
	}
	payload, err := base64.RawURLEncoding.DecodeString(payloadText)
	if err != nil || len(payload) <= 16 {
		return uuid.Nil, "", errBadToken
	}
	mac, err := base64.RawURLEncoding.DecodeString(macText)
	if err != nil || !hmac.Equal(mac, s.mac(payload)) {
		return uuid.Nil, "", errBadToken
	}
	workspaceID, _ := uuid.FromBytes(payload[:16])
	return workspaceID, string(payload[16:]), nil
}

func (s Secret) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, s.links)
	h.Write(payload)
	return h.Sum(nil)
}

//go:embed templates/unsubscribe.html
var templates embed.FS

var unsubscribePage = template.Must(template.ParseFS(templates, "templates/unsubscribe.html"))

// UnsubscribeRoutes adds GET and POST /u/{token} to mux. POST is RFC 8058's
// one-click unsubscribe: mail providers send it with no cookie and read no
// page, so the address is suppressed before the response is written. GET
// is what a person who clicks the footer link sees: one button, which
// POSTs the same form.
//
// The page names the sender, as senderOf tells it (nil: "this sender"),
// so that the person knows whose emails they stop.
func UnsubscribeRoutes(mux *http.ServeMux, secret Secret, suppressor Suppressor, senderOf IdentityOf, logger *slog.Logger) {
	h := unsubscribeHandler{secret: secret, suppressor: suppressor, senderOf: senderOf, logger: logger}
	mux.HandleFunc("GET /u/{token}", h.show)
	mux.HandleFunc("POST /u/{token}", h.unsubscribe)
}

// Identity is who a workspace's emails come from, as the unsubscribe page
// names them: the company, and the postal address the emails carry.
type Identity struct {
	Company       string
	PostalAddress string
}

// IdentityOf returns the [Identity] of workspace ws's emails.
type IdentityOf func(ctx context.Context, ws uuid.UUID) (Identity, error)

type unsubscribeHandler struct {
	secret     Secret
	suppressor Suppressor
	senderOf   IdentityOf
	logger     *slog.Logger
}

type unsubscribeView struct {
	Address string
	Sender  Identity // zero when unknown: the page says "this sender"
	Done    bool
	Invalid bool
	Failed  bool
}

// sender names the workspace's sender; the page without the name is still
// the way to unsubscribe, so a failed read leaves it out and is logged.
func (h unsubscribeHandler) sender(ctx context.Context, ws uuid.UUID) Identity {
	if h.senderOf == nil {
		return Identity{}
	}
	s, err := h.senderOf(ctx, ws)
	if err != nil {
		h.logger.WarnContext(ctx, "unsubscribe page: read the sender", "workspace", ws, "err", err)
		return Identity{}
	}
	return s
}

func (h unsubscribeHandler) show(w http.ResponseWriter, r *http.Request) {
	ws, address, err := h.secret.readToken(r.PathValue("token"))
	if err != nil {
		h.render(w, http.StatusNotFound, unsubscribeView{Invalid: true})
		return
	}
	h.render(w, http.StatusOK, unsubscribeView{Address: address, Sender: h.sender(r.Context(), ws)})
}

func (h unsubscribeHandler) unsubscribe(w http.ResponseWriter, r *http.Request) {
	workspaceID, address, err := h.secret.readToken(r.PathValue("token"))
	if err != nil {
		h.render(w, http.StatusNotFound, unsubscribeView{Invalid: true})
		return
	}
	if _, err := mail.ParseAddress(address); err != nil {
		h.render(w, http.StatusNotFound, unsubscribeView{Invalid: true})
		return
	}
	if err := h.suppressor.Suppress(r.Context(), workspaceID, address, "unsubscribed"); err != nil {
		ref := uuid.NewString()[:8]
		h.logger.Error("unsubscribe: suppress", "ref", ref, "workspace", workspaceID, "err", err)
		h.render(w, http.StatusInternalServerError, unsubscribeView{Address: address, Failed: true})
		return
	}
	h.render(w, http.StatusOK, unsubscribeView{Address: address, Sender: h.sender(r.Context(), workspaceID), Done: true})
}

func (h unsubscribeHandler) render(w http.ResponseWriter, status int, v unsubscribeView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Robots-Tag", "noindex")
	w.WriteHeader(status)
	if err := unsubscribePage.Execute(w, v); err != nil {
		h.logger.Warn("unsubscribe page", "err", err)
	}
}
