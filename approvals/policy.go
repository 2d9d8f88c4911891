package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// Where approving an action is allowed, by the workspace's rule.
const (
	// DecideAnywhere: in the card, by telling the assistant, or in the web
	// app (the default of every action not always in the web app).
	DecideAnywhere = "anywhere"
	// DecideClicked: by the person themselves, a click in the card or the
	// web app, never the assistant relaying their word.
	DecideClicked = "clicked"
	// DecideWeb: only a signed-in person in the web app, like what costs
	// money or cannot be undone.
	DecideWeb = "web"
)

// Policy is a workspace's rule for one action: where approving it is
// allowed, who approves it and how many of them, in stages, what each
// decision must say, and how long it waits.
type Policy struct {
	Action string
	// ClickedOnly is Where == DecideClicked: approving it takes the person
	// themselves (a click in the card, or the web app), never the
	// assistant relaying their word.
	ClickedOnly bool
	// Where is DecideAnywhere, DecideClicked or DecideWeb; for the actions
	// always approved in the web app ([PolicyApplies] false), DecideWeb.
	Where string
	// Stages are who approves, in order; none: one approval, by anyone
	// in the workspace (the rule of before).
	Stages []Stage
	// ReasonToReject and ReasonToApprove make a decision without a reason
	// refused.
	ReasonToReject, ReasonToApprove bool
	// TTL is how long its approvals wait for a decision; 0: the action's
	// own (usually [DefaultTTL]).
	TTL time.Duration
	// RequesterBarred: the person whose assistant asked for it may
	// approve it, but never alone.
	RequesterBarred bool
	SetBy           string
	SetAt           *time.Time
}

// Multi reports whether the policy asks more than the one decision by
// anyone of before, which needs to know who each approver is.
func (p Policy) Multi() bool { return len(p.Stages) > 0 || p.RequesterBarred }

// alwaysInTheWebApp are the actions whose approvals are always opened for
// the web app alone (DecideHere false): they cost money or cannot be
// undone, so no rule of the workspace changes where they are approved
// (who approves them, in stages, is the workspace's to say).
var alwaysInTheWebApp = map[string]bool{
	vibesell.ToolOrderSendingSetup: true,
	vibesell.ToolLaunchCampaign:    true,
	vibesell.ToolUpgradePlan:       true,
}

// PolicyApplies reports whether a workspace's rule changes where action
// may be approved: false for the actions always approved in the web app.
func PolicyApplies(action string) bool {
	return ActionLabels.Of(action) != action && !alwaysInTheWebApp[action]
}

const policyColumns = `action, decide_where, stages, reason_to_reject, reason_to_approve, ttl_minutes, requester_barred, set_by, set_at`

func scanPolicy(r row) (Policy, error) {
	var p Policy
	var stages []byte
	var ttl *int
	var setAt time.Time
	if err := r.Scan(&p.Action, &p.Where, &stages, &p.ReasonToReject, &p.ReasonToApprove, &ttl, &p.RequesterBarred, &p.SetBy, &setAt); err != nil {
		return Policy{}, err
	}
	if err := json.Unmarshal(stages, &p.Stages); err != nil {
		return Policy{}, fmt.Errorf("read the stages of %s: %w", p.Action, err)
	}
	if ttl != nil {
		p.TTL = time.Duration(*ttl) * time.Minute
	}
	p.SetAt = &setAt
	return p, nil
}

// defaultPolicy is an action's rule when the workspace has set none.
func defaultPolicy(action string) Policy {
	p := Policy{Action: action, Where: DecideAnywhere}
	if alwaysInTheWebApp[action] {
		p.Where = DecideWeb
	}
	return p
}

// Policies returns the rule for each action of [ActionLabels], in its
// order, the default where the workspace has set none.
func (s *Service) Policies(ctx context.Context, ws uuid.UUID) ([]Policy, error) {
	rows, err := s.db.Query(ctx, `SELECT `+policyColumns+` FROM approval_policies WHERE workspace_id = $1`, ws)
	if err != nil {
		return nil, fmt.Errorf("read approval policies: %w", err)
	}
	set, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Policy, error) { return scanPolicy(r) })
	if err != nil {
		return nil, fmt.Errorf("read approval policies: %w", err)
	}
	out := make([]Policy, 0, len(ActionLabels))
	for _, l := range ActionLabels {
		p := defaultPolicy(l.Value)
		if i := slices.IndexFunc(set, func(p Policy) bool { return p.Action == l.Value }); i >= 0 {
			p = set[i]
		}
		if !PolicyApplies(p.Action) {
			p.Where = DecideWeb
		}
		p.ClickedOnly = p.Where == DecideClicked
		out = append(out, p)
	}
	return out, nil
}

// Policy returns the workspace's rule for one action.
func (s *Service) Policy(ctx context.Context, ws uuid.UUID, action string) (Policy, error) {
	return policyOf(ctx, s.db, ws, action)
}

func policyOf(ctx context.Context, db store.DBTX, ws uuid.UUID, action string) (Policy, error) {
	p, err := scanPolicy(db.QueryRow(ctx, `SELECT `+policyColumns+` FROM approval_policies WHERE workspace_id = $1 AND action = $2`, ws, action))
	if errors.Is(err, pgx.ErrNoRows) {
		p = defaultPolicy(action)
	} else if err != nil {
		return Policy{}, fmt.Errorf("read the approval policy of %s: %w", action, err)
	}
	if alwaysInTheWebApp[action] {
		p.Where = DecideWeb
	}
	p.ClickedOnly = p.Where == DecideClicked
	return p, nil
}

// SetPolicy sets only where the workspace wants an action approved: by
// the person's own click (clickedOnly) or anywhere; by names the
// signed-in person who set it. It applies to every decision from now on,
// approvals already waiting included; the rest of the policy stays.
// Refusals: EINVALID for an action that is not one of [ActionLabels], or
// one always approved in the web app.
func (s *Service) SetPolicy(ctx context.Context, ws uuid.UUID, action string, clickedOnly bool, by string) error {
	if err := checkAction(action); err != nil {
		return err
	}
	if !PolicyApplies(action) {
		return vibesell.Errorf(vibesell.EINVALID, "%s is always approved by a signed-in person in the web app: no rule changes that.", ActionLabels.Of(action))
	}
	var err error
	if clickedOnly {
		_, err = s.db.Exec(ctx, `INSERT INTO approval_policies (workspace_id, action, set_by, set_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, action) DO UPDATE SET decide_where = 'clicked', set_by = $3, set_at = $4
			WHERE approval_policies.decide_where <> 'clicked'`, ws, action, by, s.clock.Now())
	} else {
		// Only the click rule is turned off: a web-only rule is the full
		// policy form's to change.
		_, err = s.db.Exec(ctx, `UPDATE approval_policies SET decide_where = 'anywhere', set_by = $3, set_at = $4
			WHERE workspace_id = $1 AND action = $2 AND decide_where = 'clicked'`, ws, action, by, s.clock.Now())
	}
	if err != nil {
		return fmt.Errorf("set approval policy of %s: %w", action, err)
	}
	return nil
}

func checkAction(action string) error {
	if ActionLabels.Of(action) == action {
		return vibesell.Errorf(vibesell.EINVALID, "There is no action %q to set a rule for.", action)
	}
	return nil
}

// maxStages bounds a policy's stages, and maxApprovers each stage's named
// people: an approval's card and emails name them.
const (
	maxStages    = 5
	maxApprovers = 50
)

// SavePolicy sets the workspace's whole rule for p.Action; by names the
// signed-in person who set it. Where applies to every decision from now
// on; the stages, the requester rule and the expiry apply to approvals
// opened from now on (one waiting keeps the rule its votes were counted
// under). Refusals: EINVALID, with a sentence for the person, for a rule
// that could never be met or is not one (an unknown action, a stage
// needing more people than it names, an amount in no currency, a web-only
// action set to be approved elsewhere).
func (s *Service) SavePolicy(ctx context.Context, ws uuid.UUID, p Policy, by string) error {
	if err := checkAction(p.Action); err != nil {
		return err
	}
	if p.Where == "" {
		p.Where = DecideAnywhere
	}
	switch {
	case !PolicyApplies(p.Action):
		p.Where = DecideWeb // said on the form; nothing to refuse
	case p.Where != DecideAnywhere && p.Where != DecideClicked && p.Where != DecideWeb:
		return fmt.Errorf("approvals: unknown place to approve %q", p.Where)
	}
	if p.TTL != 0 && (p.TTL < time.Minute || p.TTL > 30*24*time.Hour) {
		return vibesell.Errorf(vibesell.EINVALID, "An approval can wait between one minute and 30 days; %s is outside that.", p.TTL)
	}
	if len(p.Stages) > maxStages {
		return vibesell.Errorf(vibesell.EINVALID, "A rule has at most %d stages; this one has %d.", maxStages, len(p.Stages))
	}
	if len(p.Stages) > 0 && p.Stages[0].Above != nil {
		return vibesell.Errorf(vibesell.EINVALID, "The first stage is asked of every approval: put the amount on a later stage.")
	}
	for i := range p.Stages {
		if err := normalizeStage(&p.Stages[i], i); err != nil {
			return err
		}
	}
	stages, err := json.Marshal(p.Stages)
	if err != nil {
		return fmt.Errorf("encode stages: %w", err)
	}
	if p.Stages == nil {
		stages = []byte("[]")
	}
	var ttl *int
	if p.TTL > 0 {
		ttl = ptr(int(p.TTL / time.Minute))
	}
	_, err = s.db.Exec(ctx, `INSERT INTO approval_policies (workspace_id, action, set_by, set_at, decide_where, stages,
			reason_to_reject, reason_to_approve, ttl_minutes, requester_barred)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (workspace_id, action) DO UPDATE SET set_by = $3, set_at = $4, decide_where = $5, stages = $6,
			reason_to_reject = $7, reason_to_approve = $8, ttl_minutes = $9, requester_barred = $10`,
		ws, p.Action, by, s.clock.Now(), p.Where, stages, p.ReasonToReject, p.ReasonToApprove, ttl, p.RequesterBarred)
	if err != nil {
		return fmt.Errorf("save approval policy of %s: %w", p.Action, err)
	}
	return nil
}

// normalizeStage lowercases and dedupes the stage's people and checks it
// can be met.
func normalizeStage(st *Stage, i int) error {
	st.Name = strings.TrimSpace(st.Name)
	if st.Name == "" {
		st.Name = fmt.Sprintf("stage %d", i+1)
	}
	var people []string
	for _, a := range st.Approvers {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" || slices.Contains(people, a) {
			continue
		}
		if !strings.Contains(a, "@") {
			return vibesell.Errorf(vibesell.EINVALID, "%q in %s is not an email address: name each approver by the address they sign in with.", a, st.Name)
		}
		people = append(people, a)
	}
	if len(people) > maxApprovers {
		return vibesell.Errorf(vibesell.EINVALID, "%s names %d people; a stage names %d at most.", st.Name, len(people), maxApprovers)
	}
	st.Approvers = people
	if st.Needed == 0 {
		st.Needed = 1
	}
	if st.Needed < 1 || (len(people) > 0 && st.Needed > len(people)) {
		return vibesell.Errorf(vibesell.EINVALID, "%s needs %d approvals but names %s: it could never be approved.",
			st.Name, st.Needed, vibesell.Plural(len(people), "person", "people"))
	}
	st.Fallback = strings.ToLower(strings.TrimSpace(st.Fallback))
	if st.Fallback != "" && !strings.Contains(st.Fallback, "@") {
		return vibesell.Errorf(vibesell.EINVALID, "The fallback approver of %s, %q, is not an email address.", st.Name, st.Fallback)
	}
	if st.EscalateAfterMinutes < 0 || st.EscalateAfterMinutes > 30*24*60 {
		return vibesell.Errorf(vibesell.EINVALID, "%s escalates after between 1 minute and 30 days, or never.", st.Name)
	}
	if st.Above != nil {
		st.Above.Currency = strings.ToUpper(strings.TrimSpace(st.Above.Currency))
		if len(st.Above.Currency) != 3 || st.Above.Minor < 0 {
			return vibesell.Errorf(vibesell.EINVALID, "%s applies above an amount: give it in a currency's three-letter code, such as USD.", st.Name)
		}
	}
	return nil
}

// Describe says the policy in a sentence for a person: "Sales: 2 of
// ada@acme.test, bob@acme.test or cy@acme.test; then finance, above USD
// 100.00: fin@acme.test. The requester never alone. A reason to reject."
func (p Policy) Describe() string {
	var parts []string
	if len(p.Stages) == 0 {
		parts = append(parts, "One approval, by anyone in the workspace.")
	}
	for i, st := range p.Stages {
		who := "anyone in the workspace"
		if len(st.Approvers) > 0 {
			who = vibesell.JoinOr(st.Approvers)
		}
		if st.Needed > 1 {
			who = fmt.Sprintf("%d of %s", st.Needed, who)
		}
		name := st.Name
		if i > 0 {
			name = "then " + name
		}
		if st.Above != nil {
			name += ", above " + st.Above.String()
		}
		line := name + ": " + who
		if st.Fallback != "" && st.EscalateAfterMinutes > 0 {
			line += fmt.Sprintf(" (reminded after %s, then %s is asked)", waitText(st.EscalateAfter()), st.Fallback)
		}
		parts = append(parts, strings.ToUpper(line[:1])+line[1:]+".")
	}
	switch p.Where {
	case DecideClicked:
		parts = append(parts, "Approved only by a click in the card or here.")
	case DecideWeb:
		parts = append(parts, "Approved only here.")
	}
	if p.RequesterBarred {
		parts = append(parts, "Whoever asked for it never approves it alone.")
	}
	switch {
	case p.ReasonToApprove && p.ReasonToReject:
		parts = append(parts, "A reason is needed to approve or reject.")
	case p.ReasonToReject:
		parts = append(parts, "A reason is needed to reject.")
	case p.ReasonToApprove:
		parts = append(parts, "A reason is needed to approve.")
	}
	if p.TTL > 0 {
		parts = append(parts, "Waits "+waitText(p.TTL)+" for a decision.")
	}
	return strings.Join(parts, " ")
}
