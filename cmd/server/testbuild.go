package main

import "vibesell/auth/oauth"

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
