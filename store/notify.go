package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Notification channels. Triggers (migration 00047) notify them in the
// transaction of the change, so a notification arrives only once the
// change is committed.
const (
	// TokensChannel carries the hex SHA-256 of a token revoked or deleted,
	// or "*" when every token may have changed (a workspace renamed or
	// deleted).
	TokensChannel = "vibesell_tokens"
	// SessionsChannel carries the id of an MCP session ended or deleted.
	SessionsChannel = "vibesell_sessions"
	// ContextChannel carries the id of a workspace whose context stamp
	// moved.
	ContextChannel = "vibesell_context"
	// GrantsChannel carries the id of an OAuth grant revoked, or "*" when
	// any grant's answer may have changed (migration 00150).
	GrantsChannel = "vibesell_grants"
)

// Notifications keeps one connection to PostgreSQL that LISTENs on the
// channels above and hands each notification to the subscribers of its
// channel. It is what lets each replica keep in memory what a request
// needs (a token's workspace, a session's state, a context stamp) and
// still see a change made by any replica within a second.
//
// A cache may serve from memory only while [Notifications.Fresh] holds:
// a heartbeat the connection notified itself less than a second ago has
// come back, so every change committed before it has been delivered.
// When the connection is lost or stops answering, Fresh turns false
// within a second and the caches read the database again; on reconnecting,
// every subscriber's reset runs first (what was kept may have missed a
// notification), so nothing stale is ever served.
type Notifications struct {
	connConfig *pgx.ConnConfig
	logger     *slog.Logger

	mu          sync.Mutex
	subscribers map[string][]func(payload string)
	resets      []func()
	listening   bool
	confirmedAt time.Time

	// generations move per channel: a cache minds only its own.
	generations map[string]*atomic.Uint64
}

var channels = []string{TokensChannel, SessionsChannel, ContextChannel, GrantsChannel}

// heartbeatChannel carries the listening connection's own heartbeats.
const heartbeatChannel = "vibesell_heartbeat"

// ListenerName is the application_name of the listening connection, as
// pg_stat_activity shows it.
const ListenerName = "vibesell notifications"

// freshFor bounds how old the last heartbeat back may be for caches to
// serve from memory: the time within which a change is seen by every
// replica. A heartbeat goes out pingEvery.
const (
	freshFor  = time.Second
	pingEvery = 250 * time.Millisecond
)

// NewNotifications returns Notifications that connect as pool does. Run
// starts listening.
func NewNotifications(pool *pgxpool.Pool, logger *slog.Logger) *Notifications {
	cfg := pool.Config().ConnConfig.Copy()
	cfg.Tracer = nil // the pool's tracing counts requests' round trips, not this connection's
	cfg.RuntimeParams["application_name"] = ListenerName
	n := &Notifications{connConfig: cfg, logger: logger, subscribers: map[string][]func(string){}, generations: map[string]*atomic.Uint64{}}
	for _, ch := range channels {
		n.generations[ch] = &atomic.Uint64{}
	}
	return n
}

// Subscribe calls fn with the payload of every notification on channel,
// and reset whenever what was kept may have missed one (reconnecting).
// Both run on the listening goroutine and must be quick.
func (n *Notifications) Subscribe(channel string, fn func(payload string), reset func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.subscribers[channel] = append(n.subscribers[channel], fn)
	n.resets = append(n.resets, reset)
}

// Fresh reports whether every change committed more than a second ago
// has been notified to the subscribers. A nil Notifications is never
// fresh.
func (n *Notifications) Fresh() bool {
	if n == nil {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.listening && time.Since(n.confirmedAt) < freshFor
}

// Generation moves with every notification on channel and every reset. A
// cache reads it before reading the database and keeps what it read only
// if it has not moved since: a notification handled during the read may
// be of a change the read did not see.
func (n *Notifications) Generation(channel string) uint64 {
	if n == nil {
		return 0
	}
	g, ok := n.generations[channel]
	if !ok {
		panic("store: no notification channel " + channel)
	}
	return g.Load()
}

// Run listens until ctx ends, reconnecting after a lost connection (after
// 0.5 s, then up to 10 s between attempts).
func (n *Notifications) Run(ctx context.Context) {
	wait := 500 * time.Millisecond
	for ctx.Err() == nil {
		began := time.Now()
		err := n.listen(ctx)
		n.mu.Lock()
		wasListening := n.listening
		n.listening = false
		n.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if wasListening {
			n.logger.Warn("lost the database notifications; reading the database for every request until they are back", "err", err)
		}
		if time.Since(began) > time.Minute {
			wait = 500 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

func (n *Notifications) listen(ctx context.Context) error {
	connectCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	conn, err := pgx.ConnectConfig(connectCtx, n.connConfig)
	cancel()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, ch := range append([]string{heartbeatChannel}, channels...) {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return fmt.Errorf("listen on %s: %w", ch, err)
		}
	}
	// Listening from here on; what was kept before may have missed a
	// notification while nobody listened.
	n.reset()

	// Freshness is confirmed by a heartbeat: a notification this
	// connection sends itself. PostgreSQL delivers notifications in the
	// order their transactions committed, so once the heartbeat sent at t
	// has arrived, so has every notification committed before t. A ping
	// would not prove as much: behind a pooler in transaction mode, a
	// ping is answered while no notification ever arrives.
	var (
		beat     int64
		pending  string
		sentAt   time.Time
		lastSent time.Time
		warned   bool
		heard    bool // a heartbeat came back on this connection
	)
	for {
		if pending == "" && time.Since(lastSent) >= pingEvery {
			beat++
			pending, sentAt = fmt.Sprint(beat), time.Now()
			lastSent = sentAt
			beatCtx, cancel := context.WithTimeout(ctx, freshFor)
			_, err := conn.Exec(beatCtx, "SELECT pg_notify($1, $2)", heartbeatChannel, pending)
			cancel()
			if err != nil {
				return fmt.Errorf("heartbeat: %w", err)
			}
		}
		if pending != "" && time.Since(sentAt) > 10*time.Second {
			if !warned && !heard {
				warned = true
				n.logger.Warn("database notifications do not arrive, so every request reads the database; is it behind a pooler in transaction mode? LISTEN needs a session of its own")
			}
			pending = "" // send another
		}
		waitCtx, cancel := context.WithTimeout(ctx, pingEvery)
		note, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil && note.Channel == heartbeatChannel:
			if note.Payload == pending {
				n.confirm(sentAt)
				pending, heard = "", true
			}
		case err == nil:
			n.dispatch(note.Channel, note.Payload)
		case waitCtx.Err() == nil:
			return fmt.Errorf("wait for notifications: %w", err)
		}
	}
}

func (n *Notifications) confirm(at time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.listening, n.confirmedAt = true, at
}

func (n *Notifications) reset() {
	for _, g := range n.generations {
		g.Add(1)
	}
	n.mu.Lock()
	resets := append([]func(){}, n.resets...)
	n.mu.Unlock()
	for _, r := range resets {
		r()
	}
}

func (n *Notifications) dispatch(channel, payload string) {
	if g, ok := n.generations[channel]; ok {
		g.Add(1)
	}
	n.mu.Lock()
	subs := append([]func(string){}, n.subscribers[channel]...)
	n.mu.Unlock()
	for _, fn := range subs {
		fn(payload)
	}
}
