package web

import (
	"net/http"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/auth/oauth"
	"vibesell/proof"
	"vibesell/sandboxmail"
	"vibesell/webhooks"
)

// The pages anyone may read, signed in or not, at the server's root: the
// Claude connector directory links them, and a person deciding whether
// to connect VibeSell reads them before having an account.
const (
	PrivacyPath = "/privacy"
	TermsPath   = "/terms"
)

// PublicPaths are the pages of the web app served outside [Prefix]; the
// server mounts each of them on the web app's handler.
var PublicPaths = []string{PrivacyPath, TermsPath}

// kept is one thing the server stores, as the privacy page tells it: what
// it is, why it is kept, and for how long, in a person's words.
type kept struct {
	What, Why, HowLong string
}

// period writes a stretch of time as a person says it: whole days as days,
// whole hours as hours, otherwise minutes.
func period(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return vibesell.Plural(int(d/(24*time.Hour)), "day", "days")
	case d >= time.Hour && d%time.Hour == 0:
		return vibesell.Plural(int(d/time.Hour), "hour", "hours")
	default:
		return vibesell.Plural(int(d/time.Minute), "minute", "minutes")
	}
}

// whileTheWorkspace is the answer for what lives as long as the workspace
// it belongs to: nothing prunes it on a timer.
const whileTheWorkspace = "As long as the workspace exists. When the workspace is deleted, this goes with it."

// keptList is what the privacy page lists. Every figure in it comes from
// the constant the code keeps it by, so the page cannot say one thing
// while the server does another (TestPrivacyPageFiguresAreTheCodes).
func (s *server) keptList() []kept {
	return []kept{
		{
			What:    "Your workspace: its name, what you sell and to whom, how your emails should sound, the facts you asked the assistant to keep in mind, and the sender details every email carries (the postal address, the sender name, your time zone).",
			Why:     "To write and send your emails the way you asked.",
			HowLong: whileTheWorkspace + " You can ask the assistant to change or forget any of those facts at any time.",
		},
		{
			What: "The people who sign in: email address, name, time zone, and the password, stored only in a scrambled form nobody can read back.",
			Why:  "To let you in, and to show dates in your time zone.",
			HowLong: "As long as the account exists. A sign-in lasts at most " + period(auth.WebSessionLifetime) +
				" and ends after " + period(auth.WebSessionIdleLimit) + " without use. Failed sign-in attempts are counted for " +
				period(auth.SignInWindow) + " to slow down guessing; a browser you signed in from is recognised for " +
				period(auth.DeviceLifetime) + ".",
		},
		{
			What:    "Leads: the names, work email addresses, job titles and companies of the people your campaigns write to, from the lead directory or from the files you upload (the files are kept too).",
			Why:     "To write to them, and to never import the same person twice.",
			HowLong: whileTheWorkspace,
		},
		{
			What: "Emails sent and replies: each email's text, who it went to, when, and what became of it (delivered, bounced, answered), and the text of each reply with how it was read (interested, not interested, away…).",
			Why:  "To stop writing to someone who answered, to never send the same email twice, and to show you your results.",
			HowLong: whileTheWorkspace + " In the sandbox, where no email leaves the server, the sandbox outbox keeps the last " +
				vibesell.Count(sandboxmail.OutboxKeeps) + " messages of each workspace.",
		},
		{
			What:    "The do-not-email list: the addresses that unsubscribed, bounced or complained.",
			Why:     "So that nobody who asked not to be written to is ever written to again.",
			HowLong: "Kept for good, as long as the workspace exists: nothing removes an address from it on a timer.",
		},
		{
			What: "Approvals and decisions: what was asked (an order, a launch, an import), who decided, when, and the reason given.",
			Why:  "So that what costs money or cannot be undone happens only when a person said yes, and you can see later who said it.",
			HowLong: "An approval nobody decides expires after " + period(approvals.DefaultTTL) +
				"; the record of every decision stays with the workspace. The one-time proof behind a button in the assistant's card works for " +
				period(proof.TTL) + ".",
		},
		{
			What: "Access: the tokens that let an assistant act for your workspace (stored only in a scrambled form), the apps you connected, and the assistants' sessions.",
			Why:  "To know that a request really comes from someone you allowed, and to let you see and end each connection.",
			HowLong: "A workspace token works until you revoke it. A connected app's access lasts " + period(oauth.AccessTokenLifetime) +
				" at a time and renews for up to " + period(oauth.RefreshTokenLifetime) +
				"; a connection unused that long ends. An app that registered but was never allowed is deleted after " +
				period(oauth.UnusedClientKept) + ". An assistant's session ends after " + period(auth.MCPSessionIdleLimit) +
				" without use and is deleted " + period(auth.EndedMCPSessionKept) + " after it ends.",
		},
		{
			What:    "Billing: your plan and the identifiers Stripe gives your workspace and its subscription. Card numbers and bank details go to Stripe, on Stripe's own pages; this server never sees or stores them.",
			Why:     "To know which plan you are on and to open your billing page at Stripe.",
			HowLong: whileTheWorkspace,
		},
		{
			What:    "Webhooks: the events sent to the addresses you set up, and each delivery's outcome.",
			Why:     "To retry a delivery that failed, and to let you send one again.",
			HowLong: period(webhooks.Kept) + ", then deleted.",
		},
		{
			What:    "Support requests: what you or the assistant reported, and the address to answer to.",
			Why:     "So that the people who run this server can answer you.",
			HowLong: whileTheWorkspace,
		},
		{
			What:    "Background work: a record of each task done out of sight, such as sending one email or delivering one webhook.",
			Why:     "To do each task once, and to try again when one fails.",
			HowLong: "Deleted " + period(s.JobsKept) + " after the task is done.",
		},
	}
}

// policyBody is what the privacy and terms pages show besides the list:
// who to write to.
type policyBody struct {
	Kept         []kept
	SupportEmail string
	Support      bool // the support page exists
	PublicURL    string
}

func (s *server) policyData() policyBody {
	return policyBody{SupportEmail: s.SupportEmail, Support: s.Workspaces != nil, PublicURL: s.base}
}

// privacyPage says what the server stores, why and for how long. Anyone
// may read it.
func (s *server) privacyPage(w http.ResponseWriter, r *http.Request) {
	b := s.policyData()
	b.Kept = s.keptList()
	s.render(w, r, http.StatusOK, "privacy", pageData{Title: "Privacy", Body: b})
}

// termsPage says what using this server means. Anyone may read it.
func (s *server) termsPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "terms", pageData{Title: "Terms", Body: s.policyData()})
}
