// Package web is the web app at PUBLIC_URL/app/: server-rendered pages
// (html/template, no JavaScript needed) where a signed-in person of a
// workspace sees its approvals and decides the ones that need a human,
// such as paid or irreversible actions.
//
// Security: sessions are HttpOnly, SameSite=Lax cookies (Secure and
// __Host- prefixed when PUBLIC_URL is https) whose secret is stored only
// hashed; every POST must come from PUBLIC_URL's origin (Origin and
// Sec-Fetch-Site, via net/http's CrossOriginProtection and an exact Origin
// match) and carry the session's CSRF token; failed sign-ins are limited in
// PostgreSQL (see auth.Accounts); another workspace's approval is a 404.
package web

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/audit"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/billing"
	"vibesell/campaigns"
	"vibesell/delivery"
	"vibesell/mailboxes"
	"vibesell/replies"
	"vibesell/sandboxmail"
	"vibesell/sending"
	"vibesell/store"
	"vibesell/webhooks"
	"vibesell/workspace"
)

// Prefix is the path the web app is mounted at: mux.Handle(web.Prefix, h).
const Prefix = "/app/"

// Deps is what [New] needs.
type Deps struct {
	// PublicURL is the address people reach the server at (PUBLIC_URL),
	// e.g. https://vibesell.example.com. Its scheme decides whether cookies
	// are Secure; its origin is the only one allowed to POST.
	PublicURL string
	Accounts  *auth.Accounts
	Approvals *approvals.Service
	// Audit shows the head of the workspace's audit chain on the
	// approvals page, for a person to note; nil leaves it out.
	Audit *audit.Chains
	// Workspaces lists the workspace's support tickets on the Support
	// page. Nil: the app has no Support page.
	Workspaces *workspace.Service
	// Audience serves the leads page (upload, block); nil leaves it out.
	Audience *audience.Service
	// Campaigns serves the campaigns and settings pages (with Workspaces);
	// nil leaves them out.
	Campaigns *campaigns.Service
	// Upcoming shows each running campaign's next emails, per mailbox, on
	// the campaigns page; nil leaves them out.
	Upcoming *delivery.Upcoming
	// Billing shows the billing page; nil: billing is not available.
	Billing *billing.Service
	// Clock tells the time for "expires in 2 hours". Default: the system clock.
	Clock vibesell.Clock
	// Logger receives internal failures under a ref. Default: slog.Default().
	Logger *slog.Logger
	// Outages logs internal failures, and those of an unavailable database
	// at most once a second. Default: one of its own on Logger.
	Outages *store.OutageLog
	// RequestTimeout bounds the work of one request, so that a hung
	// database gets an answer rather than a page that never loads.
	// Default 15 s.
	RequestTimeout time.Duration
	// OAuth, when set, adds the consent page of connecting an app and the
	// list of connected apps.
	OAuth *oauth.Server
	// Tokens, when set, lists the workspace's tokens among the connected
	// apps, where a person revokes them.
	Tokens *auth.Tokens
	// Sending shows the sending setup (/app/sending), with the sandbox
	// shortcut in the sandbox; nil leaves the page out.
	Sending *sending.Service
	// Connections lets a person connect existing mailboxes on the sending
	// page; nil leaves the form out.
	Connections *mailboxes.Connections
	// Outbox shows what the sandbox mail server accepted (/app/outbox);
	// nil leaves the page out.
	Outbox *sandboxmail.Outbox
	// Replies shows the replies inbox and each reply's thread
	// (/app/replies), where a person corrects a classification; nil
	// leaves them out.
	Replies *replies.Replies
	// Answers serves the answer page of a reply (/app/replies/{id}/answer);
	// nil leaves it out.
	Answers *replies.Answers
	// ClientIP returns the address a request comes from, for the sign-in
	// limits. Default: the connection's remote address. Behind a trusted
	// reverse proxy, pass a function that reads its forwarding header.
	ClientIP func(*http.Request) string
	// Webhooks serves the webhooks pages (/app/webhooks); nil leaves them
	// out.
	Webhooks *webhooks.Service
	// SupportEmail is how to reach whoever runs this server
	// (SUPPORT_EMAIL), shown on the support, privacy and terms pages to
	// anyone, signed in or not. "": those pages say to ask through the
	// assistant or the support page.
	SupportEmail string
	// JobsKept is how long the record of a finished background task is
	// kept (the job client's retention), as the privacy page says.
	// Default: a day, River's own.
	JobsKept time.Duration
}

type server struct {
	Deps
	base          string // PublicURL without a trailing slash
	origin        string // scheme://host of PublicURL
	secure        bool
	sessionCookie string
	signInCookie  string
	deviceCookie  string
	cop           *http.CrossOriginProtection
	outages       *store.OutageLog
	// proxyUnseen is set when addresses come from the connection; the
	// first request that says it came through a proxy then warns once.
	proxyUnseen *sync.Once
	pages       map[string]*template.Template
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/favicon.svg
var favicon []byte

// FaviconPath is where the app's icon is served; every page links it.
const FaviconPath = "/app/favicon.svg"

// Favicon serves the app's icon, an SVG. The app serves it at
// [FaviconPath]; a server may also mount it at /favicon.ico, which
// browsers ask for on pages that link no icon.
func Favicon(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write(favicon)
}

// New returns the web app's handler, to be mounted at [Prefix]. It panics
// without Accounts and Approvals, or when PublicURL is not an absolute
// http(s) URL (cmd/server checks PUBLIC_URL when it reads it), or when an
// embedded page does not parse: mistakes of the program, not of its
// configuration.
func New(d Deps) http.Handler {
	cfg := d
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		panic(fmt.Sprintf("web: PublicURL %q is not an absolute http(s) URL", cfg.PublicURL))
	}
	if cfg.Accounts == nil || cfg.Approvals == nil {
		panic("web: Accounts and Approvals are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = vibesell.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var proxyUnseen *sync.Once
	if cfg.ClientIP == nil {
		cfg.ClientIP = remoteIP
		proxyUnseen = &sync.Once{}
	}
	if cfg.Outages == nil {
		cfg.Outages = store.NewOutageLog(cfg.Logger)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 15 * time.Second
	}
	if cfg.JobsKept <= 0 {
		cfg.JobsKept = 24 * time.Hour
	}
	s := &server{
		Deps:        cfg,
		base:        strings.TrimRight(cfg.PublicURL, "/"),
		origin:      u.Scheme + "://" + u.Host,
		secure:      u.Scheme == "https",
		cop:         http.NewCrossOriginProtection(),
		outages:     cfg.Outages,
		proxyUnseen: proxyUnseen,
	}
	// The __Host- prefix makes the browser refuse the cookie unless it is
	// Secure, for path / and without a Domain: no subdomain can plant one.
	s.sessionCookie, s.signInCookie = "vibesell_session", "vibesell_signin"
	s.deviceCookie = "vibesell_device"
	if s.secure {
		s.sessionCookie, s.signInCookie = "__Host-vibesell_session", "__Host-vibesell_signin"
		// __Secure-, not __Host-: the cookie is sent to the sign-in path only.
		s.deviceCookie = "__Secure-vibesell_device"
	}
	if err := s.cop.AddTrustedOrigin(s.origin); err != nil {
		panic(fmt.Sprintf("web: %v", err))
	}
	if s.pages, err = parsePages(); err != nil {
		panic(err)
	}
	if err := s.parseOAuthPages(); err != nil {
		panic(err)
	}
	return s.routes()
}

// routes lists every page and action of the web app.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	s.oauthRoutes(mux)
	s.webhookRoutes(mux)
	mux.HandleFunc("GET /app/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/app/approvals", http.StatusSeeOther)
	})
	mux.HandleFunc("GET "+FaviconPath, Favicon)
	mux.HandleFunc("GET /app/sign-in", s.signInPage)
	mux.HandleFunc("POST /app/sign-in", s.post(s.signIn))
	mux.HandleFunc("POST /app/sign-out", s.post(s.signedIn(s.signOut)))
	mux.HandleFunc("GET /app/approvals", s.signedIn(s.approvalsPage))
	mux.HandleFunc("POST /app/approvals/rules", s.post(s.signedIn(s.saveRules)))
	mux.HandleFunc("GET /app/approval-policies/{key}", s.signedIn(s.policyPage))
	mux.HandleFunc("POST /app/approval-policies/{key}", s.post(s.signedIn(s.savePolicy)))
	mux.HandleFunc("POST /app/approvals/away", s.post(s.signedIn(s.saveDelegate)))
	mux.HandleFunc("GET /app/approvals/{id}", s.signedIn(s.inApprovalsWorkspace(s.approvalPage)))
	mux.HandleFunc("POST /app/approvals/{id}/approve", s.post(s.signedIn(s.inApprovalsWorkspace(s.decide(true)))))
	mux.HandleFunc("POST /app/approvals/{id}/reject", s.post(s.signedIn(s.inApprovalsWorkspace(s.decide(false)))))
	mux.HandleFunc("POST /app/workspace", s.post(s.signedIn(s.openWorkspace)))
	// The support page, the privacy page and the terms answer anyone:
	// someone not yet signed in (or who cannot sign in) needs them most.
	mux.HandleFunc("GET /app/support", s.supportEntry)
	mux.HandleFunc("GET "+PrivacyPath, s.privacyPage)
	mux.HandleFunc("GET "+TermsPath, s.termsPage)
	s.leadRoutes(mux)
	s.leadListRoutes(mux)
	s.replyRoutes(mux)
	s.replyAnswerRoutes(mux)
	if s.Outbox != nil {
		// The sandbox outbox: every message the sandbox mail server
		// accepted for the workspace, and a form to answer one as its lead.
		mux.HandleFunc("GET /app/outbox", s.signedIn(s.outboxPage))
		mux.HandleFunc("POST /app/outbox/{id}/reply", s.post(s.signedIn(s.replyAsLead)))
	}
	if s.Sending != nil {
		// The workspace's domains and mailboxes as they stand, connecting
		// mailboxes of one's own, and in the sandbox the shortcut that
		// makes the ordered ones ready and warm at once.
		mux.HandleFunc("GET /app/sending", s.signedIn(s.sendingPage))
		if s.Connections != nil {
			mux.HandleFunc("POST /app/sending/connect", s.post(s.signedIn(s.connectMailbox)))
			mux.HandleFunc("POST /app/sending/disconnect", s.post(s.signedIn(s.disconnectMailbox)))
		}
		if s.Sending.Sandbox() {
			mux.HandleFunc("POST /app/sending/sandbox-ready", s.post(s.signedIn(s.sandboxReady)))
		}
	}
	if s.Workspaces != nil && s.Campaigns != nil {
		s.campaignRoutes(mux)
		mux.HandleFunc("GET /app/settings", s.signedIn(s.settingsPage))
		mux.HandleFunc("POST /app/settings", s.post(s.signedIn(s.saveSettings)))
	}
	mux.HandleFunc("GET "+billing.BillingPath, s.signedIn(s.billingPage))
	mux.HandleFunc("POST "+billingPortalPath, s.post(s.signedIn(s.openPortal)))
	if s.Billing != nil {
		mux.HandleFunc("POST "+billingCheckoutPath, s.post(s.signedIn(s.startCheckout)))
		mux.HandleFunc("POST "+billingChangePath, s.post(s.signedIn(s.changePlan)))
	}
	for _, path := range []string{billingCheckoutPath, billingChangePath} {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, billing.BillingPath, http.StatusSeeOther) // back from signing in
		})
	}
	mux.HandleFunc("GET "+billingPortalPath, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, billing.BillingPath, http.StatusSeeOther) // back from signing in
	})
	mux.HandleFunc("/app/", func(w http.ResponseWriter, r *http.Request) {
		s.renderError(w, r, nil, http.StatusNotFound, "Page not found", "There is nothing at this address.")
	})
	return securityHeaders(s.bounded(mux))
}

// bounded gives every request RequestTimeout to do its work: a database
// that stops answering then fails the request, which is answered with a
// page saying so, instead of holding the browser and a connection forever.
func (s *server) bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// securityHeaders: nothing here is framed, scripted or cached.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// post refuses a state-changing request that does not come from a page of
// this app: a cross-site browser request (Sec-Fetch-Site, or an Origin
// whose host is not this one), or an Origin other than PUBLIC_URL's.
func (s *server) post(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.cop.Check(r); err != nil {
			s.renderError(w, r, nil, http.StatusForbidden, "Request refused",
				"This form was sent from another site, so it was not accepted. Open the page in VibeSell and try again.")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != s.origin {
			s.renderError(w, r, nil, http.StatusForbidden, "Request refused",
				fmt.Sprintf("This form was sent from %s, but VibeSell is served at %s, so it was not accepted. Open VibeSell at %s and try again.", o, s.origin, s.origin))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.renderError(w, r, nil, http.StatusBadRequest, "Request refused", "The form could not be read. Go back and try again.")
			return
		}
		next(w, r)
	}
}

type signedInHandler func(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession)

// signedIn runs next for a signed-in person, and checks the CSRF token of
// every POST. Without a session, a page asks to sign in and comes back.
func (s *server) signedIn(next signedInHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var u auth.User
		var ses auth.WebSession
		var err error = auth.ErrNoWebSession
		if c, cerr := r.Cookie(s.sessionCookie); cerr == nil {
			u, ses, err = s.Accounts.Authenticate(r.Context(), c.Value)
		}
		if err != nil {
			if vibesell.ErrorCode(err) != vibesell.EUNAUTHORIZED {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			back := r.URL.Path
			if r.Method != http.MethodGet {
				back = strings.TrimSuffix(strings.TrimSuffix(back, "/approve"), "/reject")
			}
			http.Redirect(w, r, "/app/sign-in?next="+url.QueryEscape(back), http.StatusSeeOther)
			return
		}
		if s.Workspaces != nil {
			// Every date a person reads here is in the workspace's time
			// zone, the one its settings set.
			sender, err := s.Workspaces.Sender(r.Context(), u.WorkspaceID)
			if err != nil {
				s.renderError(w, r, err, 0, "", "")
				return
			}
			u.TimeZone = sender.Location()
		}
		if r.Method == http.MethodPost && !auth.CheckCSRF(ses.Token, r.PostFormValue("csrf")) {
			s.renderError(w, r, nil, http.StatusForbidden, "Request refused",
				"This form has expired or did not come from this page. Go back, reload the page and try again.")
			return
		}
		next(w, r, u, ses)
	}
}

// refusal is how the web app answers a refusal of one code: the status,
// the page's title, and the sentence, when the refusal's own is not one
// for this page (a feature's "not found" names what the assistant can
// call; here a person reads it).
type refusal struct {
	status  int
	title   string
	message string // "": the refusal's own sentence
}

// codes is the one table from a refusal code to its answer, as wtf's
// http.codes; a code that is not here is internal: logged under a ref that
// the page shows, and answered 500.
var codes = map[string]refusal{
	vibesell.EINVALID:  {http.StatusUnprocessableEntity, "That did not work", ""},
	vibesell.ECONFLICT: {http.StatusUnprocessableEntity, "That did not work", ""},
	vibesell.ENOTFOUND: {http.StatusNotFound, "Not found",
		"There is nothing here in your workspace. It may belong to another workspace, or the link may be wrong."},
	vibesell.EUNAUTHORIZED: {http.StatusUnauthorized, "Sign in again",
		"You are not signed in, or your session has ended. Sign in again to continue."},
	vibesell.EPAYMENTREQUIRED: {http.StatusPaymentRequired, "Not on your plan", ""},
	vibesell.ERATELIMITED:     {http.StatusTooManyRequests, "Too many attempts", ""},
}

// renderError writes an error page. With err set, the status and text come
// from its refusal code (the codes table); an internal error is logged
// under a ref that the page shows, and only an internal error is logged.
func (s *server) renderError(w http.ResponseWriter, r *http.Request, err error, status int, title, message string) {
	if err != nil {
		ans, ok := codes[vibesell.ErrorCode(err)]
		switch {
		case !ok:
			ref := vibesell.NewRef()
			if s.outages.Failed(r.Context(), ref, "web request failed", err, "method", r.Method, "path", r.URL.Path) {
				w.Header().Set("Retry-After", "30")
				status, title, message = http.StatusServiceUnavailable, "Not available right now",
					fmt.Sprintf("VibeSell cannot reach its database at the moment (ref %s). Nothing was changed; try again in a minute.", ref)
				break
			}
			status, title, message = http.StatusInternalServerError, "Something went wrong", vibesell.InternalSentence(ref)
		case ans.message == "":
			status, title, message = ans.status, ans.title, vibesell.ErrorMessage(err)
		default:
			// The table's own sentence: the refusal's steps are not for
			// this page either.
			status, title, message = ans.status, ans.title, ans.message
			err = nil
		}
	}
	// The error page is written even when the request's time is up (a
	// query that timed out lands here): it is small, and gets a second.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Second)
	defer cancel()
	s.renderWithin(ctx, w, r, status, "error", pageData{Title: title, Message: message, Next: s.nextLinks(err)})
}

// pageData is what every template gets.
type pageData struct {
	Title   string
	User    *auth.User
	CSRF    string
	Message string // an error or notice shown at the top
	// Next are a refusal's steps, under its Message: what to do, each a
	// link to the page that does it.
	Next    []nextLink
	Notice  string
	Refresh int  // seconds; 0 for none
	Support bool // the app has a Support page
	// Campaigns: the app has the campaigns and settings pages.
	Campaigns bool
	// Outbox: the app has the outbox page; Sending, the sending page.
	Outbox  bool
	Sending bool
	// Replies: the app has the replies inbox.
	Replies bool
	// Webhooks: the app has the webhooks pages.
	Webhooks bool
	Body     any
}

// maxPageBytes bounds a page of the app. The largest ones (an upload of
// 200 columns, an outbox page of 20 messages) are well under a megabyte;
// a page that would be larger is a bug of ours, answered as one rather
// than held in memory.
const maxPageBytes = 4 << 20

// errPageTooLarge is a page outgrowing [maxPageBytes].
var errPageTooLarge = fmt.Errorf("the page is larger than %d MB", maxPageBytes>>20)

// pageBuffer is the one buffer a page is written to before it is sent.
// Its Write fails once the page outgrows max or ctx is done, which stops
// the template where it is: html/template does not look at a context.
type pageBuffer struct {
	ctx context.Context
	b   []byte
	max int
}

func (p *pageBuffer) Write(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p.b)+len(b) > p.max {
		return 0, errPageTooLarge
	}
	p.b = append(p.b, b...)
	return len(b), nil
}

func (s *server) render(w http.ResponseWriter, r *http.Request, status int, page string, d pageData) {
	s.renderWithin(r.Context(), w, r, status, page, d)
}

// renderWithin writes page into one bounded buffer, stopped when ctx is
// done, and sends it whole: a page is never sent half written.
func (s *server) renderWithin(ctx context.Context, w http.ResponseWriter, r *http.Request, status int, page string, d pageData) {
	t, ok := s.pages[page]
	if !ok {
		panic("web: no page " + page)
	}
	d.Support = s.Workspaces != nil
	d.Campaigns = s.Workspaces != nil && s.Campaigns != nil
	d.Outbox, d.Sending, d.Replies = s.Outbox != nil, s.Sending != nil, s.Replies != nil
	d.Webhooks = s.Webhooks != nil
	buf := &pageBuffer{ctx: ctx, b: make([]byte, 0, 32<<10), max: maxPageBytes}
	if err := t.ExecuteTemplate(buf, "layout", d); err != nil {
		ref := vibesell.NewRef()
		s.Logger.ErrorContext(r.Context(), "render page", "ref", ref, "page", page, "err", err)
		status := http.StatusInternalServerError
		if ctx.Err() != nil {
			status = http.StatusServiceUnavailable
		}
		http.Error(w, vibesell.InternalSentence(ref), status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(stripBidi(buf.b))
}

// stripBidi removes the explicit bidirectional embeddings, overrides
// and isolates (U+202A–U+202E, U+2066–U+2069). The pages never use them,
// and in text the assistant wrote (a sender name, a summary) they can
// make the approver read something else than what is there: a price
// reversed, a domain spelled backwards. Right-to-left letters need none of
// them to show right. It works in place: the page is not copied again.
func stripBidi(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); {
		// U+202A–U+202E are E2 80 AA–AE; U+2066–U+2069 are E2 81 A6–A9.
		if b[i] == 0xe2 && i+2 < len(b) &&
			(b[i+1] == 0x80 && b[i+2] >= 0xaa && b[i+2] <= 0xae || b[i+1] == 0x81 && b[i+2] >= 0xa6 && b[i+2] <= 0xa9) {
			i += 3
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// ClientIPFromHeader returns a [Deps].ClientIP for a server behind a
// reverse proxy that puts the client's address in header (X-Forwarded-For,
// Fly-Client-IP, X-Real-IP…): the last address in it, the one the nearest
// proxy added. Use it only when such a proxy is always in front: a client
// can write the header itself.
func ClientIPFromHeader(header string) func(*http.Request) string {
	return func(r *http.Request) string {
		v := r.Header.Values(header)
		if len(v) == 0 {
			return remoteIP(r)
		}
		parts := strings.Split(v[len(v)-1], ",")
		if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
			return ip
		}
		return remoteIP(r)
	}
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// warnOfProxy says once, when a request came through a proxy while client
// addresses are read from the connection, that every client then counts as
// the proxy's one address for the sign-in limits.
func (s *server) warnOfProxy(r *http.Request) {
	if s.proxyUnseen == nil {
		return
	}
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			s.proxyUnseen.Do(func() {
				s.Logger.WarnContext(r.Context(), "requests come through a proxy ("+h+"), but CLIENT_IP_HEADER is not set: "+
					"the sign-in limits count every client as the proxy's one address; set CLIENT_IP_HEADER="+h+" if the proxy is trusted")
			})
			return
		}
	}
}
