package config

import (
	"errors"
	"strings"
	"testing"
)

// TestParseNumberOutOfRangeNamesItsKey: a number the decoder cannot
// hold (go-toml reports a line and a column, no key) is named by the key
// it was written for, and its message does not quote it.
func TestParseNumberOutOfRangeNamesItsKey(t *testing.T) {
	for _, tc := range []struct{ doc, path string }{
		{"[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n  [endpoints.roles.read]\n  requests_per_second = 1e400\n",
			"endpoints[0].roles.read.requests_per_second"},
		{"[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\nheaders = { X = \"b\", Y = 1e400 }\n", "endpoints[0].headers.Y"},
		{"[retry]\nmax_retries = 99999999999999999999\n", "retry.max_retries"},
	} {
		_, err := Parse([]byte(tc.doc), ParseOptions{})
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 {
			t.Fatalf("%q: %v, want one problem", tc.doc, err)
		}
		p := ve.Problems[0]
		if p.Path != tc.path || strings.Contains(p.Message, "1e400") || strings.Contains(p.Message, "strconv") {
			t.Fatalf("%q: problem %+v, want path %s and no quoted value", tc.doc, p, tc.path)
		}
	}
}

// TestMalformedReferenceSaysWhatANameIs: ${1A} is refused, and the
// message says why (a name starts with a letter or _).
func TestMalformedReferenceSaysWhatANameIs(t *testing.T) {
	_, errs := expand("${1A}", func(string) (string, bool) { return "", true })
	if len(errs) != 1 || !strings.Contains(errs[0].message(), "a letter or _ then") {
		t.Fatalf("problems %+v", errs)
	}
}

// TestBaseTimeAboveDefaultMaxTime: base_time above max_time's default,
// with max_time left out, is refused at base_time (it passed, and every
// ejection lasted one length, never doubling).
func TestBaseTimeAboveDefaultMaxTime(t *testing.T) {
	doc := "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n  [endpoints.roles.read]\n[pool.ejection]\nbase_time = \"3s\"\n"
	_, err := Parse([]byte(doc), ParseOptions{})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "pool.ejection.base_time" ||
		!strings.Contains(ve.Problems[0].Message, "max_time") {
		t.Fatalf("%v, want one problem at pool.ejection.base_time naming max_time", err)
	}
	if _, err := Parse([]byte(doc+"max_time = \"30s\"\n"), ParseOptions{}); err != nil {
		t.Fatalf("with max_time written: %v", err)
	}
}
