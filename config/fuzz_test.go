package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/solroute/solroute/endpoint"
)

// fuzzSecret is what every ${VAR} expands to: no error may show it.
const fuzzSecret = "FUZZENVSECRET"

// FuzzParse parses fuzzed TOML. Whatever the bytes: no panic; an error is
// a *ValidationError whose text never shows an expanded variable, and
// whose unknown keys all have a line; a Document returned passes every
// settings' Validate, endpoint.Validate and Registry(nil), as Parse
// promises, and prints no secret.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"examples", filepath.Join("testdata", "invalid"), filepath.Join("testdata", "parity")} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	for _, s := range []string{
		"", "=", "[[endpoints]]", "[[endpoints]]\nname=\"a\"\nurl=\"${KEY}\"\n[endpoints.roles.read]\n",
		"[[endpoints]]\nname=\"a\"\nurl=\"http://h/${KEY}\"\nheaders={Authorization=\"Bearer ${KEY}\"}\n[endpoints.roles.send]\nrequests_per_second=1e308\nburst_capacity=-1\n",
		"[retry]\nmax_retries=0\ninitial_backoff=\"-1s\"\n[transport]\ndoubt_window=\"1s\"\n[ejection]\n", "[[endpoints]]\nroles=1\n", "cluster=\"x\"\n[transport]\nmax_response_bytes=9223372036854775807\n",
		"[[endpoints]]\nname=\"\\u0000\"\n", "a.b.c.d=[[[[[[1]]]]]]\n",
	} {
		f.Add([]byte(s))
	}
	lookup := func(string) (string, bool) { return fuzzSecret, true }
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data, ParseOptions{LookupEnv: lookup})
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T, want a *ValidationError: %v", err, err)
			}
			if strings.Contains(err.Error(), fuzzSecret) && !strings.Contains(string(data), fuzzSecret) {
				t.Fatalf("error text shows an expanded variable: %v", err)
			}
			for _, p := range ve.Problems {
				if (strings.HasPrefix(p.Message, "unknown key") || strings.HasPrefix(p.Message, "moved to")) && p.Line <= 0 {
					t.Fatalf("an unknown key without a line: %+v", p)
				}
			}
			return
		}
		if err := endpoint.Validate(d.Endpoints); err != nil {
			t.Fatalf("Parse accepted endpoints endpoint.Validate refuses: %v", err)
		}
		if err := d.Transport.Validate(); err != nil {
			t.Fatalf("Parse accepted transport settings their Validate refuses: %v", err)
		}
		if err := d.Pool.Validate(); err != nil {
			t.Fatalf("Parse accepted pool settings their Validate refuses: %v", err)
		}
		if _, err := d.Registry(nil); err != nil {
			t.Fatalf("Parse accepted methods the registry refuses: %v", err)
		}
		if strings.Contains(string(data), fuzzSecret) {
			return // the document itself holds the marker in plain text
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(verb, d); strings.Contains(out, fuzzSecret) {
				t.Fatalf("printing the Document with %s shows an expanded variable: %s", verb, out)
			}
		}
	})
}
