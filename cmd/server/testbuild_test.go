//go:build !vibesell_unsafe_test_build

package main

import "testing"

// A normal build has no way to let client metadata documents be fetched
// from loopback: the test build's variable is not even read.
func TestNormalBuildIgnoresTheTestOnlyFetchSwitch(t *testing.T) {
	t.Parallel()
	if testClientMetadata != nil {
		t.Fatal("the test-only fetch switch is compiled into a normal build")
	}
	cfg, err := loadConfig(env("PUBLIC_URL", "http://127.0.0.1:8080", "VIBESELL_TEST_CLIENT_METADATA_CA", "/dev/null"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientMetadata.AllowLoopback || cfg.ClientMetadata.RootCAs != nil {
		t.Fatalf("a normal build took the test-only switch: loopback allowed %v, its own roots %v", cfg.ClientMetadata.AllowLoopback, cfg.ClientMetadata.RootCAs != nil)
	}
}

// Nor can a normal build's gap between a mailbox's emails be shortened.
func TestNormalBuildIgnoresTheTestOnlySendGap(t *testing.T) {
	t.Parallel()
	if testSendGap != nil {
		t.Fatal("the test-only send gap is compiled into a normal build")
	}
	cfg, err := loadConfig(env("PUBLIC_URL", "http://127.0.0.1:8080", "VIBESELL_TEST_SEND_GAP", "1s-2s"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mail.MinGap != 0 || cfg.Mail.MaxGap != 0 {
		t.Fatalf("a normal build took the test-only gap: %s-%s", cfg.Mail.MinGap, cfg.Mail.MaxGap)
	}
}
