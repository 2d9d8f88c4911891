package mail_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell/delivery/deliverytest"
	"vibesell/mail"
)

func unsubscribeServer(t *testing.T, b *deliverytest.Bundle) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mail.UnsubscribeRoutes(mux, b.Secret, b.Suppressor, func(_ context.Context, ws uuid.UUID) (mail.Identity, error) {
		if ws != b.Workspace {
			return mail.Identity{}, errors.New("no such workspace")
		}
		return mail.Identity{Company: "Acme Sales", PostalAddress: "1 Main Street, Springfield"}, nil
	}, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestUnsubscribe(t *testing.T) {
	// No cookie jar: the one-click POST comes from a mail provider that
	// holds no session of ours.
	client := &http.Client{}
	oneClick := func(t *testing.T, link string) (int, string) {
		t.Helper()
		resp, err := client.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	t.Run("the one-click POST suppresses the address before it answers", func(t *testing.T) {
		b := deliverytest.Setup(t)
		srv := unsubscribeServer(t, b)
		link := b.Secret.UnsubscribeURL(srv.URL, b.Workspace, "Sam@Acme-Corp.example")
		status, body := oneClick(t, link)
		if status != http.StatusOK || !strings.Contains(body, "sam@acme-corp.example will not get any more emails") {
			t.Fatalf("POST answered %d:\n%s", status, body)
		}
		if diff := cmp.Diff([]string{"sam@acme-corp.example unsubscribed"}, b.Suppressor.List(t, b.Workspace)); diff != "" {
			t.Errorf("suppressed (-want +got):\n%s", diff)
		}
	})

	t.Run("the link opened in a browser shows one button and suppresses nothing until it is pressed", func(t *testing.T) {
		b := deliverytest.Setup(t)
		srv := unsubscribeServer(t, b)
		link := b.Secret.UnsubscribeURL(srv.URL, b.Workspace, "sam@acme-corp.example")
		resp, err := client.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, s := range []string{"Unsubscribe?", "sam@acme-corp.example", `<form method="post">`, `<button type="submit">Unsubscribe</button>`,
			"Stop all emails from <strong>Acme Sales</strong> to sam@acme-corp.example.", "Acme Sales, 1 Main Street, Springfield"} {
			if !strings.Contains(string(page), s) {
				t.Errorf("the page does not say %q:\n%s", s, page)
			}
		}
		if strings.Contains(string(page), "<script") {
			t.Error("the page needs JavaScript")
		}
		if got := b.Suppressor.List(t, b.Workspace); len(got) != 0 {
			t.Fatalf("opening the link suppressed %v", got)
		}
		// The button posts the page's form back to the same address.
		resp, err = client.PostForm(link, url.Values{"List-Unsubscribe": {"One-Click"}})
		if err != nil {
			t.Fatal(err)
		}
		done, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(done), "sam@acme-corp.example will not get any more emails from <strong>Acme Sales</strong>.") {
			t.Errorf("the page after unsubscribing does not name the sender:\n%s", done)
		}
		if diff := cmp.Diff([]string{"sam@acme-corp.example unsubscribed"}, b.Suppressor.List(t, b.Workspace)); diff != "" {
			t.Errorf("suppressed (-want +got):\n%s", diff)
		}
	})

	t.Run("a token cannot unsubscribe anyone else", func(t *testing.T) {
		b := deliverytest.Setup(t)
		srv := unsubscribeServer(t, b)
		token := b.Secret.UnsubscribeToken(b.Workspace, "sam@acme-corp.example")
		payload, mac, _ := strings.Cut(token, ".")
		otherSecret, _ := mail.NewSecret(bytes.Repeat([]byte("x"), 32))
		forged := map[string]string{
			"another address, same signature":   payloadOf(b.Secret.UnsubscribeToken(b.Workspace, "ceo@acme-corp.example")) + "." + mac,
			"another workspace, same signature": payloadOf(b.Secret.UnsubscribeToken(uuid.New(), "sam@acme-corp.example")) + "." + mac,
			"signed with another secret":        otherSecret.UnsubscribeToken(b.Workspace, "sam@acme-corp.example"),
			"cut short":                         token[:len(token)-4],
			"no signature":                      payload,
		}
		for name, tok := range forged {
			status, body := oneClick(t, srv.URL+"/u/"+tok)
			if status != http.StatusNotFound || !strings.Contains(body, "This link does not work") {
				t.Errorf("%s: POST answered %d:\n%s", name, status, body)
			}
		}
		if got := b.Suppressor.List(t, b.Workspace); len(got) != 0 {
			t.Errorf("forged tokens suppressed %v", got)
		}
	})
}

func payloadOf(token string) string {
	payload, _, _ := strings.Cut(token, ".")
	return payload
}
