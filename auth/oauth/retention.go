package oauth

// How long what this package stores is kept, as the privacy page
// (web/privacy.go) tells people; its test reads these.
const (
	// AccessTokenLifetime is how long one access token an app holds works.
	AccessTokenLifetime = accessTokenLifetime
	// RefreshTokenLifetime is how long a refresh token works; a
	// connection unused for this long ends.
	RefreshTokenLifetime = refreshTokenLifetime
	// UnusedClientKept is how long an app that registered itself and
	// was never allowed is kept.
	UnusedClientKept = unusedClientKept
)
