package sending

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// RDAP checks domain availability with the registries over RDAP (RFC 7480
// to 9083): GET <base>/domain/<name>. A registry answering 404 means the
// name is not registered; 200 means it is. A timeout, a server error, a
// rate limit or anything else means the check could not complete (unknown,
// never "taken").
type RDAP struct {
	// Servers maps a top-level domain to its registry's RDAP base URL, as
	// IANA's bootstrap file does.
	Servers map[string]string
	// Timeout bounds one lookup. Default 5s.
	Timeout time.Duration
	// Client makes the requests. Default: a client with no other timeout.
	Client *http.Client
}

// NewRDAP returns an RDAP checker with the servers and timeout of cfg.
func NewRDAP(cfg Config) *RDAP {
	return &RDAP{Servers: cfg.RDAPServers, Timeout: cfg.RDAPTimeout}
}

// Name returns "rdap".
func (r *RDAP) Name() string { return "rdap" }

// rdapParallel bounds the lookups in flight at once, to stay polite to
// the registries.
const rdapParallel = 8

// Check looks every name up, a few at a time.
func (r *RDAP) Check(ctx context.Context, names []string) []NameCheck {
	out := make([]NameCheck, len(names))
	sem := make(chan struct{}, rdapParallel)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = r.check(ctx, name)
		})
	}
	wg.Wait()
	return out
}

func (r *RDAP) check(ctx context.Context, name string) NameCheck {
	res := NameCheck{Domain: name}
	tld := name[strings.LastIndex(name, ".")+1:]
	base, ok := r.Servers[tld]
	if !ok {
		res.Reason = fmt.Sprintf("no registry lookup is configured for .%s names, so availability is unknown", tld)
		return res
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/domain/"+name, nil)
	if err != nil {
		res.Reason = "the registry lookup could not be made, so availability is unknown"
		return res
	}
	req.Header.Set("Accept", "application/rdap+json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			res.Reason = "the registry did not answer in time, so availability is unknown; try again in a minute"
		} else {
			res.Reason = "the registry could not be reached, so availability is unknown; try again in a minute"
		}
		return res
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		yes := true
		res.Available = &yes
	case resp.StatusCode == http.StatusOK:
		no := false
		res.Available = &no
		res.Reason = "already registered"
	case resp.StatusCode == http.StatusTooManyRequests:
		res.Reason = "the registry asked us to slow down, so availability is unknown; try again in a minute"
	default:
		res.Reason = fmt.Sprintf("the registry answered with an error (HTTP %d), so availability is unknown; try again in a minute", resp.StatusCode)
	}
	return res
}
