package sending

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// DomainStatus is a domain of the setup as it stands now.
type DomainStatus struct {
	Domain
	State string // chosen, preparing or ready
	// Checks are its DNS records and whether each is published; nil until
	// the domain is ordered.
	Checks []RecordCheck
	// CheckedWith is what answered the DNS checks: "dns" or "sandbox"; ""
	// when not checked.
	CheckedWith string
}

// MailboxStatus is a mailbox of the setup as it stands now.
type MailboxStatus struct {
	Mailbox
	State        string     // planned, preparing, ready, warming or warm
	WarmupDay    *int       // warming: which day of the warmup today is
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
	NextTool      string     // "" when the setup needs nothing more
	NextStep      string
}

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
		if d.Status != "ordered" || len(d.Records) == 0 {
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
	return st, nil
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
		r.sizing, err = scanSizing(row)
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
	mailboxes []Mailbox
}

// setup works out the setup at now from its rows: each domain's and
// mailbox's state, the warmup, the day it can send and the next step.
func (s *Service) setup(r setupRows, now time.Time) Setup {
	st := Setup{Source: r.source, Sizing: r.sizing, WarmupDays: s.cfg.WarmupDays}
	for _, d := range r.domains {
		st.Domains = append(st.Domains, DomainStatus{Domain: d, State: d.State(now)})
	}
	per := s.cfg.EmailsPerMailbox
	if r.sizing != nil {
		per = r.sizing.EmailsPerMailbox
	}
	allOrdered := len(r.mailboxes) > 0
	var ready time.Time
	for _, m := range r.mailboxes {
		ms := MailboxStatus{Mailbox: m, State: m.State(now, s.cfg)}
		if m.Status == "planned" {
			allOrdered = false
		} else {
			full := s.mailboxFullVolume(m, now)
			ms.FullVolumeOn = &full
			if full.After(ready) {
				ready = full
			}
		}
		if ms.State == "warming" {
			d := int(day(now).Sub(day(*m.WarmupStartedAt)).Hours()/24) + 1
			v := min(s.cfg.RampStart+(d-1)*s.cfg.RampStep, per)
			ms.WarmupDay, ms.TodayVolume = &d, &v
		}
		st.Mailboxes = append(st.Mailboxes, ms)
	}
	if allOrdered {
		st.ReadyToSendOn = &ready
	}
	st.NextTool, st.NextStep = s.next(st, now)
	return st
}

// mailboxFullVolume is the first business day m can send at full volume:
// on handover for a prewarmed one; when its warmup ends otherwise,
// counting from today (or its ready day) when warmup has not started.
func (s *Service) mailboxFullVolume(m Mailbox, now time.Time) time.Time {
	switch {
	case m.Prewarmed:
		return onOrAfterBusinessDay(*m.ReadyAt)
	case m.WarmupStartedAt != nil:
		return onOrAfterBusinessDay(m.warmupEnds(s.cfg))
	}
	start := day(now)
	if m.ReadyAt.After(now) {
		start = day(*m.ReadyAt)
	}
	return onOrAfterBusinessDay(start.AddDate(0, 0, s.cfg.WarmupDays))
}

// next says what the setup needs next: the tool to call and why.
func (s *Service) next(st Setup, now time.Time) (string, string) {
	states := map[string]int{}
	var firstReady *time.Time
	for _, m := range st.Mailboxes {
		states[m.State]++
		if m.State == "preparing" && (firstReady == nil || m.ReadyAt.Before(*firstReady)) {
			firstReady = m.ReadyAt
		}
	}
	withoutAddresses := 0
	for _, d := range st.Domains {
		if d.Status != "chosen" {
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
		return ToolChooseSource, fmt.Sprintf("Call %s to ask the person where their emails should go out from: already-warmed addresses (sooner) or new addresses under their brand.", ToolChooseSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceOther:
		return ToolSupport, fmt.Sprintf("The person described their own arrangement (%q). Call %s so someone can help, or %s again if they now prefer one of the two options.", st.Source.Text, ToolSupport, ToolChooseSource)
	case len(st.Domains) == 0 && st.Source.Source == SourceAlreadyWarmed:
		return ToolProposeWarmed, fmt.Sprintf("Call %s to offer the person domains from the warmed shelf.", ToolProposeWarmed)
	case len(st.Domains) == 0:
		return ToolProposeDomains, fmt.Sprintf("Call %s to offer the person lookalike domains of their brand.", ToolProposeDomains)
	case withoutAddresses > 0:
		return ToolProposeEmail, fmt.Sprintf("Call %s with the senders' names to choose the addresses on the picked %s.", ToolProposeEmail, pickWord(withoutAddresses == 1, "domain", "domains"))
	case states["planned"] > 0 && st.Sizing == nil:
		return ToolSize, fmt.Sprintf("Before ordering, confirm the sizing: call %s with the person's daily volume (or lead count and deadline), then %s once they agree. Then call %s to ask for approval of the order.", ToolSize, ToolConfirmSizing, ToolOrder)
	case states["planned"] > 0:
		return ToolOrder, fmt.Sprintf("Call %s to ask for approval to set up the %s planned. Nothing is registered or billed until a person approves.", ToolOrder, pickWord(states["planned"] == 1, "address", "addresses"))
	case states["ready"] > 0:
		return ToolStartWarmup, fmt.Sprintf("%s ready to warm up. Call %s to start the warmup.", count(states["ready"], "mailbox is", "mailboxes are"), ToolStartWarmup)
	case states["preparing"] > 0 && states["warming"] == 0 && states["warm"] == 0:
		return ToolStartWarmup, fmt.Sprintf("The addresses are being prepared; the first are ready on %s. Call %s on or after that day.", formatDate(*firstReady), ToolStartWarmup)
	case states["preparing"] > 0 || states["warming"] > 0:
		when := ""
		if st.ReadyToSendOn != nil {
			when = fmt.Sprintf(" The setup can send at full volume from %s.", formatDate(*st.ReadyToSendOn))
		}
		return "", "Nothing to do for the sending setup right now: the addresses are being prepared or warming up." + when + " Meanwhile, the campaign can be prepared."
	}
	return "", "The sending setup is ready: every address can send at full volume."
}
