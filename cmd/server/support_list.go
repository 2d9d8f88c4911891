package main

import (
	"fmt"
	"strings"

	"vibesell"
	"vibesell/workspace"
)

// ticketList writes tickets for the operator: one block per ticket, the
// message indented under its heading.
func ticketList(tickets []workspace.Ticket) string {
	if len(tickets) == 0 {
		return "No support tickets.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, newest first:\n", vibesell.Plural(len(tickets), "support ticket", "support tickets"))
	for _, t := range tickets {
		reply := "no reply address given"
		if t.ReplyTo != "" {
			reply = "answer to " + t.ReplyTo
		}
		fmt.Fprintf(&b, "\n%s  %s  workspace %s  %s  %s  (%s)\n", t.Reference(), t.Status, t.Workspace, t.Topic, vibesell.FormatTime(t.CreatedAt), reply)
		for line := range strings.SplitSeq(t.Message, "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	return b.String()
}
