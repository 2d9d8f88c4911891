package mail

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
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

// phraseRule classifies a reply whose own words contain one of the
// phrases. The rules are tried in order; the first that matches decides,
// so "not interested" is read before "interested".
type phraseRule struct {
	classification string
	phrases        []string
}

var phraseRules = []phraseRule{
	{Unsubscribe, []string{"unsubscribe", "remove me", "take me off", "stop emailing", "stop contacting", "do not contact", "don't contact", "do not email", "don't email"}},
	{NotInterested, []string{"not interested", "no thanks", "no thank you", "not a fit", "not a good fit", "we're all set", "we are all set", "we already have", "no need"}},
	{NotNow, []string{"not right now", "not now", "next quarter", "next year", "circle back", "reach out in", "check back", "in a few months", "not a good time", "bad time", "after the holidays", "not a priority"}},
	{Interested, []string{"interested", "let's talk", "lets talk", "let's chat", "happy to chat", "book a", "schedule a", "set up a call", "hop on a call", "sounds good", "tell me more", "send over", "send me more", "how much", "pricing", "when works", "demo"}},
}

var outOfOfficeSubject = regexp.MustCompile(`(?i)^(automatic reply|auto(matic)?[- ]?reply|auto:|out of (the )?office|ooo\b|abwesenheit|absence)`)
var outOfOfficeText = regexp.MustCompile(`(?i)\b(out of (the )?office|on (annual |parental |sick )?leave|on vacation|on holiday|away from (the )?office|limited access to (my )?email)\b`)

var bounceSender = regexp.MustCompile(`^(mailer-daemon|postmaster)@`)
var statusCode = regexp.MustCompile(`\b([245])\.(\d{1,3})\.(\d{1,3})\b`)

// Classify applies the rules to a reply, in order: a feedback-loop
// complaint, a delivery report, a bounce from a mail server, an automatic out-of-office reply, then the
// phrases of the sender's own words.
func Classify(r Reply) Verdict {
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
	if r.DSN != nil || bounceSender.MatchString(r.From) {
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
	subjectOOO := outOfOfficeSubject.FindString(strings.TrimSpace(r.Subject))
	textOOO := outOfOfficeText.FindString(own)
	if subjectOOO != "" || (r.AutoSubmitted && textOOO != "") || (textOOO != "" && len(own) < 600 && containsReturn(own)) {
		v := Verdict{Classification: OutOfOffice}
		switch {
		case subjectOOO != "":
			// The rule quotes what matched, never the whole subject: it
			// is our words the assistant reads there.
			v.Rule = fmt.Sprintf("the subject starts %q, as an automatic reply's does", subjectOOO)
		case r.AutoSubmitted:
			v.Rule = fmt.Sprintf("an automatic reply that says %q", textOOO)
		default:
			v.Rule = fmt.Sprintf("the reply says %q and when the sender is back", textOOO)
		}
		if on, ok := returnDate(own, r.Date); ok {
			v.ReturnsOn = &on
		}
		return v
	}
	lower := strings.ToLower(strings.ReplaceAll(own, "’", "'"))
	for _, rule := range phraseRules {
		for _, p := range rule.phrases {
			if containsWord(lower, p) {
				return Verdict{Classification: rule.classification, Rule: fmt.Sprintf("the reply says %q%s", p, said)}
			}
		}
	}
	if r.AutoSubmitted {
		return Verdict{Classification: Other, Rule: "an automatic reply that is not an out-of-office"}
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

// containsWord finds the phrase on word boundaries, so "no need" is not
// read in "know needs".
func containsWord(text, phrase string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		if (start == 0 || !isLetter(text[start-1])) && (end == len(text) || !isLetter(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

var returnWords = regexp.MustCompile(`(?i)\b(back|return|returning|returns|until|till|through)\b`)

func containsReturn(text string) bool { return returnWords.MatchString(text) }

const monthNames = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? ` + monthNames + `\.?(?:,? (\d{4}))?\b`)
	monthDay = regexp.MustCompile(`(?i)\b` + monthNames + `\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b`)
	isoDate  = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
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
	for i, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(name, m) {
			return i + 1
		}
	}
	return 0
}
