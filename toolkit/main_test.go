package toolkit

import (
	"testing"

	"vibesell/store/storetest"
)

// TestMain lets the HTTP tests use a database of their own (tokens and
// sessions live in PostgreSQL); the others never start one.
func TestMain(m *testing.M) { storetest.Main(m) }
