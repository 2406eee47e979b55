package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/solroute/solroute/internal/fixturedata"
)

// marker is inside every secret of these tests.
const marker = "MaRkEr42"

// mustSecrets is Secrets over rawURL, parsed, and headers.
func mustSecrets(t *testing.T, rawURL string, headers ...string) *Set {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return Secrets(rawURL, u, headers)
}

// TestSecretsOfAWebSocketURL: a ws(s) URL's user info, host, path and
// query are secrets as an http(s) URL's are, and hidden the same way.
func TestSecretsOfAWebSocketURL(t *testing.T) {
	rest := "://us" + marker + ":pw" + marker + "@acct-" + marker + ".rpc.example:8443/v1/k" + marker + "?api-key=q" + marker + "&lone" + marker
	echoes := []string{"us" + marker, "pw" + marker, "acct-" + marker + ".rpc.example", "/v1/k" + marker,
		"k" + marker, "q" + marker, "api-key=q" + marker, "lone" + marker,
		base64.StdEncoding.EncodeToString([]byte("us" + marker + ":pw" + marker))}
	for _, pair := range [][2]string{{"http", "ws"}, {"https", "wss"}} {
		h, w := mustSecrets(t, pair[0]+rest), mustSecrets(t, pair[1]+rest)
		for _, e := range echoes {
			msg := "server says: " + e
			if got, want := w.Redact(msg), h.Redact(msg); got != want {
				t.Errorf("%s: Redact(%q) = %q; %s gives %q", pair[1], msg, got, pair[0], want)
			}
			if form, found := fixturedata.FindSecret(w.Redact(msg), marker); found {
				t.Errorf("%s: %q shows (%s): %s", pair[1], e, form, w.Redact(msg))
			}
		}
	}
}

// TestSecretsHeaderForms: the forms of a header secret a node echoes: a
// Basic token's user and password, a token without its quotes, base64 of
// a longer text at each offset, and JSON escapes (\u003c, \/).
func TestSecretsHeaderForms(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:pw"+marker))
	cases := []struct{ name, header, echo string }{
		{"basic password", basic, "password pw" + marker},
		{"basic user:password", basic, "bob:pw" + marker},
		{"single-quoted token", "key='" + marker + "'", "unknown " + marker},
		{"double-quoted token", `key="` + marker + `"`, "unknown " + marker},
		{"base64 after 1", marker, base64.StdEncoding.EncodeToString([]byte("x" + marker + "tail"))},
		{"base64 after 2", marker, base64.StdEncoding.EncodeToString([]byte("xy" + marker + "tail"))},
		{"base64 header line", marker, base64.StdEncoding.EncodeToString([]byte("X-Api-Key: " + marker))},
		{"raw url base64", "k/" + marker + "?", base64.RawURLEncoding.EncodeToString([]byte("k/" + marker + "?"))},
		{"json \\u003c", "a<" + marker + ">&b", `a\u003c` + marker + `\u003e\u0026b`},
		{"json \\/", "a/" + marker, `a\/` + marker},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustSecrets(t, "wss://h.example/", tc.header).Redact("node says: " + tc.echo)
			if form, found := fixturedata.FindSecret(got, marker); found {
				t.Errorf("shows (%s): %s", form, got)
			}
			if !strings.HasPrefix(got, "node says: ") {
				t.Errorf("redacted more than the secret: %s", got)
			}
		})
	}
}

// TestRedactKeepsAShortOrPlainText: a text holding no secret is returned
// as it is, and a value under minSecretLen is no secret.
func TestRedactKeepsAShortOrPlainText(t *testing.T) {
	s := mustSecrets(t, "ws://127.0.0.1:8900/?k=ab", "Bearer tok"+marker, "1")
	for _, msg := range []string{"dial tcp 127.0.0.1:8900: connect: connection refused", "a 1 ab: Bearer token required"} {
		if got := s.Redact(msg); got != msg {
			t.Errorf("Redact(%q) = %q", msg, got)
		}
	}
	if got := s.Redact("bad tok" + marker); got != "bad "+Placeholder {
		t.Errorf("Redact = %q", got)
	}
}

// TestWithHidesMore: With adds values, in their encodings, to a set that
// keeps hiding what it hid.
func TestWithHidesMore(t *testing.T) {
	s := mustSecrets(t, "ws://127.0.0.1:8900/k"+marker)
	addr := "dial tcp 127.0.0.1:8900: connect: connection refused"
	if got := s.Redact(addr); got != addr {
		t.Fatalf("Secrets hides an IP address: %q", got)
	}
	w := s.With("127.0.0.1:8900", "ab")
	if got, want := w.Redact(addr), "dial tcp "+Placeholder+": connect: connection refused"; got != want {
		t.Errorf("With: Redact = %q, want %q", got, want)
	}
	if got := w.Redact("at /k" + marker + " ab"); got != "at "+Placeholder+" ab" {
		t.Errorf("With: Redact = %q", got)
	}
}

// TestJoinHidesBoth: a joined set hides what each of its two sets hides
// (an endpoint's HTTP URL beside its own WebSocket one).
func TestJoinHidesBoth(t *testing.T) {
	ws, _ := url.Parse("wss://ws.example.com/ws/WSKEY123")
	h, _ := url.Parse("https://rpc.example.com/v1/HTTPKEY456")
	set := Secrets(ws.String(), ws, nil).Join(Secrets(h.String(), h, nil))
	got := set.Redact("refused: WSKEY123 and HTTPKEY456")
	if strings.Contains(got, "WSKEY123") || strings.Contains(got, "HTTPKEY456") {
		t.Errorf("joined set left a key: %q", got)
	}
}
