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
	b := &outageBudget
	b.mu.Lock()
	now := time.Now()
	if now.Sub(b.last) < time.Second {
		b.skipped++
		b.mu.Unlock()
		return true
	}
	skipped := b.skipped
	b.last, b.skipped = now, 0
	b.mu.Unlock()
	o.logger.ErrorContext(ctx, "the database is unavailable: "+msg,
		append([]any{"ref", ref, "err", err, "other_requests_failed", skipped}, attrs...)...)
	return true
}
