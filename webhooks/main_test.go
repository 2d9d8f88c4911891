package webhooks_test

import (
	"testing"

	"vibesell/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
