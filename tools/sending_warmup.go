package tools

import (
	"context"
	"fmt"
	"strings"

	"vibesell"
	"vibesell/auth"
	"vibesell/sending"
	"vibesell/toolkit"
)

// start_warmup

type warmupOutput struct {
	Kind           string         `json:"kind" enum:"warmup"`
	Provider       string         `json:"provider" jsonschema:"who runs the warmup; sandbox means nothing real is sent"`
	Started        []string       `json:"started" jsonschema:"addresses whose warmup started now"`
	AlreadyWarming []string       `json:"alreadyWarming" jsonschema:"addresses already warming up, left as they are"`
	NotReady       []notReadyData `json:"notReady" jsonschema:"addresses still being prepared, with the day they are ready"`
	Prewarmed      []string       `json:"prewarmed" jsonschema:"addresses that came already warmed up and need no warmup"`
	StartedOn      *string        `json:"startedOn" jsonschema:"the day warmup started for those started now, YYYY-MM-DD; null when none started now"`
	FullVolumeOn   *string        `json:"fullVolumeOn" jsonschema:"the first day those started now can send at full volume, YYYY-MM-DD; null when none started now"`
	Ramp           []rampDayData  `json:"ramp" jsonschema:"the warmup emails per day for those started now; null when none started now"`
	// The lists above carry at most warmupListed addresses each: a
	// workspace may have up to 1,000 mailboxes. These count them all.
	StartedTotal        int `json:"startedTotal" jsonschema:"how many mailboxes started now (started names the first 20; get_sending_setup lists every mailbox)"`
	AlreadyWarmingTotal int `json:"alreadyWarmingTotal" jsonschema:"how many mailboxes were already warming up (alreadyWarming names the first 20)"`
	NotReadyTotal       int `json:"notReadyTotal" jsonschema:"how many mailboxes are still being prepared (notReady names the first 20)"`
	PrewarmedTotal      int `json:"prewarmedTotal" jsonschema:"how many mailboxes came already warmed up (prewarmed names the first 20)"`
}

// warmupListed is how many addresses of each kind start_warmup names.
const warmupListed = 20

type notReadyData struct {
	Address string `json:"address" jsonschema:"the address"`
	ReadyOn string `json:"readyOn" jsonschema:"the day it is ready, YYYY-MM-DD (UTC)"`
}

type rampDayData struct {
	Day        int    `json:"day" jsonschema:"the day of the warmup, 1 first"`
	Date       string `json:"date" jsonschema:"that day, YYYY-MM-DD"`
	PerMailbox int    `json:"perMailbox" jsonschema:"warmup emails each mailbox sends that day"`
	Total      int    `json:"total" jsonschema:"warmup emails across the mailboxes started"`
}

func startWarmup(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[struct{}, warmupOutput]{
		Name:        vibesell.ToolStartWarmup,
		Title:       "Start the warmup",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.Yes},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeAct},
		Description: `
			Starts warming up every ordered mailbox that is ready and not warming yet: for the next
			[[.WarmupDays]] days each sends a few warmup emails a day, [[.RampStart]] on day 1 and
			[[.RampStep]] more each day up to [[.PerMailbox]] (the confirmed sizing's emails per
			mailbox), so mailbox providers learn to trust it before campaigns go out. The result
			lists the mailboxes started, already warming, still being prepared (with their ready
			day) and already warm, and the ramp (warmup emails per day). Calling it again starts
			only mailboxes that became ready since; it never restarts a warmup. The warmup also
			starts by itself within [[.WarmupSweepMinutes]] minutes of a mailbox being ready, so
			calling this only starts it sooner. It costs nothing extra (warmup is included in the
			mailbox price). It refuses when no mailbox is ordered or none is ready yet, and says
			when they will be. Already-warmed mailboxes need no warmup. To see progress use
			get_sending_setup.
		`,
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[warmupOutput], error) {
			w, err := d.Sending.StartWarmup(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[warmupOutput]{}, err
			}
			out := warmupOutput{Kind: "warmup", Provider: w.Provider, Started: []string{}, AlreadyWarming: []string{}, NotReady: []notReadyData{}, Prewarmed: []string{},
				StartedOn: dayPtr(w.StartedOn), FullVolumeOn: dayPtr(w.FullVolumeOn)}
			out.StartedTotal, out.AlreadyWarmingTotal, out.NotReadyTotal, out.PrewarmedTotal = len(w.Started), len(w.AlreadyWarming), len(w.NotReady), len(w.Prewarmed)
			for _, m := range w.Started[:min(len(w.Started), warmupListed)] {
				out.Started = append(out.Started, m.Address)
			}
			for _, m := range w.AlreadyWarming[:min(len(w.AlreadyWarming), warmupListed)] {
				out.AlreadyWarming = append(out.AlreadyWarming, m.Address)
			}
			for _, m := range w.NotReady[:min(len(w.NotReady), warmupListed)] {
				out.NotReady = append(out.NotReady, notReadyData{Address: m.Address, ReadyOn: dayText(*m.ReadyAt)})
			}
			for _, m := range w.Prewarmed[:min(len(w.Prewarmed), warmupListed)] {
				out.Prewarmed = append(out.Prewarmed, m.Address)
			}
			if w.Ramp != nil {
				out.Ramp = []rampDayData{}
				for _, r := range w.Ramp {
					out.Ramp = append(out.Ramp, rampDayData{Day: r.Day, Date: dayText(r.Date), PerMailbox: r.PerMailbox, Total: r.Total})
				}
			}
			return toolkit.Result[warmupOutput]{Markdown: warmupMarkdown(w, out), Data: out}, nil
		},
	})
}

// addressesText names the addresses listed and counts the others of
// total.
func addressesText(listed []string, total int) string {
	if total > len(listed) {
		return strings.Join(listed, ", ") + fmt.Sprintf(" and %s more (get_sending_setup lists every mailbox)", vibesell.Count(total-len(listed)))
	}
	return strings.Join(listed, ", ")
}

func warmupMarkdown(w sending.Warmup, out warmupOutput) string {
	var b strings.Builder
	if len(out.Started) > 0 {
		fmt.Fprintf(&b, "## Warmup started for %s\n\n%s\n\nThe ramp, per mailbox:\n", vibesell.Plural(out.StartedTotal, "mailbox", "mailboxes"), addressesText(out.Started, out.StartedTotal))
		for _, r := range w.Ramp {
			fmt.Fprintf(&b, "- Day %d, %s: %d warmup emails each (%d in all)\n", r.Day, formatDate(r.Date), r.PerMailbox, r.Total)
		}
		fmt.Fprintf(&b, "\nThey can send campaigns at full volume from %s.\n", formatDate(*w.FullVolumeOn))
	} else {
		b.WriteString("## No new warmup started\n\nNo mailbox became ready since the last start.\n")
	}
	if len(out.AlreadyWarming) > 0 {
		fmt.Fprintf(&b, "\nAlready warming up, left as they are: %s.\n", addressesText(out.AlreadyWarming, out.AlreadyWarmingTotal))
	}
	for _, m := range w.NotReady[:min(len(w.NotReady), warmupListed)] {
		fmt.Fprintf(&b, "\n%s is still being prepared; it is ready on %s. Call start_warmup again on or after that day.\n", m.Address, formatDate(*m.ReadyAt))
	}
	if len(w.NotReady) > warmupListed {
		fmt.Fprintf(&b, "\n%s more are still being prepared; get_sending_setup shows when each is ready.\n", vibesell.Count(len(w.NotReady)-warmupListed))
	}
	if len(out.Prewarmed) > 0 {
		fmt.Fprintf(&b, "\nAlready warm, no warmup needed: %s.\n", addressesText(out.Prewarmed, out.PrewarmedTotal))
	}
	if w.Provider == sending.SandboxName {
		b.WriteString("\nSandbox: no real warmup emails are sent.\n")
	}
	b.WriteString("\nNext: get_sending_setup shows the warmup's progress day by day.\n")
	return b.String()
}
