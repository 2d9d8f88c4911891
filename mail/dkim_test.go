package mail_test

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"vibesell/delivery/deliverytest"
	"vibesell/mail"
	"vibesell/workspace"
)

func TestKeys(t *testing.T) {
	t.Run("a domain gets one key, published under vs1, that signs its mail", func(t *testing.T) {
		b := deliverytest.Setup(t)
		first, err := b.Keys.Record(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		again, err := b.Keys.Record(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("the record changed between calls (-first +again):\n%s", diff)
		}
		if first.Host != "vs1._domainkey.getacme.com" || !strings.HasPrefix(first.Value, "v=DKIM1; k=rsa; p=") {
			t.Errorf("record: host %q, value %q; want vs1._domainkey.getacme.com, an RSA key", first.Host, first.Value)
		}
		der, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(first.Value, "v=DKIM1; k=rsa; p="))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			t.Fatal(err)
		}
		key, err := b.Keys.Signer(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if !key.Signer.Public().(*rsa.PublicKey).Equal(pub) {
			t.Error("the published key is not the signing key's")
		}
		other, err := b.Keys.Record(b.Ctx, b.Workspace, "tryacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if other.Value == first.Value {
			t.Error("two domains share a key")
		}
	})

	t.Run("the private key is stored sealed and opens only with the configured secret", func(t *testing.T) {
		b := deliverytest.Setup(t)
		key, err := b.Keys.Signer(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		var stored []byte
		if err := b.DB.QueryRow(b.Ctx, `SELECT private_key FROM mail_dkim_keys WHERE workspace_id = $1`, b.Workspace).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		plain := x509.MarshalPKCS1PrivateKey(key.Signer.(*rsa.PrivateKey))
		if bytes.Contains(stored, plain[len(plain)-64:]) {
			t.Fatal("the private key is stored in the clear")
		}
		wrong, _ := mail.NewSecret(bytes.Repeat([]byte("w"), 32))
		if _, err := mail.NewKeys(mail.KeysDeps{DB: b.DB, Secret: wrong, Clock: b.Clock}).Signer(b.Ctx, b.Workspace, "getacme.com"); err == nil {
			t.Error("another secret opened the key")
		}
		// A sealed key moved to another domain's row does not open.
		_, err = b.DB.Exec(b.Ctx, `INSERT INTO mail_dkim_keys (workspace_id, domain, selector, private_key, public_key, created_at)
		                           SELECT workspace_id, 'stolen.example', selector, private_key, public_key, created_at FROM mail_dkim_keys WHERE workspace_id = $1`, b.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Keys.Signer(b.Ctx, b.Workspace, "stolen.example"); err == nil {
			t.Error("a key copied to another domain opened")
		}
	})

	t.Run("another workspace's domain of the same name has its own key", func(t *testing.T) {
		b := deliverytest.Setup(t)
		mine, err := b.Keys.Record(b.Ctx, b.Workspace, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		other, err := workspace.Create(b.Ctx, b.DB, "Other Co")
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := b.Keys.Record(b.Ctx, other.ID, "getacme.com")
		if err != nil {
			t.Fatal(err)
		}
		if theirs.Value == mine.Value {
			t.Error("another workspace got this workspace's key")
		}
	})
}

func TestParseSecret(t *testing.T) {
	for _, bad := range []string{"", "short", strings.Repeat("ab", 16)[:30]} {
		if _, err := mail.ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted a key shorter than 32 bytes", bad)
		}
	}
	hexKey := strings.Repeat("ab", 32)
	b64Key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32))
	a, err1 := mail.ParseSecret(hexKey)
	b, err2 := mail.ParseSecret(b64Key)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	ws := uuid.New()
	if a.UnsubscribeToken(ws, "a@b.example") != b.UnsubscribeToken(ws, "a@b.example") {
		t.Error("the same key in hex and base64 reads differently")
	}
}
