package audience_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/audience"
)

// The pool count's shortcuts give exactly what a plain COUNT(*) of the
// matching contacts gives, both in SQL (counts per segment, distinct
// titles, the title index, exclusions and the workspace's subtractions
// found from their side) and on the replica's index of the directory,
// on a directory of a few thousand contacts of every kind (unknown
// values, invalid and role addresses, titles with accents, case and
// wildcards), for a workspace with leads in and out of the window and
// suppressed addresses and domains: after a first load, after a merge
// (from another connection) that moves contacts between segments and
// titles, and on the sample.
func TestPoolCountsExact(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	ws := b.ws.Acme.ID

	rng := rand.New(rand.NewPCG(27, 27))
	titles := []string{"VP of Sales", "Head of Growth", "Directeur Général", "JOSÉ's 100% Sales_Lead", "sales engineer", "",
		"Chief Executive Officer", "Director, Product", "Vice-président ventes", "Intern"}
	industries := []string{"Software", "Banking", "Insurance", "Retail", "Healthcare", "Widgets"}
	seniorities := []string{"VP", "Director", "Head", "Manager", "C-level", "Guru"}
	departments := []string{"Sales", "Marketing", "Engineering", "Product", "Finance", ""}
	sizes := []string{"11-50", "51-200", "201-500", "1001-5000", "lots"}
	countries := []string{"US", "GB", "DE", "FR", "ES", "JP", "BR", "Atlantis", ""}
	statuses := []string{"valid", "valid", "risky", "invalid", "unknown"}
	directory := func(rows, from int, titleShift int) string {
		var sb strings.Builder
		sb.WriteString("email,title,seniority,department,company,company_domain,industry,company_size,country,email_status\n")
		for i := range rows {
			n := from + i
			co := rng.IntN(150)
			local := fmt.Sprintf("p%d", n)
			if n%37 == 0 { // a role address, at most one a company
				local = []string{"info", "sales", "hello"}[n%3]
			}
			domain := fmt.Sprintf("co%d.test", co)
			if n%11 == 0 {
				domain = "mail.test"
			}
			fmt.Fprintf(&sb, "%s@%s,%q,%s,%s,%s,co%d.test,%s,%s,%s,%s\n", local, domain, titles[(rng.IntN(len(titles))+titleShift)%len(titles)],
				seniorities[rng.IntN(len(seniorities))], departments[rng.IntN(len(departments))], []string{"Co", "CO", "co"}[co%3]+fmt.Sprint(co), co,
				industries[co%len(industries)], sizes[co%len(sizes)], countries[co%len(countries)], statuses[rng.IntN(len(statuses))])
		}
		return sb.String()
	}
	if _, err := audience.ImportDirectory(ctx, b.pool, strings.NewReader(directory(4000, 0, 0)), "first.csv", nil); err != nil {
		t.Fatal(err)
	}
	now := b.clock.Now()
	if _, err := b.pool.Exec(ctx, `
		INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at, last_contacted_at)
		SELECT $1::uuid, email, '', '', '', '', '', '', '', 'ap_test', $2::timestamptz,
			CASE id % 3 WHEN 0 THEN NULL WHEN 1 THEN $2::timestamptz - interval '5 days' ELSE $2::timestamptz - interval '60 days' END
		FROM directory_contacts WHERE id % 7 = 0
		UNION ALL SELECT $1, 'stranger' || g || '@elsewhere.test', '', '', '', '', '', '', '', 'ap_test', $2, NULL FROM generate_series(1, 20) g`, ws, now); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, `INSERT INTO suppressions (workspace_id, kind, value, reason, created_at)
		SELECT $1::uuid, 'address', email, 'manual', $2::timestamptz FROM directory_contacts WHERE id % 13 = 0
		UNION ALL VALUES ($1, 'domain', 'mail.test', 'manual', $2), ($1, 'domain', 'co5.test', 'manual', $2), ($1, 'domain', 'nowhere.test', 'manual', $2)`,
		ws, now); err != nil {
		t.Fatal(err)
	}

	words := []string{"sales", "VP", "of", "josé", "100%", "_lead", "GÉNÉRAL", "engineer", "zz", "Director", "ve"}
	pick := func(from []string, most int) []string {
		var out []string
		for range 1 + rng.IntN(most) {
			out = append(out, from[rng.IntN(len(from))])
		}
		return out
	}
	combinations := func(n int) []audience.Filters {
		out := []audience.Filters{
			{Industries: []string{"Software"}},
			{Titles: []string{"sales"}},
			{Titles: []string{"100%"}, ExcludeCompanies: []string{"co3", "CO4"}},
			{Regions: []string{"Europe"}, ExcludeCompanyDomains: []string{"co1.test", "co2.test"}, NotContactedDays: 30},
			{Departments: []string{"Sales"}, Titles: []string{"VP", "josé"}, Seniorities: []string{"VP"}, CompanySizes: []string{"51-200"},
				Industries: []string{"Software", "Banking"}, Countries: []string{"DE", "US"}, ExcludeCompanyDomains: []string{"co8.test"},
				ExcludeCompanies: []string{"co9"}, NotContactedDays: 30},
		}
		for len(out) < n {
			var f audience.Filters
			if rng.IntN(3) == 0 {
				f.Titles = pick(words, 2)
			}
			if rng.IntN(3) == 0 {
				f.Seniorities = pick(seniorities[:5], 3)
			}
			if rng.IntN(3) == 0 {
				f.Departments = pick(departments[:5], 2)
			}
			if rng.IntN(3) == 0 {
				f.Industries = pick(industries[:5], 3)
			}
			if rng.IntN(4) == 0 {
				f.CompanySizes = pick(sizes[:4], 2)
			}
			if rng.IntN(3) == 0 {
				f.Countries = pick(countries[:7], 3)
			}
			if rng.IntN(5) == 0 {
				f.Regions = pick([]string{"Europe", "Americas", "Asia", "Northern Europe"}, 2)
			}
			if rng.IntN(3) == 0 {
				f.ExcludeCompanyDomains = []string{fmt.Sprintf("co%d.test", rng.IntN(150)), "mail.test"}[:1+rng.IntN(2)]
			}
			if rng.IntN(3) == 0 {
				f.ExcludeCompanies = []string{fmt.Sprintf("Co%d", rng.IntN(150)), fmt.Sprintf("cO%d", rng.IntN(150))}
			}
			if rng.IntN(2) == 0 {
				f.NotContactedDays = 30
			}
			if len(f.Titles)+len(f.Seniorities)+len(f.Departments)+len(f.Industries)+len(f.CompanySizes)+len(f.Countries)+len(f.Regions) > 0 {
				out = append(out, f)
			}
		}
		return out
	}
	check := func(t *testing.T, fs []audience.Filters) {
		t.Helper()
		nonzero := 0
		for _, f := range fs {
			index, sql, plain := audience.PoolCounts(ctx, t, b.svc, ws, f)
			if d := cmp.Diff(plain, sql); d != "" {
				t.Errorf("%+v: the count in SQL differs from a plain count (-plain +sql):\n%s", f, d)
			}
			if d := cmp.Diff(plain, index); d != "" {
				t.Errorf("%+v: the count on the index differs from a plain count (-plain +index):\n%s", f, d)
			}
			if plain.Matched > 0 && plain.Suppressed+plain.ContactedInWindow+plain.AlreadyImported+plain.Unusable > 0 {
				nonzero++
			}
		}
		if nonzero < len(fs)/3 {
			t.Errorf("only %d of %d combinations matched contacts with something to subtract: the test checks too little", nonzero, len(fs))
		}
	}

	t.Run("first load", func(t *testing.T) { check(t, combinations(120)) })

	// As the assistant asks: the confirmed target counted twice on the
	// index (its titles matched, then remembered), each time the same as
	// a plain count, with targets whose titles change in between.
	t.Run("confirmed targets", func(t *testing.T) {
		for _, f := range combinations(20)[:12] {
			saved, err := b.svc.SaveFilters(ctx, ws, f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.svc.Confirm(ctx, ws, saved.Target.FiltersVersion); err != nil {
				t.Fatal(err)
			}
			_, _, plain := audience.PoolCounts(ctx, t, b.svc, ws, f)
			if plain.Available >= audience.NarrowPool {
				plain.Loosened = nil
			}
			for range 2 {
				p, err := b.svc.EstimatePool(ctx, ws)
				if err != nil {
					t.Fatal(err)
				}
				p.Target, p.LastImport = audience.Target{}, nil
				if d := cmp.Diff(plain, p); d != "" {
					t.Errorf("%+v: the pool differs from a plain count (-plain +pool):\n%s", f, d)
				}
			}
		}
	})

	t.Run("after a merge", func(t *testing.T) {
		// Half the contacts again with other titles and statuses, and new ones.
		// Loaded through another connection, as another process would:
		// the replica's index, built for the first load, is built again.
		rng = rand.New(rand.NewPCG(28, 28))
		other, err := pgxpool.New(ctx, b.pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		before := audience.PoolIndexVersion(b.svc)
		if _, err := audience.ImportDirectory(ctx, other, strings.NewReader(directory(3000, 2000, 3)), "second.csv", nil); err != nil {
			t.Fatal(err)
		}
		check(t, combinations(40))
		if after := audience.PoolIndexVersion(b.svc); after <= before || before == 0 {
			t.Errorf("the index stood for version %d before the merge and %d after", before, after)
		}
	})

	t.Run("sample directory", func(t *testing.T) {
		s := setup(t, audience.Config{})
		if _, err := audience.LoadSampleDirectory(ctx, s.pool); err != nil {
			t.Fatal(err)
		}
		if _, err := s.pool.Exec(ctx, `INSERT INTO leads (workspace_id, email, first_name, last_name, title, company, company_domain, country, time_zone, approval_id, created_at, last_contacted_at)
			SELECT $1, email, '', '', '', '', '', '', '', 'ap_test', $2, $2 FROM directory_contacts WHERE id % 5 = 0`, s.ws.Acme.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		for _, f := range []audience.Filters{{Regions: []string{"Europe"}, NotContactedDays: 30}, {Titles: []string{"sales"}}, {Seniorities: []string{"VP"}, Industries: []string{"Software"}}} {
			index, sql, plain := audience.PoolCounts(ctx, t, s.svc, s.ws.Acme.ID, f)
			if d := cmp.Diff(plain, sql); d != "" || plain.Matched == 0 {
				t.Errorf("%+v on the sample (%d matched; -plain +sql):\n%s", f, plain.Matched, d)
			}
			if d := cmp.Diff(plain, index); d != "" {
				t.Errorf("%+v on the sample (-plain +index):\n%s", f, d)
			}
		}
	})
}

// Each replica keeps its own index of the directory, and a count sees a
// load made elsewhere (another process's connection, as `server
// directory import` is) at once: counted in SQL while the replica's index
// is built again, then on the index again, with the same numbers.
func TestPoolSeesLoadsElsewhere(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	b.seed(t)
	b.confirm(t, vpSoftwareEurope)
	replica := audience.New(audience.Deps{DB: b.pool, Clock: b.clock}) // a second server on the same database
	other, err := pgxpool.New(ctx, b.pool.Config().ConnString())       // another process's connections
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	replicas := []*audience.Service{b.svc, replica}
	count := func(t *testing.T, svc *audience.Service) int {
		t.Helper()
		p, err := svc.EstimatePool(ctx, b.ws.Acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		return p.Matched
	}
	// onIndex counts while another connection holds the tables the count
	// in SQL reads: only a count on the index answers.
	onIndex := func(t *testing.T, svc *audience.Service) int {
		t.Helper()
		audience.WaitPoolIndex(ctx, t, svc)
		tx, err := other.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `LOCK TABLE directory_segments, directory_contacts IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		p, err := svc.EstimatePool(short, b.ws.Acme.ID)
		if err != nil {
			t.Fatalf("the count did not answer from the index: %v", err)
		}
		return p.Matched
	}
	for _, svc := range replicas {
		if n := count(t, svc); n != 5 { // counted in SQL: no index yet
			t.Fatalf("%d matched before the load; want 5", n)
		}
		if n := onIndex(t, svc); n != 5 {
			t.Fatalf("%d matched on the index; want 5", n)
		}
	}
	built := audience.PoolIndexVersion(b.svc)

	more := "email,title,seniority,department,company,company_domain,industry,company_size,country\n" +
		"ivy@eta.test,VP of Sales,VP,Sales,Eta,eta.test,Software,51-200,DE\n" +
		"jon@eta.test,VP Sales,VP,Sales,Eta,eta.test,Software,51-200,FR\n" +
		"kim@eta.test,Manager,Manager,Sales,Eta,eta.test,Software,51-200,FR\n"
	if _, err := audience.ImportDirectory(ctx, other, strings.NewReader(more), "more.csv", nil); err != nil {
		t.Fatal(err)
	}
	for _, svc := range replicas {
		if n := count(t, svc); n != 7 {
			t.Errorf("%d matched right after a load elsewhere; want 7", n)
		}
		if n := onIndex(t, svc); n != 7 {
			t.Errorf("%d matched on the index built again; want 7", n)
		}
	}
	if v := audience.PoolIndexVersion(b.svc); v <= built {
		t.Errorf("the index stands for version %d after the load, %d before", v, built)
	}

	// A merge that moves a contact out of the target.
	moved := "email,title,seniority,department,company,company_domain,industry,company_size,country\n" +
		"fay@beta.test,Sales Manager,Manager,Sales,Beta,beta.test,Software,51-200,FR\n"
	if _, err := audience.ImportDirectory(ctx, other, strings.NewReader(moved), "moved.csv", nil); err != nil {
		t.Fatal(err)
	}
	for _, svc := range replicas {
		if n := count(t, svc); n != 6 {
			t.Errorf("%d matched right after a contact moved elsewhere; want 6", n)
		}
		if n := onIndex(t, svc); n != 6 {
			t.Errorf("%d matched on the index built again; want 6", n)
		}
	}
}
