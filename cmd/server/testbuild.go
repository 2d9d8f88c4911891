package main

import (
	"time"

	"vibesell/auth/oauth"
)

// testClientMetadata configures fetching client ID metadata documents from
// the environment in a build for tests only (testbuild_unsafe.go, built
// with -tags vibesell_unsafe_test_build), where end-to-end tests serve a
// document from a loopback server with their own certificate. In every
// other build it is nil: no variable can make the server fetch from a
// loopback address, which would let a client's URL reach services on the
// server's own machine.
var testClientMetadata func(getenv func(string) string, publicURLHost string) (oauth.FetchConfig, error)

func loadTestClientMetadata(cfg *config, getenv func(string) string) error {
	if testClientMetadata == nil {
		return nil
	}
	var err error
	cfg.ClientMetadata, err = testClientMetadata(getenv, cfg.PublicURL.Hostname())
	return err
}

// testSendGap, in a build for tests only (testbuild_unsafe.go), reads
// the gap between two emails of a mailbox from the environment, so a test
// of several replicas sends a campaign of hundreds of leads in minutes
// rather than hours. In every other build it is nil: the gap is the
// engine's own (2 to 6 minutes), which no setting shortens.
var testSendGap func(getenv func(string) string, publicURLHost string) (lo, hi time.Duration, err error)

func loadTestSendGap(cfg *config, getenv func(string) string) error {
	if testSendGap == nil {
		return nil
	}
	var err error
	cfg.Mail.MinGap, cfg.Mail.MaxGap, err = testSendGap(getenv, cfg.PublicURL.Hostname())
	return err
}
