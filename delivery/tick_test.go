package delivery_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"vibesell"
)

// queryCounter counts the queries made while it is on.
type queryCounter struct {
	on atomic.Bool
	n  atomic.Int64
}

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	if c.on.Load() {
		c.n.Add(1)
	}
	return ctx
}

func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// tickQueries is how many queries a tick makes with n running campaigns
// of one workspace, each with its own mailbox (each campaign takes the
// workspace's leads as they are when staged: two more each time), once
// their first emails are out and nothing is due.
func tickQueries(t *testing.T, n int) int64 {
	counter := &queryCounter{}
	b := engineSetup(t, engineOptions{noGap: true, tracer: counter})
	for i := range n {
		b.launch(t, campaignSpec{
			leads: []vibesell.Lead{
				{Email: fmt.Sprintf("ana%d@prospect%d.test", i, i), FirstName: "Ana"},
				{Email: fmt.Sprintf("ben%d@prospect%d.test", i, i), FirstName: "Ben"},
			},
			mailboxes: []string{fmt.Sprintf("sam%d@getacme.test", i)},
			dailyCap:  20,
		})
	}
	b.Clock.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	if res := b.tick(t); res.Sent < 2*n {
		t.Fatalf("first tick sent %d, want every lead's first email (%d at least)", res.Sent, 2*n)
	}
	b.Clock.Set(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	counter.on.Store(true)
	res := b.tick(t)
	counter.on.Store(false)
	if res.Sent != 0 {
		t.Fatalf("second tick sent %d, want nothing due", res.Sent)
	}
	return counter.n.Load()
}

// The reads of a tick do not grow with the running campaigns: one
// campaign or five, the same queries.
func TestTickQueriesDoNotGrowWithCampaigns(t *testing.T) {
	one, five := tickQueries(t, 1), tickQueries(t, 5)
	t.Logf("queries of a tick: %d with 1 running campaign, %d with 5", one, five)
	if one != five {
		t.Errorf("a tick made %d queries with 1 running campaign and %d with 5: want the same", one, five)
	}
}
