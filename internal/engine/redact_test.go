package engine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/redact"
	"github.com/solroute/solroute/transport"
)

// redactMarker is inside every secret of TestRedactEveryForm.
const redactMarker = "ReDaCtMaRk"

// echoForms lists what a server or the runtime may write for a secret v:
// v as is, URL-decoded and -escaped, JSON-escaped every way, and in base64
// alone or inside a longer encoded text (at each offset of a 3-byte
// group). It is written apart from redact.Secrets's encodings on purpose.
func echoForms(v string) map[string]string {
	forms := map[string]string{"raw": v, "query-escaped": url.QueryEscape(v), "path-escaped": url.PathEscape(v)}
	if d, err := url.PathUnescape(v); err == nil {
		forms["path-decoded"] = d
	}
	if d, err := url.QueryUnescape(v); err == nil {
		forms["query-decoded"] = d
	}
	for name, d := range map[string]string{"": v, " of decoded": forms["query-decoded"]} {
		js, _ := json.Marshal(d)
		j := string(js[1 : len(js)-1])
		forms["json"+name] = j
		forms["json \\/"+name] = strings.ReplaceAll(j, "/", `\/`)
		var ascii strings.Builder
		for _, r := range j {
			if r < 0x80 {
				ascii.WriteRune(r)
				continue
			}
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&ascii, `\u%04x`, u)
			}
		}
		forms["json ascii"+name] = ascii.String()
	}
	for name, enc := range map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding,
		"raw std": base64.RawStdEncoding, "raw url": base64.RawURLEncoding} {
		forms["base64 "+name] = enc.EncodeToString([]byte(v))
		for _, pre := range []string{"x", "xy", "xyz"} {
			forms["base64 "+name+" after "+pre] = enc.EncodeToString([]byte(pre + v + "tail"))
		}
	}
	return forms
}

// TestRedactEveryForm plants a secret in each part of a URL and each form
// of header, and checks that every form of it a server may echo leaves no
// trace after redaction (fixturedata.FindSecret decodes what it can).
func TestRedactEveryForm(t *testing.T) {
	const m = redactMarker
	basicOf := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name    string
		url     string
		headers map[string]string
		echoes  []string
	}{
		{name: "user", url: "https://us" + m + "er:pw@h.example/", echoes: []string{"us" + m + "er", "us" + m + "er:pw", basicOf("us" + m + "er:pw")}},
		{name: "password", url: "https://u:p%40" + m + "%2Bw@h.example/",
			echoes: []string{"p%40" + m + "%2Bw", "p@" + m + "+w", "u:p@" + m + "+w", "Basic " + basicOf("u:p@"+m+"+w")}},
		{name: "host", url: "https://acct-" + m + ".rpc.example:8443/",
			echoes: []string{"acct-" + m + ".rpc.example", "acct-" + m + ".rpc.example:8443", strings.ToLower("acct-" + m + ".rpc.example")}},
		{name: "path segment", url: "https://h.example/v1/se%20" + m + "%2Fk/rpc",
			echoes: []string{"se%20" + m + "%2Fk", "se " + m + "/k", "/v1/se%20" + m + "%2Fk/rpc", "/v1/se " + m + "/k/rpc"}},
		{name: "non-ASCII path", url: "https://h.example/%C3%A9" + m + "%F0%9F%94%91", echoes: []string{"é" + m + "🔑"}},
		{name: "query value", url: "https://h.example/rpc?api-key=q%2F" + m + "+x&y=1",
			echoes: []string{"q%2F" + m + "+x", "q/" + m + " x", "q/" + m + "+x", "api-key=q%2F" + m + "+x"}},
		{name: "lone query key", url: "https://h.example/rpc?lone" + m, echoes: []string{"lone" + m}},
		{name: "header token", url: "https://h.example/", headers: map[string]string{"X-Api-Key": m + "tok"},
			echoes: []string{m + "tok"}},
		{name: "bearer token", url: "https://h.example/", headers: map[string]string{"Authorization": "Bearer br/" + m + "+="},
			echoes: []string{"br/" + m + "+", "Bearer br/" + m + "+="}},
		{name: "header list", url: "https://h.example/", headers: map[string]string{"X-Keys": `k1=li1` + m + `, k2="li2` + m + `"; Token li3` + m},
			echoes: []string{"li1" + m, "li2" + m, "li3" + m}},
		{name: "header with <>&", url: "https://h.example/", headers: map[string]string{"X-H": "a<" + m + ">&b"},
			echoes: []string{"a<" + m + ">&b"}},
		{name: "basic header", url: "https://h.example/", headers: map[string]string{"Authorization": "Basic " + basicOf("bob:pw"+m)},
			echoes: []string{basicOf("bob:pw" + m), "bob:pw" + m, "pw" + m}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := endpoint.Spec{Name: "ep", URL: endpoint.NewSecret(tc.url)}
			if tc.headers != nil {
				spec.Headers = map[string]endpoint.Secret{}
				for k, v := range tc.headers {
					spec.Headers[k] = endpoint.NewSecret(v)
				}
			}
			ep, err := newEndpointClient(&spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tc.echoes {
				for form, echo := range echoForms(v) {
					msg := `server says: "` + echo + `" (bad key)`
					if found, ok := fixturedata.FindSecret(ep.redact(msg), m); ok {
						t.Errorf("%s of %q shows through (%s): %s", form, v, found, ep.redact(msg))
					}
				}
			}
		})
	}
}

// TestRedactKeepsWhatIsNotSecret: values shorter than 3 bytes (redact's
// minimum), authentication scheme names and an IP address host stay
// readable.
func TestRedactKeepsWhatIsNotSecret(t *testing.T) {
	spec := endpoint.Spec{Name: "ep", URL: endpoint.NewSecret("http://127.0.0.1:8899/a/?k=ab"),
		Headers: map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer tokSECRET"), "X-Short": endpoint.NewSecret("1")}}
	ep, err := newEndpointClient(&spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		"dial tcp 127.0.0.1:8899: connect: connection refused",
		"a 1/2 ab cd: Bearer or Basic token required",
	} {
		if got := ep.redact(msg); got != msg {
			t.Errorf("redact(%q) = %q", msg, got)
		}
	}
	if got := ep.redact("bad tokSECRET"); got != "bad "+redact.Placeholder {
		t.Errorf("redact = %q", got)
	}
}

// TestRedactedErrorsKeepTheirType: a DNS error naming a secret host and an
// RPC error echoing a JSON-escaped path are redacted copies, still reached
// by errors.As.
func TestRedactedErrorsKeepTheirType(t *testing.T) {
	host := "acct-" + redactMarker + ".rpc.example"
	spec := endpoint.Spec{Name: "ep", URL: endpoint.NewSecret("https://" + host + "/v1/p" + redactMarker)}
	ep, err := newEndpointClient(&spec)
	if err != nil {
		t.Fatal(err)
	}
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, Server: "10.0.0.53:53", IsNotFound: true}}
	got := ep.wrapErr(dns)
	var de *net.DNSError
	var oe *net.OpError
	if !errors.As(got, &de) || !de.IsNotFound || !errors.As(got, &oe) || oe.Op != "dial" {
		t.Fatalf("wrapErr(DNS error) = %#v, want a *net.OpError holding a *net.DNSError", got.err)
	}
	if _, leaked := fixturedata.FindSecret(got.Error()+de.Name+oe.Error(), redactMarker); leaked || !strings.Contains(got.Error(), "no such host") {
		t.Errorf("DNS error: %v", got)
	}

	re := &transport.RPCError{Code: -32602, Message: "no route for /v1/p" + redactMarker,
		Data: json.RawMessage(`{"path":"\/v1\/p` + redactMarker + `","b64":"` + base64.StdEncoding.EncodeToString([]byte("/v1/p"+redactMarker)) + `"}`)}
	got = ep.wrapErr(re)
	var gre *transport.RPCError
	if !errors.As(got, &gre) || gre.Code != -32602 || !json.Valid(gre.Data) {
		t.Fatalf("wrapErr(RPC error) = %#v, want a *RPCError with valid data", got.err)
	}
	if form, leaked := fixturedata.FindSecret(gre.Message+string(gre.Data)+got.Error(), redactMarker); leaked {
		t.Errorf("RPC error shows the secret (%s): %+v %s", form, gre, gre.Data)
	}
}
