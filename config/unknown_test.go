package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTooManyUnknownKeys: a large document of unknown keys is refused with
// the first maxUnknownKeys named and the rest counted, and nothing else.
func TestTooManyUnknownKeys(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "[[endpoints]]\nname = \"e%d\"\nzz%d = 1\n", i, i)
	}
	_, err := Parse([]byte(b.String()), ParseOptions{Filename: "big.toml"})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != maxUnknownKeys+1 {
		t.Fatalf("err = %v, want %d problems", err, maxUnknownKeys+1)
	}
	if p := ve.Problems[0]; p.Path != "endpoints[0].zz0" || p.Line != 3 || p.Message != "unknown key" {
		t.Errorf("first problem %+v", p)
	}
	if last := ve.Problems[maxUnknownKeys]; last.Path != fmt.Sprintf("endpoints[%d].zz%d", maxUnknownKeys, maxUnknownKeys) ||
		!strings.Contains(last.Message, fmt.Sprintf("and %d more unknown keys", 4000-maxUnknownKeys)) {
		t.Errorf("last problem %+v", last)
	}
}

// TestManyKeysUnderOneUnknownTable: keys below an unknown table count
// towards maxUnknownKeys too; the table is named, the rest counted.
func TestManyKeysUnderOneUnknownTable(t *testing.T) {
	doc := strings.Repeat("[[x.y]]\na = 1\n", 4000)
	_, err := Parse([]byte(doc), ParseOptions{})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("err = %v, want 2 problems", err)
	}
	if p := ve.Problems[0]; p.Path != "x" || p.Line != 1 || p.Message != "unknown key" {
		t.Errorf("first problem %+v", p)
	}
	if p := ve.Problems[1]; !strings.Contains(p.Message, "more unknown keys") {
		t.Errorf("second problem %+v", p)
	}
}

// TestUnknownKeysOnlyAtTheTop: under an unknown key only that key is
// reported; a few of them are reported with the rest of the problems.
func TestUnknownKeysOnlyAtTheTop(t *testing.T) {
	_, err := Parse([]byte("[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\ntier = -1\n[endpoints.extra]\nx = 1\ny = { z = 2 }\n[endpoints.roles.read]\n"), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{4, "endpoints[0].tier", "must be 0 or more"},
		{5, "endpoints[0].extra", "unknown key"},
	})
}

func TestSuggest(t *testing.T) {
	known := []string{"max_retries", "initial_backoff", "max_backoff", "url", "tier", "read", "send"}
	for key, want := range map[string]string{
		"max_retries":      "max_retries",
		"MAX-RETRIES":      "max_retries",
		"max_retires":      "max_retries", // a swap
		"maxretries":       "max_retries",
		"max_backof":       "max_backoff",
		"max_backoffs":     "max_backoff",
		"intial_backof":    "initial_backoff",
		"uri":              "url",
		"ur":               "url",
		"u":                "",
		"x":                "",
		"tire":             "tier",
		"rea":              "read",
		"colour":           "",
		"requests":         "",
		"":                 "",
		"max_provider":     "",
		"initial_backoff2": "initial_backoff",
	} {
		if got := suggest(key, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "xbc", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"é", "e", 1}, {"abcdef", "a", 3},
	} {
		if got := editDistance([]rune(tt.a), []rune(tt.b), 3); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
