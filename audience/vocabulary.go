package audience

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// The values a filter can take: the directory is loaded onto the same
// words (a CSV's "saas" industry is stored as Software), so that a filter
// the person confirms matches what it says, and a value nobody could match
// is refused with the closest ones instead of silently counting zero.

// Industries a contact's company can be in.
var Industries = []string{
	"Accounting", "Aerospace and Defense", "Agriculture", "Automotive", "Banking", "Biotechnology",
	"Construction", "Consulting", "Consumer Goods", "E-commerce", "Education", "Energy", "Entertainment",
	"Financial Services", "Food and Beverage", "Government", "Healthcare", "Hospitality", "Human Resources",
	"Information Technology", "Insurance", "Legal Services", "Logistics", "Manufacturing",
	"Marketing and Advertising", "Media", "Non-profit", "Pharmaceuticals", "Real Estate", "Retail",
	"Software", "Staffing and Recruiting", "Telecommunications", "Travel",
}

// Seniorities, from the top.
var Seniorities = []string{"Owner", "Founder", "C-level", "Partner", "VP", "Head", "Director", "Manager", "Senior", "Entry", "Intern"}

// Departments a contact works in.
var Departments = []string{
	"Customer Success", "Data", "Design", "Engineering", "Executive", "Finance", "Human Resources", "IT",
	"Legal", "Marketing", "Operations", "Product", "Purchasing", "Sales", "Support",
}

// CompanySizes are the bands of employee counts.
var CompanySizes = []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}

// aliases are words people use for a known value that is not its name:
// they are never accepted silently (the person confirms what is counted),
// only offered as the closest known value.
var aliases = map[string][]string{
	"saas": {"Software"}, "software as a service": {"Software"}, "tech": {"Software", "Information Technology"},
	"technology": {"Information Technology", "Software"}, "it services": {"Information Technology"},
	"fintech": {"Financial Services", "Software"}, "finance": {"Financial Services", "Banking"},
	"ecommerce": {"E-commerce"}, "online retail": {"E-commerce"}, "health": {"Healthcare"},
	"medical": {"Healthcare"}, "pharma": {"Pharmaceuticals"}, "biotech": {"Biotechnology"},
	"legal": {"Legal Services"}, "law": {"Legal Services"}, "recruiting": {"Staffing and Recruiting"},
	"hr": {"Human Resources"}, "marketing": {"Marketing and Advertising"}, "advertising": {"Marketing and Advertising"},
	"ngo": {"Non-profit"}, "nonprofit": {"Non-profit"}, "charity": {"Non-profit"}, "telecom": {"Telecommunications"},
	"shipping": {"Logistics"}, "transport": {"Logistics"}, "property": {"Real Estate"}, "cpg": {"Consumer Goods"},
	"ceo": {"C-level"}, "cto": {"C-level"}, "cfo": {"C-level"}, "coo": {"C-level"}, "cmo": {"C-level"},
	"chief": {"C-level"}, "executive": {"C-level"}, "vice president": {"VP"}, "svp": {"VP"}, "evp": {"VP"},
	"head of": {"Head"}, "lead": {"Manager", "Head"}, "junior": {"Entry"}, "mid": {"Senior"},
	"r&d": {"Engineering"}, "dev": {"Engineering"}, "development": {"Engineering"}, "software engineering": {"Engineering"},
	"procurement": {"Purchasing"}, "people": {"Human Resources"}, "cs": {"Customer Success"}, "customer service": {"Support"},
	"analytics": {"Data"}, "data science": {"Data"}, "c-suite": {"Executive"}, "management": {"Executive"},
	"usa": {"United States"}, "america": {"United States"}, "uk": {"United Kingdom"}, "britain": {"United Kingdom"},
	"great britain": {"United Kingdom"}, "england": {"United Kingdom"}, "holland": {"Netherlands"},
	"emea": {"Europe", "Africa", "Western Asia"}, "apac": {"Asia", "Oceania"}, "latam": {"Latin America"},
	"middle east": {"Western Asia"}, "dach": {"Germany", "Austria", "Switzerland"}, "nordics": {"Northern Europe"},
	"benelux": {"Belgium", "Netherlands", "Luxembourg"},
}

// regionCodes are the UN M.49 areas a filter may name; a contact is in one
// when its country is.
var regionCodes = []string{"002", "005", "009", "013", "019", "021", "029", "030", "034", "035", "039", "142", "145", "150", "151", "154", "155", "419"}

// regionNames overrides CLDR's name where people say it otherwise.
var regionNames = map[string]string{"021": "North America"}

// notCountries are codes CLDR counts as countries that no contact lives in.
var notCountries = map[string]bool{"AC": true, "CP": true, "DG": true, "EA": true, "IC": true, "TA": true, "UN": true, "FX": true}

type places struct {
	countryByCode map[string]string // "DE" → "Germany"
	countryByName map[string]string // "germany" → "DE"
	countryNames  []string
	regionByName  map[string]language.Region
	regionNames   []string
}

var placesOnce = sync.OnceValue(func() places {
	p := places{countryByCode: map[string]string{}, countryByName: map[string]string{}, regionByName: map[string]language.Region{}}
	names := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() || r.String() != code || r.Canonicalize() != r || notCountries[code] {
				continue
			}
			name := names.Name(r)
			if _, taken := p.countryByName[strings.ToLower(name)]; taken {
				continue
			}
			p.countryByCode[code] = name
			p.countryByName[strings.ToLower(name)] = code
			p.countryNames = append(p.countryNames, name)
		}
	}
	for _, code := range regionCodes {
		r := language.MustParseRegion(code)
		name := cmp.Or(regionNames[code], names.Name(r))
		p.regionByName[name] = r
		p.regionNames = append(p.regionNames, name)
	}
	return p
})

// RegionNames are the regions a filter may name, as it names them.
func RegionNames() []string { return slices.Clone(placesOnce().regionNames) }

// CountryName is a country's English name ("DE" → "Germany"), or the code
// itself when it is not a country.
func CountryName(code string) string {
	if n, ok := placesOnce().countryByCode[code]; ok {
		return n
	}
	return code
}

// countryCode reads a country given by its code or its English name.
func countryCode(s string) (string, bool) {
	s = strings.TrimSpace(s)
	p := placesOnce()
	if up := strings.ToUpper(s); len(up) == 2 {
		if _, ok := p.countryByCode[up]; ok {
			return up, true
		}
	}
	code, ok := p.countryByName[strings.ToLower(s)]
	return code, ok
}

// countriesIn lists the countries of a region, by code.
func countriesIn(region string) []string {
	p := placesOnce()
	r := p.regionByName[region]
	var out []string
	for code := range p.countryByCode {
		if r.Contains(language.MustParseRegion(code)) {
			out = append(out, code)
		}
	}
	slices.Sort(out)
	return out
}

// known reads a value of a vocabulary, whatever its case; ok is false when
// the vocabulary does not have it.
func known(vocabulary []string, s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, v := range vocabulary {
		if strings.EqualFold(v, s) {
			return v, true
		}
	}
	return "", false
}

// closest returns up to three known values nearest to s: the ones its
// known aliases point to, then names that contain it or that it contains,
// then those a few typing mistakes away.
func closest(vocabulary []string, s string) []string {
	s = strings.ToLower(strings.TrimSpace(s))
	var out []string
	add := func(v string) {
		if len(out) < 3 && slices.Contains(vocabulary, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, v := range aliases[s] {
		add(v)
	}
	if len(s) >= 3 {
		for _, v := range vocabulary {
			lv := strings.ToLower(v)
			if strings.HasPrefix(lv, s) || strings.Contains(s, lv) && len(lv) >= 3 {
				add(v)
			}
		}
	}
	type scored struct {
		v string
		d int
	}
	var near []scored
	for _, v := range vocabulary {
		d := levenshtein.ComputeDistance(s, strings.ToLower(v))
		if d <= max(1, len(s)/3) {
			near = append(near, scored{v, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return cmp.Compare(a.d, b.d) })
	for _, n := range near {
		add(n.v)
	}
	return out
}

// sizeBand reads a company size given as a band ("51-200") or as a head
// count ("120"), and returns its band.
func sizeBand(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if v, ok := known(CompanySizes, s); ok {
		return v, true
	}
	n := 0
	for _, c := range strings.ReplaceAll(s, ",", "") {
		if c < '0' || c > '9' || n > 100_000_000 {
			return "", false
		}
		n = n*10 + int(c-'0')
	}
	switch {
	case s == "" || n == 0:
		return "", false
	case n <= 10:
		return "1-10", true
	case n <= 50:
		return "11-50", true
	case n <= 200:
		return "51-200", true
	case n <= 500:
		return "201-500", true
	case n <= 1000:
		return "501-1000", true
	case n <= 5000:
		return "1001-5000", true
	case n <= 10000:
		return "5001-10000", true
	}
	return "10001+", true
}

// roleLocalParts are addresses that reach a team or a machine, not a
// person: cold email to them is neither personal nor welcome.
var roleLocalParts = map[string]bool{
	"abuse": true, "admin": true, "billing": true, "contact": true, "careers": true, "hello": true, "help": true,
	"hr": true, "info": true, "jobs": true, "marketing": true, "news": true, "noreply": true, "no-reply": true,
	"office": true, "postmaster": true, "press": true, "privacy": true, "sales": true, "security": true,
	"support": true, "team": true, "webmaster": true,
}

// normalEmail trims and lowercases an address and checks its shape; it
// returns the address, its domain, and whether it reaches a role.
func normalEmail(s string) (email, domain string, role, ok bool) {
	email = strings.ToLower(strings.TrimSpace(s))
	at := strings.LastIndexByte(email, '@')
	if at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t,;<>\"") || !strings.Contains(email[at+1:], ".") {
		return "", "", false, false
	}
	local := email[:at]
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	return email, email[at+1:], roleLocalParts[local], true
}
