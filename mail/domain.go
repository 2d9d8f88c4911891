package mail

import "strings"

// CompanyDomain is the domain of a lead's company as its address says,
// "" for a domain many unrelated people share.
func CompanyDomain(email string) string {
	domain := strings.ToLower(email[strings.LastIndexByte(email, '@')+1:])
	if freemail[domain] {
		return ""
	}
	return domain
}

// Freemail says whether domain is one many unrelated people share.
func Freemail(domain string) bool { return freemail[domain] }

// freemail are domains many unrelated people share: a reply from one of
// them says nothing about which company it comes from.
var freemail = map[string]bool{
	"gmail.com": true, "googlemail.com": true, "outlook.com": true, "hotmail.com": true, "live.com": true,
	"yahoo.com": true, "icloud.com": true, "me.com": true, "aol.com": true, "proton.me": true,
	"protonmail.com": true, "gmx.com": true, "gmx.de": true, "web.de": true, "yandex.com": true, "mail.com": true,
}
