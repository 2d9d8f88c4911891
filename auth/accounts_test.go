package auth_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vibesell"
	"vibesell/auth"
	"vibesell/store/storetest"
	"vibesell/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const password = "correct horse battery staple"

func setupAccounts(t *testing.T) (*auth.Accounts, *vibesell.ManualClock, auth.User, workspace.Workspace) {
	t.Helper()
	ctx := context.Background()
	pool := storetest.New(t)
	ws := workspace.New(workspace.Deps{DB: pool, Clock: vibesell.SystemClock{}})
	acme, err := ws.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := ws.Create(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	c := vibesell.NewManualClock(time.Now())
	acc := auth.NewAccounts(auth.AccountsDeps{DB: pool, Clock: c})
	u, err := acc.CreateUser(ctx, auth.NewUser{WorkspaceID: acme.ID, Email: " Ada@Acme.test ", Name: "Ada", Password: password, TimeZone: "Europe/Paris"})
	if err != nil {
		t.Fatal(err)
	}
	return acc, c, u, other
}

func TestPasswordsAreArgon2id(t *testing.T) {
	t.Parallel()
	h := auth.HashPassword("hunter2hunter2")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q", h)
	}
	if h == auth.HashPassword("hunter2hunter2") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if ok, err := auth.VerifyPassword(h, "hunter2hunter2"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, _ := auth.VerifyPassword(h, "hunter2hunter3"); ok {
		t.Fatal("wrong password accepted")
	}
	if _, err := auth.VerifyPassword("$2a$10$bcrypt", "x"); err == nil {
		t.Fatal("a non-argon2id hash was read")
	}
}

// zones lets cmp compare users' time zones, by name.
var zones = cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })

func TestCreateUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, _, u, other := setupAccounts(t)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	// As given to setupAccounts, the email trimmed and lower-cased.
	want := auth.User{WorkspaceSlug: "acme", Email: "ada@acme.test", Name: new("Ada"), TimeZone: paris}
	if diff := cmp.Diff(want, u, zones, cmpopts.IgnoreFields(auth.User{}, "ID", "WorkspaceID", "WorkspaceName", "Workspaces")); diff != "" {
		t.Fatalf("created mismatch (-want +got):\n%s", diff)
	}
	for name, tc := range map[string]struct {
		nu   auth.NewUser
		code string
	}{
		"taken email":    {auth.NewUser{WorkspaceID: other.ID, Email: "ADA@acme.test", Password: password}, vibesell.ECONFLICT},
		"bad email":      {auth.NewUser{WorkspaceID: other.ID, Email: "ada at acme", Password: password}, vibesell.EINVALID},
		"short password": {auth.NewUser{WorkspaceID: other.ID, Email: "bob@globex.test", Password: "short"}, vibesell.EINVALID},
		"bad time zone":  {auth.NewUser{WorkspaceID: other.ID, Email: "bob@globex.test", Password: password, TimeZone: "Mars/Olympus"}, vibesell.EINVALID},
		"NUL in name":    {auth.NewUser{WorkspaceID: other.ID, Email: "bob@globex.test", Password: password, Name: "Bob\x00"}, vibesell.EINVALID},
		"NUL in email":   {auth.NewUser{WorkspaceID: other.ID, Email: "bob\x00@globex.test", Password: password}, vibesell.EINVALID},
		"no workspace":   {auth.NewUser{WorkspaceID: u.ID, Email: "bob@globex.test", Password: password}, vibesell.ENOTFOUND},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := acc.CreateUser(ctx, tc.nu); vibesell.ErrorCode(err) != tc.code {
				t.Errorf("%v, want %s", err, tc.code)
			}
		})
	}
}

func TestSignInOpensASessionAndSignOutEndsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, c, u, _ := setupAccounts(t)
	if _, _, err := acc.SignIn(ctx, "ada@acme.test", "wrong password!", "10.0.0.1"); err != auth.ErrSignInFailed {
		t.Fatalf("wrong password: %v", err)
	}
	if _, _, err := acc.SignIn(ctx, "nobody@acme.test", password, "10.0.0.1"); err != auth.ErrSignInFailed {
		t.Fatalf("unknown email: %v", err)
	}
	got, ses, err := acc.SignIn(ctx, "ADA@acme.test", password, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != u.ID || !strings.HasPrefix(ses.Token, "vsw_") {
		t.Fatalf("sign in: user %s with token %q, want %s with a vsw_ token", got.ID, ses.Token, u.ID)
	}
	back, _, err := acc.Authenticate(ctx, ses.Token)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != u.ID {
		t.Fatalf("authenticate: user %s, want %s", back.ID, u.ID)
	}
	if diff := cmp.Diff(auth.Principal{WorkspaceID: u.WorkspaceID, WorkspaceSlug: "acme"}, back.Principal()); diff != "" {
		t.Fatalf("authenticate mismatch (-want +got):\n%s", diff)
	}
	if !auth.CheckCSRF(ses.Token, ses.CSRF()) || auth.CheckCSRF(ses.Token, auth.CSRFToken("vsw_other")) || auth.CheckCSRF("", "") {
		t.Fatal("CSRF tokens do not tell sessions apart")
	}
	if _, _, err := acc.Authenticate(ctx, ses.Token+"x"); err != auth.ErrNoWebSession {
		t.Fatalf("forged token: %v", err)
	}
	// Idle past the limit: signed out.
	c.Advance(13 * time.Hour)
	if _, _, err := acc.Authenticate(ctx, ses.Token); err != auth.ErrNoWebSession {
		t.Fatalf("idle session: %v", err)
	}
	_, ses, _ = acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.1")
	if err := acc.SignOut(ctx, ses.Token); err != nil {
		t.Fatal(err)
	}
	if _, _, err := acc.Authenticate(ctx, ses.Token); err != auth.ErrNoWebSession {
		t.Fatalf("after sign-out: %v", err)
	}
	if n, err := acc.Prune(ctx); err != nil || n == 0 {
		t.Fatalf("prune: %d %v", n, err)
	}
}

func TestFailedSignInsAreRateLimitedPerEmailAndAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, c, _, _ := setupAccounts(t)
	// 16 concurrent guesses: at most the limit get a password check (when
	// they all count before any checks, none does).
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for range 16 {
		wg.Go(func() {
			_, _, err := acc.SignIn(ctx, "ada@acme.test", "guess guess guess", "10.0.0.9")
			mu.Lock()
			codes[vibesell.ErrorCode(err)]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[vibesell.EUNAUTHORIZED] > auth.MaxFailuresPerEmail || codes[vibesell.EUNAUTHORIZED]+codes[vibesell.ERATELIMITED] != 16 {
		t.Fatalf("16 concurrent guesses: %v", codes)
	}
	// Even the right password is refused now, from that address…
	_, _, err := acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.9")
	if vibesell.ErrorCode(err) != vibesell.ERATELIMITED || !strings.Contains(err.Error(), "Try again in 15 minutes") {
		t.Fatalf("right password while limited: %v", err)
	}
	// …but not from another one.
	if _, _, err := acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.10"); err != nil {
		t.Fatalf("from another address: %v", err)
	}
	// Once the window has moved on, the right password works again.
	c.Advance(auth.SignInWindow + time.Second)
	if _, _, err := acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.9"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestOneAddressCannotTryManyAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, _, _, _ := setupAccounts(t)
	limited := 0
	for i := range auth.MaxFailuresPerIP + 3 {
		email := "user" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@acme.test"
		if _, _, err := acc.SignIn(ctx, email, "guess guess guess", "10.0.0.7"); vibesell.ErrorCode(err) == vibesell.ERATELIMITED {
			limited++
		}
	}
	if limited != 3 {
		t.Fatalf("%d attempts limited, want 3", limited)
	}
}

func TestTheSixthFailureInAWindowIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, c, _, _ := setupAccounts(t)
	for i := range auth.MaxFailuresPerEmail {
		if _, _, err := acc.SignIn(ctx, "ada@acme.test", "guess guess guess", "10.0.0.9"); err != auth.ErrSignInFailed {
			t.Fatalf("failure %d: %v", i+1, err)
		}
		c.Advance(time.Minute)
	}
	_, _, err := acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.9")
	if vibesell.ErrorCode(err) != vibesell.ERATELIMITED || !strings.Contains(err.Error(), "Try again in 10 minutes") {
		t.Fatalf("sixth attempt: %v", err)
	}
}

func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		auth.HashPassword(password)
	}
}

func TestAKnownBrowserIsCountedApartFromItsAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc, c, _, _ := setupAccounts(t)
	_, first, err := acc.SignInWithDevice(ctx, "ada@acme.test", password, "10.0.0.7", "")
	if err != nil || !strings.HasPrefix(first.Device, "vsd_") {
		t.Fatalf("first sign-in: device %q, %v", first.Device, err)
	}
	for i := range auth.MaxFailuresPerIP + 1 {
		_, _, _ = acc.SignIn(ctx, fmt.Sprintf("user%d@acme.test", i), "guess guess guess", "10.0.0.7")
	}
	if _, _, err := acc.SignIn(ctx, "ada@acme.test", password, "10.0.0.7"); vibesell.ErrorCode(err) != vibesell.ERATELIMITED {
		t.Fatalf("without the device token, the address is limited: %v", err)
	}
	_, again, err := acc.SignInWithDevice(ctx, "ada@acme.test", password, "10.0.0.7", first.Device)
	if err != nil || again.Device != first.Device {
		t.Fatalf("with the device token: device %q, %v", again.Device, err)
	}
	// The token is Ada's: for another email it is an unknown browser.
	if _, _, err := acc.SignInWithDevice(ctx, "bob@acme.test", "guess guess guess", "10.0.0.7", first.Device); vibesell.ErrorCode(err) != vibesell.ERATELIMITED {
		t.Fatalf("the device token for another email: %v", err)
	}
	// The browser's own failures lock it out like an address.
	for range auth.MaxFailuresPerEmail {
		_, _, _ = acc.SignInWithDevice(ctx, "ada@acme.test", "guess guess guess", "10.0.0.7", first.Device)
	}
	if _, _, err := acc.SignInWithDevice(ctx, "ada@acme.test", password, "10.0.0.7", first.Device); vibesell.ErrorCode(err) != vibesell.ERATELIMITED {
		t.Fatalf("after the browser's own failures: %v", err)
	}
	// A token past its lifetime is forgotten.
	c.Advance(auth.DeviceLifetime + time.Second)
	if _, ses, err := acc.SignInWithDevice(ctx, "ada@acme.test", password, "10.0.0.7", first.Device); err != nil || ses.Device == first.Device {
		t.Fatalf("after the device's lifetime: device kept %v, %v", ses.Device == first.Device, err)
	}
}
