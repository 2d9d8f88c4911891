package workspace

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// The workspace context (what get_workspace_context shows) is a read
// model that every feature contributes a part to: the workspace's own
// snapshot (offer, playbook, memory, tickets), then one [Part] per
// feature (pending approvals, the sending setup, the audience, campaigns
// and billing; tools/workspace_context.go lists them). All parts are read in one round trip, behind
// the context stamp of [ContextCache]; each part works out what follows
// from the time on every read, so what is kept never ages.

// Part is one feature's share of the workspace context. A feature that
// adds one also attaches the touch_workspace_context trigger to the
// tables it reads (see migration 00030), so that a write to them moves
// the stamp.
type Part interface {
	// QueueContext queues on b the part's reads of workspace ws. Once b
	// has been sent and closed without error, done returns what they
	// read: rows that do not age, kept while the stamp holds.
	QueueContext(b *pgx.Batch, ws uuid.UUID) (done func() (PartRows, error))
}

// PartRows are a part's rows as read at one moment. They are read-only:
// later reads of the context share them.
type PartRows interface {
	// Now works out the part as it stands now: the view the adapters
	// show (read back with [View]), and the part's next step, nil when it
	// has none.
	Now(ctx context.Context) (view any, next *NextStep)
}

// NextStep is what the workspace needs next: why, in sentences that name
// no tool, and the steps that do it, the one to take now first (none when
// the next step is the person's, outside the conversation). The tools
// write each step as the tool to call.
type NextStep struct {
	Why  string
	Next []vibesell.Next
	// Pressing steps (a person's decision is waiting) come before the
	// offer and the playbook; the others after them, in the order of the
	// parts.
	Pressing bool
}

// Tool is the tool of the step to take now; "" when it is not a tool
// call.
func (s NextStep) Tool() string {
	if len(s.Next) == 0 {
		return ""
	}
	return s.Next[0].Tool
}

// NewPart returns a Part from a feature's batched read and the function
// that works its rows out now, so that a feature contributes its part
// with the reads it already exports.
func NewPart[R, V any](queue func(*pgx.Batch, uuid.UUID) func() (R, error), now func(context.Context, R) (V, *NextStep)) Part {
	return partFuncs[R, V]{queue: queue, now: now}
}

type partFuncs[R, V any] struct {
	queue func(*pgx.Batch, uuid.UUID) func() (R, error)
	now   func(context.Context, R) (V, *NextStep)
}

func (p partFuncs[R, V]) QueueContext(b *pgx.Batch, ws uuid.UUID) func() (PartRows, error) {
	done := p.queue(b, ws)
	return func() (PartRows, error) {
		r, err := done()
		if err != nil {
			return nil, err
		}
		return partRows[R, V]{rows: r, now: p.now}, nil
	}
}

type partRows[R, V any] struct {
	rows R
	now  func(context.Context, R) (V, *NextStep)
}

// Now works the part out for the call at hand: its texts write moments in
// the call's time zone.
func (r partRows[R, V]) Now(ctx context.Context) (any, *NextStep) { return r.now(ctx, r.rows) }

// Context is a workspace's context as it stands now.
type Context struct {
	Snapshot
	NextStep NextStep
	views    []any
}

// View returns the view of type V that a part contributed, and whether
// one did (a part that is not wired contributes none).
func View[V any](c Context) (V, bool) {
	for _, v := range c.views {
		if v, ok := v.(V); ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// StepOf is what a part shows as its own next step: the pressing step
// while one waits (a person's decision comes first wherever the context
// shows a step), else the part's own.
func (c Context) StepOf(own NextStep) NextStep {
	if c.NextStep.Pressing {
		return c.NextStep
	}
	return own
}

// ContextReader reads workspaces' contexts: the snapshot and every part,
// in one round trip, kept while each workspace's stamp holds.
type ContextReader struct {
	cache *ContextCache[contextRows]
}

type contextRows struct {
	snapshot Snapshot
	parts    []PartRows
}

// ContextReaderDeps is what [NewContextReader] needs.
type ContextReaderDeps struct {
	Workspaces *Service
	// Kept is how many workspaces' contexts are kept, the most recently
	// read ones (none with 0 or less; see [NewContextCache]).
	Kept int
	// Parts are the features' parts of the context, in the order shown.
	Parts []Part
}

// NewContextReader returns a reader of the workspace snapshot and parts.
func NewContextReader(d ContextReaderDeps) *ContextReader {
	s, size, parts := d.Workspaces, d.Kept, d.Parts
	return &ContextReader{cache: NewContextCache(s, size, func(b *pgx.Batch, ws uuid.UUID) func() (contextRows, error) {
		snapshot := QueueSnapshot(b, ws)
		dones := make([]func() (PartRows, error), len(parts))
		for i, p := range parts {
			dones[i] = p.QueueContext(b, ws)
		}
		return func() (contextRows, error) {
			snap, err := snapshot()
			if err != nil {
				return contextRows{}, err
			}
			rows := contextRows{snapshot: snap, parts: make([]PartRows, len(dones))}
			for i, done := range dones {
				if rows.parts[i], err = done(); err != nil {
					return contextRows{}, err
				}
			}
			return rows, nil
		}
	})}
}

// Read returns workspace ws's context as it stands now. Refusals:
// ENOTFOUND when the workspace does not exist.
func (r *ContextReader) Read(ctx context.Context, ws uuid.UUID) (Context, error) {
	rows, err := r.cache.Read(ctx, ws)
	if err != nil {
		return Context{}, err
	}
	c := Context{Snapshot: rows.snapshot}
	// The parts' texts write moments in the zone read with the rows.
	ctx = vibesell.InZone(ctx, c.Zone)
	var steps []NextStep
	for _, p := range rows.parts {
		view, next := p.Now(ctx)
		c.views = append(c.views, view)
		if next != nil {
			steps = append(steps, *next)
		}
	}
	c.NextStep = nextStep(c.Snapshot, steps)
	return c, nil
}

// nextStep is the rule for what the workspace needs next: a pressing step
// of a part first (a person's decision), then the offer, then the
// playbook, then the first part whose step is a tool to call (a part with
// nothing to do says so without one: the sending setup while its
// addresses warm up lets the campaigns be prepared), else the first
// part's step.
func nextStep(snap Snapshot, steps []NextStep) NextStep {
	for _, s := range steps {
		if s.Pressing {
			return s
		}
	}
	switch {
	case snap.Offer == nil:
		return NextStep{Why: "Nothing is known yet about what this workspace sells.", Next: []vibesell.Next{{
			Do:   "Ask the person what they sell, to whom, the value for the buyer, proof points and the call to action, then save it as the offer.",
			Tool: vibesell.ToolSaveOffer}}}
	case snap.Playbook == nil:
		return NextStep{Why: "The offer is saved.", Next: []vibesell.Next{{
			Do:   "Ask the person how their emails should sound (tone, angles, objections they hear, dos and don'ts), then save it as the playbook.",
			Tool: vibesell.ToolSavePlaybook}}}
	}
	for _, s := range steps {
		if s.Tool() != "" {
			return s
		}
	}
	if len(steps) > 0 {
		return steps[0]
	}
	return NextStep{Why: "The offer and the playbook are saved. The next part is the sending setup: the addresses the emails go out from."}
}

// savedNext is the next step after the offer or the playbook is saved:
// the other one while it is missing, else the whole context, which knows
// what every feature needs next.
func savedNext(hasOffer, hasPlaybook bool) NextStep {
	if hasOffer && hasPlaybook {
		return NextStep{Why: "The offer and the playbook are saved.", Next: []vibesell.Next{{Do: "See what the workspace needs next.", Tool: vibesell.ToolGetWorkspaceContext}}}
	}
	return nextStep(Snapshot{Offer: ifSaved[Offer](hasOffer), Playbook: ifSaved[Playbook](hasPlaybook)}, nil)
}

func ifSaved[T any](saved bool) *T {
	if saved {
		return new(T)
	}
	return nil
}

// QueueOptional queues on b a read of at most one row, scanned by scan,
// and returns what gives it once the batch has run: nil when there is no
// such row, and an error when the batch never got to it (it failed, or
// has not been sent). Queued last, it also tells that every read queued
// before it ran.
func QueueOptional[T any](b *pgx.Batch, scan func(pgx.Row) (T, error), sql string, args ...any) func() (*T, error) {
	var (
		found *T
		read  bool
	)
	b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
		v, err := scan(row)
		if errors.Is(err, pgx.ErrNoRows) {
			read = true
			return nil
		}
		if err != nil {
			return err
		}
		found, read = &v, true
		return nil
	})
	return func() (*T, error) {
		if !read {
			return nil, errors.New("read before its batch was sent, or after the batch failed")
		}
		return found, nil
	}
}
