package delivery

// SetAfterClaim makes s run f once each chunk's claim has committed and
// before its steps are marked: the moment a stop can fall between.
func SetAfterClaim(s *Dispatcher, f func()) { s.afterClaim = f }
