package replies

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"vibesell/mail"
	"vibesell/mailboxes"
)

// Watchers keeps one [Poller.Watch] running per mailbox that a source
// gives, starting a watcher when a mailbox appears and stopping it when
// the mailbox goes (or its endpoint changes). Each replica runs its own:
// a reply read twice is kept once.
type Watchers struct {
	poller   *Poller
	sources  mailboxes.Source
	interval time.Duration
	logger   *slog.Logger

	mu      sync.Mutex
	running map[watchKey]*watcher
	wg      sync.WaitGroup
}

type watchKey struct {
	ws      uuid.UUID
	address string
}

type watcher struct {
	mb     mail.Account
	cancel context.CancelFunc
}

// WatchersDeps is what the watchers need.
type WatchersDeps struct {
	// Poller reads each mailbox's inbox.
	Poller *Poller
	// Sources gives the mailboxes to watch.
	Sources mailboxes.Source
	// Interval is how often each inbox is read even when the server
	// announces nothing.
	Interval time.Duration
	// Logger is nil for none.
	Logger *slog.Logger
}

// NewWatchers returns the watchers of every mailbox d.Sources give; each
// reads its inbox as the server announces new mail (IDLE) and every
// d.Interval in any case.
func NewWatchers(d WatchersDeps) *Watchers {
	logger := d.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Watchers{poller: d.Poller, sources: d.Sources, interval: d.Interval, logger: logger, running: map[watchKey]*watcher{}}
}

// Sync starts a watcher for each mailbox sources give that has none, and
// stops those whose mailbox is gone; the watchers run until ctx ends or
// the next Sync stops them. It returns how many run.
func (w *Watchers) Sync(ctx context.Context) (int, error) {
	list, err := w.sources.Mailboxes(ctx, uuid.Nil)
	if err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[watchKey]bool{}
	for _, m := range list {
		k := watchKey{m.WorkspaceID, m.Address.Email}
		seen[k] = true
		if cur := w.running[k]; cur != nil {
			if cur.mb.SMTP.Same(m.SMTP) && cur.mb.IMAP.Same(m.IMAP) {
				continue
			}
			cur.cancel()
		}
		wctx, cancel := context.WithCancel(ctx)
		w.running[k] = &watcher{mb: m.Account, cancel: cancel}
		w.wg.Add(1)
		go func(ws uuid.UUID, mb mail.Account) {
			defer w.wg.Done()
			w.poller.Watch(wctx, ws, mb, w.interval, nil)
		}(m.WorkspaceID, m.Account)
	}
	for k, cur := range w.running {
		if !seen[k] {
			cur.cancel()
			delete(w.running, k)
		}
	}
	return len(w.running), nil
}

// Run syncs every period until ctx ends, then stops every watcher and
// waits for them.
func (w *Watchers) Run(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if _, err := w.Sync(ctx); err != nil && ctx.Err() == nil {
			w.logger.Warn("listing the mailboxes to read replies from failed; trying again", "err", err)
		}
		select {
		case <-ctx.Done():
			w.Stop()
			return
		case <-t.C:
		}
	}
}

// Stop stops every watcher and waits for them to end.
func (w *Watchers) Stop() {
	w.mu.Lock()
	for k, cur := range w.running {
		cur.cancel()
		delete(w.running, k)
	}
	w.mu.Unlock()
	w.wg.Wait()
}
