package oauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"vibesell"
)

// RateLimits bound how often one client address may call the registration
// and token endpoints, per minute, across every replica. Each is a number
// of requests; 0 takes the default and a negative number turns the limit
// off.
//
// The Claude app registers and redeems codes from its own servers, so all
// of its users share few addresses: the defaults are set for a team, not
// for one person.
type RateLimits struct {
	Register int
	Token    int
	// Metadata bounds the client ID metadata documents fetched for one
	// client address (at /oauth/authorize, before anyone signs in, and at
	// /oauth/token); a document read from the cache, or a failure
	// remembered, is not counted.
	Metadata int
}

// Default limits, per client address per minute.
const (
	DefaultRegisterLimit = 30
	DefaultTokenLimit    = 300
	DefaultMetadataLimit = 10
)

const rateWindow = time.Minute

func (l RateLimits) withDefaults() RateLimits {
	if l.Register == 0 {
		l.Register = DefaultRegisterLimit
	}
	if l.Token == 0 {
		l.Token = DefaultTokenLimit
	}
	if l.Metadata == 0 {
		l.Metadata = DefaultMetadataLimit
	}
	return l
}

// limited counts a request of the client's address to endpoint and lets it
// through while the address is within limit in the current minute; past
// it, the answer is 429 slow_down (the RFC 8628 error registered for the
// token endpoint) with Retry-After.
func (s *Server) limited(endpoint string, limit int, next http.HandlerFunc) http.HandlerFunc {
	if limit < 0 {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		wait, err := s.count(r.Context(), endpoint, s.clientIP(r), limit)
		if err != nil {
			s.internal(w, r, err)
			return
		}
		if wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(wait))
			writeJSON(w, http.StatusTooManyRequests, errorf(0, "slow_down",
				"Too many requests from your address: at most %d a minute. Try again in %s.", limit, vibesell.Plural(wait, "second", "seconds")))
			return
		}
		next(w, r)
	}
}

// count counts one request of ip to what (an endpoint, or metadata
// fetches) in the current minute, across replicas, and says how many
// seconds to wait when it is past limit (0: within it).
func (s *Server) count(ctx context.Context, what, ip string, limit int) (int, error) {
	if limit < 0 {
		return 0, nil
	}
	now := s.clock.Now()
	start := now.Truncate(rateWindow)
	var hits int
	err := s.db.QueryRow(ctx, `INSERT INTO oauth_rate_limits (endpoint, client_ip, window_start, hits)
		VALUES ($1, $2, $3, 1)
		ON CONFLICT (endpoint, client_ip, window_start) DO UPDATE SET hits = oauth_rate_limits.hits + 1
		RETURNING hits`, what, truncate(ip, 100), start).Scan(&hits)
	if err != nil {
		return 0, fmt.Errorf("count %s requests: %w", what, err)
	}
	if hits <= limit {
		return 0, nil
	}
	return max(1, int((start.Add(rateWindow).Sub(now)+time.Second-1)/time.Second)), nil
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
