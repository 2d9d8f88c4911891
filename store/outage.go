package store

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err says that the database could not be
// reached or did not answer in time (stopped, restarting, hung, out of
// connections), rather than that it refused a query. Such a failure is
// nobody's mistake in the request and passes by itself.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var connect *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.As(err, &connect), pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &pgErr):
		// 08: connection exceptions; 57P01–57P03: the server is shutting
		// down or starting; 53300: too many connections.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	return pgconn.SafeToRetry(err)
}

// unavailableText reports whether an error, as text, says that the
// database could not be reached: what pgx and net write for Unavailable's
// cases.
func unavailableText(msg string) bool {
	for _, sign := range []string{"failed to connect to", "unexpected EOF", "connection reset by peer", "connection refused",
		"broken pipe", "i/o timeout", "context deadline exceeded", "conn closed", "the database system is"} {
		if strings.Contains(msg, sign) {
			return true
		}
	}
	return false
}

// OutageLog logs internal failures of requests. A failure because the
// database is unavailable is logged at most once per second, with how
// many requests failed so since the line before: an outage under load
// would otherwise write a line per request (hundreds a second) and bury
// everything else. Every other failure is logged at ERROR, each time.
//
// Every OutageLog of the process shares one budget of a line a second:
// the web app and the MCP endpoint fail together when the database does.
type OutageLog struct {
	logger *slog.Logger
}

// NewOutageLog returns an OutageLog writing to logger.
func NewOutageLog(logger *slog.Logger) *OutageLog { return &OutageLog{logger: logger} }

// outageBudget is the process's: one line a second at most.
var outageBudget struct {
	mu      sync.Mutex
	last    time.Time
	skipped int
}

// Failed logs that a request failed with err under ref (the reference
// the caller shows to the person), with msg and attrs as context. It
// reports whether the database was unavailable, for the caller to say so.
func (o *OutageLog) Failed(ctx context.Context, ref, msg string, err error, attrs ...any) (unavailable bool) {
	if !Unavailable(err) {
		o.logger.ErrorContext(ctx, msg, append([]any{"ref", ref, "err", err}, attrs...)...)
		return false
	}
	skipped, ok := takeOutageBudget()
	if !ok {
		return true
	}
	o.logger.ErrorContext(ctx, "the database is unavailable: "+msg,
		append([]any{"ref", ref, "err", err, droppedKey, skipped}, attrs...)...)
	return true
}

// droppedKey names the attribute of an outage line that counts the lines
// dropped since the one before; a record that has it was budgeted.
const droppedKey = "similar_lines_dropped"

// takeOutageBudget reports whether a line about the outage may be logged
// now, and how many were dropped since the last one.
func takeOutageBudget() (dropped int, ok bool) {
	b := &outageBudget
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if now.Sub(b.last) < time.Second {
		b.skipped++
		return 0, false
	}
	dropped = b.skipped
	b.last, b.skipped = now, 0
	return dropped, true
}

// QuietOutages wraps the process's log handler so that every ERROR line
// about an unavailable database, whoever logs it (River's job workers,
// the tools, the listener), shares the budget of [OutageLog]: one line a
// second, saying how many were dropped since the one before. Any other
// line goes through as it is.
func QuietOutages(h slog.Handler) slog.Handler { return quietOutages{h} }

type quietOutages struct{ slog.Handler }

func (q quietOutages) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return q.Handler.Handle(ctx, r)
	}
	budgeted, outage := false, false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == droppedKey {
			budgeted = true
			return false
		}
		switch v := a.Value.Any().(type) {
		case error:
			outage = outage || Unavailable(v) || unavailableText(v.Error())
		case string:
			// River logs its errors as text.
			outage = outage || ((a.Key == "err" || a.Key == "error") && unavailableText(v))
		}
		return true
	})
	if budgeted || !outage {
		return q.Handler.Handle(ctx, r)
	}
	dropped, ok := takeOutageBudget()
	if !ok {
		return nil
	}
	r.AddAttrs(slog.Int(droppedKey, dropped))
	return q.Handler.Handle(ctx, r)
}

func (q quietOutages) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietOutages{q.Handler.WithAttrs(attrs)}
}

func (q quietOutages) WithGroup(name string) slog.Handler {
	return quietOutages{q.Handler.WithGroup(name)}
}
