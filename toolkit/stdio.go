package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vibesell/auth"
)

// stdioDrainLimit bounds how long ServeStdio, once its input has ended,
// waits for the answers to the requests it read.
const stdioDrainLimit = time.Minute

// ServeStdio speaks MCP over in and out for one workspace until ctx ends
// or in closes. Every request read before in closed is answered first: a
// client may write its requests and close its end without waiting (a
// script, a pipe).
func ServeStdio(ctx context.Context, s *server.MCPServer, p auth.Principal, in io.Reader, out io.Writer, logger *slog.Logger) error {
	// mcp-go's stdio server (v1.2.1) ends its input loop at EOF, cancels
	// every request, and stops its tool-call workers, each of which picks
	// at random between a call still queued and the cancellation: queued
	// calls are dropped. So the input's EOF is held back until every
	// request read has its answer (pending tracks them, from the lines read
	// and the lines written).
	pending := newPendingRequests()
	in = &drainingReader{r: in, lines: lines{see: pending.read}, pending: pending, ctx: ctx, limit: stdioDrainLimit, logger: logger}
	out = &answerWatcher{w: out, lines: lines{see: pending.wrote}, pending: pending}

	// A call a worker has picked up when ctx ends (the server shutting
	// down) still runs to its answer, which Listen waits for.
	s.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return next(context.WithoutCancel(ctx), req)
		}
	})
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	stdio.SetContextFunc(func(ctx context.Context) context.Context { return auth.NewContext(ctx, p) })
	return stdio.Listen(ctx, in, out)
}

// pendingRequests are the ids of the requests read and not yet answered.
type pendingRequests struct {
	mu       sync.Mutex
	ids      map[string]string // request id → its method
	answered chan struct{}     // signalled whenever one is answered
}

func newPendingRequests() *pendingRequests {
	return &pendingRequests{ids: map[string]string{}, answered: make(chan struct{}, 1)}
}

// message is what ServeStdio reads of a JSON-RPC message: a request has a
// method and an id, a response an id and no method, and a cancellation
// names the request it gives up on.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey is a request id in one spelling: a number and a string that read
// alike stay apart, and 7 and 7.0 are the same number.
func idKey(raw json.RawMessage) (string, bool) {
	var id any
	if len(raw) == 0 || json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	switch v := id.(type) {
	case string:
		return "s" + v, true
	case float64:
		return "n" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// read notes a line the client sent.
func (p *pendingRequests) read(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.Method == string(mcp.MethodNotificationCancelled):
		// The server need not answer a request the client gave up on.
		if key, ok := idKey(m.Params.RequestID); ok {
			p.done(key)
		}
	case m.Method != "":
		if key, ok := idKey(m.ID); ok {
			p.mu.Lock()
			p.ids[key] = m.Method
			p.mu.Unlock()
		}
	}
}

// wrote notes a line the server sent.
func (p *pendingRequests) wrote(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return // a notification or a request of the server's own
	}
	if key, ok := idKey(m.ID); ok {
		p.done(key)
	}
}

func (p *pendingRequests) done(key string) {
	p.mu.Lock()
	delete(p.ids, key)
	p.mu.Unlock()
	select {
	case p.answered <- struct{}{}:
	default:
	}
}

// answersToolCall tells whether a line the server is about to send answers
// a tools/call that is still pending.
func (p *pendingRequests) answersToolCall(line []byte) bool {
	var m message
	if !bytes.Contains(line, []byte(`"result"`)) || json.Unmarshal(line, &m) != nil || m.Method != "" {
		return false
	}
	key, ok := idKey(m.ID)
	if !ok {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[key] == string(mcp.MethodToolsCall)
}

func (p *pendingRequests) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids)
}

// wait returns once no request is pending, ctx ends or limit passes.
func (p *pendingRequests) wait(ctx context.Context, limit time.Duration) bool {
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for p.count() > 0 {
		select {
		case <-p.answered:
		case <-ctx.Done():
			return false
		case <-timeout.C:
			return false
		}
	}
	return true
}

// lines splits what passes through into lines and hands each whole one to
// see.
type lines struct {
	partial []byte
	see     func([]byte)
}

func (l *lines) feed(b []byte) {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.partial = append(l.partial, b...)
			return
		}
		line := b[:i]
		if len(l.partial) > 0 {
			// see runs before partial is written again, so the joined
			// line may share its array.
			line = append(l.partial, line...)
			l.partial = l.partial[:0]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			l.see(line)
		}
		b = b[i+1:]
	}
}

// drainingReader passes its input through, noting the requests it carries,
// and at the end of the input waits for their answers before it reports
// the end.
type drainingReader struct {
	r       io.Reader
	lines   lines
	pending *pendingRequests
	ctx     context.Context
	limit   time.Duration
	logger  *slog.Logger
}

func (d *drainingReader) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	d.lines.feed(b[:n])
	if errors.Is(err, io.EOF) {
		// A last line without a newline is a message too.
		if len(d.lines.partial) > 0 {
			d.pending.read(d.lines.partial)
			d.lines.partial = nil
		}
		if n > 0 {
			// Hand over the bytes first; the next Read waits.
			return n, nil
		}
		if !d.pending.wait(d.ctx, d.limit) {
			d.logger.Warn("stdio input ended; requests left unanswered", "requests", d.pending.count())
		}
	}
	return n, err
}

// answerWatcher passes the server's output through, noting the answers
// and rewording an unparsable request's error.
type answerWatcher struct {
	w       io.Writer
	mu      sync.Mutex // the server writes from several goroutines
	lines   lines
	pending *pendingRequests
}

func (a *answerWatcher) Write(b []byte) (int, error) {
	out := b
	// mcp-go writes each message in one Write, so a whole answer is here:
	// one whose params did not decode is reworded as over HTTP
	// (protocol.go).
	if line, ok := bytes.CutSuffix(b, []byte("\n")); ok && bytes.Contains(line, []byte(`"unparsable `)) {
		out = append(bytes.TrimSuffix(rewordProtocolError(line), []byte("\n")), '\n')
	}
	if line, ok := bytes.CutSuffix(out, []byte("\n")); ok && a.pending != nil && a.pending.answersToolCall(line) {
		out = append(markToolSuccess(line), '\n')
	}
	n, err := a.w.Write(out)
	a.mu.Lock()
	a.lines.feed(out[:n])
	a.mu.Unlock()
	if err == nil {
		n = len(b)
	}
	return n, err
}
