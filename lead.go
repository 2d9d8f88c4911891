package vibesell

// Lead is one of a workspace's imported leads, as the features that write
// to it read it: the audience feature owns the leads table, campaigns
// fill their sequences in for it, the sending engine addresses it.
type Lead struct {
	ID            int64
	Email         string
	FirstName     string
	LastName      string
	Title         string
	Company       string
	CompanyDomain string
	Country       string
	TimeZone      string // IANA name; "" when unknown
}

// MergeFields are the lead's values a sequence's fields are filled in
// from, by field name.
func (l Lead) MergeFields() map[string]string {
	return map[string]string{"first_name": l.FirstName, "last_name": l.LastName, "company": l.Company, "title": l.Title, "company_domain": l.CompanyDomain}
}
