//go:build vibesell_unsafe_test_build

package main

import (
	"strings"
	"testing"
	"time"
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

// The test build's gap between a mailbox's emails: read for a loopback
// server only, as MIN-MAX.
func TestTestBuildSendGap(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(env("PUBLIC_URL", "http://127.0.0.1:8080", "VIBESELL_TEST_SEND_GAP", "10s-20s"))
	if err != nil || cfg.Mail.MinGap != 10*time.Second || cfg.Mail.MaxGap != 20*time.Second {
		t.Fatalf("gap %s-%s, err %v; want 10s-20s", cfg.Mail.MinGap, cfg.Mail.MaxGap, err)
	}
	for _, v := range []string{"20s-10s", "10s", "0s-1s"} {
		if _, err := loadConfig(env("PUBLIC_URL", "http://127.0.0.1:8080", "VIBESELL_TEST_SEND_GAP", v)); err == nil {
			t.Errorf("VIBESELL_TEST_SEND_GAP=%s taken", v)
		}
	}
	if _, err := loadConfig(env("PUBLIC_URL", "https://sell.example.com", "VIBESELL_TEST_SEND_GAP", "10s-20s")); err == nil {
		t.Error("the gap taken for a public server")
	}
}
