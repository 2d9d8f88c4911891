package replies

import "vibesell"

// ClassificationLabels are what a person reads for a reply's
// classification, in the web app and in the card (whose copy is generated
// from this table), in the order lists offer them.
var ClassificationLabels = vibesell.Labels{
	{Value: Interested, Text: "Interested"},
	{Value: Referral, Text: "Referred someone else"},
	{Value: NotNow, Text: "Not now"},
	{Value: Objection, Text: "Objection"},
	{Value: NotInterested, Text: "Not interested"},
	{Value: WrongPerson, Text: "Wrong person"},
	{Value: LeftCompany, Text: "Left the company"},
	{Value: OutOfOffice, Text: "Out of office"},
	{Value: AutoReply, Text: "Automatic reply"},
	{Value: Unsubscribe, Text: "Asked to unsubscribe"},
	{Value: Bounce, Text: "Bounced"},
	{Value: Complaint, Text: "Marked as spam"},
	{Value: Other, Text: "Other"},
}

// Classifications are the classifications a reply can have, in the order
// of [ClassificationLabels].
func Classifications() []string {
	out := make([]string, len(ClassificationLabels))
	for i, l := range ClassificationLabels {
		out[i] = l.Value
	}
	return out
}
