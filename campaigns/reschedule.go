package campaigns

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// ScheduleChange is a new schedule for a campaign: its window, days and
// daily cap per mailbox (whether a reply stops the whole company stays as
// it was).
type ScheduleChange struct {
	WindowStart, WindowEnd int // minutes after local midnight
	Days                   []time.Weekday
	DailyCap               int
}

// ChangeSchedule sets the schedule of a staged or paused campaign. It
// sends nothing: a staged campaign's launch approval, asked before, no
// longer matches it (the launch asks again, with the new schedule), and a
// paused one sends on it once a person approves its resume. A running
// campaign is stopped first, so that no schedule changes under emails
// going out without an approval. Refusals: EINVALID for a window, days or
// cap out of range; ECONFLICT for a running or finished campaign;
// ENOTFOUND.
func (s *Service) ChangeSchedule(ctx context.Context, ws uuid.UUID, id string, ch ScheduleChange) (Campaign, error) {
	if ch.WindowEnd <= ch.WindowStart || ch.WindowStart < 0 || ch.WindowEnd > 24*60 {
		return Campaign{}, vibesell.Errorf(vibesell.EINVALID, "The sending window %s to %s is empty: give a start before its end, anything from 00:00 to 24:00.",
			TimeOfDay(ch.WindowStart), TimeOfDay(ch.WindowEnd))
	}
	if len(ch.Days) == 0 {
		return Campaign{}, vibesell.Errorf(vibesell.EINVALID, "Choose at least one day of the week to send on.")
	}
	all, err := s.mailboxes.Mailboxes(ctx, ws)
	if err != nil {
		return Campaign{}, fmt.Errorf("change schedule: %w", err)
	}
	days := make([]int16, len(ch.Days))
	for i, d := range ch.Days {
		days[i] = int16(isoDay(d))
	}
	var out Campaign
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		c, err := s.campaign(ctx, tx, ws, id, true)
		if err != nil {
			return err
		}
		if c.Status != Staged && c.Status != Paused {
			return vibesell.Errorf(vibesell.ECONFLICT, "Campaign %q is %s: only a campaign not launched yet or paused can change its schedule. Stop it first, change the schedule, then resume it.",
				c.Name, strings.ToLower(StatusLabels.Of(c.Status)))
		}
		// The most a mailbox of the campaign sends a day once warm: a
		// higher cap burns the sending domains.
		full := 0
		for _, a := range c.Mailboxes {
			for _, m := range all {
				if m.Address == a && (full == 0 || m.FullVolume < full) {
					full = m.FullVolume
				}
			}
		}
		if ch.DailyCap < 1 || full > 0 && ch.DailyCap > full {
			return vibesell.Errorf(vibesell.EINVALID, "A daily cap of %d emails per mailbox is out of range: it can be 1 to %d, the most these mailboxes send a day once warm.",
				ch.DailyCap, max(full, 1))
		}
		if _, err := tx.Exec(ctx, `UPDATE campaigns SET window_start = $3, window_end = $4, days = $5, daily_cap = $6 WHERE workspace_id = $1 AND id = $2`,
			ws, id, ch.WindowStart, ch.WindowEnd, days, ch.DailyCap); err != nil {
			return fmt.Errorf("change the schedule of campaign %s: %w", id, err)
		}
		c.Schedule.WindowStart, c.Schedule.WindowEnd, c.Schedule.Days, c.Schedule.DailyCap = ch.WindowStart, ch.WindowEnd, ch.Days, ch.DailyCap
		out = c
		return nil
	})
	if err != nil {
		return Campaign{}, refusalOrWrap(err, "change schedule")
	}
	return out, nil
}
