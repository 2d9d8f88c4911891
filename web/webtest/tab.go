package webtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Tab drives one Chromium tab for a test, each step failing the test on
// error, so a browser test reads as what the person does.
type Tab struct {
	t   testing.TB
	Ctx context.Context
}

// NewTab wraps ctx, a tab from [Chromium] or [ChromiumWithin].
func NewTab(t testing.TB, ctx context.Context) *Tab { return &Tab{t: t, Ctx: ctx} }

// Step runs one action; what names it in the failure.
func (b *Tab) Step(what string, a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.Ctx, a); err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
}

// Text reads the text of the element with this id, its white space
// collapsed, as a reader takes it in.
func (b *Tab) Text(id string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		b.t.Fatalf("browser: read #%s: %v", id, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

// Location is the page's address.
func (b *Tab) Location() string {
	b.t.Helper()
	u, err := chromedp.Run(b.Ctx, chromedp.Location())
	if err != nil {
		b.t.Fatalf("browser: location: %v", err)
	}
	return u
}

// Screenshot saves the page as name.png in $SCREENSHOT_DIR when it is
// set, to look at the pages as a person sees them.
func (b *Tab) Screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
