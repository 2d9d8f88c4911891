package web

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/webhooks"
)

// webhookRoutes adds the webhooks pages when the app has webhooks.
func (s *server) webhookRoutes(mux *http.ServeMux) {
	if s.Webhooks == nil {
		return
	}
	mux.HandleFunc("GET /app/webhooks", s.signedIn(s.webhooksPage))
	mux.HandleFunc("POST /app/webhooks", s.post(s.signedIn(s.addWebhook)))
	mux.HandleFunc("GET /app/webhooks/{id}", s.signedIn(s.webhookLogPage))
	mux.HandleFunc("POST /app/webhooks/{id}/disable", s.post(s.signedIn(s.webhookAction("disabled", s.Webhooks.Disable))))
	mux.HandleFunc("POST /app/webhooks/{id}/enable", s.post(s.signedIn(s.webhookAction("enabled", s.Webhooks.Enable))))
	mux.HandleFunc("POST /app/webhooks/{id}/delete", s.post(s.signedIn(s.webhookAction("deleted", s.Webhooks.Delete))))
	mux.HandleFunc("POST /app/webhooks/{id}/events/{event}/send-again", s.post(s.signedIn(s.sendWebhookAgain)))
}

// webhookEvents describes each event for the page, in the README's order.
var webhookEvents = []struct{ Type, What string }{
	{webhooks.TypeReplyReceived, "a reply arrived, with its classification and the lead"},
	{webhooks.TypeLeadInterested, "a lead's reply is interested"},
	{webhooks.TypeLeadUnsubscribed, "a lead unsubscribed"},
	{webhooks.TypeLeadBounced, "a lead's address bounced for good"},
	{webhooks.TypeCampaignPaused, "VibeSell paused a campaign, and why"},
}

type webhookRow struct {
	E        webhooks.Endpoint
	Added    string
	Disabled string
}

type webhooksView struct {
	Endpoints []webhookRow
	Events    []struct{ Type, What string }
	URL       string // what was typed, kept after a refusal
	// Secret is the new endpoint's signing secret, shown this once.
	Secret   string
	SecretOf string
}

// webhooksPage lists the workspace's endpoints and the form to add one.
func (s *server) webhooksPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	notice := map[string]string{
		"disabled": "The endpoint is disabled: it receives no events until you enable it.",
		"enabled":  "The endpoint is enabled: it receives the events from now on.",
		"deleted":  "The endpoint and its delivery log are deleted.",
	}[r.URL.Query().Get("done")]
	s.renderWebhooks(w, r, u, ses, http.StatusOK, notice, "", webhooksView{})
}

func (s *server) renderWebhooks(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, notice, message string, d webhooksView) {
	list, err := s.Webhooks.List(r.Context(), u.WorkspaceID)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	for _, e := range list {
		row := webhookRow{E: e, Added: formatTime(e.CreatedAt, u.TimeZone)}
		if e.DisabledAt != nil {
			row.Disabled = formatTime(*e.DisabledAt, u.TimeZone)
		}
		d.Endpoints = append(d.Endpoints, row)
	}
	d.Events = webhookEvents
	s.render(w, r, status, "webhooks", pageData{Title: "Webhooks", User: &u, CSRF: ses.CSRF(), Notice: notice, Message: message, Body: d})
}

// addWebhook checks and adds an endpoint, and shows its secret once; a
// refused address is said on the page, keeping what was typed.
func (s *server) addWebhook(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	raw := r.PostFormValue("url")
	e, secret, err := s.Webhooks.Create(r.Context(), u.WorkspaceID, raw)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.renderWebhooks(w, r, u, ses, http.StatusUnprocessableEntity, "", vibesell.ErrorForPerson(err), webhooksView{URL: raw})
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	s.renderWebhooks(w, r, u, ses, http.StatusOK, "The endpoint is added: it receives the events from now on.", "", webhooksView{Secret: secret, SecretOf: e.URL})
}

// webhookAction runs one action on an endpoint and returns to the list.
func (s *server) webhookAction(done string, act func(ctx context.Context, ws uuid.UUID, id string) error) signedInHandler {
	return func(w http.ResponseWriter, r *http.Request, u auth.User, _ auth.WebSession) {
		if err := act(r.Context(), u.WorkspaceID, r.PathValue("id")); err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		http.Redirect(w, r, "/app/webhooks?done="+done, http.StatusSeeOther)
	}
}

type webhookLogRow struct {
	D       webhooks.Delivery
	At      string
	Status  string
	Tried   string
	Resends bool
}

type webhookLogView struct {
	E          webhooks.Endpoint
	Deliveries []webhookLogRow
}

// webhookLogStatuses are the deliveries' statuses in words.
var webhookLogStatuses = map[string]string{
	webhooks.Pending:   "Waiting to be sent",
	webhooks.Delivered: "Delivered",
	webhooks.Failing:   "Failing, tried again later",
	webhooks.Failed:    "Not delivered",
}

// webhookLogPage shows an endpoint's latest deliveries, each with a way
// to send it again.
func (s *server) webhookLogPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	e, err := s.Webhooks.Find(r.Context(), u.WorkspaceID, r.PathValue("id"))
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	log, err := s.Webhooks.Deliveries(r.Context(), u.WorkspaceID, e.ID, 100)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	d := webhookLogView{E: e}
	for _, dl := range log {
		row := webhookLogRow{D: dl, At: formatTime(dl.EventAt, u.TimeZone), Status: webhookLogStatuses[dl.Status], Resends: e.Enabled()}
		if dl.LastAttemptAt != nil {
			row.Tried = formatTime(*dl.LastAttemptAt, u.TimeZone)
		}
		d.Deliveries = append(d.Deliveries, row)
	}
	notice := ""
	if r.URL.Query().Get("done") == "sent-again" {
		notice = "The event is on its way again; this log shows how it went."
	}
	s.render(w, r, http.StatusOK, "webhooklog", pageData{Title: "Webhook deliveries", User: &u, CSRF: ses.CSRF(), Notice: notice, Body: d})
}

// sendWebhookAgain sends one event to the endpoint once more.
func (s *server) sendWebhookAgain(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	id := r.PathValue("id")
	if err := s.Webhooks.SendAgain(r.Context(), u.WorkspaceID, id, r.PathValue("event")); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/webhooks/"+id+"?done=sent-again", http.StatusSeeOther)
}
