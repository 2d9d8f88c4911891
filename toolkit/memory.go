package toolkit

import (
	"container/list"
	"context"
	"net/http"
	"sync"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/server"
)

// Session memory: mcp-go keeps, per session, what it was told at
// initialize (the client's capabilities among it) and its transport
// state, in this replica's memory. PostgreSQL is the record of a session
// (auth.Sessions); this memory is only a cache of it, rebuilt by the
// session's next request. It is bounded three ways: a session ended or
// deleted (to make room for a new one) is forgotten at once; a workspace
// keeps at most PerWorkspace sessions in memory and a replica at most
// PerReplica, the least recently used forgotten first; and an idle one is
// forgotten after the TTL (mcp-go's sweeper).

// SessionMemoryLimits bound the sessions a replica keeps in memory.
type SessionMemoryLimits struct {
	// PerWorkspace is how many sessions of one workspace a replica keeps
	// in memory; default 100. A workspace's clients are a few people's.
	PerWorkspace int
	// PerReplica is how many sessions a replica keeps in memory in all;
	// default 10,000.
	PerReplica int
}

// DefaultSessionMemoryLimits are the limits of a zero SessionMemoryLimits.
var DefaultSessionMemoryLimits = SessionMemoryLimits{PerWorkspace: 100, PerReplica: 10_000}

// sessionMemory is the book of the sessions whose state this replica
// keeps in memory, most recently used first, in all and per workspace.
type sessionMemory struct {
	limits SessionMemoryLimits
	// forget drops a session's state from mcp-go; set once the streamable
	// server exists, and called without mu held.
	forget func(id string)

	mu          sync.Mutex
	all         *list.List // of *heldSession
	byID        map[string]*heldSession
	byWorkspace map[uuid.UUID]*list.List
}

type heldSession struct {
	id              string
	workspace       uuid.UUID
	inAll, inItsOwn *list.Element
}

func newSessionMemory(limits SessionMemoryLimits) *sessionMemory {
	if limits.PerWorkspace <= 0 {
		limits.PerWorkspace = DefaultSessionMemoryLimits.PerWorkspace
	}
	if limits.PerReplica <= 0 {
		limits.PerReplica = DefaultSessionMemoryLimits.PerReplica
	}
	return &sessionMemory{limits: limits, all: list.New(), byID: map[string]*heldSession{}, byWorkspace: map[uuid.UUID]*list.List{}}
}

// used records that the session's state is in memory now, and forgets
// the least recently used sessions past the limits.
func (m *sessionMemory) used(workspace uuid.UUID, id string) {
	if id == "" {
		return
	}
	var over []string
	m.mu.Lock()
	if h, ok := m.byID[id]; ok && h.workspace == workspace {
		m.all.MoveToFront(h.inAll)
		m.byWorkspace[workspace].MoveToFront(h.inItsOwn)
	} else if !ok {
		own := m.byWorkspace[workspace]
		if own == nil {
			own = list.New()
			m.byWorkspace[workspace] = own
		}
		h := &heldSession{id: id, workspace: workspace}
		h.inAll, h.inItsOwn = m.all.PushFront(h), own.PushFront(h)
		m.byID[id] = h
		for own.Len() > m.limits.PerWorkspace {
			over = append(over, m.removeLocked(own.Back().Value.(*heldSession)))
		}
		for m.all.Len() > m.limits.PerReplica {
			over = append(over, m.removeLocked(m.all.Back().Value.(*heldSession)))
		}
	}
	m.mu.Unlock()
	for _, id := range over {
		m.forget(id)
	}
}

// ended forgets a session that ended or was deleted, if it is held here.
func (m *sessionMemory) ended(id string) {
	m.mu.Lock()
	h, ok := m.byID[id]
	if ok {
		m.removeLocked(h)
	}
	m.mu.Unlock()
	if ok {
		m.forget(id)
	}
}

// dropped takes off the book a session whose state mcp-go dropped itself
// (the idle sweeper, a DELETE).
func (m *sessionMemory) dropped(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.byID[id]; ok {
		m.removeLocked(h)
	}
}

func (m *sessionMemory) removeLocked(h *heldSession) string {
	m.all.Remove(h.inAll)
	own := m.byWorkspace[h.workspace]
	own.Remove(h.inItsOwn)
	if own.Len() == 0 {
		delete(m.byWorkspace, h.workspace)
	}
	delete(m.byID, h.id)
	return h.id
}

// forgetKey marks the request [forgetVia] makes: its session manager
// forgets and ends nothing.
type forgetKey struct{}

// forgetVia returns a function that drops a session's state from
// streamable, all of it, through the one door mcp-go opens for that: a
// DELETE, made in process, whose session manager ends nothing (the
// session lives on in PostgreSQL when it is only forgotten here).
func forgetVia(streamable http.Handler) func(id string) {
	return func(id string) {
		req, err := http.NewRequestWithContext(context.WithValue(context.Background(), forgetKey{}, true), http.MethodDelete, "/", nil)
		if err != nil {
			return
		}
		req.Header.Set(server.HeaderKeySessionID, id)
		streamable.ServeHTTP(discard{header: http.Header{}}, req)
	}
}

// discard is the response to a request nobody reads.
type discard struct{ header http.Header }

func (d discard) Header() http.Header       { return d.header }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
