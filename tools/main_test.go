package tools

import (
	"testing"

	"vibesell/store/storetest"
)

// TestMain is shared by every test file of package tools (internal and external): feature
// tool tests get their own database from storetest.
func TestMain(m *testing.M) { storetest.Main(m) }
