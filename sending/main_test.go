package sending

import (
	"testing"

	"vibesell/store/storetest"
)

// TestMain is shared by the internal and external tests of the package.
func TestMain(m *testing.M) { storetest.Main(m) }
