package sending

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/approvals"
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
	ReadyToSendOn *time.Time // every ordered address at full volume; nil when nothing is ordered or some are not
	Capacity      *Capacity  // the picks against the confirmed sizing; nil without either
	Sandbox       bool       // some domain is the sandbox's: nothing of it is real
	NextTool      string     // "" when the setup needs nothing more
	NextStep      string
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
	if st.NextTool != vibesell.ToolOrderSendingSetup && st.MailboxCount(MailboxPlanned) == 0 {
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
	if st.NextTool != vibesell.ToolOrderSendingSetup && st.MailboxCount(MailboxPlanned) == 0 {
		return st
	}
	for _, a := range open {
		if a.Action == vibesell.ToolOrderSendingSetup && !a.Final() {
			st.NextTool, st.NextStep = pendingOrderStep(a)
			if c := st.Capacity; c != nil && c.Off() {
				st.NextStep += " Meanwhile, the picks and the confirmed sizing disagree: " + c.Sentence()
			}
			return st
		}
	}
	return st
}

// pendingOrderStep is the next step while an order approval is open: the
// person decides it, where they can.
func pendingOrderStep(a approvals.Approval) (string, string) {
	if a.Status != approvals.Pending {
		return vibesell.ToolListPendingApprovals, fmt.Sprintf("The order was approved (approval %s) and is being placed now. Call %s with approval %s to follow it; get_sending_setup shows the domains once they are ordered.",
			a.ID, vibesell.ToolListPendingApprovals, a.ID)
	}
	return vibesell.ToolListPendingApprovals, fmt.Sprintf("Do not order again: the order is waiting for the person's decision (approval %s, %q). Only a signed-in person can approve it, in the web app at %s ; they may also reject it here with %s. Nothing is ordered until then; %s shows whether it was decided.",
		a.ID, a.Summary, a.AppURL, vibesell.ToolDecideApproval, vibesell.ToolListPendingApprovals)
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
	st.NextTool, st.NextStep = s.next(st, now)
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

// next says what the setup needs next: the tool to call and why. Once the
// picks are ordered, a setup that sends less than the confirmed sizing
// needs says so in every step: the setup falls short whatever its state.
func (s *Service) next(st Setup, now time.Time) (string, string) {
	tool, why := s.nextStep(st, now)
	if c := st.Capacity; c != nil && c.Short() && st.MailboxCount(MailboxPlanned) == 0 && st.DomainCount(DomainChosen) == 0 {
		why += " " + c.Sentence()
	}
	return tool, why
}

func (s *Service) nextStep(st Setup, now time.Time) (string, string) {
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
		return vibesell.ToolChooseSendingSource, fmt.Sprintf("Call %s to ask the person where their emails should go out from: already-warmed addresses (sooner) or new addresses under their brand.", vibesell.ToolChooseSendingSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceOther:
		return vibesell.ToolContactSupport, fmt.Sprintf("The person described their own arrangement (%q). Call %s so someone can help, or %s again if they now prefer one of the two options.", st.Source.Text, vibesell.ToolContactSupport, vibesell.ToolChooseSendingSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceAlreadyWarmed:
		return vibesell.ToolProposeWarmedDomains, fmt.Sprintf("Call %s to offer the person domains from the warmed shelf.", vibesell.ToolProposeWarmedDomains)
	case len(st.Domains) == 0:
		return vibesell.ToolProposeDomains, fmt.Sprintf("Call %s to offer the person lookalike domains of their brand.", vibesell.ToolProposeDomains)
	case withoutAddresses > 0:
		return vibesell.ToolProposeEmail, fmt.Sprintf("Call %s with the senders' names to choose the addresses on the picked %s.", vibesell.ToolProposeEmail, pickWord(withoutAddresses == 1, "domain", "domains"))
	case states[MailboxPlanned] > 0 && st.Sizing == nil:
		return vibesell.ToolSizeSendingCapacity, fmt.Sprintf("Before ordering, confirm the sizing: call %s with the person's daily volume (or lead count and deadline), then %s once they agree. Then call %s to ask for approval of the order.", vibesell.ToolSizeSendingCapacity, vibesell.ToolConfirmSizing, vibesell.ToolOrderSendingSetup)
	case states[MailboxPlanned] > 0 && st.Capacity != nil && st.Capacity.Off():
		fix := vibesell.ToolProposeDomains
		if st.Source != nil && st.Source.Source == SourceAlreadyWarmed {
			fix = vibesell.ToolProposeWarmedDomains
		}
		return fix, fmt.Sprintf("The picks and the confirmed sizing disagree. %s Call %s with count %d (then %s) to match the sizing, or %s to size again; call %s only if the person wants to order as it is.",
			st.Capacity.Sentence(), fix, st.Capacity.WantDomains, vibesell.ToolProposeEmail, vibesell.ToolConfirmSizing, vibesell.ToolOrderSendingSetup)
	case states[MailboxPlanned] > 0:
		return vibesell.ToolOrderSendingSetup, fmt.Sprintf("Call %s to ask for approval to set up the %s planned. Nothing is registered or billed until a person approves.", vibesell.ToolOrderSendingSetup, pickWord(states[MailboxPlanned] == 1, "address", "addresses"))
	case states[MailboxReady] > 0:
		return vibesell.ToolStartWarmup, fmt.Sprintf("%s ready to warm up; the warmup starts by itself within %d minutes. Call %s to start it at once.",
			vibesell.Plural(states[MailboxReady], "mailbox is", "mailboxes are"), int(WarmupSweepEvery.Minutes()), vibesell.ToolStartWarmup)
	case states[MailboxPreparing] > 0 && states[MailboxWarming] == 0 && states[MailboxWarm] == 0:
		preparing := addressesCounted(states[MailboxPreparing])
		first := "the first are ready"
		if preparing.n == 1 {
			first = "it is ready"
		}
		return vibesell.ToolStartWarmup, fmt.Sprintf("%s %s being prepared; %s on %s, and %s warmup starts by itself that day. Nothing needs calling meanwhile (%s starts a warmup straight away once %s %s ready).",
			capital(preparing.The()), preparing.Are(), first, vibesell.FormatDate(*firstReady), preparing.pick("its", "their"), vibesell.ToolStartWarmup, preparing.They(), preparing.Are())
	case states[MailboxPreparing] > 0 || states[MailboxWarming] > 0:
		when := ""
		if st.ReadyToSendOn != nil {
			when = fmt.Sprintf(" The setup can send at full volume from %s.", vibesell.FormatDate(*st.ReadyToSendOn))
		}
		all := addressesCounted(len(st.Mailboxes))
		return "", fmt.Sprintf("Nothing to do for the sending setup right now: %s %s being prepared or warming up.", all.The(), all.Are()) + when + " Meanwhile, the campaign can be prepared."
	}
	return "", "The sending setup is ready: every address can send at full volume."
}
