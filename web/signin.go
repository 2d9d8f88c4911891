package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
	"unicode"

	"vibesell"
	"vibesell/auth"
)

type signInData struct {
	Email string
	Next  string
}

// safeNext keeps a post-sign-in destination inside the app, so the form
// cannot be used to send someone elsewhere.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/app/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\") || strings.ContainsFunc(next, unicode.IsControl) {
		return "/app/approvals"
	}
	return next
}

// signInPage shows the sign-in form. The form carries a token that must
// match a cookie set here (double submit), so that another site cannot sign
// a browser in to an account of its choosing.
func (s *server) signInPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if c, err := r.Cookie(s.sessionCookie); err == nil {
		if _, _, err := s.Accounts.Authenticate(r.Context(), c.Value); err == nil {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
	}
	s.showSignIn(w, r, http.StatusOK, signInData{Next: next}, "")
}

func (s *server) showSignIn(w http.ResponseWriter, r *http.Request, status int, d signInData, message string) {
	token := s.signInToken(w, r)
	s.render(w, r, status, "signin", pageData{Title: "Sign in", CSRF: token, Message: message, Body: d})
}

// signInToken returns the double-submit token, setting its cookie when the
// browser has none.
func (s *server) signInToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(s.signInCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: s.signInCookie, Value: token, Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode, MaxAge: int((2 * time.Hour).Seconds())})
	return token
}

func (s *server) signIn(w http.ResponseWriter, r *http.Request) {
	d := signInData{Email: strings.TrimSpace(r.PostFormValue("email")), Next: safeNext(r.PostFormValue("next"))}
	c, err := r.Cookie(s.signInCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		s.showSignIn(w, r, http.StatusForbidden, d, "This sign-in form has expired. Please try again.")
		return
	}
	s.warnOfProxy(r)
	device := ""
	if c, err := r.Cookie(s.deviceCookie); err == nil {
		device = c.Value
	}
	_, ses, err := s.Accounts.SignInWithDevice(r.Context(), d.Email, r.PostFormValue("password"), s.ClientIP(r), device)
	switch vibesell.ErrorCode(err) {
	case "":
	case vibesell.EUNAUTHORIZED:
		s.showSignIn(w, r, http.StatusUnauthorized, d, vibesell.ErrorMessage(err))
		return
	case vibesell.ERATELIMITED:
		s.showSignIn(w, r, http.StatusTooManyRequests, d, vibesell.ErrorMessage(err))
		return
	default:
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: s.sessionCookie, Value: ses.Token, Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode, Expires: ses.ExpiresAt})
	http.SetCookie(w, &http.Cookie{Name: s.signInCookie, Value: "", Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode, MaxAge: -1})
	// Kept past sign-out: it is what lets this browser in while others'
	// failed attempts hold the address's limit.
	http.SetCookie(w, &http.Cookie{Name: s.deviceCookie, Value: ses.Device, Path: "/app/sign-in", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteStrictMode, MaxAge: int(auth.DeviceLifetime.Seconds())})
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

func (s *server) signOut(w http.ResponseWriter, r *http.Request, _ auth.User, ses auth.WebSession) {
	if err := s.Accounts.SignOut(r.Context(), ses.Token); err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: s.sessionCookie, Value: "", Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode, MaxAge: -1})
	http.Redirect(w, r, "/app/sign-in", http.StatusSeeOther)
}
