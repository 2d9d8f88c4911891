package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Headers of a delivery.
const (
	SignatureHeader = "VibeSell-Signature"
	EventIDHeader   = "VibeSell-Event-Id"
	EventTypeHeader = "VibeSell-Event-Type"
)

// DefaultTolerance is how old a signature's timestamp [Verify] accepts
// when given no tolerance: a replayed request older than it is refused.
const DefaultTolerance = 5 * time.Minute

// Sign returns the signature header of body sent at t with secret:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">", as Stripe signs
// its webhooks.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts))
	h.Write([]byte("."))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Errors of [Verify].
var (
	ErrNoSignature = errors.New("webhooks: no valid signature")
	ErrStale       = errors.New("webhooks: the signature's timestamp is outside the tolerance")
)

// Verify checks a delivery as its receiver should: header is the
// VibeSell-Signature header, body the raw request body, now the
// receiver's time. It accepts any v1 signature that matches (a secret
// being rolled may sign twice) and refuses a timestamp further than
// tolerance (0: [DefaultTolerance]) from now, so a recorded request
// cannot be replayed later.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := mac(secret, ts, body)
	ok := false
	for _, s := range sigs {
		ok = ok || hmac.Equal([]byte(s), []byte(want))
	}
	if !ok {
		return ErrNoSignature
	}
	if age := now.Sub(time.Unix(sec, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w (%s)", ErrStale, age.Round(time.Second))
	}
	return nil
}
