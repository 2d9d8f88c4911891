package audience

// SetAfterBatch makes an import run f after each committed batch; an error
// stops the import there, the way a killed job stops.
func (s *Service) SetAfterBatch(f func() error) { s.afterBatch = f }
