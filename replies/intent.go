package replies

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules below read what a person wrote, in English, German, French
// and Spanish. Each is a list of phrases (matched on whole words, without
// regard to case) or a pattern, with what the match means; the verdict
// quotes the words that matched, so a person can check it against the
// message. They are tried in the order of [readWords], and the first that
// matches decides.

// signal is one way of saying something: phrases, patterns, or both.
type signal struct {
	meaning  string
	phrases  []string
	patterns []*regexp.Regexp
}

// find returns the first of the signal's phrases or patterns found in
// lower (the text lowered by [lowerSameLength]), as the words of text at
// the same place.
func (s signal) find(text, lower string) (string, bool) {
	best, bestAt := "", -1
	for _, p := range s.phrases {
		if at := indexWord(lower, p); at >= 0 && (bestAt < 0 || at < bestAt) {
			best, bestAt = text[at:at+len(p)], at
		}
	}
	for _, re := range s.patterns {
		if m := re.FindStringSubmatchIndex(lower); m != nil {
			start, end := m[0], m[1]
			if len(m) >= 4 && m[2] >= 0 {
				start, end = m[2], m[3]
			}
			if bestAt < 0 || start < bestAt {
				best, bestAt = text[start:end], start
			}
		}
	}
	return strings.TrimSpace(best), bestAt >= 0
}

// word wraps a pattern so that it matches whole words only (Go's \b knows
// only ASCII letters, and these languages have others); group 1 is the
// match.
func word(expr string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\p{L}\p{N}])(` + expr + `)(?:$|[^\p{L}\p{N}])`)
}

// indexWord finds the phrase in text on word boundaries, so "no need" is
// not read in "know needs", and returns where, or -1.
func indexWord(text, phrase string) int {
	for i := 0; ; {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return -1
		}
		start, end := i+j, i+j+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !isWordRune(before) || !isWordRune(rune(phrase[0]))) &&
			(end == len(text) || !isWordRune(after) || !isWordRune(lastRune(phrase))) {
			return start
		}
		i = start + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

// lowerSameLength lowers the text letter by letter, keeping a letter whose
// lower case would take another number of bytes, so that places in the
// lowered text are places in the text.
func lowerSameLength(text string) string {
	var b strings.Builder
	for _, r := range text {
		l := unicode.ToLower(r)
		if utf8.RuneLen(l) != utf8.RuneLen(r) {
			l = r
		}
		b.WriteRune(l)
	}
	return b.String()
}

// signOff is the line that starts a signature: what follows is the
// sender's name, title, phone and links (a calendar link in a signature
// is no request for a meeting).
var signOff = regexp.MustCompile(`(?im)^[ \t]*(--[ \t]*|(best|kind|warm|many)?[ \t]*(regards|wishes)[,.!]?|best[,.!]?|thanks?( you)?( again)?[,.!]?|thx[,.!]?|cheers[,.!]?|sincerely[,.!]?|mit (freundlichen|besten) grüßen[,.!]?|(viele|beste|liebe|herzliche) grüße[,.!]?|lg[,.!]?|mfg[,.!]?|(bien )?cordialement[,.!]?|bien à (vous|toi)[,.!]?|(un )?(cordial )?saludos?( cordiales)?[,.!]?|atentamente[,.!]?|un abrazo[,.!]?|merci( beaucoup)?[,.!]?|gracias[,.!]?|danke( schön)?[,.!]?|sent from my \w+.*)[ \t]*$`)

// withoutSignature cuts the text at its sign-off, when words come before
// it.
func withoutSignature(text string) string {
	for _, loc := range signOff.FindAllStringIndex(text, -1) {
		if strings.TrimSpace(text[:loc[0]]) != "" {
			return strings.TrimSpace(text[:loc[0]])
		}
	}
	return text
}

const (
	months   = `(?:jan(?:uary|uar|vier)?|feb(?:ruary|ruar)?|févr(?:ier)?|mar(?:ch)?|märz|mars|apr(?:il)?|avril|may|mai|june?|juni|juin|july?|juli|juillet|aug(?:ust)?|août|sep(?:t(?:ember)?)?|septembre|oct(?:ober)?|oktober|octobre|nov(?:ember)?|novembre|dec(?:ember)?|dez(?:ember)?|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)`
	weekdays = `(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|montag|dienstag|mittwoch|donnerstag|freitag|lundi|mardi|mercredi|jeudi|vendredi|lunes|martes|miércoles|miercoles|jueves|viernes)`
	clock    = `(?:\d{1,2}(?::\d{2})? ?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}[:.h]\d{2}(?: ?uhr)?|\d{1,2} ?uhr|\d{1,2}h|a las \d{1,2}|à \d{1,2} ?h|noon|mittag|midi)`
)

var (
	complaintSignal = signal{meaning: "a complaint", phrases: []string{
		"this is spam", "is spam", "as spam", "pure spam", "stop spamming", "spamming me", "spamming us", "report you", "reporting you", "reported you", "reported this", "marked this as spam", "marking this as spam", "unsolicited", "harassment", "harassing me", "never opted in", "never signed up", "did not consent", "didn't consent", "without my consent", "permission to email", "never gave you permission", "never given you permission", "never gave permission", "can-spam", "violation of", "filing a complaint", "file a complaint", "lodge a complaint",
		"ist spam", "reiner spam", "unerwünschte werbung", "ohne meine einwilligung", "ohne einwilligung", "werde ich melden", "melde ich", "belästigung", "abmahnung",
		"c'est du spam", "du spam", "sans mon consentement", "démarchage abusif", "vous signaler", "harcèlement", "non sollicité", "non sollicités", "non sollicitée", "non sollicitées", "comme indésirable", "comme spam", "signalé comme",
		"esto es spam", "es spam", "sin mi consentimiento", "voy a denunciar", "voy a reportar", "acoso", "no solicitado", "no solicitados", "no solicitada", "no solicitadas", "como spam", "marcado como",
	}}
	unsubscribeSignal = signal{meaning: "asks to hear no more", phrases: []string{
		"unsubscribe", "remove me", "don't call me", "do not call me", "never call me", "stopped contacting", "stopped emailing", "from your database", "remove this address", "remove this email", "remove my address", "unsub", "widerspreche", "bitte um löschung", "pls remove", "eliminadme", "elimíname", "bórrame", "borradme", "de vuestra base de datos", "remove us", "remove my", "take me off", "off your list", "opt me out", "opt out", "opt-out", "stop emailing", "stop contacting", "stop sending", "stop writing", "do not contact", "don't contact", "do not email", "don't email", "do not send", "don't send me", "no more emails", "delete my data", "delete my details", "never contact me", "please stop",
		"abmelden", "melden sie mich ab", "no me escriban", "no me escribáis", "borren mis datos", "plus recevoir", "austragen", "tragen sie mich", "aus ihrem verteiler", "aus dem verteiler", "keine weiteren e-mails", "keine weiteren mails", "keine e-mails mehr", "keine mails mehr", "nicht mehr kontaktieren", "nicht mehr anschreiben", "löschen sie meine daten", "meine daten löschen", "entfernen sie mich",
		"désabonner", "désinscrire", "désinscription", "me retirer de", "retirez-moi", "ne plus recevoir", "ne me contactez plus", "arrêtez de m'écrire", "arrêtez de m'envoyer", "supprimer mes données", "supprimez mes coordonnées", "supprimez mon adresse",
		"darme de baja", "dar de baja", "denme de baja", "dadme de baja", "borrar mis datos", "eliminar mis datos", "no me envíen", "no me envíes", "no me escriba", "no me escribas", "no me contacte", "no me contactes", "dejen de escribirme", "deja de escribirme", "quitarme de", "elimínenme", "eliminen mi correo", "no quiero recibir", "no deseo recibir", "recibir más correos", "recibir más emails", "recibir más mensajes",
	}}
	leftSignal = signal{meaning: "the lead left the company", patterns: []*regexp.Regexp{
		word(`left (?:in|last|back in|at the end of) (?:the )?(?:` + months + `|summer|spring|autumn|fall|winter|month|year|week)`),
		word(`not (?:at|with) [\p{L}&.' -]{2,30} any ?more`),
		word(`(?:has|have|i've|we've) left (?:[\p{L}&'-]+ ){0,2}[\p{L}&'-]+(?:\.|,|$| in | at the end| last)`),
		word(`(?:das unternehmen|die firma|den arbeitgeber|das haus) (?:[\p{L}\p{N}.]+ ){0,3}verlassen`),
	}, phrases: []string{
		"no longer with", "no longer works", "moved to a new company", "new job", "joined another company", "started a new role", "retired", "will be closed", "plus dans cette entreprise", "plus dans l'entreprise", "n'est plus dans", "no longer working", "no longer employed", "left the company", "left the organization", "left the organisation", "left the firm", "left the business", "is no longer at", "am no longer at", "no longer part of", "i've moved on", "i have moved on", "moved on from", "my last day", "no longer in use", "has retired", "have retired",
		"nicht mehr im unternehmen", "nicht mehr bei", "nicht mehr für", "unternehmen verlassen", "nicht mehr tätig", "ausgeschieden", "nicht mehr beschäftigt", "mein letzter arbeitstag", "nicht mehr besetzt",
		"ne fait plus partie", "a quitté", "ai quitté", "ne travaille plus", "n'est plus chez", "n'est plus en poste", "ne suis plus chez", "plus en activité", "plus partie de",
		"ya no trabaja", "ya no trabajo", "ya no forma parte", "dejó la empresa", "ha dejado la empresa", "he dejado la empresa", "ya no está en", "ya no pertenece", "ya no estoy en",
	}}
	wrongPersonSignal = signal{meaning: "the lead is not the one who handles this", phrases: []string{
		"wrong person", "not the right person", "why i got this", "why i received this", "why i'm getting this", "email someone else", "for someone else", "reached the wrong", "got the wrong", "have the wrong", "not me", "verwechslung", "il y a erreur", "erreur de personne", "equivocado", "equivocada", "confused with someone else", "nothing to do with", "nichts zu tun", "wrong guy", "wrong email address", "meant for someone else", "intended for someone else", "wrong recipient", "falsche empfänger", "falschen empfänger", "mauvais destinataire", "destinatario equivocado", "not the right contact", "not the best person", "not the correct person", "not the person you", "wrong contact", "wrong department", "i don't handle", "i do not handle", "not my area", "not my department", "not in my remit", "outside my remit", "not responsible for", "not involved in", "i'm not involved", "not the decision maker", "not the decision-maker", "don't make those decisions", "not my call", "isn't my department", "isn't my area", "is not my area", "is not my department", "not my job", "not my field",
		"falsche ansprechpartner", "falscher ansprechpartner", "falsche ansprechpartnerin", "nicht der richtige ansprechpartner", "nicht die richtige ansprechpartnerin", "nicht die richtige person", "nicht zuständig", "nicht mein bereich", "nicht verantwortlich", "falsche person", "bei mir falsch", "an der falschen adresse", "an die falsche", "nicht meine abteilung",
		"pas la bonne personne", "pas le bon interlocuteur", "pas la bonne interlocutrice", "mauvais interlocuteur", "mauvaise personne", "je ne suis pas en charge", "pas en charge de", "ne m'occupe pas", "pas mon domaine", "pas de mon ressort", "pas responsable", "faites erreur", "rien à voir avec", "pas mon service",
		"no soy la persona", "persona equivocada", "no es mi área", "no me encargo", "no soy responsable", "no soy el responsable", "no soy la responsable", "no soy quien", "contacto equivocado", "no es mi departamento", "no soy yo quien", "nada que ver con", "se ha equivocado", "te has equivocado",
	}}
	// referralSignal hands the conversation to someone; it counts as a
	// referral only when the reply names them ([namesSomeone]).
	referralSignal = signal{meaning: "names someone else to talk to", phrases: []string{
		"talk to", "speak to", "owned by", "try", "adding", "i'm adding", "gestiona", "who manages", "'s area", "the person for this", "would be the person", "her name", "his name", "contacter", "kontaktieren", "you probably want", "you'll want", "you want our", "want to talk to", "who runs", "zuständig", "schreiben sie ihm", "schreiben sie ihr", "direkt an", "en relation avec", "écrivez-lui", "lo lleva", "la lleva", "lleva el tema", "escríbele", "escríbale", "write to", "email him", "email her", "(cc)", "would be the one", "the one to", "liegt bei", "am besten mit", "wenden sie sich bitte an", "wende dich bitte an", "voyez", "plutôt avec", "speak with", "reach out to", "get in touch with", "contact", "please email", "loop in", "looping in", "cc'd", "cc'ing", "cc:", "copied", "copying", "forwarded", "forwarding", "the right person", "right person is", "the person to talk", "handles", "is in charge", "owns this", "runs our", "is responsible", "who handles", "who owns", "better person", "better contact",
		"wenden sie sich an", "wende dich an", "ansprechpartner ist", "ansprechpartnerin ist", "ist zuständig", "zuständig ist", "kümmert sich", "weitergeleitet", "leite ihre", "leite das", "in cc", "in kopie", "melden sie sich bei", "kontaktieren sie", "sprechen sie mit", "richtige ansprechpartner", "richtige ansprechpartnerin",
		"contactez", "adressez-vous", "voir avec", "en copie", "je transfère", "j'ai transféré", "transmis à", "s'occupe de", "est en charge", "la bonne personne", "le bon interlocuteur", "la bonne interlocutrice",
		"contacta con", "contacte con", "contactar con", "habla con", "hable con", "escribe a", "escriba a", "en copia", "he reenviado", "reenvío", "se encarga", "es la persona", "lleva este tema", "la persona adecuada", "mejor con", "besser mit", "besser an",
	}}
	notNowSignal = signal{meaning: "not now", phrases: []string{
		"not right now", "not now", "try me next", "in the new year", "talk again in", "slammed until", "wrong quarter", "wrong time", "wrong timing", "passt es nicht", "until after", "check in then", "pausing", "auf uns zu", "este trimestre", "not a good moment", "ausgelastet", "im neuen jahr", "neuen jahr", "pas tout de suite", "au printemps", "no es el momento", "finales del año", "not on our roadmap", "roadmap until", "next fiscal year", "new fiscal year", "hear from you then", "too early for us", "not at the moment", "not at this time", "not this quarter", "not this year", "next quarter", "next year", "circle back", "reach out in", "reach back out", "check back", "check in again", "follow up in", "touch base in", "in a few months", "in a couple of months", "in a couple months", "not a good time", "bad time", "after the holidays", "after the new year", "not a priority", "revisit", "down the road", "later this year", "later in the year", "early next year", "ping me in", "ping me again", "try me in", "try me again", "try again in", "get back to me in", "budget resets", "no bandwidth", "timing isn't right", "timing is not right", "timing's not right", "timing is off", "on hold", "hiring freeze", "maybe later", "not yet", "bad timing", "timing is bad", "poor timing",
		"nicht jetzt", "derzeit nicht", "aktuell nicht", "momentan nicht", "im moment nicht", "zurzeit nicht", "zur zeit nicht", "nächstes jahr", "nächsten jahr", "nächsten quartal", "nächstes quartal", "in ein paar monaten", "in einigen monaten", "später im jahr", "kein guter zeitpunkt", "ungünstiger zeitpunkt", "keine kapazitäten", "keine kapazität", "nach den feiertagen", "nach dem jahreswechsel", "melden sie sich gerne wieder", "melden sie sich nochmal", "gerne wieder", "schlechtes timing", "schlechter zeitpunkt", "wieder ein thema", "frühestens",
		"pas pour l'instant", "pas pour le moment", "pas maintenant", "pas en ce moment", "l'année prochaine", "l'an prochain", "trimestre prochain", "prochain trimestre", "dans quelques mois", "recontactez-moi", "revenez vers moi", "reprenez contact", "relancez-moi", "pas le bon moment", "après les fêtes", "début d'année", "plus tard dans l'année", "pas prioritaire", "pas une priorité", "mauvais timing", "timing compliqué", "mauvais moment", "reviendra sur la table", "à revoir en", "à revoir dans",
		"ahora no", "por ahora no", "de momento no", "en este momento no", "ahora mismo no", "el año que viene", "el próximo año", "el año próximo", "próximo trimestre", "dentro de unos meses", "en unos meses", "vuelve a escribirme", "vuelva a escribirme", "vuelve a contactarme", "vuelva a contactarme", "no es buen momento", "no es un buen momento", "después de las fiestas", "más adelante", "no es prioridad", "no es una prioridad", "mal momento", "mal timing", "hablamos en", "hablemos en",
	}, patterns: []*regexp.Regexp{
		word(`(?:reach out|get back to me|contact me|ping me|email me|write me|follow up|try me|circle back|come back)(?: again)? (?:in|after|around|early|late|mid|next)[- ](?:the )?(?:` + months + `|q[1-4]|spring|summer|autumn|fall|winter|new year)`),
		// A later year, with the word that puts the conversation there
		// ("in 2028", "frühestens 2028", "à revoir en 2028"); a date
		// with its day (2027-01-05, an out-of-office's return) is not
		// one, nor a contract's end ("until 2028", "jusqu'en 2028": an
		// objection).
		regexp.MustCompile(`(?:^|[\s,;:(])((?:in|after|im|ab|nach|frühestens|en|dès|après|para|después de) (?:(?:early|late|mid|anfang|ende|mitte|début|fin|principios de|finales de) )?20[2-9]\d)(?:$|[\s,;:!?)]|\.(?:\s|$))`),
		word(`(?:in|im|en|au|dans|hacia|para) (?:the )?(?:spring|summer|fall|autumn|winter|frühjahr|frühling|sommer|herbst|winter|printemps|été|automne|hiver|primavera|verano|otoño|invierno)`),
		word(`(?:ersten|zweiten|dritten|vierten|nächsten) quartal`),
		word(`(?:give it|in|wait|after) (?:\d+|a few|a couple of|a couple|six|three|two) (?:months|quarters|monaten|mois|meses)`),
		word(`(?:im|ab|anfang|ende|mitte) (?:` + months + `|q[1-4]|frühjahr|sommer|herbst)`),
		word(`(?:en|à partir de|début|fin|courant) (?:` + months + `|q[1-4])`),
		word(`(?:en|a partir de|para|hacia) (?:` + months + `|q[1-4])`),
	}}
	whenLater           = word(`(?:` + months + `(?: \d{4})?|q[1-4](?: \d{4})?|next (?:year|quarter)|nächste[sn]? (?:jahr|quartal)|l'année prochaine|l'an prochain|el año que viene|el próximo año|after the holidays|nach den feiertagen|après les fêtes|después de las fiestas)`)
	notInterestedSignal = signal{meaning: "not interested", patterns: []*regexp.Regexp{
		// "I'll pass", but not "I'll pass this along".
		word(`(?:i'll|we'll|i will|we will) pass(?:\s*[.!,;]|\s*$| on (?:this|it|that)| for now)`),
		word(`(?:don't|do not) think (?:this|that|it)(?:'s| is) (?:something|anything|what) (?:we|i)(?:'d)? (?:need|want)`),
		word(`(?:don't|do not) think (?:we|i) (?:need|want)`),
	}, phrases: []string{
		"not interested", "no thanks", "nada de qué hablar", "nada que hablar", "bei bedarf", "si besoin", "reach out if we need", "let you know if we need", "if we need anything", "si nos interesa", "si nos hace falta", "went with someone else", "went with another", "going with another", "chose another", "decided to go with", "not going to change", "not changing", "hard pass", "going to pass", "gonna pass", "not keen", "not really keen", "don't want", "do not want", "pas intéressant", "no es interesante", "no me parece interesante", "uninteresting", "not in the market", "ever buy", "never buy", "have to decline", "must decline", "will decline", "doesn't apply to us", "does not apply to us", "not applicable", "not going to move forward", "won't be moving forward", "not moving forward", "not going to pursue", "decided not to", "don't have this problem", "don't have that problem", "no es para nosotros", "pas pour nous", "nope", "nah", "no thank you", "no, thanks", "no, thank you", "not a fit", "not a good fit", "we're all set", "we are all set", "no need", "not for us", "no interest", "pass on this", "not looking", "don't need", "do not need", "not relevant", "not something we need", "doesn't fit", "does not fit", "please don't follow up", "we're good", "we are good", "not something we",
		"kein interesse", "nicht interessiert", "nicht interessant", "nein danke", "nein, danke", "kein bedarf", "keinen bedarf", "brauchen wir nicht", "benötigen wir nicht", "nicht relevant", "passt nicht", "kommt nicht in frage", "sind versorgt", "für uns kein thema", "betrifft uns nicht", "ist kein thema für uns",
		"pas intéressé", "pas intéressée", "pas intéressés", "ne m'intéresse pas", "ne nous intéresse pas", "non merci", "non, merci", "pas besoin", "aucun intérêt", "pas pertinent", "ne correspond pas", "ne nous concerne pas", "ne me concerne pas",
		"no me interesa", "no nos interesa", "no estoy interesado", "no estoy interesada", "no estamos interesados", "no gracias", "no, gracias", "no lo necesitamos", "no necesitamos", "sin interés", "no aplica", "no encaja", "no nos concierne", "no nos afecta",
	}}
	meetingSignal = signal{meaning: "a meeting asked for", phrases: []string{
		"let's talk", "lets talk", "let's chat", "lets chat", "let's connect", "let's set up", "let's find a time", "let's schedule", "let's do", "happy to chat", "happy to talk", "happy to hop", "happy to take a call", "happy to meet", "happy to jump", "open to a call", "open to a chat", "open to chatting", "open to a conversation", "up for a call", "up for a chat", "book a", "book some time", "schedule a", "schedule some time", "set up a call", "set up a meeting", "set up time", "set something up", "hop on a call", "jump on a call", "get on a call", "grab time", "grab 15", "grab 20", "grab 30", "find a time", "find time", "what times work", "what time works", "when works", "when are you free", "when are you available", "are you free", "are you available", "your availability", "send me an invite", "send an invite", "send a calendar invite", "send over an invite", "send me a calendar", "calendar link", "my calendar", "calendly", "quick call", "a call", "the invite", "an invite", "calendar invite", "einladung", "invitation", "invitación", "can we talk", "could we talk", "can we chat", "could we chat", "can we meet", "could we meet", "can we speak", "could we speak", "worth a chat", "worth a call", "a slot", "find a slot", "créneau", "un créneau", "when you're free", "when you are free", "when you have time", "let me know when", "a few slots", "some slots", "propose a time", "propose some times", "suggest a time", "termine vor", "termin vor", "termine vorschlagen", "austausch", "offen für", "proposez-moi", "proponme", "propón", "video call", "good to connect", "give me a ring", "give me a call", "call me", "kurzer call", "ein call", "einen call", "anrufen", "rufen sie", "walkthrough", "walk-through", "walk me through", "walk us through", "show me", "show us", "demo", "a meeting",
		"termin", "gespräch", "telefonat", "telefonieren", "anruf", "kurz sprechen", "austauschen", "kennenlernen", "videocall", "zoom", "vorführung", "präsentation", "zeigen sie mir", "wann passt", "wann haben sie zeit", "hätten sie zeit", "haben sie zeit", "lassen sie uns", "lass uns", "gerne sprechen",
		"rendez-vous", "rdv", "un appel", "un call", "échanger", "un échange", "une démo", "démonstration", "une présentation", "réunion", "visio", "vos disponibilités", "vos dispos", "êtes-vous disponible", "seriez-vous disponible", "discutons", "parlons-en", "en parler", "caler un", "planifier", "organiser un",
		"reunión", "una llamada", "llamada", "hablemos", "charlar", "charlemos", "agendar", "te viene bien", "le viene bien", "qué día", "disponibilidad", "estás disponible", "está disponible", "videollamada", "coordinar", "podemos hablar", "podríamos hablar", "hablamos",
	}}
	// timeSignal is a day or an hour proposed: with a day or a time of
	// day, in a sentence that offers or asks.
	timeSignal = signal{meaning: "a time proposed", patterns: []*regexp.Regexp{
		word(`(?:(?:this|next|on|am|le|el|ce) )?` + weekdays + `(?: (?:the )?\d{1,2}(?:st|nd|rd|th|\.)?)?(?: (?:at|um|à|a las|around|morning|afternoon|vormittag|nachmittag|matin|après-midi|por la mañana|por la tarde))?(?: (?:` + clock + `|\d{1,2}))?`),
		word(clock),
		word(`(?:tomorrow|morgen|demain|mañana|next week|nächste woche|semaine prochaine|la semana que viene|la próxima semana)`),
	}}
	offers          = regexp.MustCompile(`(?i)\?|work|free|can do|i can|let me know|suits?\b|fine|hätte|wäre|zeit|erreichbar|availab|could you|can you|can we|how about|what about|does|would|open|suit|let's|happy|passt|geht|können|könnten|hätten|haben sie|wie wäre|convient|dispo|pouvez|pourriez|pourrait|peut-on|on peut|ça vous|me va|le va|te va|puede|podemos|podría|qué tal|le parece|te parece|vale`)
	questionMeta    = regexp.MustCompile(`(?i)who (?:is this|are you|gave you|sent)|how you got|where you got|who's this|who is this|real person|a bot\b|\bai\b|automated|how did you (?:get|find)|where did you get|why (?:are|do) you (?:email|contact|writ|send)|is this (?:spam|automated|a bot|real)|wer sind sie|woher haben sie|wer hat ihnen|qui êtes-vous|qui etes-vous|comment avez-vous eu|où avez-vous|quién (?:es|eres)|quién (?:le |te |les |os )?(?:ha |han )?(?:dado|pasado|facilitado)|qui vous a (?:donné|transmis|communiqué|passé)|de dónde (?:sacó|sacaste|ha sacado|tiene)|cómo (?:consiguió|consiguieron|obtuvo)|^\W*(?:what|was|quoi|qué)\W*$`)
	objectionSignal = signal{meaning: "an objection", phrases: []string{
		"too expensive", "too pricey", "out of line", "overpriced", "too high", "way too much", "can't leave the eu", "unless you host", "data residency", "on-prem", "on-premise", "won't work for us", "wouldn't work for us", "already gives us", "already does", "überdimensioniert", "overkill", "price is the problem", "price is too", "half the price", "competitor", "under $", "nicht funktioniert", "anderen anbieter", "n'a pas fonctionné", "no funcionó", "natively", "don't see why", "why we'd pay", "just renewed", "renewed with", "signed with", "never approve", "wouldn't approve", "would not approve", "out of our budget", "over our budget", "no budget", "don't have budget", "don't have the budget", "can't afford", "cannot afford", "we already use", "we already have", "we already work with", "already using", "we're using", "we are using", "we use", "happy with our current", "happy with what we have", "happy with our", "built our own", "in-house", "in house", "locked into", "under contract", "contract with", "don't see the value", "don't see how", "not convinced", "skeptical", "sceptical", "tried something similar", "didn't work for us", "deal breaker", "dealbreaker", "non-starter", "non starter", "showstopper", "show stopper", "expensive", "pricey", "costly", "spreadsheet", "spreadsheets", "in excel", "with excel", "out of the box", "what gap", "what you'd add", "what you would add", "too small", "a disaster", "bad experience", "burned before", "burnt before",
		"zu teuer", "kein budget", "nutzen bereits", "haben bereits", "setzen bereits", "verwenden bereits", "arbeiten bereits mit", "selbst entwickelt", "eigene lösung", "inhouse", "vertraglich gebunden", "vertrag mit", "mehrwert nicht", "keinen mehrwert", "zufrieden mit", "skeptisch", "ausschlusskriterium", "k.o.-kriterium", "ko-kriterium", "no-go", "teuer", "kostspielig", "mit excel", "in excel", "zu klein", "keinen externen", "nicht nach außen", "macht das schon", "kann das schon", "haben wir schon",
		"trop cher", "trop chère", "pas de budget", "pas le budget", "utilisons déjà", "avons déjà", "travaillons déjà avec", "solution interne", "en interne", "sous contrat", "contrat avec", "satisfaits de", "satisfait de", "pas convaincu", "ne vois pas l'intérêt", "sceptique", "rédhibitoire", "éliminatoire", "non négociable", "coûteux", "onéreux", "sur excel", "avec excel", "trop petits", "trop petite", "trop petit", "ne sortent pas", "ne sort pas", "valeur ajoutée", "fait déjà", "a déjà tout", "on a déjà",
		"demasiado caro", "muy caro", "no tenemos presupuesto", "sin presupuesto", "ya usamos", "ya tenemos", "ya trabajamos con", "ya utilizamos", "solución interna", "desarrollo propio", "internamente", "contrato con", "contentos con", "satisfechos con", "no veo el valor", "no me convence", "no estoy convencido", "escéptico", "innegociable", "no negociable", "descartado", "bastante caro", "algo caro", "es caro", "en excel", "con excel", "demasiado pequeños", "demasiado pequeña", "demasiado pequeño", "no salen de", "no sale de", "ya hace", "ya lo hace", "qué aportaría", "qué aporta", "no veo qué",
	}}
	interestSignal = signal{meaning: "interest", phrases: []string{
		"interested", "interesting", "deck", "one pager", "one-pager", "yes pls", "free trial", "trial", "zur richtigen zeit", "testversion", "probeversion", "intrigued", "curious", "good timing", "great timing", "perfect timing", "timely", "tell me more", "send more", "send me more", "send over", "send me", "more info", "more information", "more details", "learn more", "sounds good", "sounds great", "sounds interesting", "sounds promising", "worth a look", "worth exploring", "worth a conversation", "keen", "would love", "i'd love", "love to", "open to", "on our radar", "looking for something like", "looking for a solution", "we've been looking", "been meaning to", "exactly what", "relevant for us", "count me in", "yes please", "absolutely", "pricing", "how much",
		"interessant", "interessiert", "klingt gut", "klingt spannend", "spannend", "gerne mehr", "mehr informationen", "mehr infos", "schicken sie mir", "senden sie mir", "schick mir", "genau das", "suchen gerade", "guter zeitpunkt", "perfektes timing", "unterlagen",
		"intéressé", "intéressée", "intéressant", "m'intéresse", "nous intéresse", "curieux", "curieuse", "envoyez-moi", "envoyez moi", "plus d'infos", "plus d'informations", "en savoir plus", "volontiers", "avec plaisir", "bon timing", "tombe bien", "tombe à pic", "pertinent", "tarifs",
		"me interesa", "nos interesa", "interesado", "interesada", "interesante", "envíame", "envíeme", "mándame", "mándeme", "más información", "más info", "más detalles", "suena bien", "suena interesante", "con gusto", "encantado", "encantada", "buen momento", "justo lo que", "me gustaría", "nos vendría bien", "precios",
	}}
	autoSignal = signal{meaning: "an automatic answer", phrases: []string{
		"this is an automated", "this is an automatic", "automated response", "automated message", "automatic reply", "auto-reply", "autoreply", "do not reply to this", "please do not reply", "ticket number", "ticket #", "case number", "your request has been received", "we have received your", "we've received your", "this mailbox is not monitored", "this inbox is not monitored", "not monitored",
		"automatische antwort", "automatisch generiert", "automatisch erstellt", "ihre nachricht ist eingegangen", "wir haben ihre nachricht erhalten", "ihre anfrage ist eingegangen", "nicht auf diese e-mail",
		"réponse automatique", "message automatique", "nous avons bien reçu", "ne pas répondre",
		"respuesta automática", "mensaje automático", "hemos recibido su", "hemos recibido tu", "no responda a este",
	}}
)

var emailAddress = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+`)
var colleague = word(`(?:cfo|ceo|cto|coo|daf|controller|controlling|contrôleur|comptabilité|buchhaltung|einkauf|einkaufsleiter(?:in)?|compras|contabilidad|procurement|purchasing|finance team|accounting|colleague|coworker|co-worker|my boss|our cfo|our ceo|our cto|our coo|head of|vp of|director|manager|team lead|controller|kollegen?|kollegin|chef|chefin|leiter|leiterin|herrn?|frau|collègue|responsable|directeur|directrice|m\.|mme|compañer[oa]|colega|jef[ae]|director[a]?|responsable)`)
var properName = regexp.MustCompile(`^[\s,:(]*(?:(?:my|our|unser(?:e|em|en)?|mein(?:e|em|en)?|notre|mon|ma|nuestr[oa]|mi|la|el|le|à|a|an|to|with|mit|con)\s+)*\p{Lu}\p{Ll}+`)

// namesSomeone finds a hand-off that names whom to talk to: an address,
// a colleague or a name after it ("talk to Maria", "cc'ing our CFO"), or
// a name before one whose subject comes first ("Maria handles this"). It
// returns the hand-off's words, or the address when the reply gives one.
func namesSomeone(text, lower string) (string, bool) {
	if _, ok := referralSignal.find(text, lower); !ok {
		return "", false
	}
	if m := emailAddress.FindString(text); m != "" {
		return m, true
	}
	for _, p := range referralSignal.phrases {
		for i := 0; ; {
			at := indexWord(lower[i:], p)
			if at < 0 {
				break
			}
			start, end := i+at, i+at+len(p)
			after := clip(text[end:], 60)
			if colleague.MatchString(lowerSameLength(after)) {
				return text[start:end], true
			}
			if m := properName.FindString(after); m != "" {
				name := strings.Fields(m)
				if !notAName[name[len(name)-1]] {
					return text[start:end], true
				}
			}
			if subjectFirst[p] {
				before := text[max(0, start-30):start]
				if colleague.MatchString(lowerSameLength(before)) {
					return text[start:end], true
				}
				// German writes every noun with a capital: only a
				// colleague's title names someone there.
				for _, w := range capitalWord.FindAllString(before, -1) {
					if !notAName[w] && !colleagueFirst[p] {
						return text[start:end], true
					}
				}
			}
			i = end
		}
	}
	return "", false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var capitalWord = regexp.MustCompile(`\p{Lu}\p{Ll}+`)

// subjectFirst are the hand-offs whose person comes before them.
var subjectFirst = map[string]bool{"gestiona": true, "'s area": true, "the person for this": true, "would be the person": true, "handles": true, "who runs": true, "who handles": true, "who owns": true, "zuständig": true, "(cc)": true, "would be the one": true, "the one to": true, "weitergeleitet": true, "is in charge": true, "is responsible": true, "owns this": true, "runs our": true, "right person is": true,
	"ist zuständig": true, "zuständig ist": true, "kümmert sich": true, "ansprechpartner ist": true, "ansprechpartnerin ist": true,
	"s'occupe de": true, "est en charge": true, "se encarga": true, "lleva este tema": true, "es la persona": true}

var colleagueFirst = map[string]bool{"zuständig": true, "ist zuständig": true, "zuständig ist": true, "kümmert sich": true, "weitergeleitet": true}

// notAName are capitalised words that start sentences or address the
// reader, not people.
var notAName = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`I Me Us You We Our My The This That It He She They Hi Hello Hey Dear Thanks Thank Please Let Yes No Sorry Unfortunately Actually Also But And So Just Happy Feel Best
		Sie Ihnen Ihre Ihr Ich Wir Uns Das Die Der Den Dem Es Er Hallo Guten Tag Danke Bitte Leider Gerne Aber Und Mail Nachricht Anfrage Thema
		Je Vous Nous Il Elle Le La Les Ce Cette Bonjour Merci Oui Non Malheureusement Mais Et
		Yo Usted Nosotros Hola Buenos Gracias Por Sí Lamentablemente Pero El Los Las Esto Este Esta Te Le`) {
		notAName[w] = true
	}
}

// readWords classifies what a person wrote. The order is the meaning's
// weight: a complaint or a request to hear no more outweighs everything;
// then who to talk to; "not now" and a plain no before any interest (so
// "not interested" is read before "interested"); a meeting, a time or a
// question wanting an answer before an objection (they want the
// conversation despite it); an objection before a softer word of
// interest ("interesting, but too expensive").
func readWords(own string) (Verdict, bool) {
	text := withoutSignature(apostrophes.Replace(own))
	lower := lowerSameLength(text)
	verdict := func(class, what, meaning string) (Verdict, bool) {
		if meaning == "" {
			return Verdict{Classification: class, Rule: fmt.Sprintf("the reply says %q", what)}, true
		}
		return Verdict{Classification: class, Rule: fmt.Sprintf("the reply says %q (%s)", what, meaning)}, true
	}
	// said quotes the phrase that matched in lower case, as the rules
	// list it.
	said := func(class, what, meaning string) (Verdict, bool) {
		return verdict(class, lowerSameLength(what), meaning)
	}
	// asked names the question by its place, without quoting it: a rule
	// is read as our words, and a phrase from the lists above is ours
	// where a sentence of the reply is not.
	asked := func(n, of int) (Verdict, bool) {
		return Verdict{Classification: Interested, Rule: fmt.Sprintf("the reply asks a question wanting an answer (sentence %d of %d)", n, of)}, true
	}
	if w, ok := complaintSignal.find(text, lower); ok {
		return said(Complaint, w, complaintSignal.meaning)
	}
	if w, ok := unsubscribeSignal.find(text, lower); ok {
		return said(Unsubscribe, w, "")
	}
	// A reply of a few words that says "remove" or "spam" says it to us.
	if short := strings.Fields(lower); len(short) <= 5 {
		for _, w := range short {
			switch strings.Trim(w, ".!,") {
			case "spam":
				return said(Complaint, strings.Trim(text, " \t\n.!"), complaintSignal.meaning)
			case "stop", "remove", "baja", "unsubscribe":
				return said(Unsubscribe, strings.Trim(text, " \t\n.!"), "")
			}
		}
	}
	if w, ok := leftSignal.find(text, lower); ok {
		if who, ok := namesSomeone(text, lower); ok {
			return said(LeftCompany, w, leftSignal.meaning+", and names someone to talk to instead: "+quoteShort(who))
		}
		return said(LeftCompany, w, leftSignal.meaning)
	}
	wrong, isWrong := wrongPersonSignal.find(text, lower)
	// The words that said the lead is the wrong person ("rien à voir
	// avec") are not read again as a hand-off ("voir avec"), nor is a
	// colleague the lead will bring in themselves while asking for
	// something ("send the deck? I'll loop in our CFO"): they keep the
	// conversation.
	handoffText, handoffLower := text, lower
	for _, p := range wrongPersonSignal.phrases {
		if isWrong && indexWord(handoffLower, p) >= 0 {
			handoffText, handoffLower = blank(handoffText, handoffLower, p)
		}
	}
	if asksSomething(text) {
		for _, m := range ownHandoff.FindAllString(handoffLower, -1) {
			handoffText, handoffLower = blank(handoffText, handoffLower, m)
		}
	}
	if r, ok := namesSomeone(handoffText, handoffLower); ok {
		if isWrong {
			return said(Referral, r, "names someone else to talk to, after "+quoteShort(wrong))
		}
		return said(Referral, r, referralSignal.meaning)
	}
	if isWrong {
		return said(WrongPerson, wrong, wrongPersonSignal.meaning)
	}
	if w, ok := notNowSignal.find(text, lower); ok {
		meaning := ""
		if when := whenLater.FindStringSubmatchIndex(lower); when != nil {
			meaning = "not now, until " + strings.TrimSpace(text[when[2]:when[3]])
		}
		return said(NotNow, w, meaning)
	}
	if w, ok := notInterestedSignal.find(text, lower); ok {
		return said(NotInterested, w, "")
	}
	if w, ok := meetingSignal.find(text, lower); ok {
		return said(Interested, w, meetingSignal.meaning)
	}
	for _, s := range sentences(text) {
		ls := lowerSameLength(s)
		if w, ok := timeSignal.find(s, ls); ok && (offers.MatchString(ls) || len(text) <= 40) && !questionMeta.MatchString(ls) {
			return said(Interested, w, timeSignal.meaning)
		}
	}
	all := sentences(text)
	for i, s := range all {
		if (strings.HasSuffix(s, "?") || askingStart.MatchString(s)) && !questionMeta.MatchString(s) && len(strings.Fields(s)) > 1 {
			return asked(i+1, len(all))
		}
	}
	if w, ok := objectionSignal.find(text, lower); ok {
		return said(Objection, w, objectionSignal.meaning)
	}
	// "Curious how you got my email" asks nothing of the product.
	if w, ok := interestSignal.find(text, lower); ok && !questionMeta.MatchString(text) {
		return said(Interested, w, "")
	}
	return Verdict{}, false
}

// ownHandoff is the lead bringing a colleague in themselves.
var ownHandoff = regexp.MustCompile(`(?:i'll|i will|we'll|we will|ich werde|je vais|voy a) (?:also )?(?:loop in|looping in|cc|forward|include|bring in|add|copy|involve)`)

// asksSomething says whether a sentence of the text asks a question
// wanting an answer.
func asksSomething(text string) bool {
	for _, s := range sentences(text) {
		if strings.HasSuffix(s, "?") && !questionMeta.MatchString(s) && len(strings.Fields(s)) > 1 {
			return true
		}
	}
	return false
}

// blank replaces each place of phrase in lower (and the same bytes of
// text) with spaces, so that no rule reads those words again.
func blank(text, lower, phrase string) (string, string) {
	if phrase == "" {
		return text, lower
	}
	for at := indexWord(lower, phrase); at >= 0; at = indexWord(lower, phrase) {
		pad := strings.Repeat(" ", len(phrase))
		text = text[:at] + pad + text[at+len(phrase):]
		lower = lower[:at] + pad + lower[at+len(phrase):]
	}
	return text, lower
}

// apostrophes are read as the straight one the phrases are written with.
var apostrophes = strings.NewReplacer("’", "'", "‘", "'")

// askingStart is a question written without its mark ("how does this
// compare to X").
var askingStart = regexp.MustCompile(`(?i)^(?:how (?:does|do|much|long|would|is|are)|what (?:is|are|does|do|would)|does (?:it|this|your)|do you|can (?:you|it|we)|could you|is there|are there|wie (?:viel|lange|funktioniert)|gibt es|was kostet|comment |combien|est-ce que|cómo |cuánto|cuánta)`)

var sentenceEnd = regexp.MustCompile(`[.!?]+(?:\s|$)|\n+`)

// sentences splits the text after each sentence's end, keeping the mark.
func sentences(text string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		// "am 14. um 11 Uhr": a dot after a number ends no sentence.
		if text[loc[0]] == '.' && loc[0] > 0 && text[loc[0]-1] >= '0' && text[loc[0]-1] <= '9' {
			continue
		}
		if s := strings.TrimSpace(text[start:loc[1]]); s != "" {
			out = append(out, s)
		}
		start = loc[1]
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func quoteShort(s string) string { return fmt.Sprintf("%q", s) }
