package sending

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Timeline is when addresses ordered on a day can send.
type Timeline struct {
	ReadyOn      time.Time // the addresses are prepared (day, UTC)
	FullVolumeOn time.Time // the first business day they can send at full volume
}

// timeline returns when addresses of source ordered at now are ready and
// at full volume: already-warmed ones on handover; new ones after their
// preparation and WarmupDays of warmup, on the next business day.
func (s *Service) timeline(now time.Time, source SourceKind) Timeline {
	if source == SourceAlreadyWarmed {
		r := day(s.cfg.addBusinessDays(now, s.cfg.WarmedPrepBusinessDays))
		return Timeline{ReadyOn: r, FullVolumeOn: r}
	}
	r := day(s.cfg.addBusinessDays(now, s.cfg.PrepBusinessDays))
	return Timeline{ReadyOn: r, FullVolumeOn: s.cfg.onOrAfterBusinessDay(r.AddDate(0, 0, s.cfg.WarmupDays))}
}

// SizingRequest is what to size for: a daily volume, or a lead count to
// reach by a deadline.
type SizingRequest struct {
	DailyVolume        int        // emails a day at full volume; 0 when sizing from leads
	LeadCount          int        // people to email; 0 when sizing from a daily volume
	Deadline           string     // the last day to reach them by, YYYY-MM-DD; "" when not given
	EmailsPerLead      int        // emails each lead gets (the sequence length); 0 means 3
	Source             SourceKind // already_warmed or own_names; "" means the chosen source, else own_names
	EmailsPerMailbox   int        // 0 means the configured default
	MailboxesPerDomain int        // 0 means the configured default
}

// DefaultEmailsPerLead is the sequence length assumed when none is given:
// a first email and two follow-ups.
const DefaultEmailsPerLead = 3

// Sizing is the capacity a sending volume needs, and what it costs.
type Sizing struct {
	Source             SourceKind
	DailyVolume        int // emails per business day at full volume
	LeadCount          *int
	Deadline           *time.Time
	EmailsPerLead      *int
	TotalEmails        *int
	SendingDays        *int // business days from full volume to the deadline, both included
	EmailsPerMailbox   int
	MailboxesPerDomain int
	Mailboxes          int
	Domains            int
	MailboxPrice       vibesell.Money // per mailbox per month
	DomainPrice        vibesell.Money // per domain per year
	MonthlyCost        vibesell.Money // the mailboxes, per month
	YearlyCost         vibesell.Money // the domains, per year
	ReadyOn            time.Time
	FullVolumeOn       time.Time
	ConfirmedAt        *time.Time // nil until confirmed
	Sandbox            bool       // the prices are sandbox amounts: nothing is charged
}

// Size works out the mailboxes and domains a volume needs, their cost, and
// the first day full volume is possible if ordered today. It records
// nothing.
//
// Refusals (EINVALID): neither or both of a daily volume and a lead count;
// a lead count without a deadline or the other way round; a deadline too
// early to reach at full volume.
func (s *Service) Size(ctx context.Context, ws uuid.UUID, req SizingRequest) (Sizing, error) {
	now := s.clock.Now()
	if req.Source == "" {
		src, err := s.source(ctx, s.db, ws)
		if err != nil {
			return Sizing{}, err
		}
		req.Source = SourceOwnNames
		if src != nil && src.Source == SourceAlreadyWarmed {
			req.Source = SourceAlreadyWarmed
		}
	}
	z, err := s.size(now, req)
	z.Sandbox = s.Sandbox()
	return z, err
}

func (s *Service) size(now time.Time, req SizingRequest) (Sizing, error) {
	var deadline time.Time
	if req.Deadline != "" {
		t, err := time.Parse(time.DateOnly, req.Deadline)
		if err != nil {
			return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "deadline %q is not a day of the calendar; give it as YYYY-MM-DD, like 2027-02-26.", req.Deadline)
		}
		deadline = t
	}
	switch {
	case req.EmailsPerLead > 0 && req.LeadCount == 0:
		return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "emailsPerLead goes with leadCount; with dailyVolume leave it out.")
	case req.DailyVolume > 0 && (req.LeadCount > 0 || !deadline.IsZero()):
		return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "Give either dailyVolume (emails a day), or leadCount with deadline, not both.")
	case req.DailyVolume == 0 && req.LeadCount == 0 && deadline.IsZero():
		return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "Give either dailyVolume (emails a day, for example 300), or leadCount with deadline (for example 3000 leads by 2027-01-29).")
	case req.DailyVolume == 0 && req.LeadCount == 0:
		return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "A deadline needs leadCount: how many people to reach by then.")
	case req.DailyVolume == 0 && deadline.IsZero():
		return Sizing{}, vibesell.Errorf(vibesell.EINVALID, "A lead count needs deadline: the day (YYYY-MM-DD) to reach them all by.")
	}
	z := Sizing{
		Source:             req.Source,
		EmailsPerMailbox:   req.EmailsPerMailbox,
		MailboxesPerDomain: req.MailboxesPerDomain,
		DailyVolume:        req.DailyVolume,
	}
	if z.EmailsPerMailbox <= 0 {
		z.EmailsPerMailbox = s.cfg.EmailsPerMailbox
	}
	if z.MailboxesPerDomain <= 0 {
		z.MailboxesPerDomain = s.cfg.MailboxesPerDomain
	}
	t := s.timeline(now, req.Source)
	z.ReadyOn, z.FullVolumeOn = t.ReadyOn, t.FullVolumeOn
	if req.LeadCount > 0 {
		perLead := req.EmailsPerLead
		if perLead <= 0 {
			perLead = DefaultEmailsPerLead
		}
		deadline = day(deadline)
		days := s.cfg.businessDaysBetween(t.FullVolumeOn, deadline)
		if days == 0 {
			alt := ""
			if req.Source == SourceOwnNames {
				alt = fmt.Sprintf(" Already-warmed addresses could start on %s.", vibesell.FormatDate(s.timeline(now, SourceAlreadyWarmed).FullVolumeOn))
			}
			return Sizing{}, vibesell.Errorf(vibesell.EINVALID,
				"The deadline %s is too early: ordered today, %s can send at full volume from %s. Choose a later deadline.%s",
				vibesell.FormatDate(deadline), sourcePhrase(req.Source), vibesell.FormatDate(t.FullVolumeOn), alt)
		}
		total := req.LeadCount * perLead
		z.DailyVolume = (total + days - 1) / days
		z.LeadCount, z.Deadline, z.EmailsPerLead, z.TotalEmails, z.SendingDays = &req.LeadCount, &deadline, &perLead, &total, &days
	}
	z.Mailboxes = (z.DailyVolume + z.EmailsPerMailbox - 1) / z.EmailsPerMailbox
	z.Domains = (z.Mailboxes + z.MailboxesPerDomain - 1) / z.MailboxesPerDomain
	z.MailboxPrice = s.money(s.cfg.MailboxPrice)
	if req.Source == SourceAlreadyWarmed {
		z.MailboxPrice = s.money(s.cfg.WarmedMailboxPrice)
	}
	z.DomainPrice = s.money(s.cfg.DomainPrice())
	z.MonthlyCost = z.MailboxPrice.Times(z.Mailboxes)
	z.YearlyCost = z.DomainPrice.Times(z.Domains)
	return z, nil
}

// Layout says how the sizing's mailboxes sit on its domains, agreeing with
// the counts: "2 mailboxes sending 30 emails a day each, on 1 domain";
// "5 mailboxes sending 30 emails a day each, on 2 domains (3 and 2)".
// The split is the one the domain picks then carry.
func (z Sizing) Layout() string {
	each := " each"
	if z.Mailboxes == 1 {
		each = ""
	}
	text := fmt.Sprintf("%s sending %s a day%s, on %s", mailboxesCounted(z.Mailboxes).Count(), vibesell.Plural(z.EmailsPerMailbox, "email", "emails"),
		each, domainsCounted(z.Domains).Count())
	if z.Domains > 1 && z.Source == SourceOwnNames {
		split := newDomainMailboxes(&z, z.Domains, Config{})
		parts := make([]string, len(split))
		for i, n := range split {
			parts[i] = strconv.Itoa(n)
		}
		text += " (" + vibesell.JoinAnd(parts) + ")"
	} else if z.Domains > 1 {
		text += fmt.Sprintf(" (%d per domain)", z.MailboxesPerDomain)
	}
	return text
}

func sourcePhrase(source SourceKind) string {
	if source == SourceAlreadyWarmed {
		return "already-warmed addresses"
	}
	return "new addresses under your brand"
}

// ConfirmSizing sizes as [Service.Size] does and records the result as the
// workspace's sizing, replacing the one confirmed before.
func (s *Service) ConfirmSizing(ctx context.Context, ws uuid.UUID, req SizingRequest) (Sizing, error) {
	z, err := s.Size(ctx, ws, req)
	if err != nil {
		return Sizing{}, err
	}
	now := s.clock.Now()
	_, err = s.db.Exec(ctx, `
		INSERT INTO sending_sizings (workspace_id, source, daily_volume, lead_count, deadline, emails_per_lead,
		    emails_per_mailbox, mailboxes_per_domain, mailboxes, domains, currency, monthly_cents, yearly_cents,
		    ready_on, full_volume_on, confirmed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		ON CONFLICT (workspace_id) DO UPDATE SET
		    source = EXCLUDED.source, daily_volume = EXCLUDED.daily_volume, lead_count = EXCLUDED.lead_count,
		    deadline = EXCLUDED.deadline, emails_per_lead = EXCLUDED.emails_per_lead,
		    emails_per_mailbox = EXCLUDED.emails_per_mailbox, mailboxes_per_domain = EXCLUDED.mailboxes_per_domain,
		    mailboxes = EXCLUDED.mailboxes, domains = EXCLUDED.domains, currency = EXCLUDED.currency,
		    monthly_cents = EXCLUDED.monthly_cents, yearly_cents = EXCLUDED.yearly_cents,
		    ready_on = EXCLUDED.ready_on, full_volume_on = EXCLUDED.full_volume_on, confirmed_at = EXCLUDED.confirmed_at`,
		ws, z.Source, z.DailyVolume, z.LeadCount, z.Deadline, z.EmailsPerLead, z.EmailsPerMailbox, z.MailboxesPerDomain,
		z.Mailboxes, z.Domains, z.MonthlyCost.Currency, z.MonthlyCost.Minor, z.YearlyCost.Minor, z.ReadyOn, z.FullVolumeOn, now)
	if err != nil {
		return Sizing{}, fmt.Errorf("record sizing: %w", err)
	}
	z.ConfirmedAt = &now
	return z, nil
}

// sizingSQL reads the sizing workspace $1 confirmed, as scanSizing scans it.
const sizingSQL = `
	SELECT source, daily_volume, lead_count, deadline, emails_per_lead, emails_per_mailbox, mailboxes_per_domain,
	       mailboxes, domains, currency, monthly_cents, yearly_cents, ready_on, full_volume_on, confirmed_at
	FROM sending_sizings WHERE workspace_id = $1`

// ConfirmedSizing returns the workspace's confirmed sizing, or nil.
func (s *Service) ConfirmedSizing(ctx context.Context, ws uuid.UUID) (*Sizing, error) {
	return s.scanSizing(s.db.QueryRow(ctx, sizingSQL, ws))
}

// scanSizing reads the row of sizingSQL: nil when there is none.
func (s *Service) scanSizing(row pgx.Row) (*Sizing, error) {
	var z Sizing
	var currency string
	var monthly, yearly int64
	var confirmed time.Time
	err := row.Scan(
		&z.Source, &z.DailyVolume, &z.LeadCount, &z.Deadline, &z.EmailsPerLead, &z.EmailsPerMailbox, &z.MailboxesPerDomain,
		&z.Mailboxes, &z.Domains, &currency, &monthly, &yearly, &z.ReadyOn, &z.FullVolumeOn, &confirmed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sizing: %w", err)
	}
	z.MonthlyCost, z.YearlyCost = vibesell.NewMoney(monthly, currency), vibesell.NewMoney(yearly, currency)
	if z.Mailboxes > 0 {
		z.MailboxPrice = vibesell.NewMoney(monthly/int64(z.Mailboxes), currency)
	}
	if z.Domains > 0 {
		z.DomainPrice = vibesell.NewMoney(yearly/int64(z.Domains), currency)
	}
	if z.LeadCount != nil && z.EmailsPerLead != nil {
		total := *z.LeadCount * *z.EmailsPerLead
		days := s.cfg.businessDaysBetween(z.FullVolumeOn, *z.Deadline)
		z.TotalEmails, z.SendingDays = &total, &days
	}
	z.ConfirmedAt = &confirmed
	return &z, nil
}
