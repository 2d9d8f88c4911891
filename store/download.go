package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// downloadBinaries fetches PostgreSQL with fergusstrange/embedded-postgres,
// which knows where the portable builds live and checks their digests. The
// library can only fetch as part of starting a throwaway cluster; that
// start fails as root (initdb refuses) after the binaries are in place,
// which is all we need from it.
func downloadBinaries(ctx context.Context, dir string, repositoryURL string) error {
	scratch, err := os.MkdirTemp("", "vibesell-pg-fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	port, err := freePort()
	if err != nil {
		return err
	}
	cfg := embeddedpostgres.DefaultConfig().
		BinariesPath(dir).
		CachePath(filepath.Join(dir, "cache")).
		RuntimePath(filepath.Join(scratch, "runtime")).
		DataPath(filepath.Join(scratch, "data")).
		Port(uint32(port)).
		Logger(io.Discard)
	if repositoryURL != "" {
		cfg = cfg.BinaryRepositoryURL(repositoryURL)
	}
	pg := embeddedpostgres.NewDatabase(cfg)
	done := make(chan error, 1)
	go func() { done <- pg.Start() }()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case startErr := <-done:
		if startErr == nil {
			_ = pg.Stop()
		}
		if _, err := os.Stat(filepath.Join(dir, "bin", "pg_ctl")); err != nil {
			return fmt.Errorf("fetch PostgreSQL: %v", startErr)
		}
		return nil
	}
}
