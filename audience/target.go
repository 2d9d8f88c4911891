package audience

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
	"vibesell/approvals"
	"vibesell/store"
	"vibesell/webhooks"
)

// Config is what an installation decides about leads.
type Config struct {
	// Currency is the currency an import's cost (none) is shown in.
	// Default USD.
	Currency string
	// ImportBatch is how many directory contacts one import transaction
	// looks at. Default 1,000.
	ImportBatch int
	// UploadURL is the web app's page where a person uploads a CSV of
	// leads (PUBLIC_URL/app/leads), which import_leads hands out.
	UploadURL string
}

// Service is the audience feature: target, directory, pool, imports and
// suppression.
type Service struct {
	db        *pgxpool.Pool
	clock     vibesell.Clock
	cfg       Config
	approvals *approvals.Service
	limit     LeadLimit // nil: imports are not held to a plan
	// afterBatch, when set (by tests), runs after each committed batch of
	// an import; an error stops the import there, as a killed job would.
	afterBatch func() error
	// storyCampaigns and storyMail tell a lead's story's campaigns part;
	// nil: the story tells only the audience's part.
	storyCampaigns LeadCampaigns
	storyMail      LeadMail
	// webhooks is told of leads unsubscribed and bounced; nil: no one is.
	webhooks *webhooks.Service
	// mailDomains is the DNS the list check asks; nil: domains are not
	// looked up. domains keeps its answers a while.
	mailDomains MailDomains
	domains     domainCache
	// index is this replica's index of the directory, for the pool count.
	index *poolIndex
}

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Clock dates imports and suppressions. Default: the system clock.
	Clock  vibesell.Clock
	Config Config
	// Approvals opens the imports' approvals; it must have [ImportAction]
	// registered under [vibesell.ToolImportLeads].
	Approvals *approvals.Service
	// LeadLimit holds imports to the plan: an import is refused when it
	// is asked for above the plan's monthly leads, and stops at the limit
	// if another import took the room meanwhile. Nil (tests of other
	// things): imports are not limited.
	LeadLimit LeadLimit
	// MailDomains is the DNS the list check asks for each domain's mail
	// servers (MX, else an address). Nil (tests of other things, the
	// sandbox): domains are not looked up.
	MailDomains MailDomains
	// StoryCampaigns and StoryMail tell the campaigns' and the sending
	// engine's parts of a lead's story. Nil: a story tells only the
	// audience's part.
	StoryCampaigns LeadCampaigns
	StoryMail      LeadMail
	// Webhooks is told, in the suppression's transaction, of a lead that
	// unsubscribed or bounced for good. Nil: no webhooks.
	Webhooks *webhooks.Service
}

// New returns the audience service.
func New(d Deps) *Service {
	cfg := d.Config
	if d.Clock == nil {
		d.Clock = vibesell.SystemClock{}
	}
	if cfg.Currency == "" {
		cfg.Currency = "USD"
	}
	if cfg.ImportBatch <= 0 {
		cfg.ImportBatch = 1000
	}
	return &Service{db: d.DB, clock: d.Clock, cfg: cfg, approvals: d.Approvals, limit: d.LeadLimit,
		mailDomains: d.MailDomains, storyCampaigns: d.StoryCampaigns, storyMail: d.StoryMail, webhooks: d.Webhooks,
		index: &poolIndex{db: d.DB, most: maxIndexedContacts}}
}

// Description is the ideal customer in the person's words.
type Description struct {
	Who        string // who they are
	Problem    string // which problem of theirs the offer solves
	Exclusions string // who not to write to; may be empty
}

// Target is a workspace's target as it stands.
type Target struct {
	Description    *Description // nil: not described yet
	DescribedAt    *time.Time
	Filters        *Filters // nil: no filters saved yet
	FiltersVersion int      // moves each time the filters change
	FiltersSavedAt *time.Time
	// ConfirmedVersion is the filters version the person confirmed; the
	// filters are confirmed only while it is FiltersVersion.
	ConfirmedVersion *int
	ConfirmedAt      *time.Time
}

// Confirmed reports whether the filters in force are the ones confirmed.
func (t Target) Confirmed() bool {
	return t.Filters != nil && t.ConfirmedVersion != nil && *t.ConfirmedVersion == t.FiltersVersion
}

const targetColumns = `who, problem, exclusions, described_at, filters, filters_version, filters_saved_at, confirmed_version, confirmed_at`

// scanTarget reads [targetColumns], then into also the row's further
// columns.
func scanTarget(r pgx.Row, also ...any) (Target, error) {
	var t Target
	var who, problem, exclusions *string
	var filters []byte
	err := r.Scan(append([]any{&who, &problem, &exclusions, &t.DescribedAt, &filters, &t.FiltersVersion, &t.FiltersSavedAt,
		&t.ConfirmedVersion, &t.ConfirmedAt}, also...)...)
	if err != nil {
		return Target{}, err
	}
	if who != nil {
		t.Description = &Description{Who: *who, Problem: deref(problem), Exclusions: deref(exclusions)}
	}
	if filters != nil {
		t.Filters = &Filters{}
		if err := json.Unmarshal(filters, t.Filters); err != nil {
			return Target{}, fmt.Errorf("read filters: %w", err)
		}
	}
	return t, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Target returns the workspace's target; an empty one when nothing is
// saved yet.
func (s *Service) Target(ctx context.Context, ws uuid.UUID) (Target, error) {
	return s.target(ctx, s.db, ws, false)
}

func (s *Service) target(ctx context.Context, db store.DBTX, ws uuid.UUID, lock bool) (Target, error) {
	q := `SELECT ` + targetColumns + ` FROM audience_targets WHERE workspace_id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	t, err := scanTarget(db.QueryRow(ctx, q, ws))
	if errors.Is(err, pgx.ErrNoRows) {
		return Target{}, nil
	}
	if err != nil {
		return Target{}, fmt.Errorf("read target: %w", err)
	}
	return t, nil
}

func text(name, v string, required bool, max int) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" && required {
		return "", vibesell.Errorf(vibesell.EINVALID, "The target needs %s.", name)
	}
	if n := len([]rune(v)); n > max {
		return "", vibesell.Errorf(vibesell.EINVALID, "%s can be at most %s long; it is %s.", capitalize(name), vibesell.Plural(max, "character", "characters"), vibesell.Count(n))
	}
	return v, nil
}

// SaveDescription replaces the target's description in the person's words.
// It leaves the filters and their confirmation as they are.
func (s *Service) SaveDescription(ctx context.Context, ws uuid.UUID, d Description) (Target, error) {
	var err error
	if d.Who, err = text("who the customer is", d.Who, true, 1000); err != nil {
		return Target{}, err
	}
	if d.Problem, err = text("the problem the offer solves for them", d.Problem, true, 1000); err != nil {
		return Target{}, err
	}
	if d.Exclusions, err = text("the exclusions", d.Exclusions, false, 1000); err != nil {
		return Target{}, err
	}
	var ex *string
	if d.Exclusions != "" {
		ex = &d.Exclusions
	}
	t, err := scanTarget(s.db.QueryRow(ctx, `INSERT INTO audience_targets AS t (workspace_id, who, problem, exclusions, described_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (workspace_id) DO UPDATE SET who = $2, problem = $3, exclusions = $4, described_at = $5
		RETURNING `+targetColumns, ws, d.Who, d.Problem, ex, s.clock.Now()))
	if err != nil {
		return Target{}, fmt.Errorf("save target: %w", err)
	}
	return t, nil
}

// FiltersSaved says what saving the filters did.
type FiltersSaved struct {
	Target Target
	// Changed is false when the filters were already exactly these: the
	// version and any confirmation stay.
	Changed bool
	// ConfirmationWithdrawn is true when confirmed filters were changed:
	// pool, preview and import wait for a new confirmation.
	ConfirmationWithdrawn bool
	// Suppressed is what the call's suppress list added.
	Suppressed Suppressed
}

// SaveFilters replaces the target's filters. Every value is checked
// against the directory's vocabulary; unknown ones are refused (EINVALID)
// with the closest known values. Changing confirmed filters withdraws the
// confirmation. suppress, when not empty, adds addresses or whole domains
// to the workspace's suppression list in the same transaction (see
// [Service.Suppress]).
func (s *Service) SaveFilters(ctx context.Context, ws uuid.UUID, f Filters, suppress []string) (FiltersSaved, error) {
	f, err := f.normalize()
	if err != nil {
		return FiltersSaved{}, err
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return FiltersSaved{}, fmt.Errorf("encode filters: %w", err)
	}
	var out FiltersSaved
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO audience_targets (workspace_id) VALUES ($1) ON CONFLICT DO NOTHING`, ws); err != nil {
			return err
		}
		if len(suppress) > 0 {
			if out.Suppressed, err = s.suppress(ctx, tx, ws, suppress, ReasonManual); err != nil {
				return err
			}
		}
		before, err := s.target(ctx, tx, ws, true)
		if err != nil {
			return err
		}
		if before.Filters != nil && reflect.DeepEqual(*before.Filters, f) {
			out.Target = before
			return nil
		}
		out.Changed = true
		out.ConfirmationWithdrawn = before.Confirmed()
		out.Target, err = scanTarget(tx.QueryRow(ctx, `UPDATE audience_targets
			SET filters = $2, filters_version = filters_version + 1, filters_saved_at = $3
			WHERE workspace_id = $1 RETURNING `+targetColumns, ws, raw, s.clock.Now()))
		return err
	})
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return FiltersSaved{}, err
		}
		return FiltersSaved{}, fmt.Errorf("save filters: %w", err)
	}
	return out, nil
}

// Confirm locks the filters of the given version as the ones pool, preview
// and import use. Confirming the confirmed version again changes nothing.
// Refusals: EINVALID when there are no filters; ENOTFOUND for a version
// the filters never had; ECONFLICT when the filters have changed since
// the version the person saw.
func (s *Service) Confirm(ctx context.Context, ws uuid.UUID, version int) (Target, error) {
	var out Target
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		t, err := s.target(ctx, tx, ws, true)
		if err != nil {
			return err
		}
		if t.Filters == nil {
			return vibesell.Errorf(vibesell.EINVALID, "There are no filters to confirm yet.").Then(
				vibesell.Next{Do: "Save the target's filters first.", Tool: vibesell.ToolSaveTargetFilters})
		}
		if version > t.FiltersVersion || version < 1 {
			// Not a change since: a version that never was.
			return vibesell.Errorf(vibesell.ENOTFOUND,
				"The filters have no version %d: they are at version %d (%s). Show the person these filters, then confirm version %d if they agree.",
				version, t.FiltersVersion, t.Filters.Describe(), t.FiltersVersion)
		}
		if version != t.FiltersVersion {
			return vibesell.Errorf(vibesell.ECONFLICT,
				"The filters changed after version %d: they are at version %d now (%s). Show the person these filters, then confirm version %d if they agree.",
				version, t.FiltersVersion, t.Filters.Describe(), t.FiltersVersion)
		}
		if t.Confirmed() {
			out = t
			return nil
		}
		out, err = scanTarget(tx.QueryRow(ctx, `UPDATE audience_targets SET confirmed_version = filters_version, confirmed_at = $2
			WHERE workspace_id = $1 RETURNING `+targetColumns, ws, s.clock.Now()))
		return err
	})
	if err != nil {
		if vibesell.ErrorCode(err) != vibesell.EINTERNAL {
			return Target{}, err
		}
		return Target{}, fmt.Errorf("confirm target: %w", err)
	}
	return out, nil
}

// confirmedFilters returns the filters in force, or a refusal saying what
// to do first.
func (s *Service) confirmedFilters(ctx context.Context, db store.DBTX, ws uuid.UUID) (Target, error) {
	t, err := s.target(ctx, db, ws, false)
	if err != nil {
		return Target{}, err
	}
	if err := t.confirmed(); err != nil {
		return Target{}, err
	}
	return t, nil
}

// confirmed refuses a target whose filters are missing or not confirmed.
func (t Target) confirmed() error {
	switch {
	case t.Filters == nil:
		return vibesell.Errorf(vibesell.EINVALID,
			"There is no target to count yet.").Then(
			vibesell.Next{Do: "Save the target's filters.", Tool: vibesell.ToolSaveTargetFilters},
			vibesell.Next{Do: "Confirm them once the person agrees.", Tool: vibesell.ToolConfirmTarget})
	case !t.Confirmed():
		why := "are not confirmed yet"
		if t.ConfirmedVersion != nil {
			why = fmt.Sprintf("changed after they were confirmed (version %d confirmed, version %d now)", *t.ConfirmedVersion, t.FiltersVersion)
		}
		return vibesell.Errorf(vibesell.EINVALID,
			"The target's filters %s: %s.", why, t.Filters.Describe()).Then(
			vibesell.Call("Confirm the filters once the person agrees with them.", vibesell.ToolConfirmTarget, "filtersVersion", t.FiltersVersion))
	}
	return nil
}
