package delivery

import "context"

// SetAfterClaim makes s run f once each chunk's claim has committed and
// before its steps are marked: the moment a stop can fall between.
func SetAfterClaim(s *Dispatcher, f func()) { s.afterClaim = f }

// Alone runs tick as the send job does: unless another tick holds the lock.
func Alone(e *Engine, ctx context.Context, tick func() error) error { return e.alone(ctx, tick) }
