//go:build vibesell_unsafe_test_build

package main

import (
	"strings"
	"testing"
)

// Even the test build refuses the switch for a server whose PUBLIC_URL is
// not on this machine.
func TestTestBuildRefusesTheSwitchForAPublicServer(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(env("PUBLIC_URL", "https://sell.example.com", "VIBESELL_TEST_CLIENT_METADATA_CA", "/dev/null"))
	if err == nil || !strings.HasPrefix(err.Error(), "VIBESELL_TEST_CLIENT_METADATA_CA=") {
		t.Fatalf("err = %v, want the variable refused", err)
	}
}
