package replies

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"vibesell/mail"
)

// Classifications of a reply.
const (
	// Interested is a reply that wants a conversation: a meeting asked
	// for or a time proposed, a question wanting an answer, interest.
	Interested = "interested"
	// Referral names someone else to talk to.
	Referral = "referral"
	NotNow   = "not_now"
	// Objection gives a reason against buying that can be answered: the
	// price, a tool already in use, no budget.
	Objection     = "objection"
	NotInterested = "not_interested"
	// WrongPerson says the lead is not the one who handles this.
	WrongPerson = "wrong_person"
	// LeftCompany says the lead no longer works there.
	LeftCompany = "left_company"
	OutOfOffice = "out_of_office"
	// AutoReply is an automatic answer that is not an out-of-office: a
	// ticket opened, a mailbox not read.
	AutoReply   = "auto_reply"
	Unsubscribe = "unsubscribe"
	Bounce      = "bounce"
	// Complaint is a feedback-loop report (the recipient marked the
	// email as spam) or a reply that says as much.
	Complaint = "complaint"
	Other     = "other"
)

// Verdict is how a reply was classified and the rule that decided it, in
// words a person can check against the message.
type Verdict struct {
	Classification string
	Rule           string
	// ReturnsOn is the day an out-of-office sender is back, when the
	// message says it.
	ReturnsOn *time.Time
	// Bounce is "hard" or "soft" for a bounce.
	Bounce string
}

var outOfOfficeSubject = regexp.MustCompile(`(?i)^(out of (the )?office|ooo\b|abwesenheit|absence|absent|fuera de la oficina|ausente|vacaciones|urlaub|congés|en vacances)`)

// autoReplySubject is the subject of an automatic answer, out-of-office
// or not: which one it is, its words say.
var autoReplySubject = regexp.MustCompile(`(?i)^(automatic reply|auto(matic)?[- ]?reply|auto:|automatische antwort|réponse automatique|respuesta automática|autosvar)`)
var outOfOfficeText = regexp.MustCompile(`(?i)(out of (the )?office|\bon (annual |parental |maternity |paternity |sick |medical )?leave\b|\bon vacation\b|\bon holiday\b|\baway from (the |my )?(office|desk)\b|\blimited access to (my )?e-?mail|\booo\b|\bon a business trip\b|\btravell?ing\b|dienstreise|geschäftsreise|estoy fuera|\bi am away\b|\bi'm away\b|\bi am currently away\b|\bi'm currently away\b|nicht im büro|außer haus|abwesend|im urlaub|in elternzeit|\bnicht erreichbar\b|en congés?|\babsente?\b|en vacances|hors du bureau|en déplacement|fuera de la oficina|\bde vacaciones\b|\bausente\b|de baja (?:médica|por)|de permiso)`)

var bounceSender = regexp.MustCompile(`^(mailer-daemon|postmaster)@`)

// bounceSubject is a mail server's report of a failed delivery sent
// without a delivery report or from an ordinary address.
var bounceSubject = regexp.MustCompile(`(?i)^(undeliverable|undelivered mail|delivery status notification \(failure\)|delivery failure|mail delivery failed|returned mail|failure notice|unzustellbar|nicht zustellbar|non remis|non distribuable|échec de la remise|no se puede entregar|mensaje no entregado|no entregado)`)
var statusCode = regexp.MustCompile(`\b([245])\.(\d{1,3})\.(\d{1,3})\b`)

// Classify applies the rules to a reply, in order: a feedback-loop
// complaint, a delivery report, a bounce from a mail server, an automatic out-of-office reply, then the
// phrases of the sender's own words.
func Classify(r mail.Reply) Verdict {
	if f := r.Feedback; f != nil && f.Type != "not-spam" {
		return Verdict{Classification: Complaint,
			Rule: fmt.Sprintf("a feedback-loop report (Feedback-Type: %s) from %s says %s marked the email as spam", quoted(f.Type, reportType), quoted(r.From, plainAddress), quoted(f.Recipient, plainAddress))}
	}
	if r.DSN != nil && r.DSN.Status != "" {
		if r.DSN.Hard() {
			return Verdict{Classification: Bounce, Bounce: "hard",
				Rule: fmt.Sprintf("a delivery report says the address %s failed permanently (status %s)", quoted(r.DSN.Recipient, plainAddress), quoted(r.DSN.Status, statusCodeOnly))}
		}
		return Verdict{Classification: Bounce, Bounce: "soft",
			Rule: fmt.Sprintf("a delivery report says delivery to %s failed for now (status %s)", quoted(r.DSN.Recipient, plainAddress), quoted(r.DSN.Status, statusCodeOnly))}
	}
	if r.DSN != nil || bounceSender.MatchString(r.From) || bounceSubject.MatchString(strings.TrimSpace(r.Subject)) {
		if m := statusCode.FindString(r.Text); strings.HasPrefix(m, "5") {
			return Verdict{Classification: Bounce, Bounce: "hard", Rule: fmt.Sprintf("a mail server's bounce gives the permanent status %s", m)}
		}
		return Verdict{Classification: Bounce, Bounce: "soft", Rule: "a mail server's bounce gives no permanent status, so it counts as temporary"}
	}
	// Only the sender's own words are read: from the first words that
	// speak to an assistant (a fake system note, an instruction to call a
	// tool or to classify the reply), the rest is an attempt to steer
	// what reads it, and moves no classification.
	own, addressed := ownWords(r.Text)
	said := ""
	if addressed {
		said = "; the words after them speak to an assistant, and were not read"
	}
	// text is what the rules below read: the sender's own words.
	text := own
	subject := strings.TrimSpace(r.Subject)
	// The rules quote what matched in the subject, never the whole
	// subject: it is our words the assistant reads there.
	oooStart, autoStart := outOfOfficeSubject.FindString(subject), autoReplySubject.FindString(subject)
	subjectOOO, autoSubject := oooStart != "", autoStart != ""
	textOOO := outOfOfficeText.FindString(text)
	// A lead who left says so in an automatic answer too, and that
	// outweighs the automatic answer's being one.
	if left, ok := leftSignal.find(text, lowerSameLength(text)); ok && (r.AutoSubmitted || subjectOOO || autoSubject) {
		return Verdict{Classification: LeftCompany, Rule: fmt.Sprintf("an automatic reply says %q (%s)", left, leftSignal.meaning)}
	}
	// An automatic reply that says when its sender is back is an
	// out-of-office, whatever words it uses for being away.
	returns, hasReturn := returnDate(text, r.Date)
	saysBack := textOOO == "" && (r.AutoSubmitted || autoSubject) && hasReturn
	// A person's short note that they are away is an out-of-office,
	// unless it proposes the conversation anyway ("travelling until
	// Wednesday, but could we talk Thursday?").
	awayNote := textOOO != "" && len(text) < 600 && containsReturn(text)
	if awayNote && !r.AutoSubmitted && !autoSubject {
		if v, ok := readWords(text); ok && v.Classification == Interested {
			v.Rule += said
			return v
		}
	}
	if subjectOOO || ((r.AutoSubmitted || autoSubject) && textOOO != "") || saysBack || awayNote {
		v := Verdict{Classification: OutOfOffice}
		switch {
		case subjectOOO:
			v.Rule = fmt.Sprintf("the subject starts %q, as an automatic reply's does", oooStart)
		case saysBack:
			v.Rule = "an automatic reply that says when its sender is back"
		case r.AutoSubmitted || autoSubject:
			v.Rule = fmt.Sprintf("an automatic reply that says %q", textOOO)
		default:
			v.Rule = fmt.Sprintf("the reply says %q and when the sender is back", textOOO)
		}
		if hasReturn {
			v.ReturnsOn = &returns
		}
		return v
	}
	if r.AutoSubmitted || autoSubject {
		if w, ok := autoSignal.find(text, lowerSameLength(text)); ok {
			return Verdict{Classification: AutoReply, Rule: fmt.Sprintf("an automatic reply that says %q, not an out-of-office", w)}
		}
		if r.AutoSubmitted {
			return Verdict{Classification: AutoReply, Rule: "the headers say a machine wrote it (Auto-Submitted), and it is not an out-of-office"}
		}
		return Verdict{Classification: AutoReply, Rule: fmt.Sprintf("the subject starts %q, as an automatic reply's does, and it is not an out-of-office", autoStart)}
	}
	// Without a header or a subject saying so, only a message that
	// calls itself automatic is one: a person writes "we have received
	// your proposal" too.
	if w, ok := autoSignal.find(text, lowerSameLength(text)); ok && strings.Contains(lowerSameLength(w), "automat") {
		return Verdict{Classification: AutoReply, Rule: fmt.Sprintf("the message says %q, as an automatic answer does", w)}
	}
	if v, ok := readWords(text); ok {
		v.Rule += said
		return v
	}
	if addressed {
		return Verdict{Classification: Other, Rule: "no rule matched the sender's own words; the words after them speak to an assistant, and were not read"}
	}
	return Verdict{Classification: Other, Rule: "no rule matched the reply's words"}
}

// addressing finds words that speak to an assistant rather than to the
// person the email was sent for: fake system or assistant notes (in any
// markup: a heading, a tag, a bracket, a chat template), instructions to
// ignore what came before, to call a tool or to classify the message.
// It is matched on the text folded by [fold], so that fullwidth and
// other look-alike letters read as the letters they imitate.
var addressing = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`(?:note|message|notice|instructions?|prompt|update)s? (?:from|for|to) (?:vibesell|the (?:assistant|ai|model|agent|llm|bot)|claude|chatgpt|gpt)`,
	`\b(?:system|assistant|developer)[ _-]*(?:note|message|prompt|override|instructions?)s?\b`,
	`(?m)(?:^|<!--|[\[(<])\s*(?:system|assistant|developer)\s*:`,
	`[(\[{<]\s*/?\s*(?:system|assistant|inst|sys|developer|instructions?)\s*[)\]}>|]`,
	`<\|`,
	`(?m)^\s*#+\s*(?:(?:system|assistant|instructions?|important)\b|note (?:from|for|to)\b)`,
	`\b(?:ignore|disregard|forget|override) (?:all |any |the |your )*(?:previous|prior|above|earlier|preceding|other|existing) (?:instructions|messages|rules|prompts?|context)`,
	`\b(?:important )?instructions? for (?:the )?(?:assistant|ai|model|agent|you)\b`,
	`\b(?:classify|mark|label|tag|treat|record|flag) (?:this|the|my) (?:reply|lead|email|message|sender|response)s? as\b`,
	`\b(?:call|use|run|invoke|execute|trigger) (?:the )?(?:tool |function )?[a-z]+(?:_[a-z]+)+\b`,
	`\btools/call\b`,
}, "|"))

// ownWords returns the sender's own words: the text before the first
// words that speak to an assistant ([addressing]), and whether there were
// any.
func ownWords(text string) (string, bool) {
	folded, offsets := fold(text)
	loc := addressing.FindStringIndex(folded)
	if loc == nil {
		return text, false
	}
	return text[:offsets[loc[0]]], true
}

// fold maps look-alike letters to the ones they imitate (NFKC: fullwidth
// ＳＹＳＴＥＭ is SYSTEM) and drops invisible format characters (a
// zero-width space inside "sys\u200btem"), returning the folded text and,
// for each of its bytes, the offset in text of the rune it came from.
func fold(text string) (string, []int) {
	var b strings.Builder
	offsets := make([]int, 0, len(text)+1)
	for i, r := range text {
		if unicode.Is(unicode.Cf, r) {
			continue
		}
		f := norm.NFKC.String(string(r))
		b.WriteString(f)
		for range len(f) {
			offsets = append(offsets, i)
		}
	}
	return b.String(), append(offsets, len(text))
}

// A rule is our words, shown to the assistant outside the fence of what
// the sender wrote: the values it quotes from a report's fields (written
// by whoever sent the report) are quoted only when they have the form
// such a value has, never as free text.
var (
	plainAddress   = regexp.MustCompile(`^[a-z0-9._%+'-]{1,64}@[a-z0-9.-]{1,253}$`)
	reportType     = regexp.MustCompile(`^[a-z][a-z-]{0,30}$`)
	statusCodeOnly = regexp.MustCompile(`^[245]\.\d{1,3}\.\d{1,3}$`)
)

func quoted(s string, form *regexp.Regexp) string {
	switch {
	case s == "":
		return "(not named)"
	case !form.MatchString(s):
		return "(not given in the expected form)"
	}
	return s
}

var returnWords = regexp.MustCompile(`(?i)(\b(back|return|returning|returns|until|till|through|zurück|wieder|bis|bis zum|ab|retour|jusqu'au|jusqu’au|reviens|hasta|regreso|vuelvo|volveré|a partir del)\b|à partir du|de retour)`)

func containsReturn(text string) bool { return returnWords.MatchString(text) }

const monthNames = `(jan(?:uary|uar|vier)?|feb(?:ruary|ruar)?|févr(?:ier)?|fév|mar(?:ch|s)?|märz|apr(?:il)?|avr(?:il)?|may|mai|june?|juni|juin|july?|juli|juil(?:let)?|aug(?:ust)?|août|sep(?:t(?:ember|embre)?)?|oct(?:ober|obre)?|okt(?:ober)?|nov(?:ember|embre)?|dec(?:ember)?|déc(?:embre)?|dez(?:ember)?|enero|ene|febrero|marzo|abril|mayo|junio|julio|agosto|ago|septiembre|setiembre|octubre|noviembre|diciembre|dic)`

var (
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th|er|\.)?(?: of| de)? ` + monthNames + `\.?(?:,? (\d{4}))?\b`)
	monthDay = regexp.MustCompile(`(?i)\b` + monthNames + `\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b`)
	isoDate  = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// dottedDate is the day first, as Germany, France and Spain write
	// it: 05.01.2027, 5/1/27, 05.01.
	dottedDate = regexp.MustCompile(`\b(\d{1,2})[./](\d{1,2})[./](\d{2,4})?`)
)

// returnDate finds the first date after a word like "back" or "until":
// "back on 14 December", "returning January 5th, 2027", "until
// 2027-01-05". A date without a year is the next such day after the reply.
func returnDate(text string, sent time.Time) (time.Time, bool) {
	loc := returnWords.FindStringIndex(text)
	if loc == nil {
		return time.Time{}, false
	}
	after := text[loc[0]:]
	if sent.IsZero() {
		sent = time.Now()
	}
	type found struct {
		at              int
		year, month, dd int
	}
	var best *found
	consider := func(at, year, month, day int) {
		if month >= 1 && day >= 1 && day <= 31 && (best == nil || at < best.at) {
			best = &found{at, year, month, day}
		}
	}
	// A date written with the month's name: the day and the month are
	// groups dayAt and monthAt, the year (optional) group 3.
	named := func(re *regexp.Regexp, dayAt, monthAt int) {
		m := re.FindStringSubmatchIndex(after)
		if m == nil {
			return
		}
		group := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return after[m[2*i]:m[2*i+1]]
		}
		day, _ := strconv.Atoi(group(dayAt))
		year, _ := strconv.Atoi(group(3))
		consider(m[0], year, monthNumber(group(monthAt)), day)
	}
	named(dayMonth, 1, 2)
	named(monthDay, 2, 1)
	if m := isoDate.FindStringSubmatchIndex(after); m != nil {
		year, _ := strconv.Atoi(after[m[2]:m[3]])
		month, _ := strconv.Atoi(after[m[4]:m[5]])
		day, _ := strconv.Atoi(after[m[6]:m[7]])
		consider(m[0], year, month, day)
	}
	if m := dottedDate.FindStringSubmatchIndex(after); m != nil {
		day, _ := strconv.Atoi(after[m[2]:m[3]])
		month, _ := strconv.Atoi(after[m[4]:m[5]])
		year := 0
		if m[6] >= 0 {
			year, _ = strconv.Atoi(after[m[6]:m[7]])
			if year < 100 {
				year += 2000
			}
		}
		if month <= 12 {
			consider(m[0], year, month, day)
		}
	}
	if best == nil {
		return time.Time{}, false
	}
	year := best.year
	if year == 0 {
		year = sent.Year()
		if time.Date(year, time.Month(best.month), best.dd, 0, 0, 0, 0, time.UTC).Before(time.Date(sent.Year(), sent.Month(), sent.Day(), 0, 0, 0, 0, time.UTC)) {
			year++
		}
	}
	return time.Date(year, time.Month(best.month), best.dd, 0, 0, 0, 0, time.UTC), true
}

func monthNumber(name string) int {
	name = strings.ToLower(name)
	for i, prefixes := range [][]string{{"jan", "ene"}, {"feb", "fév"}, {"mar", "mär"}, {"apr", "avr", "abr"}, {"may", "mai"}, {"jun", "juin"}, {"jul", "juil"}, {"aug", "août", "ago"}, {"sep", "set"}, {"oct", "okt"}, {"nov"}, {"dec", "déc", "dez", "dic"}} {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return i + 1
			}
		}
	}
	return 0
}
