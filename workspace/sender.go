package workspace

import (
	"context"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // time zones resolve the same on every machine

	"github.com/google/uuid"

	"vibesell"
	"vibesell/store"
)

// Sender is who a workspace's emails come from.
type Sender struct {
	// PostalAddress is the postal address every cold email carries (the
	// law asks for one); "" until the person gives it.
	PostalAddress string
	// Name is the sender name used when a mailbox has none; "" until given.
	Name string
	// TimeZone is the workspace's time zone (IANA name): dates are shown
	// in it, and leads whose own zone is unknown are written to in it.
	// Default UTC.
	TimeZone string
}

// Location returns the sender's time zone as a location (UTC when the
// stored name no longer loads).
func (s Sender) Location() *time.Location {
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// SenderChange sets the fields given; nil leaves a field as it is.
type SenderChange struct {
	PostalAddress *string
	Name          *string
	TimeZone      *string
}

// Sender returns the workspace's sender settings; a workspace that never
// set them has none, in UTC.
func (s *Service) Sender(ctx context.Context, ws uuid.UUID) (Sender, error) {
	return readSender(ctx, s.db, ws)
}

func readSender(ctx context.Context, db store.DBTX, ws uuid.UUID) (Sender, error) {
	out := Sender{TimeZone: "UTC"}
	var postal, name *string
	err := db.QueryRow(ctx, `SELECT postal_address, sender_name, time_zone FROM workspace_senders WHERE workspace_id = $1`, ws).
		Scan(&postal, &name, &out.TimeZone)
	if isNoRows(err) {
		return out, nil
	}
	if err != nil {
		return Sender{}, fmt.Errorf("read sender of workspace %s: %w", ws, err)
	}
	if postal != nil {
		out.PostalAddress = *postal
	}
	if name != nil {
		out.Name = *name
	}
	return out, nil
}

// SetSender saves the fields of c that are set and returns the settings
// as they stand. Refusals: EINVALID for an address shorter than 10 or
// longer than 500 characters, an empty or over-long name, or a time zone
// that is not an IANA name.
func (s *Service) SetSender(ctx context.Context, ws uuid.UUID, c SenderChange, now time.Time) (Sender, error) {
	if err := c.check(now); err != nil {
		return Sender{}, err
	}
	if err := c.save(ctx, s.db, ws, now); err != nil {
		return Sender{}, err
	}
	return s.Sender(ctx, ws)
}

// IsZero reports whether c changes nothing.
func (c SenderChange) IsZero() bool {
	return c.PostalAddress == nil && c.Name == nil && c.TimeZone == nil
}

// check trims the fields that are set and refuses those that are not
// valid, naming the argument they come in.
func (c *SenderChange) check(now time.Time) error {
	trim := func(v *string) *string {
		if v == nil {
			return nil
		}
		t := strings.TrimSpace(*v)
		return &t
	}
	c.PostalAddress, c.Name, c.TimeZone = trim(c.PostalAddress), trim(c.Name), trim(c.TimeZone)
	if v := c.PostalAddress; v != nil {
		if n := len([]rune(*v)); n < 10 || n > 500 {
			return vibesell.Errorf(vibesell.EINVALID,
				"postalAddress needs the full postal address the law asks every cold email to carry (10 to 500 characters), for example \"Acme GmbH, Torstraße 1, 10119 Berlin, Germany\".")
		}
	}
	if v := c.Name; v != nil {
		if n := len([]rune(*v)); n < 1 || n > 100 {
			return vibesell.Errorf(vibesell.EINVALID, "senderName needs the name people see the emails come from (1 to 100 characters), for example \"Sam Lee\".")
		}
	}
	if v := c.TimeZone; v != nil {
		if _, err := time.LoadLocation(*v); err != nil || *v == "" || *v == "Local" {
			return unknownZone(*v, now)
		}
	}
	return nil
}

// save writes the checked fields that are set, on db.
func (c SenderChange) save(ctx context.Context, db store.DBTX, ws uuid.UUID, now time.Time) error {
	_, err := db.Exec(ctx, `INSERT INTO workspace_senders (workspace_id, postal_address, sender_name, time_zone, updated_at)
		VALUES ($1, $2, $3, coalesce($4, 'UTC'), $5)
		ON CONFLICT (workspace_id) DO UPDATE SET
			postal_address = coalesce($2, workspace_senders.postal_address),
			sender_name = coalesce($3, workspace_senders.sender_name),
			time_zone = coalesce($4, workspace_senders.time_zone),
			updated_at = $5`, ws, c.PostalAddress, c.Name, c.TimeZone, now)
	if err != nil {
		return fmt.Errorf("save sender of workspace %s: %w", ws, err)
	}
	return nil
}

// Identity is who a workspace's emails are from, as a recipient knows
// it: the company (the offer's, else the workspace's name) and the
// postal address the emails carry ("" until given).
type Identity struct {
	Company       string
	PostalAddress string
}

// Identity returns the workspace's [Identity]. Errors: ENOTFOUND for a
// workspace that does not exist.
func (s *Service) Identity(ctx context.Context, ws uuid.UUID) (Identity, error) {
	var out Identity
	var postal *string
	err := s.db.QueryRow(ctx, `SELECT coalesce(o.company_name, w.name), s.postal_address FROM workspaces w
		LEFT JOIN offers o ON o.workspace_id = w.id LEFT JOIN workspace_senders s ON s.workspace_id = w.id
		WHERE w.id = $1`, ws).Scan(&out.Company, &postal)
	if isNoRows(err) {
		return Identity{}, errNoWorkspace()
	}
	if err != nil {
		return Identity{}, fmt.Errorf("read identity of workspace %s: %w", ws, err)
	}
	if postal != nil {
		out.PostalAddress = *postal
	}
	return out, nil
}
