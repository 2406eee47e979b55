package pubsub

import (
	"encoding/base64"
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/fixturedata"
)

// redactMarker is inside every secret of TestEndpointSecrets.
const redactMarker = "WsMaRk77"

// TestEndpointSecrets: an endpoint's set holds its ws URL's user info,
// path and query, the Basic credentials built from the user info, and
// its headers, in the forms the HTTP transport hides (a Basic token's
// password, a token without quotes, base64 at an offset, JSON escapes).
func TestEndpointSecrets(t *testing.T) {
	const m = redactMarker
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	ep := newEPState(Endpoint{Name: "ep",
		URL: endpoint.NewSecret("wss://us" + m + ":pw" + m + "@h.example/v1/k" + m + "?api-key=q" + m),
		Headers: map[string]endpoint.Secret{
			"X-Basic": endpoint.NewSecret("Basic " + b64("bob:hp"+m)),
			"X-Auth":  endpoint.NewSecret("key='qt" + m + "'"),
			"X-Api":   endpoint.NewSecret("a/<" + m + ">"),
		}})
	echoes := map[string]string{
		"ws user":              "us" + m,
		"ws password":          "pw" + m,
		"ws user info, base64": b64("us" + m + ":pw" + m),
		"ws path":              "/v1/k" + m,
		"ws path segment":      "k" + m,
		"ws query value":       "q" + m,
		"Basic password":       "hp" + m,
		"unquoted token":       "qt" + m,
		"base64 at an offset":  b64("X-Api: a/<" + m + ">"),
		"json escapes":         `a\/\u003c` + m + `\u003e`,
	}
	for name, echo := range echoes {
		got := ep.secrets.redact("refused: " + echo)
		if form, found := fixturedata.FindSecret(got, m); found {
			t.Errorf("%s shows (%s): %s", name, form, got)
		}
	}
	if ep.target != "wss://h.example/v1/k"+m+"?api-key=q"+m {
		t.Errorf("target = %q", ep.target)
	}
}
