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
}

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
		Name: vibesell.ToolStartWarmup,
		Handler: func(ctx context.Context, p auth.Principal, _ struct{}) (toolkit.Result[warmupOutput], error) {
			w, err := d.Sending.StartWarmup(ctx, p.WorkspaceID)
			if err != nil {
				return toolkit.Result[warmupOutput]{}, err
			}
			out := warmupOutput{Kind: "warmup", Provider: w.Provider, Started: []string{}, AlreadyWarming: []string{}, NotReady: []notReadyData{}, Prewarmed: []string{},
				StartedOn: dayPtr(w.StartedOn), FullVolumeOn: dayPtr(w.FullVolumeOn)}
			for _, m := range w.Started {
				out.Started = append(out.Started, m.Address)
			}
			for _, m := range w.AlreadyWarming {
				out.AlreadyWarming = append(out.AlreadyWarming, m.Address)
			}
			for _, m := range w.NotReady {
				out.NotReady = append(out.NotReady, notReadyData{Address: m.Address, ReadyOn: dayText(*m.ReadyAt)})
			}
			for _, m := range w.Prewarmed {
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

func warmupMarkdown(w sending.Warmup, out warmupOutput) string {
	var b strings.Builder
	if len(out.Started) > 0 {
		fmt.Fprintf(&b, "## Warmup started for %s\n\n%s\n\nThe ramp, per mailbox:\n", vibesell.Plural(len(out.Started), "mailbox", "mailboxes"), strings.Join(out.Started, ", "))
		for _, r := range w.Ramp {
			fmt.Fprintf(&b, "- Day %d, %s: %d warmup emails each (%d in all)\n", r.Day, formatDate(r.Date), r.PerMailbox, r.Total)
		}
		fmt.Fprintf(&b, "\nThey can send campaigns at full volume from %s.\n", formatDate(*w.FullVolumeOn))
	} else {
		b.WriteString("## No new warmup started\n\nNo mailbox became ready since the last start.\n")
	}
	if len(out.AlreadyWarming) > 0 {
		fmt.Fprintf(&b, "\nAlready warming up, left as they are: %s.\n", strings.Join(out.AlreadyWarming, ", "))
	}
	for _, m := range w.NotReady {
		fmt.Fprintf(&b, "\n%s is still being prepared; it is ready on %s. Call start_warmup again on or after that day.\n", m.Address, formatDate(*m.ReadyAt))
	}
	if len(out.Prewarmed) > 0 {
		fmt.Fprintf(&b, "\nAlready warm, no warmup needed: %s.\n", strings.Join(out.Prewarmed, ", "))
	}
	if w.Provider == sending.SandboxName {
		b.WriteString("\nSandbox: no real warmup emails are sent.\n")
	}
	b.WriteString("\nNext: get_sending_setup shows the warmup's progress day by day.\n")
	return b.String()
}
