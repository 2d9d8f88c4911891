package oauth

import (
	"context"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"
)

// Reissue re-signs a real access token of s with its current key after
// mutate changes its claims: a test's way to a token that is valid in
// every respect but one.
func Reissue(s *Server, token string, mutate func(aud *[]string, scope *string)) (string, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", err
	}
	var v verified
	if err := tok.UnsafeClaimsWithoutVerification(&v.Claims, &v.accessClaims); err != nil {
		return "", err
	}
	aud := []string(v.Audience)
	mutate(&aud, &v.Scope)
	v.Audience = aud
	signer, err := s.keys.signer(context.Background())
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(v.Claims).Claims(v.accessClaims).Serialize()
}

// IssueAccess signs an access token for the grant as the token endpoint
// does, without the authorization steps before it.
func IssueAccess(s *Server, grantID uuid.UUID) (string, error) {
	resp, err := s.issue(context.Background(), grantID, s.clock.Now())
	return resp.AccessToken, err
}

// VerifiedKept is how many access tokens s keeps as verified.
func VerifiedKept(s *Server) int { return s.verifiedTokens.Len() }
