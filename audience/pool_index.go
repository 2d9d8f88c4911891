package audience

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The pool count's fast path (issue 27: any combination of filters under
// 50 ms on 1,000,000 contacts, exact). Counted in SQL, a count's work grew
// with what it matched: the workspace's leads looked up in the directory
// one by one (1,000 index probes, 11 to 36 ms on a loaded machine), each
// contact of a matching title read from the title index, and again for
// the counts without each filter. The directory is shared by the
// workspaces and changes only by a load, so each replica keeps an index
// of it in memory ([directoryIndex]): per contact its segment (the
// industry, seniority, country, company size and department it has, one
// of a few tens of thousands), its title and whether an import can use
// it, and lists of the contacts of each title, address domain, company
// domain and company name, and its addresses in a hash table. A count
// then reads from PostgreSQL only what the workspace adds (its leads'
// addresses, its suppressions) and the directory's version, in one
// statement, and counts in memory:
//
//   - segment filters sum the counts of the segments they keep;
//   - title filters are matched in PostgreSQL against the distinct
//     titles (its ILIKE and collation decide, as in SQL; cached per
//     index), then the contacts of those titles are counted from their
//     lists, each by its segment;
//   - the count without each filter falls out of the same pass: a
//     contact that fails exactly one filter counts for that filter;
//   - companies left out, leads and suppressed contacts are found by
//     their lists or the address table and subtracted.
//
// It stays true: every statement writing the directory's contacts moves
// directory_version in its transaction (migration 00315), and a count
// whose version differs from its index's is counted in SQL while the
// index is built again in the background. A replica builds its index at
// its first count, not at start: until then, and while it builds, counts
// take the SQL path (pool_counts.go).

// maxIndexedContacts bounds the directory a replica indexes in memory
// (about 60 bytes a contact: 300 MB at the bound); a bigger one is
// counted in SQL.
const maxIndexedContacts = 5_000_000

// Segment columns, in the order of the directory's segment index.
const (
	dimIndustry = iota
	dimSeniority
	dimCountry
	dimSize
	dimDepartment
	segDims
)

// The filters a count without each filter leaves out, one bit each in a
// contact's mask of the filters it fails.
const (
	bitTitles = 1 << iota
	bitSeniorities
	bitDepartments
	bitIndustries
	bitSizes
	bitPlaces
)

// dimBits is the filter bit of each segment column.
var dimBits = [segDims]uint8{dimIndustry: bitIndustries, dimSeniority: bitSeniorities, dimCountry: bitPlaces,
	dimSize: bitSizes, dimDepartment: bitDepartments}

// loosenBits maps [Loosened.Filter] to its bit.
var loosenBits = map[string]uint8{"titles": bitTitles, "seniorities": bitSeniorities, "departments": bitDepartments,
	"industries": bitIndustries, "companySizes": bitSizes, "places": bitPlaces}

// directoryIndex is the directory as one version of it was, for counting.
// Built once, then only read (but for what it remembers of the counts
// made on it, which it guards).
type directoryIndex struct {
	version  int64
	n        int
	seg      []uint32 // each contact's segment
	title    []uint32 // each contact's title
	unusable bitset   // the contacts an import cannot use
	segs     []indexSegment
	values   [segDims]map[string]uint16 // each segment column's values, numbered
	titles   map[string]uint32          // the distinct titles, numbered
	byTitle  postings
	// The contacts of each address domain (suppressed domains), company
	// domain and company name as lower() writes it (companies left out).
	emailDomains, companyDomains, companyNames keyedPostings
	emails                                     emailTable

	mu           sync.Mutex
	titleMatches map[uuid.UUID]*titleMatch    // each workspace's last title filters, and the titles they matched
	matches      map[string]*directoryMatches // by the filters as JSON
}

// indexSegment is one segment: its values, how many contacts it holds
// and how many of them an import cannot use.
type indexSegment struct {
	codes              [segDims]uint16
	contacts, unusable int
}

// bitset is a set of small numbers.
type bitset []uint64

func newBitset(n int) bitset       { return make(bitset, (n+63)/64) }
func (b bitset) set(i uint32)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i uint32) bool { return b[i/64]&(1<<(i%64)) != 0 }

// contactSet is a few contacts of the directory (a workspace's leads,
// its suppressed contacts, those of companies left out): sorted, each
// once. A count allocates in proportion to them, not to the directory.
type contactSet []uint32

func newContactSet(ords []uint32) contactSet {
	slices.Sort(ords)
	return slices.Compact(ords)
}

func (c contactSet) has(i uint32) bool {
	_, ok := slices.BinarySearch(c, i)
	return ok
}

// postings lists the contacts of each key: those of key k are
// ords[start[k]:start[k+1]].
type postings struct {
	start []uint32
	ords  []uint32
}

func (p postings) of(k uint32) []uint32 { return p.ords[p.start[k]:p.start[k+1]] }

// newPostings sorts the contacts by their key (keys[i] is contact i's).
func newPostings(keys []uint32, distinct int) postings {
	p := postings{start: make([]uint32, distinct+1), ords: make([]uint32, len(keys))}
	for _, k := range keys {
		p.start[k+1]++
	}
	for k := range distinct {
		p.start[k+1] += p.start[k]
	}
	next := make([]uint32, distinct)
	copy(next, p.start[:distinct])
	for i, k := range keys {
		p.ords[next[k]] = uint32(i)
		next[k]++
	}
	return p
}

// keyedPostings are postings whose keys are strings.
type keyedPostings struct {
	keys map[string]uint32
	postings
}

// of returns the contacts whose value is v.
func (k keyedPostings) of(v string) []uint32 {
	id, ok := k.keys[v]
	if !ok {
		return nil
	}
	return k.postings.of(id)
}

// emailTable finds a contact by its address: open addressing over the
// addresses, kept end to end.
type emailTable struct {
	seed  maphash.Seed
	text  []byte
	end   []uint32 // where each contact's address ends in text
	slots []uint32 // a contact's number plus one, or 0
}

func (t *emailTable) email(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.end[i-1]
	}
	return t.text[start:t.end[i]]
}

func (t *emailTable) build() {
	size := 1
	for size < 2*len(t.end) {
		size *= 2
	}
	t.slots = make([]uint32, size)
	mask := uint64(size - 1)
	for i := range t.end {
		h := maphash.Bytes(t.seed, t.email(uint32(i))) & mask
		for t.slots[h] != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = uint32(i) + 1
	}
}

// find returns the contact whose address is email.
func (t *emailTable) find(email string) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, email) & mask; t.slots[h] != 0; h = (h + 1) & mask {
		if i := t.slots[h] - 1; string(t.email(i)) == email {
			return i, true
		}
	}
	return 0, false
}

// errDirectoryTooBig stops building an index of a directory above
// [maxIndexedContacts].
var errDirectoryTooBig = errors.New("the directory is too big to index in memory")

// buildDirectoryIndex reads the directory, and its version, in one
// snapshot.
func buildDirectoryIndex(ctx context.Context, db *pgxpool.Pool, most int) (*directoryIndex, error) {
	x := &directoryIndex{titles: map[string]uint32{}, emails: emailTable{seed: maphash.MakeSeed()}, titleMatches: map[uuid.UUID]*titleMatch{},
		matches: map[string]*directoryMatches{}}
	for d := range x.values {
		x.values[d] = map[string]uint16{}
	}
	emailDomains, companyDomains, companyNames := map[string]uint32{}, map[string]uint32{}, map[string]uint32{}
	var edKeys, cdKeys, cnKeys []uint32
	segIDs := map[[segDims]uint16]uint32{}
	err := pgx.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var estimate float64
		if err := tx.QueryRow(ctx, `SELECT v.version, greatest(c.reltuples, 0) FROM directory_version v, pg_class c
			WHERE c.oid = 'directory_contacts'::regclass`).Scan(&x.version, &estimate); err != nil {
			return err
		}
		capacity := min(int(estimate*1.05)+16, most)
		x.seg, x.title = make([]uint32, 0, capacity), make([]uint32, 0, capacity)
		edKeys, cdKeys, cnKeys = make([]uint32, 0, capacity), make([]uint32, 0, capacity), make([]uint32, 0, capacity)
		x.emails.end = make([]uint32, 0, capacity)
		x.emails.text = make([]byte, 0, capacity*28)
		x.unusable = newBitset(capacity)
		rows, err := tx.Query(ctx, `SELECT email, email_domain, email_status = 'invalid' OR role_address, title,
			industry, seniority, country, company_size, department, company_domain, lower(company) FROM directory_contacts`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v := rows.RawValues()
			i := len(x.seg)
			if i >= most {
				return errDirectoryTooBig
			}
			x.emails.text = append(x.emails.text, v[0]...)
			x.emails.end = append(x.emails.end, uint32(len(x.emails.text)))
			edKeys = append(edKeys, intern(emailDomains, v[1]))
			if len(v[2]) > 0 && (v[2][0] == 1 || v[2][0] == 't') { // binary or text
				if i/64 >= len(x.unusable) {
					x.unusable = append(x.unusable, make(bitset, len(x.unusable)+1)...)
				}
				x.unusable.set(uint32(i))
			}
			x.title = append(x.title, intern(x.titles, v[3]))
			var key [segDims]uint16
			for d := range segDims {
				key[d] = internCode(x.values[d], v[4+d])
			}
			id, ok := segIDs[key]
			if !ok {
				id = uint32(len(x.segs))
				segIDs[key] = id
				x.segs = append(x.segs, indexSegment{codes: key})
			}
			x.seg = append(x.seg, id)
			cdKeys = append(cdKeys, intern(companyDomains, v[9]))
			cnKeys = append(cnKeys, intern(companyNames, v[10]))
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("index the directory: %w", err)
	}
	x.n = len(x.seg)
	// The addresses' room was a guess: what grew past it is given back.
	if cap(x.emails.text) > len(x.emails.text)+len(x.emails.text)/16 {
		x.emails.text = append(make([]byte, 0, len(x.emails.text)), x.emails.text...)
	}
	if need := (x.n + 63) / 64; len(x.unusable) < need {
		x.unusable = append(x.unusable, make(bitset, need-len(x.unusable))...)
	}
	for i, s := range x.seg {
		x.segs[s].contacts++
		if x.unusable.has(uint32(i)) {
			x.segs[s].unusable++
		}
	}
	x.byTitle = newPostings(x.title, len(x.titles))
	x.emailDomains = keyedPostings{emailDomains, newPostings(edKeys, len(emailDomains))}
	x.companyDomains = keyedPostings{companyDomains, newPostings(cdKeys, len(companyDomains))}
	x.companyNames = keyedPostings{companyNames, newPostings(cnKeys, len(companyNames))}
	x.emails.build()
	return x, nil
}

// intern numbers the distinct values of m.
func intern(m map[string]uint32, b []byte) uint32 {
	if id, ok := m[string(b)]; ok {
		return id
	}
	id := uint32(len(m))
	m[string(b)] = id
	return id
}

func internCode(m map[string]uint16, b []byte) uint16 {
	if id, ok := m[string(b)]; ok {
		return id
	}
	id := uint16(len(m)) // a segment column has far fewer values than 65,536
	m[string(b)] = id
	return id
}

// poolIndex is a replica's index of the directory, built again in the
// background when the directory moved past it.
type poolIndex struct {
	db   *pgxpool.Pool
	most int

	mu       sync.Mutex
	cur      *directoryIndex
	building chan struct{} // closed when the build under way ends; nil: none
	failedAt time.Time     // when the last build failed
	failed   error         // why
}

// retryAfter is how long a failed build waits before the next.
const retryAfter = time.Minute

// ready returns the index as built last, whatever its version, or nil;
// with nil, it starts building one.
func (p *poolIndex) ready() *directoryIndex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		p.startLocked()
	}
	return p.cur
}

// stale says the directory is at version, which x is not: x is dropped
// (a version never comes back) and the index built again.
func (p *poolIndex) stale(x *directoryIndex) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == x {
		p.cur = nil
	}
	p.startLocked()
}

func (p *poolIndex) startLocked() {
	if p.building != nil || p.db == nil || (!p.failedAt.IsZero() && time.Since(p.failedAt) < retryAfter) {
		return
	}
	done := make(chan struct{})
	p.building = done
	go func() {
		defer close(done)
		// Its own context: the count that asked has its answer (in SQL)
		// long before.
		x, err := buildDirectoryIndex(context.Background(), p.db, p.most)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.building = nil
		if err != nil {
			p.failedAt, p.failed = time.Now(), err
			return
		}
		p.failedAt, p.failed = time.Time{}, nil
		p.cur = x
	}()
}

// poolSides is what a count reads from PostgreSQL on the fast path, in one
// statement (one snapshot): the directory's version and whether it is the
// sample, the workspace's leads (their addresses, and when each was last
// contacted), its suppressed addresses and domains, the titles the title
// filters match unless the index remembers them, and the workspace's
// target (so that a count is one round trip).
type poolSides struct {
	version   int64
	sample    bool
	leads     []string
	contacted []*time.Time
	addresses []string
	domains   []string
	matched   bool     // the titles were matched: the remembered ones do not serve
	titles    []string // those matched
	// remembered are the titles the workspace's last count matched, as
	// they stood when the statement was sent.
	remembered *titleMatch
}

// titleMatch is the titles some title filters match: the filters as JSON,
// and the titles' numbers.
type titleMatch struct {
	filters string
	ids     []uint32
}

// poolSidesSQL reads the workspace's target ([targetColumns]) and a
// [poolSides]: $1 the workspace, $2 the title filters as JSON whose titles the
// index remembers (null: none), $3 the title filters to match as JSON (null:
// the target's). The titles are matched as [Filters.titlePatterns] writes
// them, by the filter's own ILIKE.
const poolSidesSQL = `SELECT a.who, a.problem, a.exclusions, a.described_at, a.filters, coalesce(a.filters_version, 0), a.filters_saved_at,
		a.confirmed_version, a.confirmed_at,
		v.version, NOT EXISTS (SELECT 1 FROM directory_loads WHERE source = 'file'),
		l.emails, l.contacted, s.addresses, s.domains, f.titles IS DISTINCT FROM $2::jsonb, t.titles
	FROM directory_version v
		LEFT JOIN audience_targets a ON a.workspace_id = $1
		CROSS JOIN (SELECT coalesce(array_agg(email), '{}'), coalesce(array_agg(last_contacted_at), '{}')
		 FROM leads WHERE workspace_id = $1) AS l (emails, contacted)
		CROSS JOIN (SELECT coalesce(array_agg(value) FILTER (WHERE kind = 'address'), '{}'), coalesce(array_agg(value) FILTER (WHERE kind = 'domain'), '{}')
		 FROM suppressions WHERE workspace_id = $1) AS s (addresses, domains)
		CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(coalesce($3::jsonb, a.filters->'titles')) = 'array'
			THEN coalesce($3::jsonb, a.filters->'titles') ELSE '[]' END) AS f (titles)
		CROSS JOIN LATERAL (SELECT array_agg(d.title::text) FROM directory_titles d
		 WHERE f.titles IS DISTINCT FROM $2::jsonb AND f.titles <> '[]'
		   AND d.title COLLATE "default" ILIKE ANY(ARRAY(
			SELECT '%' || replace(replace(replace(p, '\', '\\'), '%', '\%'), '_', '\_') || '%' FROM jsonb_array_elements_text(f.titles) AS p))
		) AS t (titles)`

// queueSides adds to b the statement reading the sides of a count on x
// for ws, and the workspace's target; titles are the title filters to
// match, or nil for the target's.
func (s *Service) queueSides(b *pgx.Batch, x *directoryIndex, ws uuid.UUID, titles []string, into *poolSides, target *Target) {
	into.remembered = x.rememberedTitles(ws)
	var remembered, asked any
	if into.remembered != nil {
		remembered = into.remembered.filters
	}
	if titles != nil {
		asked = titlesJSON(titles)
	}
	b.Queue(poolSidesSQL, ws, remembered, asked).QueryRow(func(row pgx.Row) error {
		t, err := scanTarget(row, &into.version, &into.sample, &into.leads, &into.contacted, &into.addresses, &into.domains, &into.matched, &into.titles)
		if err != nil {
			return fmt.Errorf("read the workspace's side of the pool: %w", err)
		}
		*target = t
		return nil
	})
}

func titlesJSON(titles []string) string {
	if titles == nil {
		titles = []string{}
	}
	b, _ := json.Marshal(titles)
	return string(b)
}

func (x *directoryIndex) rememberedTitles(ws uuid.UUID) *titleMatch {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.titleMatches[ws]
}

// maxTitleMatches bounds the workspaces an index remembers the title
// matches of.
const maxTitleMatches = 10_000

// matchedTitles returns the titles the title filters of f match: those
// read with sides, or those remembered when the statement found the
// filters the same as theirs (then nothing was read).
func (x *directoryIndex) matchedTitles(ws uuid.UUID, f Filters, sides *poolSides) []uint32 {
	key := titlesJSON(f.Titles)
	if !sides.matched {
		return sides.remembered.ids
	}
	ids := make([]uint32, 0, len(sides.titles))
	for _, t := range sides.titles {
		if id, ok := x.titles[t]; ok {
			ids = append(ids, id)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.titleMatches) >= maxTitleMatches {
		clear(x.titleMatches)
	}
	x.titleMatches[ws] = &titleMatch{filters: key, ids: ids}
	return ids
}

// fastCount counts the pool of f on x from sides, with the count without
// each filter; ok is false when x is not the directory sides read (then
// the index is built again).
func (s *Service) fastCount(x *directoryIndex, ws uuid.UUID, f Filters, sides *poolSides) (p Pool, loosened []Loosened, ok bool) {
	if sides.version != x.version {
		s.index.stale(x)
		return Pool{}, nil, false
	}
	var titles []uint32
	if len(f.Titles) > 0 {
		titles = x.matchedTitles(ws, f, sides)
	}
	p, loosened = x.count(x.directoryCount(f, titles), f, sides, s.windowStart(f))
	p.Sample = sides.sample
	return p, loosened, true
}

// matcher is a target's filters compiled against an index.
type matcher struct {
	x        *directoryIndex
	segMask  []uint8 // per segment: the segment filters it fails
	titled   bool
	titleOK  bitset
	excluded contactSet // the contacts of the companies left out
}

func (x *directoryIndex) compile(f Filters, titles []uint32) *matcher {
	m := &matcher{x: x, segMask: make([]uint8, len(x.segs))}
	lists := [segDims][]string{dimIndustry: f.Industries, dimSeniority: f.Seniorities, dimCountry: f.countries(),
		dimSize: f.CompanySizes, dimDepartment: f.Departments}
	for d, list := range lists {
		if len(list) == 0 {
			continue
		}
		allowed := make([]bool, len(x.values[d]))
		for _, v := range list {
			if code, ok := x.values[d][v]; ok {
				allowed[code] = true
			}
		}
		for s := range x.segs {
			if !allowed[x.segs[s].codes[d]] {
				m.segMask[s] |= dimBits[d]
			}
		}
	}
	if len(f.Titles) > 0 {
		m.titled = true
		m.titleOK = newBitset(len(x.titles))
		for _, t := range titles {
			m.titleOK.set(t)
		}
	}
	if f.excludes() {
		var ords []uint32
		for _, d := range f.ExcludeCompanyDomains {
			ords = append(ords, x.companyDomains.of(d)...)
		}
		for _, name := range f.excludedNames() {
			ords = append(ords, x.companyNames.of(name)...)
		}
		m.excluded = newContactSet(ords)
	}
	return m
}

// mask is the filters contact i fails, companies left out aside.
func (m *matcher) mask(i uint32) uint8 {
	mask := m.segMask[m.x.seg[i]]
	if m.titled && !m.titleOK.has(m.x.title[i]) {
		mask |= bitTitles
	}
	return mask
}

// matches says whether contact i matches every filter.
func (m *matcher) matches(i uint32) bool {
	return m.mask(i) == 0 && !m.excluded.has(i)
}

// directoryMatches are the directory's matches of some filters, before
// what is subtracted for a workspace: they depend on the index and the
// filters alone, so an index counts them once for each filters asked.
type directoryMatches struct {
	m        *matcher
	matched  int    // the contacts failing no filter
	unusable int    // of them, those an import cannot use
	only     [8]int // the contacts failing the filter of bit b alone
}

// maxDirectoryMatches bounds the filters an index remembers the matches
// of.
const maxDirectoryMatches = 10_000

// directoryCount counts the directory's matches of f (titles: the titles
// its title filters match), or returns them as counted before.
func (x *directoryIndex) directoryCount(f Filters, titles []uint32) *directoryMatches {
	raw, _ := json.Marshal(f)
	key := string(raw)
	x.mu.Lock()
	d, ok := x.matches[key]
	x.mu.Unlock()
	if ok {
		return d
	}
	d = x.countDirectory(f, titles)
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.matches) >= maxDirectoryMatches {
		clear(x.matches)
	}
	x.matches[key] = d
	return d
}

// countDirectory counts the directory's matches of f, and of f without
// each narrowing filter, in one pass.
func (x *directoryIndex) countDirectory(f Filters, titles []uint32) *directoryMatches {
	m := x.compile(f, titles)
	d := &directoryMatches{m: m}
	tally := func(mask uint8, n, unusableN int) {
		switch {
		case mask == 0:
			d.matched += n
			d.unusable += unusableN
		case mask&(mask-1) == 0:
			d.only[bits.TrailingZeros8(mask)] += n
		}
	}
	if !m.titled {
		for s, seg := range x.segs {
			tally(m.segMask[s], seg.contacts, seg.unusable)
		}
	} else {
		// The contacts of the matching titles, by their segment; those of
		// the other titles fail the title filter alone where their
		// segment matches.
		inSegments := 0
		for s, seg := range x.segs {
			if m.segMask[s] == 0 {
				inSegments += seg.contacts
			}
		}
		for _, t := range titles {
			for _, i := range x.byTitle.of(t) {
				u := 0
				if x.unusable.has(i) {
					u = 1
				}
				tally(m.segMask[x.seg[i]], 1, u)
			}
		}
		d.only[0] += inSegments - d.matched
	}
	for _, i := range m.excluded {
		u := 0
		if x.unusable.has(i) {
			u = 1
		}
		tally(m.mask(i), -1, -u)
	}
	return d
}

// count counts the pool of the filters f whose directory matches are d,
// for the workspace whose side sides read (window: when the target's
// window starts, or nil), and the directory's matches without each
// narrowing filter. Every number is what [Service.poolCounts] and
// [Service.loosen] count in SQL: the test compares them.
func (x *directoryIndex) count(d *directoryMatches, f Filters, sides *poolSides, window *time.Time) (Pool, []Loosened) {
	m, matched, unusable := d.m, d.matched, d.unusable
	p := Pool{Matched: matched}

	// The workspace's side: its leads that are contacts matching the
	// filters, by whether they are suppressed and when they were
	// contacted; then its suppressed contacts that are not its leads.
	var ords []uint32
	for _, a := range sides.addresses {
		if i, ok := x.emails.find(a); ok {
			ords = append(ords, i)
		}
	}
	for _, d := range sides.domains {
		ords = append(ords, x.emailDomains.of(d)...)
	}
	suppressed := newContactSet(ords)
	// As PostgreSQL compares them: to the microsecond.
	var since time.Time
	if window != nil {
		since = window.Truncate(time.Microsecond)
	}
	ords = make([]uint32, 0, len(sides.leads))
	unusableTaken := 0
	for k, email := range sides.leads {
		i, ok := x.emails.find(email)
		if !ok {
			continue
		}
		ords = append(ords, i)
		if !m.matches(i) {
			continue
		}
		switch {
		case suppressed.has(i):
			p.Suppressed++
		case window != nil && sides.contacted[k] != nil && !sides.contacted[k].Before(since):
			p.ContactedInWindow++
		default:
			p.AlreadyImported++
		}
		if x.unusable.has(i) {
			unusableTaken++
		}
	}
	leads := newContactSet(ords)
	for _, i := range suppressed {
		if !leads.has(i) && m.matches(i) {
			p.Suppressed++
			if x.unusable.has(i) {
				unusableTaken++
			}
		}
	}
	p.Unusable = unusable - unusableTaken
	p.Available = p.Matched - p.Suppressed - p.ContactedInWindow - p.AlreadyImported - p.Unusable

	loosened, _ := f.loosenings()
	for k := range loosened {
		loosened[k].Matched = matched + d.only[bits.TrailingZeros8(loosenBits[loosened[k].Filter])]
	}
	return p, loosened
}
