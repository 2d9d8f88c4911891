package vibesell

// A Label is what a person reads for a value the product stores (a status,
// a state, where a decision was made): the web app and the card both show
// it, and the card's copy is generated from the same table (ui/src/generated),
// so the words are written once.
type Label struct {
	Value string // as stored and sent in structuredContent
	Text  string // as a person reads it
}

// Labels is a table of labels in the order a person meets the values
// (a setup's states from first to last), which is the order lists show.
type Labels []Label

// Of returns the label of value, or value itself when the table does not
// know it: a new value shows as it is stored rather than as nothing.
func (ls Labels) Of(value string) string {
	for _, l := range ls {
		if l.Value == value {
			return l.Text
		}
	}
	return value
}
