package audience

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell/store"
)

// SampleSize is how many contacts the sample directory holds.
const SampleSize = 3000

// LoadSampleDirectory fills an installation's empty directory with the
// sample: made-up people at made-up companies, every address on a domain
// reserved for examples, so that nothing built on it can reach anyone. It
// is generated the same way every time. It does nothing once any load
// happened (sample or file), and is safe when several servers start at
// once. loaded reports whether this call loaded it.
func LoadSampleDirectory(ctx context.Context, db *pgxpool.Pool) (loaded bool, err error) {
	err = store.InTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('directory_contacts'))`); err != nil {
			return err
		}
		var loadedBefore bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM directory_loads)`).Scan(&loadedBefore); err != nil || loadedBefore {
			return err
		}
		rows := SampleContacts()
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"directory_contacts"},
			[]string{"email", "email_domain", "role_address", "email_status", "first_name", "last_name", "title", "seniority",
				"department", "company", "company_domain", "industry", "company_size", "country", "time_zone", "linkedin_url", "source"},
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				c := rows[i]
				return []any{c.Email, c.EmailDomain, c.RoleAddress, c.EmailStatus, c.FirstName, c.LastName, c.Title, c.Seniority,
					c.Department, c.Company, c.CompanyDomain, c.Industry, c.CompanySize, c.Country, c.TimeZone, nil, "sample"}, nil
			}))
		if err != nil {
			return err
		}
		loaded = true
		if err := refreshDirectoryCounts(ctx, tx, false); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO directory_loads (source, name, rows_read, added, updated, duplicates, rejected, finished_at)
			VALUES ('sample', 'sample directory', $1, $1, 0, 0, 0, now())`, n)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("load the sample directory: %w", err)
	}
	return loaded, nil
}

// Contact is one person of the directory.
type Contact struct {
	Email, EmailDomain, EmailStatus                   string
	RoleAddress                                       bool
	FirstName, LastName, Title, Seniority, Department string
	Company, CompanyDomain, Industry, CompanySize     string
	Country, TimeZone                                 string
}

var (
	sampleFirst = []string{"Ada", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam",
		"Maya", "Nils", "Olga", "Priya", "Quentin", "Rosa", "Sami", "Tara", "Uma", "Victor", "Wen", "Xavier", "Yara", "Zoe",
		"Arjun", "Bea", "Carlos", "Dana", "Emil", "Freya", "Gabe", "Hana", "Ivan", "Julia", "Kenji", "Lena", "Marco", "Nora"}
	sampleLast = []string{"Adler", "Baker", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Hansen", "Ito", "Jensen",
		"Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Patel", "Quinn", "Rossi", "Schmidt", "Tanaka", "Ueda",
		"Varga", "Weber", "Xu", "Yilmaz", "Zimmer", "Berg", "Lindqvist", "Novak", "Silva"}
	sampleStems = []string{"North", "Blue", "Bright", "Clear", "Swift", "Iron", "Silver", "Green", "Peak", "Harbor",
		"Cedar", "Orbit", "Maple", "Stone", "River", "Summit", "Lumen", "Vector", "Atlas", "Nova"}
	sampleTails = []string{"wind", "field", "works", "labs", "point", "stack", "line", "bridge", "forge", "path"}
	// The reserved endings every sample address uses (RFC 2606 and 6761).
	sampleEndings = []string{".example", ".test", ".example.com"}
	sampleZones   = map[string]string{"US": "America/New_York", "CA": "America/Toronto", "GB": "Europe/London", "DE": "Europe/Berlin",
		"FR": "Europe/Paris", "NL": "Europe/Amsterdam", "ES": "Europe/Madrid", "SE": "Europe/Stockholm", "IN": "Asia/Kolkata",
		"AU": "Australia/Sydney", "BR": "America/Sao_Paulo", "JP": "Asia/Tokyo"}
	sampleCountries = []string{"US", "US", "US", "GB", "GB", "DE", "DE", "FR", "NL", "ES", "SE", "CA", "IN", "AU", "BR", "JP"}
	sampleDeptTitle = map[string]string{"Sales": "Sales", "Marketing": "Marketing", "Engineering": "Engineering", "Finance": "Finance",
		"Operations": "Operations", "Product": "Product", "Human Resources": "People", "Customer Success": "Customer Success",
		"IT": "IT", "Data": "Data"}
	sampleDepts = []string{"Sales", "Sales", "Marketing", "Engineering", "Finance", "Operations", "Product", "Human Resources", "Customer Success", "IT", "Data"}
	sampleRanks = []string{"C-level", "VP", "VP", "Head", "Director", "Director", "Manager", "Manager", "Manager", "Senior", "Senior", "Entry", "Founder"}
)

// SampleContacts generates the sample directory: the same contacts every
// time.
func SampleContacts() []Contact {
	rng := rand.New(rand.NewPCG(14, 2026))
	type company struct{ name, domain, industry, size, country string }
	var companies []company
	seen := map[string]bool{}
	for len(companies) < 200 {
		name := sampleStems[rng.IntN(len(sampleStems))] + sampleTails[rng.IntN(len(sampleTails))]
		if seen[name] {
			continue
		}
		seen[name] = true
		companies = append(companies, company{
			name:     name,
			domain:   strings.ToLower(name) + sampleEndings[len(companies)%len(sampleEndings)],
			industry: Industries[rng.IntN(len(Industries))],
			size:     CompanySizes[rng.IntN(len(CompanySizes))],
			country:  sampleCountries[rng.IntN(len(sampleCountries))],
		})
	}
	out := make([]Contact, 0, SampleSize)
	emails := map[string]bool{}
	for len(out) < SampleSize {
		co := companies[rng.IntN(len(companies))]
		first, last := sampleFirst[rng.IntN(len(sampleFirst))], sampleLast[rng.IntN(len(sampleLast))]
		local := strings.ToLower(first + "." + last)
		role := rng.IntN(100) == 0
		if role {
			local = []string{"info", "sales", "hello"}[rng.IntN(3)]
		}
		email := local + "@" + co.domain
		if emails[email] {
			continue
		}
		emails[email] = true
		dept, rank := sampleDepts[rng.IntN(len(sampleDepts))], sampleRanks[rng.IntN(len(sampleRanks))]
		status := "valid"
		switch r := rng.IntN(100); {
		case r < 3:
			status = "invalid"
		case r < 10:
			status = "risky"
		}
		out = append(out, Contact{
			Email: email, EmailDomain: co.domain, EmailStatus: status, RoleAddress: role,
			FirstName: first, LastName: last, Title: sampleTitle(rank, dept), Seniority: rank, Department: dept,
			Company: co.name, CompanyDomain: co.domain, Industry: co.industry, CompanySize: co.size,
			Country: co.country, TimeZone: sampleZones[co.country],
		})
	}
	return out
}

func sampleTitle(rank, dept string) string {
	area := sampleDeptTitle[dept]
	switch rank {
	case "C-level":
		return "Chief " + area + " Officer"
	case "Founder":
		return "Founder"
	case "VP", "Head", "Director":
		return rank + " of " + area
	case "Senior":
		return "Senior " + area + " Specialist"
	case "Entry":
		return area + " Associate"
	}
	return area + " Manager"
}
