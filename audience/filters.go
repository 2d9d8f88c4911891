package audience

import (
	"fmt"
	"slices"
	"strings"

	"vibesell"
	"vibesell/workspace"
)

// Filters are the target as the directory can answer it. Within a list any
// value matches (VP or Director); between lists every one must (a VP or
// Director, in Software). Countries and regions are one list: a contact in
// any country named or in any region named.
type Filters struct {
	Titles                []string `json:"titles"`       // words the job title contains, e.g. "sales"
	Seniorities           []string `json:"seniorities"`  // of [Seniorities]
	Departments           []string `json:"departments"`  // of [Departments]
	Industries            []string `json:"industries"`   // of [Industries]
	CompanySizes          []string `json:"companySizes"` // of [CompanySizes]
	Countries             []string `json:"countries"`    // ISO 3166 alpha-2 codes
	Regions               []string `json:"regions"`      // UN areas, e.g. "Europe"
	ExcludeCompanyDomains []string `json:"excludeCompanyDomains"`
	ExcludeCompanies      []string `json:"excludeCompanies"`
	// NotContactedDays leaves out leads of the workspace contacted in the
	// last so many days; 0 leaves out none.
	NotContactedDays int `json:"notContactedDays"`
}

// MaxFilterValues bounds each list of a filter.
const MaxFilterValues = 50

// normalize checks every value against what the directory knows and
// returns the filters in their stored form, or one refusal naming every
// unknown value with the closest known ones.
func (f Filters) normalize() (Filters, error) {
	var problems []string
	vocab := func(name string, vocabulary []string, in []string, list string) []string {
		out := []string{}
		for _, v := range in {
			if strings.TrimSpace(v) == "" {
				continue
			}
			if k, ok := known(vocabulary, v); ok {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
				continue
			}
			problems = append(problems, unknownValue(v, name, closest(vocabulary, v), list))
		}
		return out
	}
	out := Filters{NotContactedDays: f.NotContactedDays}
	out.Seniorities = vocab("seniority", Seniorities, f.Seniorities, strings.Join(Seniorities, ", "))
	out.Departments = vocab("department", Departments, f.Departments, strings.Join(Departments, ", "))
	out.Industries = vocab("industry", Industries, f.Industries, strings.Join(Industries, ", "))
	out.CompanySizes = vocab("company size band", CompanySizes, f.CompanySizes, strings.Join(CompanySizes, ", "))
	out.Regions = vocab("region", placesOnce().regionNames, f.Regions, strings.Join(placesOnce().regionNames, ", "))

	out.Countries = []string{}
	for _, v := range f.Countries {
		if strings.TrimSpace(v) == "" {
			continue
		}
		code, ok := countryCode(v)
		if !ok {
			// A region given as a country is a fine answer, said as a question.
			near := closest(placesOnce().countryNames, v)
			near = append(near, closest(placesOnce().regionNames, v)...)
			problems = append(problems, unknownValue(v, "country", near, ""))
			continue
		}
		if !slices.Contains(out.Countries, code) {
			out.Countries = append(out.Countries, code)
		}
	}

	clean := func(in []string, norm func(string) string) []string {
		out := []string{}
		for _, v := range in {
			if v = norm(v); v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	out.Titles = clean(f.Titles, strings.TrimSpace)
	out.ExcludeCompanies = clean(f.ExcludeCompanies, strings.TrimSpace)
	out.ExcludeCompanyDomains = []string{}
	for _, v := range f.ExcludeCompanyDomains {
		d, err := workspace.NormalizeDomain(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("'%s' is not a company domain; give it like acme.com", strings.TrimSpace(v)))
			continue
		}
		if !slices.Contains(out.ExcludeCompanyDomains, d) {
			out.ExcludeCompanyDomains = append(out.ExcludeCompanyDomains, d)
		}
	}

	for name, list := range map[string][]string{"titles": out.Titles, "seniorities": out.Seniorities, "departments": out.Departments,
		"industries": out.Industries, "companySizes": out.CompanySizes, "countries": out.Countries, "regions": out.Regions,
		"excludeCompanyDomains": out.ExcludeCompanyDomains, "excludeCompanies": out.ExcludeCompanies} {
		if len(list) > MaxFilterValues {
			problems = append(problems, fmt.Sprintf("%s has %d values; at most %d fit in one target", name, len(list), MaxFilterValues))
		}
	}
	for _, t := range out.Titles {
		if len([]rune(t)) < 2 || len([]rune(t)) > 80 {
			problems = append(problems, fmt.Sprintf("the title words '%s' must be 2 to 80 characters", t))
		}
	}
	if out.NotContactedDays < 0 || out.NotContactedDays > 3650 {
		problems = append(problems, fmt.Sprintf("notContactedDays is %d; give a number of days from 0 (no window) to 3650", out.NotContactedDays))
	}
	if len(problems) > 0 {
		for i, p := range problems {
			if !strings.HasSuffix(p, "?") {
				p += "."
			}
			problems[i] = capitalize(p)
		}
		return Filters{}, vibesell.Errorf(vibesell.EINVALID, "%s", strings.Join(problems, " "))
	}
	if !out.segments() {
		return Filters{}, vibesell.Errorf(vibesell.EINVALID,
			"These filters would match the whole directory: give at least one of titles, seniorities, departments, industries, company sizes, countries or regions.")
	}
	return out, nil
}

// segments reports whether at least one filter narrows who matches.
func (f Filters) segments() bool {
	return len(f.Titles)+len(f.Seniorities)+len(f.Departments)+len(f.Industries)+len(f.CompanySizes)+len(f.Countries)+len(f.Regions) > 0
}

func unknownValue(v, what string, near []string, all string) string {
	s := fmt.Sprintf("'%s' is not %s %s we know", strings.TrimSpace(v), article(what), what)
	switch {
	case len(near) > 0:
		quoted := make([]string, len(near))
		for i, n := range near {
			quoted[i] = "'" + n + "'"
		}
		s += "; did you mean " + vibesell.JoinOr(quoted) + "?"
	case all != "":
		s += " (we know " + all + ")"
	default:
		s += " (give its English name or its two-letter code, e.g. Germany or DE)"
	}
	return s
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// countries is every country the filters allow, regions expanded; nil
// when they do not narrow by place.
func (f Filters) countries() []string {
	if len(f.Countries)+len(f.Regions) == 0 {
		return nil
	}
	out := slices.Clone(f.Countries)
	for _, r := range f.Regions {
		out = append(out, countriesIn(r)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// where writes the filters as conditions on the directory contact c,
// appending their parameters to args. NotContactedDays is not here: it is
// about the workspace's leads, not the directory.
func (f Filters) where(args *[]any) string {
	return f.whereWith(paramOf(args))
}

// whereWith is [Filters.where], its parameters given to param.
func (f Filters) whereWith(param func(any) string) string {
	conds := append([]string{"true"}, f.segmentConds(param)...)
	if len(f.Titles) > 0 {
		conds = append(conds, fmt.Sprintf("c.title ILIKE ANY(%s::text[])", param(f.titlePatterns())))
	}
	if len(f.ExcludeCompanyDomains) > 0 {
		conds = append(conds, fmt.Sprintf("c.company_domain <> ALL(%s::text[])", param(f.ExcludeCompanyDomains)))
	}
	if len(f.ExcludeCompanies) > 0 {
		conds = append(conds, fmt.Sprintf("lower(c.company) <> ALL(%s::text[])", param(f.excludedNames())))
	}
	return strings.Join(conds, " AND ")
}

// paramOf returns a function that appends a parameter to args and
// returns its placeholder.
func paramOf(args *[]any) func(any) string {
	return func(v any) string {
		*args = append(*args, v)
		return fmt.Sprintf("$%d", len(*args))
	}
}

// segmentConds writes the filters on the segment columns (industry,
// seniority, place, company size, department) as conditions on c, which
// may be a directory contact or a row of directory_segments.
func (f Filters) segmentConds(param func(any) string) []string {
	var conds []string
	in := func(column string, values []string) {
		if len(values) > 0 {
			conds = append(conds, fmt.Sprintf("c.%s = ANY(%s::text[])", column, param(values)))
		}
	}
	in("industry", f.Industries)
	in("seniority", f.Seniorities)
	in("country", f.countries())
	in("company_size", f.CompanySizes)
	in("department", f.Departments)
	return conds
}

// titlePatterns are the title filters as ILIKE patterns that find each
// anywhere in a title, their own wildcards taken literally.
func (f Filters) titlePatterns() []string {
	patterns := make([]string, len(f.Titles))
	for i, t := range f.Titles {
		patterns[i] = "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(t) + "%"
	}
	return patterns
}

// excludedNames are the companies left out, as lower(company) is compared.
func (f Filters) excludedNames() []string {
	lower := make([]string, len(f.ExcludeCompanies))
	for i, c := range f.ExcludeCompanies {
		lower[i] = strings.ToLower(c)
	}
	return lower
}

// excludes reports whether the filters leave out any company.
func (f Filters) excludes() bool {
	return len(f.ExcludeCompanyDomains)+len(f.ExcludeCompanies) > 0
}

// excludedCond is true for a directory contact c at a company the filters
// leave out (the opposite of where's exclusions), written for the indexes
// of migration 00280.
func (f Filters) excludedCond(param func(any) string) string {
	var conds []string
	if len(f.ExcludeCompanyDomains) > 0 {
		conds = append(conds, fmt.Sprintf(`c.company_domain COLLATE "C" = ANY(%s::text[])`, param(f.ExcludeCompanyDomains)))
	}
	if len(f.ExcludeCompanies) > 0 {
		conds = append(conds, fmt.Sprintf(`lower(c.company) COLLATE "C" = ANY(%s::text[])`, param(f.excludedNames())))
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// Describe writes the filters as a sentence fragment a person reads:
// "VP or Director, in Software, at companies of 51-200 employees, in
// Germany".
func (f Filters) Describe() string {
	var parts []string
	if len(f.Seniorities) > 0 {
		parts = append(parts, vibesell.JoinOr(f.Seniorities))
	}
	if len(f.Titles) > 0 {
		parts = append(parts, "titles with "+vibesell.JoinOr(quote(f.Titles)))
	}
	if len(f.Departments) > 0 {
		parts = append(parts, "in "+vibesell.JoinOr(f.Departments))
	}
	if len(f.Industries) > 0 {
		parts = append(parts, "in the "+vibesell.JoinOr(f.Industries)+" "+plural(len(f.Industries), "industry", "industries"))
	}
	if len(f.CompanySizes) > 0 {
		parts = append(parts, "at companies of "+vibesell.JoinOr(f.CompanySizes)+" employees")
	}
	var places []string
	for _, c := range f.Countries {
		places = append(places, CountryName(c))
	}
	places = append(places, f.Regions...)
	if len(places) > 0 {
		parts = append(parts, "in "+vibesell.JoinOr(places))
	}
	if len(f.ExcludeCompanies)+len(f.ExcludeCompanyDomains) > 0 {
		parts = append(parts, "not at "+joinSome(append(slices.Clone(f.ExcludeCompanies), f.ExcludeCompanyDomains...), describedExclusions, "other company", "other companies"))
	}
	if f.NotContactedDays > 0 {
		parts = append(parts, fmt.Sprintf("not contacted in the last %s", vibesell.Plural(f.NotContactedDays, "day", "days")))
	}
	return strings.Join(parts, "; ")
}

// describedExclusions is how many of the companies left out the
// description names: up to 100 names of up to 253 characters would make
// it longer than any result may be, and who is left out matters less to
// a reader than who is in. The filters themselves keep every one.
const describedExclusions = 5

// joinSome joins the first n items as alternatives and counts the rest:
// "a, b or 3 other companies".
func joinSome(items []string, n int, one, many string) string {
	if len(items) <= n {
		return vibesell.JoinOr(items)
	}
	rest := len(items) - n
	return strings.Join(items[:n], ", ") + " or " + vibesell.Count(rest) + " " + plural(rest, one, many)
}

func quote(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = "'" + s + "'"
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
