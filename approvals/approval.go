package approvals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"vibesell"
	"vibesell/store"
)

// Status is where an approval stands, as people and tools see it.
type Status string

// The statuses an approval goes through. Approved covers both "queued" and
// "running": the execution has been asked for and has not ended yet.
const (
	Pending  Status = "pending"  // waiting for a decision
	Approved Status = "approved" // decided yes; being carried out
	Done     Status = "done"     // carried out; Outcome says what was done
	NotDone  Status = "not_done" // ended without acting: expired, preconditions gone, failed; Outcome says why
	Rejected Status = "rejected" // decided no
)

// Where a decision or an event came from.
const (
	// ViaCard: clicked in the card inside the conversation, proven by the
	// card's one-time token (package proof).
	ViaCard = "card"
	// ViaConversation: relayed by the assistant, whatever the person did
	// (told it, or pressed a button in a card whose host gave it no token).
	ViaConversation = "conversation"
	ViaWeb          = "web"    // a signed-in person in the web app
	ViaSystem       = "system" // VibeSell itself: execution, expiry
)

// Who did something, as the audit trail and the web app name them when
// it was not a signed-in person (whose email is recorded instead). A
// person reads these: they say who, never how the connection works.
const (
	ActorAssistant = "the assistant" // asked for an approval, or tried to decide one
	// ActorPerson decided in the card or by telling the assistant (which
	// one is the decision's Via); who they are, only the web app knows.
	ActorPerson   = "the person"
	ActorVibeSell = "VibeSell" // carried it out, expired it
)

// Impact is what exactly an action will do, written by the server (never
// by the assistant) so that the person decides on facts.
type Impact struct {
	What        string         `json:"what"`        // one or two sentences: exactly what will happen
	Items       []string       `json:"items"`       // each thing acted on (each domain and address, each campaign…)
	Who         string         `json:"who"`         // to whom: who is contacted, or that no one is
	When        string         `json:"when"`        // when it happens and when it is ready
	CostOnce    vibesell.Money `json:"costOnce"`    // paid once, now
	CostMonthly vibesell.Money `json:"costMonthly"` // paid every month from now on
	Renewal     string         `json:"renewal"`     // what renews, when, and how to stop it
	Undo        string         `json:"undo"`        // whether and how it can be undone
	// Charged says in words what is charged when, where the two amounts
	// alone would mislead (an order charges the domains' first year and
	// the mailboxes' first month when it is placed); empty: CostOnce when
	// it is carried out, CostMonthly every month from then.
	Charged string `json:"charged,omitempty"`
	// Sandbox marks the amounts as a sandbox's: shown, never charged.
	Sandbox bool `json:"sandbox,omitempty"`
	// PersonOnly says, for a person, why only a signed-in person may
	// approve it when it is neither paid nor irreversible (it goes over an
	// allowance, it resumes what VibeSell paused…).
	PersonOnly string `json:"personOnly,omitempty"`
}

// Paid says whether the action costs money, once or every month: what
// makes an approval a signed-in person's alone and asks them to agree to
// the amounts.
func (i Impact) Paid() bool {
	return i.CostOnce.Minor > 0 || i.CostMonthly.Minor > 0
}

// Approval is one decision about one action.
type Approval struct {
	ID           string
	WorkspaceID  uuid.UUID
	Action       string
	Arguments    json.RawMessage // canonical JSON
	Details      json.RawMessage // what the action recorded to carry out exactly this; JSON null when nothing
	Status       Status
	Summary      string
	Impact       Impact
	Irreversible bool
	DecideHere   bool // false: only a signed-in person in the web app may approve
	CreatedAt    time.Time
	ExpiresAt    time.Time
	DecidedBy    *string
	DecidedAt    *time.Time
	DecidedVia   *string // card (clicked), conversation (relayed) or web
	// DecidedHostApps is whether the MCP session the decision came
	// through declared the MCP Apps extension at initialize; nil for the
	// web app, and when not known.
	DecidedHostApps *bool
	// ClickedOnly is the workspace's policy for the action: approving
	// takes a click in the card or the web app, never the assistant's
	// relay ([Service.SetPolicy]).
	ClickedOnly bool
	// RequestedByEmail is the person whose assistant (or who, in the web
	// app) asked for it, lowercased; empty when no one is known.
	RequestedByEmail string
	// Stages and RequesterBarred are the policy it was opened under
	// ([Policy]); no stages: one approval by anyone, as before.
	Stages          []Stage
	RequesterBarred bool
	// Votes are the approvals counted so far, oldest first (stages only).
	Votes []Vote
	// Escalated are the stages whose fallback approver was asked.
	Escalated  []int
	Reason     *string
	StartedAt  *time.Time // the execution began acting
	FinishedAt *time.Time
	Outcome    *string // what was done, or why not
	AppURL     string  // the page of this approval in the web app
}

// Final reports whether the approval has ended (done, not done, rejected).
func (a Approval) Final() bool {
	return a.Status == Done || a.Status == NotDone || a.Status == Rejected
}

// Expired reports whether the approval ended because no one decided it
// before it expired (not superseded, not failed: those end before).
func (a Approval) Expired() bool {
	return a.Status == NotDone && a.DecidedAt == nil && a.FinishedAt != nil && !a.FinishedAt.Before(a.ExpiresAt)
}

// Event is one line of an approval's audit trail.
type Event struct {
	At    time.Time
	Event string // opened, approved, rejected, approve_refused, executing, done, not_done, expired, superseded
	From  *Status
	To    Status
	Actor string // who: an email, or one of the Actor constants
	Via   string // card, conversation, web or system
	// HostApps is whether the session a decision came through declared
	// the MCP Apps extension; nil when not known or not a decision there.
	HostApps *bool
	Reason   *string
	// Repeats is how many attempts the line stands for: more than 1 for
	// refused approvals counted together, the latest at LastAt.
	Repeats int
	LastAt  *time.Time
}

// Deps is what [New] needs.
type Deps struct {
	DB *pgxpool.Pool
	// Clock tells expiries and dates decisions.
	Clock vibesell.Clock
	// PublicURL is the address people reach the server at, e.g.
	// https://vibesell.example.com; each approval's AppURL is built from it.
	PublicURL string
	// Logger receives execution failures. Default: slog.Default().
	Logger *slog.Logger
	// RelayWait is how long a decision relayed by the assistant waits for
	// the approved action to end, so that the answer usually says done
	// rather than "being carried out" ([Service.Relay]). Default
	// [DefaultRelayWait]; below zero, no wait (tests work the execution
	// themselves, with rivertest's worker, instead of waiting).
	RelayWait time.Duration
	// Mailer emails the workspace's people about approvals only a
	// signed-in person may approve; nil: no such emails ([Service.Remind]).
	Mailer Mailer
	// RemindBefore is how long before its expiry a pending approval's
	// reminder is sent. Default [DefaultRemindBefore].
	RemindBefore time.Duration
}

// DefaultRelayWait is [Deps].RelayWait when not set.
const DefaultRelayWait = 5 * time.Second

// Service opens, decides, lists and executes approvals.
type Service struct {
	db           *pgxpool.Pool
	publicURL    string
	clock        vibesell.Clock
	logger       *slog.Logger
	relayWait    time.Duration
	mailer       Mailer
	remindBefore time.Duration
	jobs         *river.Client[pgx.Tx] // insert-only: the workers run in cmd/server's client

	mu        sync.RWMutex
	executors map[string]Executor
}

// New returns the approvals' Service on d.DB. It panics when d.PublicURL
// is not an absolute http(s) URL: cmd/server checks PUBLIC_URL when it
// reads it, so only a mistake in the program's wiring gets here.
func New(d Deps) *Service {
	cfg := d
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		panic(fmt.Sprintf("approvals: PublicURL %q is not an absolute http(s) URL", cfg.PublicURL))
	}
	if cfg.RelayWait == 0 {
		cfg.RelayWait = DefaultRelayWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RemindBefore <= 0 {
		cfg.RemindBefore = DefaultRemindBefore
	}
	// An insert-only client: it enqueues in the caller's transaction and
	// never works jobs itself. River refuses only a configuration it
	// cannot run, which this one is not.
	jobs, err := river.NewClient(riverpgxv5.New(d.DB), &river.Config{Logger: cfg.Logger})
	if err != nil {
		panic(fmt.Sprintf("approvals: job client: %v", err))
	}
	return &Service{
		db:           d.DB,
		publicURL:    strings.TrimRight(cfg.PublicURL, "/"),
		clock:        d.Clock,
		logger:       cfg.Logger,
		relayWait:    cfg.RelayWait,
		mailer:       cfg.Mailer,
		remindBefore: cfg.RemindBefore,
		jobs:         jobs,
		executors:    map[string]Executor{},
	}
}

// AppPath is the web app's path of an approval's page. The web app serves
// it; every approval's AppURL is the public URL followed by it.
func AppPath(id string) string { return "/app/approvals/" + id }

// AppURL returns the absolute address of an approval's page.
func (s *Service) AppURL(id string) string { return s.publicURL + AppPath(id) }

// Register makes an action executable: once approved, approvals of this
// action are carried out by ex. It panics when the action is registered
// twice, a mistake in the program's wiring.
func (s *Service) Register(action string, ex Executor) {
	if !actionName.MatchString(action) {
		panic(fmt.Sprintf("approvals: action name %q must be lowercase snake_case", action))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.executors[action]; dup {
		panic(fmt.Sprintf("approvals: action %q is registered twice", action))
	}
	s.executors[action] = ex
}

func (s *Service) executor(action string) (Executor, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ex, ok := s.executors[action]
	return ex, ok
}

// ErrNotFound is the refusal for an approval that does not exist in the
// workspace (including one of another workspace).
func errNotFound(id string) error {
	return vibesell.Errorf(vibesell.ENOTFOUND,
		"There is no approval %s in this workspace.", id).Then(
		vibesell.Next{Do: "See the approvals waiting for a decision.", Tool: vibesell.ToolListPendingApprovals})
}

// newID returns "ap_" and 16 lowercase hex characters.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ap_" + hex.EncodeToString(b[:])
}

// columns are read by scanApproval, in this order.
const columns = `workspace_id, id, action, arguments, details, status, summary, impact, irreversible, decide_here,
	created_at, expires_at, decided_by, decided_at, decided_via, reason, started_at, finished_at, outcome,
	decided_host_apps, ` + clickedOnlySQL + `,
	coalesce(requested_by_email, ''), stages, requester_barred,
	(SELECT coalesce(jsonb_agg(jsonb_build_object('stage', v.stage, 'voter', v.voter, 'by', v.by, 'approve', v.approve,
		'reason', v.reason, 'via', v.via, 'at', v.at) ORDER BY v.at, v.voter), '[]')
		FROM approval_votes v WHERE v.workspace_id = approvals.workspace_id AND v.approval_id = approvals.id),
	ARRAY(SELECT e.stage FROM approval_escalations e WHERE e.workspace_id = approvals.workspace_id AND e.approval_id = approvals.id
		AND e.step = 'escalated' ORDER BY e.stage)`

// clickedOnlySQL is the workspace's click-only rule for an approval's
// action, read at every decision.
const clickedOnlySQL = `coalesce((SELECT p.decide_where = 'clicked' FROM approval_policies p
		WHERE p.workspace_id = approvals.workspace_id AND p.action = approvals.action), false)`

type row interface{ Scan(dest ...any) error }

func (s *Service) scanApproval(r row) (Approval, error) {
	var a Approval
	var status string
	var impact, stages, votes []byte
	var escalated []int32
	err := r.Scan(&a.WorkspaceID, &a.ID, &a.Action, &a.Arguments, &a.Details, &status, &a.Summary, &impact,
		&a.Irreversible, &a.DecideHere, &a.CreatedAt, &a.ExpiresAt, &a.DecidedBy, &a.DecidedAt,
		&a.DecidedVia, &a.Reason, &a.StartedAt, &a.FinishedAt, &a.Outcome, &a.DecidedHostApps, &a.ClickedOnly,
		&a.RequestedByEmail, &stages, &a.RequesterBarred, &votes, &escalated)
	if err != nil {
		return Approval{}, err
	}
	if err := json.Unmarshal(stages, &a.Stages); err != nil {
		return Approval{}, fmt.Errorf("read stages of %s: %w", a.ID, err)
	}
	if err := json.Unmarshal(votes, &a.Votes); err != nil {
		return Approval{}, fmt.Errorf("read votes of %s: %w", a.ID, err)
	}
	for _, e := range escalated {
		a.Escalated = append(a.Escalated, int(e))
	}
	if err := json.Unmarshal(impact, &a.Impact); err != nil {
		return Approval{}, fmt.Errorf("read impact of %s: %w", a.ID, err)
	}
	a.Status = publicStatus(status)
	a.AppURL = s.AppURL(a.ID)
	return a, nil
}

// publicStatus hides the difference between queued and running.
func publicStatus(stored string) Status {
	if stored == "executing" {
		return Approved
	}
	return Status(stored)
}

// Find returns an approval of the workspace. Refusals: ENOTFOUND.
func (s *Service) Find(ctx context.Context, ws uuid.UUID, id string) (Approval, error) {
	if !validID(id) {
		return Approval{}, errNotFound(id)
	}
	a, err := s.scanApproval(s.db.QueryRow(ctx, `SELECT `+columns+` FROM approvals WHERE workspace_id = $1 AND id = $2`, ws, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Approval{}, errNotFound(id)
	}
	if err != nil {
		return Approval{}, fmt.Errorf("find approval %s: %w", id, err)
	}
	return a, nil
}

func validID(id string) bool {
	if len(id) != 19 || !strings.HasPrefix(id, "ap_") {
		return false
	}
	for _, c := range id[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Events returns the audit trail of an approval of the workspace, oldest
// first. Refusals: ENOTFOUND.
func (s *Service) Events(ctx context.Context, ws uuid.UUID, id string) ([]Event, error) {
	if _, err := s.Find(ctx, ws, id); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT at, event, from_status, to_status, actor, via, reason, repeats, last_at, host_apps
		FROM approval_events WHERE workspace_id = $1 AND approval_id = $2 ORDER BY seq`, ws, id)
	if err != nil {
		return nil, fmt.Errorf("read audit trail of %s: %w", id, err)
	}
	events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Event, error) {
		var e Event
		var from *string
		var to string
		if err := r.Scan(&e.At, &e.Event, &from, &to, &e.Actor, &e.Via, &e.Reason, &e.Repeats, &e.LastAt, &e.HostApps); err != nil {
			return Event{}, err
		}
		if from != nil {
			f := Status(*from)
			e.From = &f
		}
		e.To = Status(to)
		return e, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit trail of %s: %w", id, err)
	}
	return events, nil
}

// entry is one line of an approval's audit trail, as [record] writes it.
type entry struct {
	ws        uuid.UUID
	id        string // the approval's
	at        time.Time
	event     string
	from      *string // nil when the approval is opened
	to        string
	actor     string
	actorUser *uuid.UUID
	via       string
	reason    *string
	// hostApps is whether the decision's host declared the MCP Apps
	// extension; nil when no host decided.
	hostApps *bool
	// shown is the version of what the approval showed that a decision
	// was made on ([Decision].Shown); "" for events no one decided.
	shown string
}

// record appends e to the audit trail.
func record(ctx context.Context, tx store.DBTX, e entry) error {
	_, err := tx.Exec(ctx, `INSERT INTO approval_events
		(workspace_id, approval_id, at, event, from_status, to_status, actor, actor_user, via, reason, host_apps, shown)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULLIF($12, ''))`,
		e.ws, e.id, e.at, e.event, e.from, e.to, e.actor, e.actorUser, e.via, e.reason, e.hostApps, e.shown)
	if err != nil {
		return fmt.Errorf("record %s of %s: %w", e.event, e.id, err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
