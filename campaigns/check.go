package campaigns

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/workspace"
)

// Finding statuses: a fail blocks the launch.
const (
	Pass = "pass"
	Warn = "warn"
	Fail = "fail"
)

// Finding is one check of the first email.
type Finding struct {
	Check   string // stable name, e.g. spam_phrases
	Checked string // the parts of the email it looked at, in words
	Status  string // pass, warn or fail
	Finding string // what was found
	Why     string // why it matters
	Fix     string // how to fix it; "" on a pass
	// FixBy are the steps that take the fix, when a tool takes it.
	FixBy []vibesell.Next
}

// FirstEmail is the first step composed for one lead, as the sending
// engine sends it, with the checks.
type FirstEmail struct {
	Sequence Sequence
	Lead     vibesell.Lead
	Email    Composed
	Findings []Finding
	Verdict  string // fail when any finding fails, else warn when any warns, else pass
}

// Composed is one email as it goes out, as a recipient's mail app shows
// it.
type Composed struct {
	From     string // the From line, name and address
	FromName string // the name in it; "" when there is none
	To       string
	Subject  string
	Text     string // the text/plain part, footer included
	HTML     string // the text/html part, footer included
}

// Composer composes step (1-based) of r's sequence for lead from
// mailbox with the sending engine's own code (delivery's Preview,
// wired in cmd/server), so that what check_first_email shows is the
// email that goes out, part for part.
type Composer interface {
	Compose(r Run, step int, lead vibesell.Lead, mailbox string) Composed
}

// UnsubscribePreview stands for each lead's own unsubscribe link in a
// preview: the engine puts the real one in each email.
const UnsubscribePreview = "(their personal unsubscribe link)"

// CheckRequest is one call of check_first_email.
type CheckRequest struct {
	Sequence string
	Version  int    // 0: the latest
	Lead     string // an imported lead's address; "": the first imported lead
}

// CheckFirstEmail renders the first step for a real imported lead and
// checks it the way a deliverability expert would. Refusals: ENOTFOUND
// for an unknown sequence or lead; EINVALID when the workspace has no
// imported lead.
func (s *Service) CheckFirstEmail(ctx context.Context, ws uuid.UUID, r CheckRequest) (FirstEmail, error) {
	q, err := s.Sequence(ctx, ws, r.Sequence, r.Version)
	if err != nil {
		return FirstEmail{}, err
	}
	leads, err := s.leads.ImportedLeads(ctx, ws)
	if err != nil {
		return FirstEmail{}, err
	}
	var lead vibesell.Lead
	switch {
	case r.Lead != "":
		if lead, err = s.leads.ImportedLead(ctx, ws, r.Lead); err != nil {
			return FirstEmail{}, err
		}
	case len(leads) == 0:
		return FirstEmail{}, vibesell.Errorf(vibesell.EINVALID,
			"The workspace has no imported lead to render the first email for.").Then(stepImportLeads)
	default:
		lead = leads[0]
	}
	sender, err := s.senders.Sender(ctx, ws)
	if err != nil {
		return FirstEmail{}, err
	}
	mailboxes, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return FirstEmail{}, err
	}
	return s.firstEmail(q, lead, leads, sender, mailboxes)
}

func (s *Service) firstEmail(q Sequence, lead vibesell.Lead, leads []vibesell.Lead, sender workspace.Sender, mailboxes []Mailbox) (FirstEmail, error) {
	if s.composer == nil {
		return FirstEmail{}, errors.New("campaigns: no composer: the first email cannot be shown as it is sent")
	}
	ps, err := parseSteps(q.Steps)
	if err != nil {
		return FirstEmail{}, fmt.Errorf("parse stored sequence %s: %w", q.ID, err)
	}
	subject := ps[0].subject.Render(lead.MergeFields())
	body := ps[0].body.Render(lead.MergeFields())
	// The mailbox it would go from: the first warm one, else the first
	// there is.
	mailbox := ""
	for _, m := range mailboxes {
		if m.State == "warm" {
			mailbox = m.Address
			break
		}
	}
	if mailbox == "" && len(mailboxes) > 0 {
		mailbox = mailboxes[0].Address
	}
	run := Run{Sequence: q, Sender: sender, Mailboxes: mailboxes, parsed: ps}
	email := s.composer.Compose(run, 1, lead, mailbox)
	out := FirstEmail{Sequence: q, Lead: lead, Email: email}
	out.Findings = []Finding{
		checkUnresolved(subject, body),
		checkSpamPhrases(subject.Text + "\n" + body.Text),
		checkLinks(body.Text),
		checkImages(q.Steps[0].Body),
		checkLength(body.Text),
		checkPersonalisation(ps[0], leads),
		checkSubject(subject.Text),
		checkCompliance(sender, email),
		checkMailbox(mailboxes),
	}
	out.Verdict = Pass
	for _, f := range out.Findings {
		if f.Status == Fail {
			out.Verdict = Fail
		} else if f.Status == Warn && out.Verdict == Pass {
			out.Verdict = Warn
		}
	}
	return out, nil
}

func checkUnresolved(subject, body Rendered) Finding {
	f := Finding{Check: "merge_fields", Checked: "the subject and the body, as filled in for this lead", Why: "An email with a field left empty or showing its code reads as a mass mailing, and a lead without the field would get it."}
	var missing []string
	for _, m := range append(subject.Unresolved, body.Unresolved...) {
		if !slices.Contains(missing, "{{"+m+"}}") {
			missing = append(missing, "{{"+m+"}}")
		}
	}
	if len(missing) == 0 {
		f.Status, f.Finding = Pass, "Every merge field is filled in for this lead."
		return f
	}
	f.Status = Fail
	f.Finding = fmt.Sprintf("This lead has no value for %s, and the sequence gives no fallback.", vibesell.JoinAnd(missing))
	f.Fix = fmt.Sprintf("Give each a fallback, such as {{%s|there}}, in a new version, to approve again.", strings.Trim(missing[0], "{}"))
	f.FixBy = []vibesell.Next{stepWrite}
	return f
}

// spamPhrases are words and phrases spam filters and readers both take
// for spam in a cold email.
var spamPhrases = []string{
	"100% free", "act now", "apply now", "as seen on", "buy now", "cash", "click here", "congratulations", "dear friend",
	"double your", "earn money", "exclusive deal", "free", "guarantee", "guaranteed", "increase sales", "limited time",
	"no obligation", "no strings attached", "once in a lifetime", "order now", "risk-free", "risk free", "special promotion",
	"this is not spam", "urgent", "winner", "you have been selected", "$$$", "best price", "lowest price", "amazing",
}

// spamPatterns match each phrase as whole words ("free" but not "freelance").
var spamPatterns = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(spamPhrases))
	for i, p := range spamPhrases {
		out[i] = regexp.MustCompile(`(^|[^\pL\pN])` + regexp.QuoteMeta(p) + `($|[^\pL\pN])`)
	}
	return out
}()

func checkSpamPhrases(text string) Finding {
	f := Finding{Check: "spam_phrases", Checked: "the subject and the body, as filled in for this lead", Why: "Spam filters score these words, and a reader who has never heard of you takes them for a sales blast."}
	lower := strings.ToLower(text)
	var found []string
	for i, re := range spamPatterns {
		if re.MatchString(lower) {
			found = append(found, "\""+spamPhrases[i]+"\"")
		}
	}
	switch {
	case len(found) == 0:
		f.Status, f.Finding = Pass, "No spam-trigger phrase."
		return f
	case len(found) >= 3:
		f.Status = Fail
	default:
		f.Status = Warn
	}
	f.Finding = fmt.Sprintf("Spam-trigger %s: %s.", pick(len(found), "phrase", "phrases"), vibesell.JoinAnd(found))
	f.Fix = "Say the same thing in plain words a colleague would use, without the sales vocabulary."
	return f
}

var linkPattern = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"')]+`)

var shorteners = []string{"bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "rebrand.ly", "cutt.ly", "shorturl.at"}

func checkLinks(body string) Finding {
	f := Finding{Check: "links", Checked: "the body as filled in for this lead, not the footer's unsubscribe link", Why: "Links in a first email from an unknown sender are what spam filters weigh most; shortened links hide where they go and are blocked outright."}
	links := linkPattern.FindAllString(body, -1)
	var domains, short []string
	for _, l := range links {
		raw := l
		if !strings.Contains(strings.ToLower(raw), "://") {
			raw = "https://" + raw
		}
		host := l
		if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
			host = strings.ToLower(strings.TrimPrefix(u.Hostname(), "www."))
		}
		if !slices.Contains(domains, host) {
			domains = append(domains, host)
		}
		if slices.Contains(shorteners, host) && !slices.Contains(short, host) {
			short = append(short, host)
		}
	}
	switch {
	case len(links) == 0:
		f.Status, f.Finding = Pass, "No link: the best first email asks for a reply, not a click."
		return f
	case len(short) > 0:
		f.Status = Fail
		f.Finding = fmt.Sprintf("%s, including the link shortener %s.", vibesell.Plural(len(links), "link", "links"), vibesell.JoinAnd(short))
		f.Fix = "Write the full address of your own site, or better, no link at all in the first email."
	case len(links) > 2:
		f.Status = Fail
		f.Finding = fmt.Sprintf("%s, to %s.", vibesell.Plural(len(links), "link", "links"), vibesell.JoinAnd(domains))
		f.Fix = "Keep at most one link, to your own domain, or none."
	case len(links) == 2 || len(domains) > 1:
		f.Status = Warn
		f.Finding = fmt.Sprintf("%s, to %s.", vibesell.Plural(len(links), "link", "links"), vibesell.JoinAnd(domains))
		f.Fix = "Keep one link at most, to your own domain."
	default:
		f.Status = Pass
		f.Finding = fmt.Sprintf("One link, to %s.", domains[0])
	}
	return f
}

var imagePattern = regexp.MustCompile(`(?i)<img\b|!\[[^\]]*\]\(|\.(png|jpe?g|gif|webp)\b`)

func checkImages(body string) Finding {
	f := Finding{Check: "images", Checked: "the body as written in the sequence", Why: "Images and tracking pixels in a cold email are read as marketing and push it to the promotions or spam folder."}
	if imagePattern.MatchString(body) {
		f.Status, f.Finding, f.Fix = Warn, "The body refers to an image.", "Send plain text only; describe what the image would show, or offer it in a reply."
		return f
	}
	f.Status, f.Finding = Pass, "No image: plain text."
	return f
}

func checkLength(body string) Finding {
	f := Finding{Check: "length", Checked: "the body as filled in for this lead, without the footer", Why: "Cold emails that get replies are short: under 150 words, read on a phone in one glance."}
	n := len(strings.Fields(body))
	f.Finding = fmt.Sprintf("The body is %s long.", vibesell.Plural(n, "word", "words"))
	switch {
	case n > 300:
		f.Status, f.Fix = Fail, "Cut it to under 150 words: one problem, one sentence of proof, one question."
	case n > 150:
		f.Status, f.Fix = Warn, "Cut it to under 150 words: one problem, one sentence of proof, one question."
	case n < 20:
		f.Status, f.Fix = Warn, "Say in a sentence or two why you are writing to them and what you ask."
	default:
		f.Status = Pass
	}
	return f
}

func checkPersonalisation(p parsed, leads []vibesell.Lead) Finding {
	f := Finding{Check: "personalisation", Checked: "the merge fields of the subject and the body, against every imported lead", Why: "An email that names the person or their company reads as written for them; without it, it reads as a mass mailing."}
	uses := append(p.subject.Uses(), p.body.Uses()...)
	if len(uses) == 0 {
		f.Status, f.Finding = Warn, "The first email uses no merge field: every lead gets exactly the same text."
		f.Fix = "Use at least {{first_name|there}} or {{company}}."
		return f
	}
	if len(leads) == 0 {
		f.Status, f.Finding = Pass, "The first email uses merge fields; there are no imported leads to count coverage on."
		return f
	}
	full := 0
	for _, l := range leads {
		ok := true
		for _, u := range uses {
			if Value(l.MergeFields()[u.Field]) == "" {
				ok = false
			}
		}
		if ok {
			full++
		}
	}
	pct := full * 100 / len(leads)
	f.Finding = fmt.Sprintf("%s of %s imported leads (%d%%) have every field the first email uses.", vibesell.Count(full), vibesell.Count(len(leads)), pct)
	if pct < 80 {
		f.Status, f.Fix = Warn, "Give fallbacks to the fields many leads lack, or use fields they have."
	} else {
		f.Status = Pass
	}
	return f
}

func checkSubject(subject string) Finding {
	f := Finding{Check: "subject", Checked: "the subject as filled in for this lead", Why: "Long subjects are cut on phones; capitals and exclamation marks are what spam filters and readers flag first."}
	n := len([]rune(subject))
	var letters, upper int
	for _, r := range subject {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	var shouting []string
	for _, w := range strings.Fields(subject) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		if len([]rune(w)) >= 4 && strings.ToUpper(w) == w && strings.ToLower(w) != w {
			shouting = append(shouting, w)
		}
	}
	switch {
	case n == 0:
		f.Status, f.Finding, f.Fix = Fail, "The subject is empty for this lead.", "Give the first step a subject that does not depend on a merge field alone."
	case letters >= 4 && upper*2 > letters:
		f.Status, f.Finding, f.Fix = Fail, fmt.Sprintf("The subject %q is mostly capitals.", subject), "Write it in sentence case, like a note to a colleague."
	case n > 60:
		f.Status, f.Finding, f.Fix = Warn, fmt.Sprintf("The subject is %d characters; phones show about 40.", n), "Keep it under 60 characters, ideally 2 to 5 words."
	case len(shouting) > 0 || strings.Contains(subject, "!"):
		f.Status, f.Finding, f.Fix = Warn, fmt.Sprintf("The subject %q shouts (capitals or an exclamation mark).", subject), "Write it in sentence case, without exclamation marks."
	default:
		f.Status, f.Finding = Pass, fmt.Sprintf("The subject %q is %d characters, in plain case.", subject, n)
	}
	return f
}

// checkCompliance reads the composed email itself: the From line, and
// both parts' footers.
func checkCompliance(sender workspace.Sender, e Composed) Finding {
	f := Finding{Check: "unsubscribe_and_address", Checked: "the From line and the footers of the text part and of the HTML part, as composed for sending",
		Why: "The law (CAN-SPAM in the US, GDPR and PECR in Europe) asks every cold email to say who sends it, to give the sender's postal address and a working way to opt out; VibeSell adds the address and the link to every email."}
	var missing, args []string
	address := strings.TrimSpace(sender.PostalAddress)
	if address == "" {
		missing, args = append(missing, "postal address"), append(args, "postalAddress")
	}
	if e.FromName == "" {
		missing, args = append(missing, "sender name"), append(args, "senderName")
	}
	if len(missing) > 0 {
		f.Status = Fail
		f.Finding = fmt.Sprintf("The workspace has no %s, so the email cannot carry what the law asks of it.", vibesell.JoinAnd(missing))
		f.Fix = fmt.Sprintf("Ask the person for their %s, and stage the campaign with %s (it is saved for the whole workspace).", vibesell.JoinAnd(missing), vibesell.JoinAnd(args))
		f.FixBy = []vibesell.Next{{Tool: stepStage.Tool}} // the fix says what
		return f
	}
	if !strings.Contains(e.Text, address) || !strings.Contains(e.Text, UnsubscribePreview) || !strings.Contains(e.HTML, html.EscapeString(UnsubscribePreview)) {
		f.Status = Fail
		f.Finding = "The composed email lacks the postal address or the unsubscribe link in one of its parts."
		f.Fix = "This is VibeSell's fault, not the sequence's: tell the person, and report it."
		f.FixBy = []vibesell.Next{stepReport}
		return f
	}
	f.Status = Pass
	f.Finding = fmt.Sprintf("It comes from %s; the text part and the HTML part both end with the postal address and a one-click unsubscribe link, personal to each lead.", e.From)
	return f
}

func checkMailbox(mailboxes []Mailbox) Finding {
	f := Finding{Check: "mailbox", Checked: "the workspace's mailboxes", Why: "A mailbox that has not finished its warmup lands in spam and can burn its domain for good."}
	var warm, warming []string
	for _, m := range mailboxes {
		switch m.State {
		case "warm":
			warm = append(warm, m.Address)
		case "warming", "ready", "preparing":
			warming = append(warming, m.Address)
		}
	}
	switch {
	case len(warm) > 0:
		f.Status, f.Finding = Pass, fmt.Sprintf("Ready to send: %s.", vibesell.JoinAnd(warm))
	case len(warming) > 0:
		f.Status, f.Finding = Fail, fmt.Sprintf("No mailbox has finished its warmup yet (%s).", vibesell.JoinAnd(warming))
		f.Fix = "Wait until the warmup ends."
		f.FixBy = []vibesell.Next{stepSeeMailboxes}
	default:
		f.Status, f.Finding = Fail, "The workspace has no mailbox to send from."
		f.Fix = "Set up sending first."
		f.Fix = ""
		f.FixBy = []vibesell.Next{stepSetUpSending}
	}
	return f
}
