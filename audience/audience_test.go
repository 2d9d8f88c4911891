package audience_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/audience"
	"vibesell/billing"
	"vibesell/billing/billingtest"
	"vibesell/store/storetest"
	"vibesell/toolkit"
	"vibesell/workspace/workspacetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

type bundle struct {
	pool      *pgxpool.Pool
	clock     *vibesell.ManualClock
	approvals *approvals.Service
	billing   *billing.Service
	svc       *audience.Service
	ws        workspacetest.Pair
}

// setup builds audience held to the plans of billing's default
// configuration (the free plan allows 250 leads a month).
func setup(t *testing.T, cfg audience.Config) *bundle {
	return setupPlans(t, cfg, billing.DefaultConfig().Plans[0].Limits.LeadsPerMonth)
}

// setupPlans builds audience held to the default plans, with the free
// plan allowing freeLeads leads a month.
func setupPlans(t *testing.T, cfg audience.Config, freeLeads int) *bundle {
	return setupWith(t, cfg, freeLeads, nil)
}

// setupWith is [setupPlans] with the list check asking domains.
func setupWith(t *testing.T, cfg audience.Config, freeLeads int, domains audience.MailDomains) *bundle {
	t.Helper()
	pool := storetest.New(t)
	clock := vibesell.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ap := approvals.New(approvals.Deps{DB: pool, Clock: clock, PublicURL: "https://vibesell.example.test", Logger: slog.New(slog.DiscardHandler)})
	bc := billing.DefaultConfig()
	bc.Plans[0].Limits.LeadsPerMonth = freeLeads
	bill := billing.New(billing.Deps{
		DB:     pool,
		Config: bc, Stripe: billingtest.NewFakeStripe(clock, bc.Plans), Approvals: ap, PublicURL: "https://vibesell.example.test", Clock: clock,
		Logger: slog.New(slog.DiscardHandler), Meters: map[billing.Metric]billing.Meter{billing.Leads: billing.Counted},
	})
	svc := audience.New(audience.Deps{DB: pool, Clock: clock, Config: cfg, Approvals: ap, LeadLimit: bill.Limit(billing.Leads), MailDomains: domains})
	b := &bundle{pool: pool, clock: clock, approvals: ap, billing: bill, svc: svc, ws: workspacetest.Two(t, pool)}
	ap.Register(vibesell.ToolImportLeads, audience.ImportAction(b.svc))
	return b
}

// seedCSV is the hand-counted directory of the tests. For VP in Software
// in Europe it matches ana, cara (an alias industry, a head count, a
// country by name), fay, gus and info@ (a role address): 5. ben is a
// Manager, dan in Marketing in the US, eve in Retail, hal in Japan. The
// second ana row replaces the first; "not-an-email" is rejected.
const seedCSV = `email,first_name,last_name,title,seniority,department,company,company_domain,industry,company_size,country,favourite_colour
ana@alpha.test,Ana,Silva,VP of Sales,VP,Sales,Alpha,alpha.test,Software,51-200,DE,red
ben@alpha.test,Ben,Berg,Sales Manager,Manager,Sales,Alpha,alpha.test,Software,51-200,DE,blue
cara@beta.test,Cara,Costa,VP Sales,vp,sales,Beta,https://www.beta.test/,saas,120,France,green
dan@gamma.test,Dan,Dubois,Director of Marketing,Director,Marketing,Gamma,gamma.test,Software,11-50,US,red
eve@delta.test,Eve,Evans,VP of Sales,VP,Sales,Delta,delta.test,Retail,51-200,DE,red
info@alpha.test,,,,VP,Sales,Alpha,alpha.test,Software,51-200,DE,red
fay@beta.test,Fay,Fischer,VP of Sales,VP,Sales,Beta,beta.test,Software,51-200,FR,red
gus@epsilon.test,Gus,Garcia,VP of Sales,VP,Sales,Epsilon,epsilon.test,Software,201-500,ES,red
not-an-email,Nobody,Here,VP of Sales,VP,Sales,Zeta,zeta.test,Software,51-200,DE,red
hal@zeta.test,Hal,Hansen,VP of Sales,VP,Sales,Zeta,zeta.test,Software,51-200,JP,red
 ANA@Alpha.test ,Ana,Silva-Costa,VP of Sales,VP,Sales,Alpha,alpha.test,Software,51-200,DE,red
`

func (b *bundle) seed(t *testing.T) audience.DirectoryReport {
	t.Helper()
	rep, err := audience.ImportDirectory(t.Context(), b.pool, strings.NewReader(seedCSV), "seed.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var vpSoftwareEurope = audience.Filters{Seniorities: []string{"vp"}, Industries: []string{"Software"}, Regions: []string{"Europe"}}

func (b *bundle) confirm(t *testing.T, f audience.Filters) audience.Target {
	t.Helper()
	ctx := t.Context()
	saved, err := b.svc.SaveFilters(ctx, b.ws.Acme.ID, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := b.svc.Confirm(ctx, b.ws.Acme.ID, saved.Target.FiltersVersion)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestDirectoryImport(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	rep := b.seed(t)
	want := audience.DirectoryReport{Read: "Read as UTF-8, columns separated by commas.", Rows: 11, Added: 9, Duplicates: 1, Rejected: 1, RejectedLines: []int64{10}, UnknownColumns: []string{"favourite_colour"}}
	if d := cmp.Diff(want, rep); d != "" {
		t.Errorf("report mismatch (-want +got):\n%s", d)
	}
	var title, last, industry, size, country, domain string
	if err := b.pool.QueryRow(t.Context(), `SELECT last_name, title, industry, company_size, country, company_domain FROM directory_contacts WHERE email = 'cara@beta.test'`).
		Scan(&last, &title, &industry, &size, &country, &domain); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Software", "51-200", "FR", "beta.test"}, []string{industry, size, country, domain}); d != "" {
		t.Errorf("cara in the vocabulary mismatch (-want +got):\n%s", d)
	}
	if err := b.pool.QueryRow(t.Context(), `SELECT last_name FROM directory_contacts WHERE email = 'ana@alpha.test'`).Scan(&last); err != nil || last != "Silva-Costa" {
		t.Errorf("the later row of a duplicate address should win: %q, %v", last, err)
	}

	t.Run("a rerun adds nothing", func(t *testing.T) {
		again := want
		again.Added, again.Unchanged = 0, 9
		if d := cmp.Diff(again, b.seed(t)); d != "" {
			t.Errorf("rerun mismatch (-want +got):\n%s", d)
		}
		var n int
		b.pool.QueryRow(t.Context(), `SELECT count(*) FROM directory_contacts`).Scan(&n)
		if n != 9 {
			t.Errorf("%d contacts after a rerun, want 9", n)
		}
	})

	t.Run("a stopped load leaves nothing behind", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		_, err := audience.ImportDirectory(ctx, b.pool, strings.NewReader("email\nzed@omega.test\nyan@omega.test\n"), "stopped.csv",
			func(int64) { cancel() })
		if err == nil {
			t.Fatal("a cancelled load succeeded")
		}
		var n int
		b.pool.QueryRow(t.Context(), `SELECT count(*) FROM directory_contacts WHERE email_domain = 'omega.test'`).Scan(&n)
		if n != 0 {
			t.Errorf("a stopped load left %d contacts", n)
		}
	})

	t.Run("a load stopped while the file is read stops reading", func(t *testing.T) {
		b := setup(t, audience.Config{})
		var csv strings.Builder
		csv.WriteString("email\n")
		for i := range 30_000 {
			fmt.Fprintf(&csv, "p%d@omega.test\n", i)
		}
		ctx, cancel := context.WithCancel(t.Context())
		var calls []int64
		_, err := audience.ImportDirectory(ctx, b.pool, strings.NewReader(csv.String()), "stopped.csv", func(rows int64) {
			calls = append(calls, rows)
			cancel()
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the cancellation", err)
		}
		if d := cmp.Diff([]int64{10_000}, calls); d != "" {
			t.Errorf("progress mismatch (-want +got):\n%s", d)
		}
		var n int
		b.pool.QueryRow(t.Context(), `SELECT count(*) FROM directory_contacts`).Scan(&n)
		if n != 0 {
			t.Errorf("a stopped load left %d contacts", n)
		}
	})

	t.Run("no email column", func(t *testing.T) {
		_, err := audience.ImportDirectory(t.Context(), b.pool, strings.NewReader("name,company\nA,B\n"), "bad.csv", nil)
		if err == nil || !strings.Contains(err.Error(), "no email column") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("a later file updates what changed and adds what is new", func(t *testing.T) {
		later := `email,first_name,last_name,title,seniority,department,company,company_domain,industry,company_size,country
ana@alpha.test,Ana,Silva-Costa,VP of Sales,VP,Sales,Alpha,alpha.test,Software,51-200,FR
ben@alpha.test,Ben,Berg,Sales Manager,Manager,Sales,Alpha,alpha.test,Software,51-200,DE
ivy@iota.test,Ivy,Ito,CTO,C-level,Engineering,Iota,iota.test,Software,11-50,JP
`
		rep, err := audience.ImportDirectory(t.Context(), b.pool, strings.NewReader(later), "later.csv", nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(audience.DirectoryReport{Read: "Read as UTF-8, columns separated by commas.", Rows: 3, Added: 1, Updated: 1, Unchanged: 1}, rep); d != "" {
			t.Errorf("report mismatch (-want +got):\n%s", d)
		}
		var got []string
		rows, _ := b.pool.Query(t.Context(), `SELECT email || ' ' || country || ' ' || source FROM directory_contacts WHERE email IN ('ana@alpha.test', 'ben@alpha.test', 'ivy@iota.test') ORDER BY email`)
		if got, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"ana@alpha.test FR later.csv", "ben@alpha.test DE seed.csv", "ivy@iota.test JP later.csv"}, got); d != "" {
			t.Errorf("contacts mismatch (-want +got):\n%s", d)
		}
	})
}

// A load into an empty directory stores the contacts in the order of the
// segment index's key (the file's order among equal keys), so that the
// index is built from rows already sorted; the key is the index's. Their
// ids follow the file, and the identity carries on after them.
func TestDirectoryImportOrder(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	var key []string
	if err := b.pool.QueryRow(ctx, `SELECT array_agg(a.attname ORDER BY k.n) FROM pg_index i
		CROSS JOIN LATERAL unnest(i.indkey[:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, n)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indexrelid = 'directory_contacts_segment'::regclass`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(audience.SegmentColumns, key); d != "" {
		t.Errorf("the segment index's key (-load +index):\n%s", d)
	}
	b.seed(t)
	emails := func(order string) []string {
		rows, err := b.pool.Query(ctx, `SELECT email FROM directory_contacts ORDER BY `+order)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Retail before Software; Director, Manager, VP; DE, ES, FR, JP; info
	// and ana (its second row), then cara and fay, share a key.
	stored := []string{"eve@delta.test", "dan@gamma.test", "ben@alpha.test", "info@alpha.test", "ana@alpha.test", "gus@epsilon.test",
		"cara@beta.test", "fay@beta.test", "hal@zeta.test"}
	if d := cmp.Diff(stored, emails("ctid")); d != "" {
		t.Errorf("contacts as stored mismatch (-want +got):\n%s", d)
	}
	// The ids follow the file all the same.
	inFile := []string{"ben@alpha.test", "cara@beta.test", "dan@gamma.test", "eve@delta.test", "info@alpha.test", "fay@beta.test",
		"gus@epsilon.test", "hal@zeta.test", "ana@alpha.test"}
	if d := cmp.Diff(inFile, emails("id")); d != "" {
		t.Errorf("contacts by id mismatch (-want +got):\n%s", d)
	}
	var next int64
	if err := b.pool.QueryRow(ctx, `INSERT INTO directory_contacts (email, email_domain, source) VALUES ('new@omega.test', 'omega.test', 'test')
		RETURNING id - (SELECT max(id) FROM directory_contacts)`).Scan(&next); err != nil || next != 1 {
		t.Errorf("the next contact's id is %d past the last one (%v); want 1", next, err)
	}
}

// A file too big to hold in memory is streamed in its order, with the same
// outcome: the later row of an address wins, and the report is the same.
// Not parallel: it lowers a bound every load reads.
func TestDirectoryImportStreamed(t *testing.T) {
	audience.SetMaxHeldBytes(t, 300)
	b := setup(t, audience.Config{})
	rep := b.seed(t)
	want := audience.DirectoryReport{Read: "Read as UTF-8, columns separated by commas.", Rows: 11, Added: 9, Duplicates: 1, Rejected: 1, RejectedLines: []int64{10}, UnknownColumns: []string{"favourite_colour"}}
	if d := cmp.Diff(want, rep); d != "" {
		t.Errorf("report mismatch (-want +got):\n%s", d)
	}
	var last string
	if err := b.pool.QueryRow(t.Context(), `SELECT last_name FROM directory_contacts WHERE email = 'ana@alpha.test'`).Scan(&last); err != nil || last != "Silva-Costa" {
		t.Errorf("the later row of a duplicate address should win: %q, %v", last, err)
	}
}

func TestSampleDirectory(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	loaded, err := audience.LoadSampleDirectory(ctx, b.pool)
	if err != nil || !loaded {
		t.Fatalf("loaded %v, %v", loaded, err)
	}
	again, err := audience.LoadSampleDirectory(ctx, b.pool)
	if err != nil || again {
		t.Fatalf("a second start loaded it again: %v, %v", again, err)
	}
	var n, reserved int
	b.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE email_domain ~ '(\.example|\.test|(^|\.)example\.com)$') FROM directory_contacts`).Scan(&n, &reserved)
	if n != audience.SampleSize || reserved != n {
		t.Errorf("%d contacts, %d on reserved domains; want %d on reserved domains", n, reserved, audience.SampleSize)
	}
	if d := cmp.Diff(audience.SampleContacts()[:5], audience.SampleContacts()[:5]); d != "" {
		t.Errorf("the sample is not the same twice:\n%s", d)
	}
	sample, err := audience.DirectoryIsSample(ctx, b.pool)
	if err != nil || !sample {
		t.Fatalf("sample = %v, %v", sample, err)
	}
	b.confirm(t, audience.Filters{Regions: []string{"Europe"}})
	p, err := b.svc.EstimatePool(ctx, b.ws.Acme.ID)
	if err != nil || !p.Sample || p.Matched == 0 {
		t.Fatalf("pool on the sample: sample %v, %d matched, %v; want the sample, some matched", p.Sample, p.Matched, err)
	}

	t.Run("a real file replaces it", func(t *testing.T) {
		rep := b.seed(t)
		if rep.SampleRemoved != audience.SampleSize {
			t.Errorf("removed %d sample contacts", rep.SampleRemoved)
		}
		if sample, _ := audience.DirectoryIsSample(ctx, b.pool); sample {
			t.Error("still the sample after a file was loaded")
		}
	})
}

func TestFilters(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	acme := b.ws.Acme.ID

	t.Run("unknown values are refused with the closest known ones", func(t *testing.T) {
		_, err := b.svc.SaveFilters(ctx, acme, audience.Filters{Industries: []string{"Saas", "Sofware"}, Countries: []string{"Germny"}, Seniorities: []string{"Wizard"}}, nil)
		want := "'Saas' is not an industry we know; did you mean 'Software'?; 'Sofware' is not an industry we know; did you mean 'Software'?; " +
			"'Wizard' is not a seniority we know (we know Owner, Founder, C-level, Partner, VP, Head, Director, Manager, Senior, Entry, Intern); " +
			"'Germny' is not a country we know; did you mean 'Germany'?"
		if vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Fatalf("err = %v", err)
		}
		got := vibesell.ErrorMessage(err)
		for _, part := range strings.Split(want, "; ") {
			if !strings.Contains(strings.ToLower(got), strings.ToLower(part)) {
				t.Errorf("refusal %q lacks %q", got, part)
			}
		}
	})

	t.Run("nothing to narrow by is refused", func(t *testing.T) {
		_, err := b.svc.SaveFilters(ctx, acme, audience.Filters{NotContactedDays: 30}, nil)
		if vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), "whole directory") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("values are stored in the vocabulary's words", func(t *testing.T) {
		saved, err := b.svc.SaveFilters(ctx, acme, audience.Filters{Seniorities: []string{"vp", "VP"}, Countries: []string{"germany", "fr"}, ExcludeCompanyDomains: []string{"https://www.Acme.com/"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := audience.Filters{Titles: []string{}, Seniorities: []string{"VP"}, Departments: []string{}, Industries: []string{}, CompanySizes: []string{},
			Countries: []string{"DE", "FR"}, Regions: []string{}, ExcludeCompanyDomains: []string{"acme.com"}, ExcludeCompanies: []string{}}
		if d := cmp.Diff(&want, saved.Target.Filters); d != "" {
			t.Errorf("stored filters mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("a change after confirmation needs a new one", func(t *testing.T) {
		tg := b.confirm(t, vpSoftwareEurope)
		if !tg.Confirmed() {
			t.Fatal("not confirmed")
		}
		same, err := b.svc.SaveFilters(ctx, acme, vpSoftwareEurope, nil)
		if err != nil || same.Changed || !same.Target.Confirmed() {
			t.Errorf("saving the same filters again: changed %v, confirmed %v, %v; want unchanged and still confirmed", same.Changed, same.Target.Confirmed(), err)
		}
		changed, err := b.svc.SaveFilters(ctx, acme, audience.Filters{Seniorities: []string{"Director"}}, nil)
		if err != nil || !changed.ConfirmationWithdrawn || changed.Target.Confirmed() {
			t.Fatalf("changing confirmed filters: confirmation withdrawn %v, confirmed %v, %v; want withdrawn", changed.ConfirmationWithdrawn, changed.Target.Confirmed(), err)
		}
		if _, err := b.svc.EstimatePool(ctx, acme); vibesell.ErrorCode(err) != vibesell.EINVALID || !strings.Contains(vibesell.ErrorMessage(err), "changed after they were confirmed") {
			t.Errorf("pool with withdrawn confirmation: %v", err)
		}
		if _, err := b.svc.Confirm(ctx, acme, tg.FiltersVersion); vibesell.ErrorCode(err) != vibesell.ECONFLICT {
			t.Errorf("confirming an old version: %v", err)
		}
	})
}

func TestPoolAndPreview(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{})
	ctx := t.Context()
	b.seed(t)
	acme, globex := b.ws.Acme.ID, b.ws.Globex.ID
	b.confirm(t, vpSoftwareEurope)

	// The seed's pool is narrow: each count says what each filter leaves
	// out of the directory's matches.
	loosened := []audience.Loosened{{Filter: "seniorities", Values: "VP", Matched: 6}, {Filter: "industries", Values: "Software", Matched: 6},
		{Filter: "places", Values: "Europe", Matched: 6}}
	pool := func(t *testing.T, ws [16]byte) audience.Pool {
		t.Helper()
		p, err := b.svc.EstimatePool(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		p.Target, p.LastImport = audience.Target{}, nil
		return p
	}

	t.Run("counts", func(t *testing.T) {
		want := audience.Pool{Matched: 5, Unusable: 1, Available: 4, Loosened: loosened}
		if d := cmp.Diff(want, pool(t, acme)); d != "" {
			t.Errorf("pool mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("suppression is subtracted, per workspace", func(t *testing.T) {
		if _, err := b.svc.Suppress(ctx, acme, []string{"beta.test", "GUS@epsilon.test"}, audience.ReasonManual); err != nil {
			t.Fatal(err)
		}
		want := audience.Pool{Matched: 5, Suppressed: 3, Unusable: 1, Available: 1, Loosened: loosened}
		if d := cmp.Diff(want, pool(t, acme)); d != "" {
			t.Errorf("pool mismatch (-want +got):\n%s", d)
		}
		if _, err := b.svc.Suppress(ctx, acme, []string{"not an address"}, audience.ReasonManual); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("suppressing garbage: %v", err)
		}
	})

	t.Run("preview is deterministic and masked", func(t *testing.T) {
		p1, err := b.svc.PreviewSample(ctx, acme)
		if err != nil {
			t.Fatal(err)
		}
		want := []audience.PreviewContact{{Name: "Ana Silva-Costa", Title: "VP of Sales", Company: "Alpha", Country: "Germany", MaskedEmail: "a***@alpha.test",
			Why: []string{"VP seniority", "Software industry", "in Germany (Europe)"}}}
		if d := cmp.Diff(want, p1.Contacts); d != "" {
			t.Errorf("preview mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("another workspace sees none of it", func(t *testing.T) {
		if _, err := b.svc.EstimatePool(ctx, globex); vibesell.ErrorCode(err) != vibesell.EINVALID {
			t.Errorf("Globex has no target, yet: %v", err)
		}
		if _, err := b.svc.SaveFilters(ctx, globex, vpSoftwareEurope, nil); err != nil {
			t.Fatal(err)
		}
		tg, _ := b.svc.Target(ctx, globex)
		if _, err := b.svc.Confirm(ctx, globex, tg.FiltersVersion); err != nil {
			t.Fatal(err)
		}
		want := audience.Pool{Matched: 5, Unusable: 1, Available: 4, Loosened: loosened}
		if d := cmp.Diff(want, pool(t, globex)); d != "" {
			t.Errorf("Globex's pool mismatch (-want +got):\n%s", d)
		}
		gp, err := b.svc.PreviewSample(ctx, globex)
		if err != nil || len(gp.Contacts) != 4 {
			t.Errorf("Globex's preview: %d contacts, %v; want 4", len(gp.Contacts), err)
		}
		again, _ := b.svc.PreviewSample(ctx, globex)
		if d := cmp.Diff(gp.Contacts, again.Contacts); d != "" {
			t.Errorf("the same filters gave other people:\n%s", d)
		}
	})

	t.Run("imported and recently contacted leads are subtracted", func(t *testing.T) {
		b.importNow(t, acme, 5)
		want := audience.Pool{Matched: 5, Suppressed: 3, AlreadyImported: 1, Unusable: 1, Loosened: loosened}
		if d := cmp.Diff(want, pool(t, acme)); d != "" {
			t.Errorf("pool after import mismatch (-want +got):\n%s", d)
		}
		// Nothing sends yet: a send is what will set last_contacted_at.
		if _, err := b.pool.Exec(ctx, `UPDATE leads SET last_contacted_at = $2 WHERE workspace_id = $1`, acme, b.clock.Now().AddDate(0, 0, -5)); err != nil {
			t.Fatal(err)
		}
		windowed := vpSoftwareEurope
		windowed.NotContactedDays = 30
		b.confirm(t, windowed)
		want = audience.Pool{Matched: 5, Suppressed: 3, ContactedInWindow: 1, Unusable: 1, Loosened: loosened}
		if d := cmp.Diff(want, pool(t, acme)); d != "" {
			t.Errorf("pool with a window mismatch (-want +got):\n%s", d)
		}
	})
}

// importNow asks for an import, approves it in the web app and runs it.
func (b *bundle) importNow(t *testing.T, ws [16]byte, count int) approvals.Approval {
	t.Helper()
	ctx := t.Context()
	a, _, err := b.svc.RequestImport(ctx, ws, audience.ImportRequest{Count: count})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.approvals.Decide(ctx, ws, a.ID, approvals.Decision{Approve: true, By: "ada@acme.test", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}
	if err := b.approvals.Execute(ctx, ws, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	done, err := b.approvals.Find(ctx, ws, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != approvals.Done {
		var outcome string
		if done.Outcome != nil {
			outcome = *done.Outcome
		}
		t.Fatalf("import %s: %s, %q; want done", a.ID, done.Status, outcome)
	}
	return done
}

func TestImport(t *testing.T) {
	t.Parallel()

	t.Run("the approval's impact and where it is decided", func(t *testing.T) {
		t.Parallel()
		b := setupPlans(t, audience.Config{}, 3)
		b.seed(t)
		b.confirm(t, vpSoftwareEurope)
		ctx := t.Context()
		a, created, err := b.svc.RequestImport(ctx, b.ws.Acme.ID, audience.ImportRequest{Count: 3})
		if err != nil || !created {
			t.Fatal(created, err)
		}
		want := []string{"Matching the target: 5 contacts", "Skipped: 1 with an invalid or role address (info@, sales@…)",
			"Imported: 3 of the 4 available (the number asked for)",
			"Plan: 3 of the 3 leads the Free plan allows this month (0 in use before it); 0 left after it"}
		if d := cmp.Diff(want, a.Impact.Items); d != "" {
			t.Errorf("impact items mismatch (-want +got):\n%s", d)
		}
		if !a.DecideHere || a.Irreversible {
			t.Errorf("within the plan: decideHere %v, irreversible %v", a.DecideHere, a.Irreversible)
		}
	})

	t.Run("above the plan's leads it is refused with the limit, the usage and the way up", func(t *testing.T) {
		t.Parallel()
		b := setupPlans(t, audience.Config{}, 3)
		b.seed(t)
		b.confirm(t, vpSoftwareEurope)
		_, _, err := b.svc.RequestImport(t.Context(), b.ws.Acme.ID, audience.ImportRequest{Count: 4})
		want := "The Free plan allows 3 leads this month; 0 in use, so 4 more would go over. The Starter plan allows 2,500 leads for USD 49.00 per month.\n\nNext:\n- Subscribe to the Starter plan. Call start_checkout with plan starter."
		if d := cmp.Diff([]string{vibesell.EPAYMENTREQUIRED, want}, []string{vibesell.ErrorCode(err), toolkit.ForAssistant(err)}); d != "" {
			t.Errorf("refusal mismatch (-want +got):\n%s", d)
		}
		// Asked for in the web app, the same refusal speaks to the person:
		// its sentence and its step, which the web app links to the
		// billing page, name no tool.
		_, _, err = b.svc.RequestImport(t.Context(), b.ws.Acme.ID, audience.ImportRequest{Count: 4, RequestedVia: approvals.ViaWeb})
		want = `The Free plan allows 3 leads this month; 0 in use, so 4 more would go over. The Starter plan allows 2,500 leads for USD 49.00 per month. Subscribe to the Starter plan.`
		if d := cmp.Diff([]string{vibesell.EPAYMENTREQUIRED, want}, []string{vibesell.ErrorCode(err), vibesell.ErrorForPerson(err)}); d != "" {
			t.Errorf("refusal in the web app mismatch (-want +got):\n%s", d)
		}
	})

	t.Run("two imports racing for the last leads: exactly one gets each", func(t *testing.T) {
		t.Parallel()
		b := setupPlans(t, audience.Config{}, 2)
		b.seed(t)
		b.confirm(t, vpSoftwareEurope)
		ctx, acme := t.Context(), b.ws.Acme.ID
		var ids []string
		for _, n := range []int{1, 2} {
			a, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Count: n})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaConversation}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				if err := b.approvals.Execute(context.Background(), acme, id, 1, approvals.MaxExecutionAttempts); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		var leads, stopped int
		if err := b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM leads WHERE workspace_id = $1),
			(SELECT count(*) FROM lead_imports WHERE workspace_id = $1 AND stopped_at_limit)`, acme).Scan(&leads, &stopped); err != nil {
			t.Fatal(err)
		}
		// Whichever ran first took what it asked for; the other stopped at
		// the limit with the rest.
		if leads != 2 || stopped != 1 {
			t.Errorf("%d leads imported, %d imports stopped at the limit; want 2 and 1", leads, stopped)
		}
		o, err := b.billing.Overview(ctx, acme)
		if err != nil {
			t.Fatal(err)
		}
		want := billing.Usage{Metric: billing.Leads, Used: new(2)}
		if d := cmp.Diff(want, o.Usage[1], cmpopts.IgnoreFields(billing.Usage{}, "Limit", "Period", "Why")); d != "" {
			t.Errorf("leads billing counts mismatch (-want +got):\n%s", d)
		}
		var outcomes []string
		for _, id := range ids {
			a, _ := b.approvals.Find(ctx, acme, id)
			if a.Outcome != nil {
				outcomes = append(outcomes, *a.Outcome)
			}
		}
		if !slices.ContainsFunc(outcomes, func(o string) bool {
			return strings.Contains(o, "fewer than approved: the plan's leads for this month ran out")
		}) {
			t.Errorf("no outcome says the plan's leads ran out: %q", outcomes)
		}
	})

	t.Run("32 concurrent identical requests give one approval", func(t *testing.T) {
		t.Parallel()
		b := setup(t, audience.Config{})
		b.seed(t)
		b.confirm(t, vpSoftwareEurope)
		ids := make([]string, 32)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() {
				a, _, err := b.svc.RequestImport(context.Background(), b.ws.Acme.ID, audience.ImportRequest{Count: 2})
				if err != nil {
					t.Error(err)
				}
				ids[i] = a.ID
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("two approvals: %s and %s", ids[0], id)
			}
		}
	})

	t.Run("a killed import resumes without duplicates", func(t *testing.T) {
		t.Parallel()
		b := setupPlans(t, audience.Config{ImportBatch: 50}, 10_000)
		ctx := t.Context()
		if _, err := audience.LoadSampleDirectory(ctx, b.pool); err != nil {
			t.Fatal(err)
		}
		b.confirm(t, audience.Filters{Regions: []string{"Europe"}})
		var blocked string
		if err := b.pool.QueryRow(ctx, `SELECT email_domain FROM directory_contacts WHERE country IN ('DE', 'FR', 'GB')
			GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
		if _, err := b.svc.Suppress(ctx, b.ws.Acme.ID, []string{blocked}, audience.ReasonUnsubscribe); err != nil {
			t.Fatal(err)
		}
		acme := b.ws.Acme.ID
		a, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Count: 300})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaConversation}); err != nil {
			t.Fatal(err)
		}
		batches := 0
		killed := errors.New("killed")
		b.svc.SetAfterBatch(func() error {
			if batches++; batches == 2 {
				return killed
			}
			return nil
		})
		if err := b.approvals.Execute(ctx, acme, a.ID, 1, approvals.MaxExecutionAttempts); !errors.Is(err, killed) {
			t.Fatalf("first attempt: %v", err)
		}
		var partial int
		b.pool.QueryRow(ctx, `SELECT count(*) FROM leads WHERE workspace_id = $1`, acme).Scan(&partial)
		if partial == 0 || partial >= 300 {
			t.Fatalf("%d leads after the kill; want some but not all", partial)
		}
		if err := b.approvals.Execute(ctx, acme, a.ID, 2, approvals.MaxExecutionAttempts); err != nil {
			t.Fatal(err)
		}
		var n, distinct, suppressed int
		b.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT email), count(*) FILTER (WHERE email LIKE '%@' || $2) FROM leads WHERE workspace_id = $1`, acme, blocked).
			Scan(&n, &distinct, &suppressed)
		if n != 300 || distinct != 300 || suppressed != 0 {
			t.Errorf("%d leads, %d distinct, %d suppressed; want 300, 300, 0", n, distinct, suppressed)
		}
		done, _ := b.approvals.Find(ctx, acme, a.ID)
		if done.Status != approvals.Done || done.Outcome == nil || !strings.HasPrefix(*done.Outcome, "Imported 300 leads from the sample directory") {
			t.Errorf("approval: %s %v", done.Status, done.Outcome)
		}
		var globex int
		b.pool.QueryRow(ctx, `SELECT count(*) FROM leads WHERE workspace_id = $1`, b.ws.Globex.ID).Scan(&globex)
		if globex != 0 {
			t.Errorf("Globex got %d leads", globex)
		}
	})

	t.Run("filters changed after approval: nothing imported", func(t *testing.T) {
		t.Parallel()
		b := setup(t, audience.Config{})
		b.seed(t)
		b.confirm(t, vpSoftwareEurope)
		ctx := t.Context()
		acme := b.ws.Acme.ID
		a, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaConversation})
		b.confirm(t, audience.Filters{Seniorities: []string{"Manager"}})
		if err := b.approvals.Execute(ctx, acme, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
			t.Fatal(err)
		}
		got, _ := b.approvals.Find(ctx, acme, a.ID)
		if got.Status != approvals.NotDone || !strings.Contains(*got.Outcome, "filters changed after this import was approved") {
			t.Errorf("%s: %v", got.Status, *got.Outcome)
		}
	})
}

func TestUploadedLeads(t *testing.T) {
	t.Parallel()
	b := setup(t, audience.Config{UploadURL: "https://vibesell.example.test/app/leads"})
	ctx := t.Context()
	acme := b.ws.Acme.ID
	// Line 3 repeats ana, line 4 has no address, line 5 a role address,
	// line 6 one field too many; dan is suppressed.
	file := "E-mail,First Name,Company,Shoe size\n" +
		"ana@alpha.test,Ana,Alpha,38\n" +
		"ANA@alpha.test,Ana again,Alpha,38\n" +
		",Nobody,Beta,40\n" +
		"info@beta.test,,Beta,41\n" +
		"bob@beta.test,Bob,Beta,42,extra\n" +
		"cid@gamma.test,Cid,Gamma,43\n" +
		"dan@delta.test,Dan,Delta,44\n"
	up, err := b.svc.StoreUpload(ctx, acme, "list.csv", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"email", "first_name", "company", ""}, up.Suggested); d != "" {
		t.Errorf("suggested mapping mismatch (-want +got):\n%s", d)
	}
	if len(up.FirstRows) != audience.UploadPreviewRows {
		t.Errorf("first rows: %v", up.FirstRows)
	}
	if _, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Upload: up.ID}); vibesell.ErrorCode(err) != vibesell.EINVALID ||
		!strings.Contains(vibesell.ErrorMessage(err), "https://vibesell.example.test/app/leads/uploads/"+up.ID) {
		t.Errorf("an unchecked upload: %v", err)
	}
	if _, err := b.svc.CheckUpload(ctx, acme, up.ID, []string{"", "first_name", "company", ""}); vibesell.ErrorCode(err) != vibesell.EINVALID {
		t.Errorf("a mapping without email: %v", err)
	}
	checked, err := b.svc.CheckUpload(ctx, acme, up.ID, up.Suggested)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []audience.InvalidLine{{Line: 4, Why: "the email is empty"}, {Line: 6, Why: "it has 5 fields, the header has 4"}}
	type counts struct {
		RowsRead, Valid, Duplicates, Invalid int
		InvalidLines                         []audience.InvalidLine
	}
	wantChecked := counts{RowsRead: 7, Valid: 4, Duplicates: 1, Invalid: 2, InvalidLines: wantLines}
	if d := cmp.Diff(wantChecked, counts{checked.RowsRead, checked.Valid, checked.Duplicates, checked.Invalid, checked.InvalidLines}); d != "" {
		t.Errorf("checked upload mismatch (-want +got):\n%s", d)
	}
	if _, err := b.svc.Suppress(ctx, acme, []string{"dan@delta.test"}, audience.ReasonUnsubscribe); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Upload(ctx, b.ws.Globex.ID, up.ID); vibesell.ErrorCode(err) != vibesell.ENOTFOUND {
		t.Errorf("Globex reads Acme's upload: %v", err)
	}

	a, _, err := b.svc.RequestImport(ctx, acme, audience.ImportRequest{Upload: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Rows in the file: 7", "Skipped: 1 repeating an address found earlier in the file",
		"Skipped: 2 invalid (lines 4, 6; the upload's page says why)", "Skipped: 1 suppressed (unsubscribed, bounced, complained or blocked)",
		"Skipped: 1 flagged by the list check, as chosen: 1 with a role address (info@, sales@…)", "Imported: 2, every importable row",
		"Plan: 2 of the 250 leads the Free plan allows this month (0 in use before it); 248 left after it"}
	if d := cmp.Diff(want, a.Impact.Items); d != "" {
		t.Errorf("impact mismatch (-want +got):\n%s", d)
	}
	if _, _, err := b.approvals.Decide(ctx, acme, a.ID, approvals.Decision{Approve: true, By: "ada", Via: approvals.ViaWeb}); err != nil {
		t.Fatal(err)
	}
	if err := b.approvals.Execute(ctx, acme, a.ID, 1, approvals.MaxExecutionAttempts); err != nil {
		t.Fatal(err)
	}
	var emails []string
	rows, _ := b.pool.Query(ctx, `SELECT email FROM leads WHERE workspace_id = $1 ORDER BY email`, acme)
	for rows.Next() {
		var e string
		rows.Scan(&e)
		emails = append(emails, e)
	}
	if d := cmp.Diff([]string{"ana@alpha.test", "cid@gamma.test"}, emails); d != "" {
		t.Errorf("leads mismatch (-want +got):\n%s", d)
	}
}
