package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
)

// Zone is a time zone a person can pick: its IANA name (what is stored)
// and how a person finds it, by its city and its offset now.
type Zone struct {
	Name  string // Europe/Paris
	Label string // Paris (Europe), UTC+01:00
}

// TimeZones lists the zones a person picks from, by name, with their
// offsets at now (a zone's offset moves with daylight saving time).
func TimeZones(now time.Time) []Zone {
	out := make([]Zone, 0, len(zoneNames))
	for _, name := range zoneNames {
		loc, err := time.LoadLocation(name)
		if err != nil {
			continue
		}
		out = append(out, Zone{Name: name, Label: zoneLabel(name, now.In(loc))})
	}
	return out
}

func zoneLabel(name string, at time.Time) string {
	utc := utcOffset(at)
	region, city, ok := strings.Cut(name, "/")
	if !ok {
		return utc
	}
	if i := strings.LastIndex(city, "/"); i >= 0 {
		city = city[i+1:]
	}
	return fmt.Sprintf("%s (%s), %s", strings.ReplaceAll(city, "_", " "), region, utc)
}

// utcOffset writes a moment's offset from UTC: "UTC−08:00".
func utcOffset(at time.Time) string {
	_, offset := at.Zone()
	sign := "+"
	if offset < 0 {
		sign, offset = "−", -offset
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, offset/3600, offset%3600/60)
}

// zoneAliases are the names people say for a zone that the tz database
// names by a city.
var zoneAliases = map[string]string{
	"pacific": "America/Los_Angeles", "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles",
	"mountain": "America/Denver", "mst": "America/Denver", "mdt": "America/Denver",
	"central": "America/Chicago", "cst": "America/Chicago", "cdt": "America/Chicago",
	"eastern": "America/New_York", "est": "America/New_York", "edt": "America/New_York",
	"gmt": "Europe/London", "bst": "Europe/London", "uk": "Europe/London",
	"cet": "Europe/Paris", "cest": "Europe/Paris", "ist": "Asia/Kolkata", "india": "Asia/Kolkata",
	"jst": "Asia/Tokyo", "aest": "Australia/Sydney", "sgt": "Asia/Singapore",
}

// unknownZone refuses a time zone name that does not load, with the zones
// the person may have meant: "Pacific" names no zone, but it is surely
// America/Los_Angeles.
func unknownZone(given string, now time.Time) error {
	suggestions := zoneSuggestions(given, now, 3)
	msg := fmt.Sprintf("The time zone %q is not one we know: a time zone is named by a region and a city, such as Europe/Paris or America/New_York.", given)
	if len(suggestions) > 0 {
		msg = fmt.Sprintf("The time zone %q is not one we know. Did you mean %s? A time zone is named by a region and a city, such as Europe/Paris.", given, vibesell.JoinOr(suggestions))
	}
	return vibesell.Errorf(vibesell.EINVALID, "%s", msg)
}

// zoneSuggestions are up to n zones whose alias, name or city matches
// what was given, each with its label.
func zoneSuggestions(given string, now time.Time, n int) []string {
	key := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(given, "_", " ")), " "))
	if key == "" {
		return nil
	}
	var names []string
	if alias, ok := zoneAliases[key]; ok {
		// What people call it is what they meant.
		names = []string{alias}
	} else {
		for _, name := range zoneNames {
			if len(names) == n {
				break
			}
			if strings.Contains(strings.ToLower(strings.ReplaceAll(name, "_", " ")), key) {
				names = append(names, name)
			}
		}
	}
	out := make([]string, 0, len(names))
	for _, name := range names {
		if loc, err := time.LoadLocation(name); err == nil {
			out = append(out, fmt.Sprintf("%s (%s)", name, utcOffset(now.In(loc))))
		}
	}
	return out
}

// Zone returns the workspace's time zone, the one its settings set (UTC
// until they do). Each replica keeps it while the workspace's context
// stamp stands, so the texts of a call read it without a round trip.
func (s *Service) Zone(ctx context.Context, ws uuid.UUID) (*time.Location, error) {
	// Made on first use: a replica that never tells a zone keeps none.
	s.zonesOnce.Do(func() { s.zones = NewContextCache(s, 10_000, readZone) })
	return s.zones.Read(ctx, ws)
}

// zoneSQL reads a workspace's time zone: no row until its settings set one.
const zoneSQL = `SELECT time_zone FROM workspace_senders WHERE workspace_id = $1`

func readZone(b *pgx.Batch, ws uuid.UUID) func() (*time.Location, error) {
	loc, readErr := time.UTC, error(nil)
	b.Queue(zoneSQL, ws).QueryRow(func(row pgx.Row) error {
		var name string
		err := row.Scan(&name)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err != nil:
			readErr = fmt.Errorf("read time zone of workspace %s: %w", ws, err)
			return readErr
		}
		loc = Sender{TimeZone: name}.Location()
		return nil
	})
	return func() (*time.Location, error) { return loc, readErr }
}
