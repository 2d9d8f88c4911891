package replies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/workspace"
)

// WaitingReplies are the replies waiting for an answer ([waitingForAnswer]),
// the replies' share of the workspace context: their count and the
// oldest few.
type WaitingReplies struct {
	Count  int
	Oldest []WaitingReply
}

// WaitingReply is one reply waiting for an answer, as the context names it.
type WaitingReply struct {
	MessageID  string
	From       string
	ReceivedAt time.Time
}

// namedWaitingReplies is how many waiting replies the next step names.
const namedWaitingReplies = 3

// ContextPart is the replies' part of the workspace context: while a
// person who wants a conversation waits for an answer, answering them is
// the workspace's most pressing step (after a decision already asked
// for, which the approvals' part names first).
func (a *Answers) ContextPart() workspace.Part {
	return workspace.NewPart(a.queueWaiting, waitingStep)
}

func (a *Answers) queueWaiting(b *pgx.Batch, ws uuid.UUID) func() (WaitingReplies, error) {
	var (
		w        WaitingReplies
		complete bool
	)
	b.Queue(`SELECT count(*) OVER (), r.message_id, r.from_address, r.received_at FROM mail_replies r
		WHERE r.workspace_id = $1 AND `+waitingForAnswer+`
		ORDER BY r.received_at, r.message_id LIMIT $2`, ws, namedWaitingReplies).Query(func(rows pgx.Rows) error {
		var r WaitingReply
		_, err := pgx.ForEachRow(rows, []any{&w.Count, &r.MessageID, &r.From, &r.ReceivedAt}, func() error {
			w.Oldest = append(w.Oldest, r)
			return nil
		})
		complete = err == nil
		return err
	})
	return func() (WaitingReplies, error) {
		if !complete {
			return WaitingReplies{}, errors.New("waiting replies: read before their batch was sent, or after the batch failed")
		}
		return w, nil
	}
}

// waitingStep names the replies waiting for an answer, with their count.
func waitingStep(ctx context.Context, w WaitingReplies) (WaitingReplies, *workspace.NextStep) {
	if w.Count == 0 {
		return w, nil
	}
	var b strings.Builder
	if w.Count == 1 {
		b.WriteString("A reply is waiting for an answer: ")
	} else {
		fmt.Fprintf(&b, "%s are waiting for an answer, the oldest first: ", vibesell.Plural(w.Count, "reply", "replies"))
	}
	each := make([]string, len(w.Oldest))
	for i, r := range w.Oldest {
		each[i] = fmt.Sprintf("from %s, received %s (messageId %s)", clipText(r.From, 120), vibesell.FormatTimeFor(ctx, r.ReceivedAt), clipText(r.MessageID, 200))
	}
	b.WriteString(strings.Join(each, "; "))
	if w.Count > len(w.Oldest) {
		fmt.Fprintf(&b, "; and %d more", w.Count-len(w.Oldest))
	}
	b.WriteString(". Each wants a conversation (a meeting, a time, a question, interest); the person approves each answer before it is sent.")
	return w, &workspace.NextStep{Why: b.String(), Pressing: true, Next: []vibesell.Next{
		vibesell.Call("Read the replies waiting for an answer.", vibesell.ToolListReplies, "classification", "interested"),
		{Do: "Draft each answer with the person, then propose it for their approval.", Tool: vibesell.ToolAnswerReply},
	}}
}
