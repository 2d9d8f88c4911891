package audience

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// NarrowPool is the pool below which a count also says, for each filter,
// how many would match without it: what to loosen.
const NarrowPool = 50

// Loosened is how many contacts of the directory would match the target
// with one of its filters left out.
type Loosened struct {
	// Filter is the filter left out: titles, seniorities, departments,
	// industries, companySizes or places (countries and regions, one
	// list).
	Filter string
	// Values are the filter's values, as a person reads them.
	Values string
	// Matched counts the directory's matches without it (before what is
	// subtracted for the workspace).
	Matched int
}

// loosenings lists each narrowing filter of f with the filters as they
// would be without it.
func (f Filters) loosenings() ([]Loosened, []Filters) {
	var out []Loosened
	var without []Filters
	add := func(name string, values []string, clear func(*Filters)) {
		if len(values) == 0 {
			return
		}
		g := f
		clear(&g)
		out = append(out, Loosened{Filter: name, Values: strings.Join(values, ", ")})
		without = append(without, g)
	}
	add("titles", f.Titles, func(g *Filters) { g.Titles = nil })
	add("seniorities", f.Seniorities, func(g *Filters) { g.Seniorities = nil })
	add("departments", f.Departments, func(g *Filters) { g.Departments = nil })
	add("industries", f.Industries, func(g *Filters) { g.Industries = nil })
	add("companySizes", f.CompanySizes, func(g *Filters) { g.CompanySizes = nil })
	var places []string
	for _, c := range f.Countries {
		places = append(places, CountryName(c))
	}
	places = append(places, f.Regions...)
	add("places", places, func(g *Filters) { g.Countries, g.Regions = nil, nil })
	return out, without
}

// loosen counts, in one statement, the directory's matches of the
// filters with each narrowing filter left out in turn; nil when f has
// none. Each table is read once for all of them ([countQuery.matches]).
func (s *Service) loosen(ctx context.Context, ws uuid.UUID, f Filters) ([]Loosened, error) {
	out, without := f.loosenings()
	if len(out) == 0 {
		return nil, nil
	}
	q := &countQuery{}
	matched, _ := q.matches(without, false)
	sql := q.sql("SELECT " + strings.Join(matched, ", ") + " FROM " + q.fromMatches())
	dest := make([]any, len(out))
	for i := range out {
		dest[i] = &out[i].Matched
	}
	if err := s.db.QueryRow(ctx, sql, q.args...).Scan(dest...); err != nil {
		return nil, fmt.Errorf("count the pool without each filter: %w", err)
	}
	return out, nil
}
