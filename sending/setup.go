package sending

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
	"vibesell/workspace"
)

// DomainStatus is a domain of the setup as it stands now.
type DomainStatus struct {
	Domain
	State DomainState
	// Checks are its DNS records and whether each is published; nil until
	// the domain is ordered.
	Checks []RecordCheck
	// CheckedWith is what answered the DNS checks: "dns" or "sandbox"; ""
	// when not checked.
	CheckedWith string
}

// MailboxStatus is a mailbox of the setup as it stands now.
type MailboxStatus struct {
	MailboxOrder
	State        MailboxState
	WarmupDay    *int       // warming: which day of the warmup today is
	WarmupDone   *int       // warming: how far the warmup is, 0 to 100 (percent)
	TodayVolume  *int       // warming: warmup emails it sends today
	FullVolumeOn *time.Time // when it can send at full volume; nil until ordered
}

// Setup is the workspace's sending setup, read fresh.
type Setup struct {
	Source        *Source
	Sizing        *Sizing
	Domains       []DomainStatus
	Mailboxes     []MailboxStatus
	WarmupDays    int
	ReadyToSendOn *time.Time         // every ordered address at full volume; nil when nothing is ordered or some are not
	Capacity      *Capacity          // the picks against the confirmed sizing; nil without either
	Sandbox       bool               // some domain is the sandbox's: nothing of it is real
	Next          workspace.NextStep // no step when the setup needs nothing more
}

// DomainCount is how many domains are in state now.
func (st Setup) DomainCount(state DomainState) int {
	n := 0
	for _, d := range st.Domains {
		if d.State == state {
			n++
		}
	}
	return n
}

// MailboxCount is how many mailboxes are in state now.
func (st Setup) MailboxCount(state MailboxState) int {
	n := 0
	for _, m := range st.Mailboxes {
		if m.State == state {
			n++
		}
	}
	return n
}

// Standing says what the setup holds now, for the assistant: nothing yet,
// what is picked and not ordered, and what is ordered with where it
// stands.
func (st Setup) Standing() string {
	if len(st.Domains) == 0 && len(st.Mailboxes) == 0 {
		return "Nothing is set up, reserved or billed yet."
	}
	var ordered, picked []string
	for _, state := range []DomainState{DomainPreparing, DomainReady} {
		if n := st.DomainCount(state); n > 0 {
			ordered = append(ordered, domainsCounted(n).Count()+" "+domainStateWords[state])
		}
	}
	for _, state := range []MailboxState{MailboxPreparing, MailboxReady, MailboxWarming, MailboxWarm} {
		if n := st.MailboxCount(state); n > 0 {
			ordered = append(ordered, mailboxesCounted(n).Count()+" "+mailboxStateWords[state])
		}
	}
	if n := st.DomainCount(DomainChosen); n > 0 {
		picked = append(picked, domainsCounted(n).Count())
	}
	if n := st.MailboxCount(MailboxPlanned); n > 0 {
		picked = append(picked, mailboxesCounted(n).Count())
	}
	var text []string
	if len(ordered) > 0 {
		text = append(text, fmt.Sprintf("Already ordered: %s; this answer changes nothing that is ordered.", vibesell.JoinAnd(ordered)))
	}
	if len(picked) > 0 {
		text = append(text, fmt.Sprintf("Picked and not ordered yet: %s; nothing is registered or billed until an order is approved.", vibesell.JoinAnd(picked)))
	}
	return strings.Join(text, " ")
}

// The states as the assistant's sentences say them after a count.
var (
	domainStateWords  = map[DomainState]string{DomainPreparing: "being prepared", DomainReady: "ready"}
	mailboxStateWords = map[MailboxState]string{MailboxPreparing: "being prepared", MailboxReady: "ready to warm up", MailboxWarming: "warming up", MailboxWarm: "warm"}
)

// GetSetup reads the sending setup, works out each domain's and mailbox's
// state from the clock, and checks the DNS records of ordered domains (with
// the resolver; sandbox domains with the sandbox's records).
func (s *Service) GetSetup(ctx context.Context, ws uuid.UUID) (Setup, error) {
	st, err := s.read(ctx, ws)
	if err != nil {
		return Setup{}, err
	}
	now := s.clock.Now()
	var wg sync.WaitGroup
	for i := range st.Domains {
		d := &st.Domains[i]
		if d.Status != DomainOrdered || len(d.Records) == 0 {
			continue
		}
		var r Resolver = s.resolver
		d.CheckedWith = "dns"
		if d.Provider == SandboxName {
			r = sandboxResolver{records: d.Records, published: !now.Before(*d.ReadyAt)}
			d.CheckedWith = SandboxName
		}
		wg.Go(func() { d.Checks = CheckRecords(ctx, r, d.Records) })
	}
	wg.Wait()
	return s.withPendingOrder(ctx, ws, st)
}

// withPendingOrder is st with its next step while an order of it waits
// for a decision: read only when the setup has something to order, so a
// setup past its order reads nothing more.
func (s *Service) withPendingOrder(ctx context.Context, ws uuid.UUID, st Setup) (Setup, error) {
	if st.Next.Tool() != vibesell.ToolOrderSendingSetup && st.MailboxCount(MailboxPlanned) == 0 {
		return st, nil
	}
	pending, err := s.PendingOrder(ctx, ws)
	if err != nil || pending == nil {
		return st, err
	}
	return st.WithOpen([]approvals.Approval{*pending}), nil
}

// WithOpen returns the setup with its next step while the approvals in
// open wait for a decision (or are being carried out): an order of this
// setup among them is the step, where the person decides it. Any other
// approval (a campaign's, the plan's) is not the setup's to name: the
// setup's own step stands.
func (st Setup) WithOpen(open []approvals.Approval) Setup {
	if st.Next.Tool() != vibesell.ToolOrderSendingSetup && st.MailboxCount(MailboxPlanned) == 0 {
		return st
	}
	for _, a := range open {
		if a.Action == vibesell.ToolOrderSendingSetup && !a.Final() {
			st.Next = pendingOrderStep(a)
			if c := st.Capacity; c != nil && c.Off() {
				st.Next.Why += " Meanwhile, the picks and the confirmed sizing disagree: " + c.Sentence()
			}
			return st
		}
	}
	return st
}

// pendingOrderSentence says, for a person, where an open order's approval
// stands.
func pendingOrderSentence(a approvals.Approval) string {
	if a.Status != approvals.Pending {
		return fmt.Sprintf("The order was approved (approval %s) and is being placed now.", a.ID)
	}
	return fmt.Sprintf("An order was asked for already: the order is waiting for the person's decision (approval %s, %q), in the web app at %s.", a.ID, a.Summary, vibesell.PersonOpens(a.AppURL))
}

// pendingOrderStep is the next step while an order approval is open: the
// person decides it, where they can.
func pendingOrderStep(a approvals.Approval) workspace.NextStep {
	follow := stepFollowOrder.With("approval", a.ID)
	if a.Status != approvals.Pending {
		return workspace.NextStep{Why: fmt.Sprintf("The order was approved (approval %s) and is being placed now; the sending setup shows the domains once they are ordered.", a.ID),
			Next: []vibesell.Next{follow, stepSeeSetup}}
	}
	return workspace.NextStep{Why: fmt.Sprintf("Do not order again: the order is waiting for the person's decision (approval %s, %q). Only a signed-in person can approve it, in the web app at %s . Nothing is ordered until then.",
		a.ID, a.Summary, a.AppURL), Next: []vibesell.Next{
		follow, stepRejectOrder.With("approval", a.ID, "decision", "reject")}}
}

// Summary reads the sending setup without checking DNS: what the workspace
// context shows.
func (s *Service) Summary(ctx context.Context, ws uuid.UUID) (Setup, error) {
	return s.read(ctx, ws)
}

// QueueSummary queues on b the reads of workspace ws's sending setup: the
// same queries, and the same scanning, as [Service.Summary]. Once b has
// been sent and closed without error, done works out the setup from them
// and the clock, as Summary does.
func (s *Service) QueueSummary(b *pgx.Batch, ws uuid.UUID) (done func() (Setup, error)) {
	rows := s.QueueRows(b, ws)
	return func() (Setup, error) {
		r, err := rows()
		if err != nil {
			return Setup{}, err
		}
		return s.SetupFrom(r), nil
	}
}

// Rows are the rows a workspace's [Setup] is worked out from, as read at
// one moment. They do not age: [Service.SetupFrom] works out the states
// that follow from time when it is called, so Rows can be kept and worked
// out again later. They are read-only.
type Rows struct{ r setupRows }

// QueueRows queues on b the reads of workspace ws's setup rows, the ones
// [Service.Summary] reads. Once b has been sent and closed without error,
// done returns them.
func (s *Service) QueueRows(b *pgx.Batch, ws uuid.UUID) (done func() (Rows, error)) {
	var (
		r        setupRows
		complete bool // the last read ran: every read before it did too
	)
	b.Queue(sourceSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		r.source, err = scanSource(row)
		return err
	})
	b.Queue(sizingSQL, ws).QueryRow(func(row pgx.Row) (err error) {
		r.sizing, err = s.scanSizing(row)
		return err
	})
	b.Queue(domainsSQL, ws).Query(func(rows pgx.Rows) (err error) {
		r.domains, err = collectDomains(rows, nil)
		return err
	})
	b.Queue(mailboxesSQL, ws).Query(func(rows pgx.Rows) (err error) {
		r.mailboxes, err = collectMailboxes(rows, nil)
		complete = err == nil
		return err
	})
	return func() (Rows, error) {
		if !complete {
			return Rows{}, errors.New("sending setup: read before its batch was sent, or after the batch failed")
		}
		return Rows{r}, nil
	}
}

// SetupFrom works out the setup from rows at the clock's now, as
// [Service.Summary] does (without checking DNS).
func (s *Service) SetupFrom(rows Rows) Setup {
	return s.setup(rows.r, s.clock.Now())
}

// read reads the sending setup in one round trip.
func (s *Service) read(ctx context.Context, ws uuid.UUID) (Setup, error) {
	b := &pgx.Batch{}
	done := s.QueueSummary(b, ws)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return Setup{}, fmt.Errorf("read sending setup: %w", err)
	}
	return done()
}

// setupRows are the rows a [Setup] is worked out from.
type setupRows struct {
	source    *Source
	sizing    *Sizing
	domains   []Domain
	mailboxes []MailboxOrder
}

// setup works out the setup at now from its rows: each domain's and
// mailbox's state, the warmup, the day it can send and the next step.
func (s *Service) setup(r setupRows, now time.Time) Setup {
	// Until a vendor is wired in, mailboxes are the sandbox's: the whole
	// setup is, from its first answer on.
	st := Setup{Source: r.source, Sizing: r.sizing, WarmupDays: s.cfg.WarmupDays, Sandbox: s.Sandbox()}
	for _, d := range r.domains {
		st.Domains = append(st.Domains, DomainStatus{Domain: d, State: d.State(now)})
		st.Sandbox = st.Sandbox || d.Provider == SandboxName
	}
	per := s.cfg.EmailsPerMailbox
	if r.sizing != nil {
		per = r.sizing.EmailsPerMailbox
	}
	allOrdered := len(r.mailboxes) > 0
	var ready time.Time
	for _, m := range r.mailboxes {
		ms := MailboxStatus{MailboxOrder: m, State: m.State(now, s.cfg)}
		if m.Status == MailboxPlanned {
			allOrdered = false
		} else {
			full := s.mailboxFullVolume(m, now)
			ms.FullVolumeOn = &full
			if full.After(ready) {
				ready = full
			}
		}
		if ms.State == MailboxWarming {
			d := int(day(now).Sub(day(*m.WarmupStartedAt)).Hours()/24) + 1
			v := min(s.cfg.RampStart+(d-1)*s.cfg.RampStep, per)
			done := min(100, 100*(d-1)/s.cfg.WarmupDays)
			ms.WarmupDay, ms.TodayVolume, ms.WarmupDone = &d, &v, &done
		}
		st.Mailboxes = append(st.Mailboxes, ms)
	}
	if allOrdered {
		st.ReadyToSendOn = &ready
	}
	st.Capacity = capacityOf(r.sizing, r.domains, r.mailboxes, s.cfg)
	st.Next = s.next(st, now)
	return st
}

// mailboxFullVolume is the first business day m can send at full volume:
// on handover for a prewarmed one; when its warmup ends otherwise,
// counting from today (or its ready day) when warmup has not started.
func (s *Service) mailboxFullVolume(m MailboxOrder, now time.Time) time.Time {
	switch {
	case m.SandboxReadyAt != nil:
		return day(*m.SandboxReadyAt)
	case m.Prewarmed:
		return s.cfg.onOrAfterBusinessDay(*m.ReadyAt)
	case m.WarmupStartedAt != nil:
		return s.cfg.onOrAfterBusinessDay(m.warmupEnds(s.cfg))
	}
	start := day(now)
	if m.ReadyAt.After(now) {
		start = day(*m.ReadyAt)
	}
	return s.cfg.onOrAfterBusinessDay(start.AddDate(0, 0, s.cfg.WarmupDays))
}

// next says what the setup needs next: why, and the steps that do it.
// Once the picks are ordered, a setup that sends less than the confirmed
// sizing needs says so in every step: the setup falls short whatever its
// state.
func (s *Service) next(st Setup, now time.Time) workspace.NextStep {
	step := s.nextStep(st, now)
	if c := st.Capacity; c != nil && c.Short() && st.MailboxCount(MailboxPlanned) == 0 && st.DomainCount(DomainChosen) == 0 {
		step.Why += " " + c.Sentence()
	}
	return step
}

// stepsSizingThenOrder confirm the sizing, then ask for the order.
var stepsSizingThenOrder = append(slices.Clip(stepsSizing), stepOrder)

func (s *Service) nextStep(st Setup, now time.Time) workspace.NextStep {
	step := func(why string, next ...vibesell.Next) workspace.NextStep {
		return workspace.NextStep{Why: why, Next: next}
	}
	states := map[MailboxState]int{}
	var firstReady *time.Time
	for _, m := range st.Mailboxes {
		states[m.State]++
		if m.State == MailboxPreparing && (firstReady == nil || m.ReadyAt.Before(*firstReady)) {
			firstReady = m.ReadyAt
		}
	}
	withoutAddresses := 0
	for _, d := range st.Domains {
		if d.Status != DomainChosen {
			continue
		}
		has := false
		for _, m := range st.Mailboxes {
			has = has || m.Domain == d.Name
		}
		if !has {
			withoutAddresses++
		}
	}
	switch {
	case len(st.Domains) == 0 && st.Source == nil:
		return step("Nothing is chosen yet.", stepChooseSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceOther:
		return step(fmt.Sprintf("The person described their own arrangement (%q).", st.Source.Text),
			stepSupport, stepChooseSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceAlreadyWarmed:
		return step("The person chose already-warmed addresses.", stepPickWarmed)
	case len(st.Domains) == 0:
		return step("The person chose new addresses under their brand.", stepPickNew)
	case withoutAddresses > 0:
		return step(fmt.Sprintf("The picked %s no addresses yet.", pickWord(withoutAddresses == 1, "domain has", "domains have")), stepAddresses)
	case states[MailboxPlanned] > 0 && st.Sizing == nil:
		return step("Before ordering, confirm the sizing.", stepsSizingThenOrder...)
	case states[MailboxPlanned] > 0 && st.Capacity != nil && st.Capacity.Off():
		fix := stepPickNew
		if st.Source != nil && st.Source.Source == SourceAlreadyWarmed {
			fix = stepPickWarmed
		}
		return step("The picks and the confirmed sizing disagree. "+st.Capacity.Sentence()+
			" Pick domains to match the sizing and choose their addresses, or confirm the sizing again; order only if the person wants to order as it is.",
			fix.With("count", st.Capacity.WantDomains), stepAddresses, stepConfirmSizing, stepOrder)
	case states[MailboxPlanned] > 0:
		return step(fmt.Sprintf("The %s planned; nothing is registered or billed until a person approves the order.", pickWord(states[MailboxPlanned] == 1, "address is", "addresses are")), stepOrder)
	case states[MailboxReady] > 0:
		return step(fmt.Sprintf("%s ready to warm up; the warmup starts by itself within %d minutes.",
			vibesell.Plural(states[MailboxReady], "mailbox is", "mailboxes are"), int(WarmupSweepEvery.Minutes())),
			stepStartWarmup)
	case states[MailboxPreparing] > 0 && states[MailboxWarming] == 0 && states[MailboxWarm] == 0:
		preparing := addressesCounted(states[MailboxPreparing])
		first := "the first are ready"
		if preparing.n == 1 {
			first = "it is ready"
		}
		return step(fmt.Sprintf("%s %s being prepared; %s on %s, and %s warmup starts by itself that day. Nothing needs doing meanwhile (or start the warmup straight away once %s %s ready).",
			capital(preparing.The()), preparing.Are(), first, vibesell.FormatDate(*firstReady), preparing.pick("its", "their"), preparing.They(), preparing.Are()),
			stepStartWarmup)
	case states[MailboxPreparing] > 0 || states[MailboxWarming] > 0:
		when := ""
		if st.ReadyToSendOn != nil {
			when = fmt.Sprintf(" The setup can send at full volume from %s.", vibesell.FormatDate(*st.ReadyToSendOn))
		}
		all := addressesCounted(len(st.Mailboxes))
		return step(fmt.Sprintf("Nothing to do for the sending setup right now: %s %s being prepared or warming up.", all.The(), all.Are()) + when + " Meanwhile, the campaign can be prepared.")
	}
	return step("The sending setup is ready: every address can send at full volume.")
}
