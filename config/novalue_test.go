package config

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

// valueMarker is planted in document values; no problem may show it.
const valueMarker = "VALUEMARKER9d2f"

// docKey is one leaf key of a full document: its table header ("" at the
// top), its key and a valid value.
type docKey struct {
	table, key, good string
}

// path is the key's problem path.
func (k docKey) path() string {
	switch {
	case k.table == "":
		return k.key
	case k.table == "[[endpoints]]":
		return "endpoints[0]." + k.key
	case strings.HasPrefix(k.table, "[endpoints."):
		return "endpoints[0]." + strings.Trim(k.table, "[]")[len("endpoints."):] + "." + k.key
	}
	return strings.Trim(k.table, "[]") + "." + k.key
}

// documentKeys lists every leaf key of the document with a valid value, in
// document order.
func documentKeys() []docKey {
	return []docKey{
		{"", "cluster", `"devnet"`},
		{"[retry]", "max_retries", "3"},
		{"[retry]", "initial_backoff", `"100ms"`},
		{"[retry]", "max_backoff", `"2s"`},
		{"[retry]", "max_provider_delay", `"60s"`},
		{"[retry]", "retry_budget_ratio", "0.2"},
		{"[retry]", "retry_budget_min_retries", "3"},
		{"[retry]", "retry_budget_burst", "100"},
		{"[transport]", "max_response_bytes", "1024"},
		{"[transport]", "response_budget_bytes", "1048576"},
		{"[transport]", "attempt_timeout", `"1s"`},
		{"[transport]", "hedge_after", `"300ms"`},
		{"[transport]", "monotonic_reads", "true"},
		{"[transport]", "slot_probe_interval", `"2s"`},
		{"[pool]", "max_slot_lag", "16"},
		{"[pool]", "doubt_window", `"30s"`},
		{"[pool]", "doubt_patience", `"250ms"`},
		{"[pool]", "history_avoid", `"5m"`},
		{"[pool.ejection]", "consecutive_failures", "5"},
		{"[pool.ejection]", "base_time", `"250ms"`},
		{"[pool.ejection]", "max_time", `"2s"`},
		{"[limits]", "backend", `"redis"`},
		{"[limits]", "url", `"redis://:${KEY}@redis.example:6379/0"`},
		{"[limits]", "key_prefix", `"solroute:"`},
		{"[limits]", "replicas", "10"},
		{"[limits]", "fail_closed", "false"},
		{"[methods.getAsset]", "role", `"read"`},
		{"[methods.getAsset]", "class", `"idempotent"`},
		{"[methods.getAsset]", "history", "true"},
		{"[[endpoints]]", "name", `"a"`},
		{"[[endpoints]]", "url", `"https://a.example/?api-key=${KEY}"`},
		{"[[endpoints]]", "tier", "0"},
		{"[[endpoints]]", "capabilities", `["archive"]`},
		{"[[endpoints]]", "history", "true"},
		{"[[endpoints]]", "headers", `{ Authorization = "Bearer ${TOKEN}" }`},
		{"[endpoints.roles.read]", "requests_per_second", "50"},
		{"[endpoints.roles.read]", "burst_capacity", "100"},
		{"[endpoints.roles.read]", "max_concurrent_requests", "32"},
		{"[endpoints.roles.read]", "request_timeout", `"5s"`},
		{"[endpoints.roles.read]", "pause_after_rate_limit", `"1s"`},
		{"[endpoints.roles.send]", "requests_per_second", "5"},
		{"[endpoints.roles.send]", "burst_capacity", "5"},
		{"[endpoints.roles.send]", "max_concurrent_requests", "4"},
		{"[endpoints.roles.send]", "request_timeout", `"10s"`},
		{"[endpoints.roles.send]", "pause_after_rate_limit", `"2s"`},
	}
}

// renderDocument writes the full document with values[path] in place of
// the valid value of that key (raw TOML after "key = ").
func renderDocument(values map[string]string) string {
	var b strings.Builder
	table := ""
	for _, k := range documentKeys() {
		if k.table != table {
			b.WriteString(k.table + "\n")
			table = k.table
		}
		v, ok := values[k.path()]
		if !ok {
			v = k.good
		}
		b.WriteString(k.key + " = " + v + "\n")
	}
	return b.String()
}

// TestRenderDocumentIsValid keeps the base document of the tests valid.
func TestRenderDocumentIsValid(t *testing.T) {
	if _, err := Parse([]byte(renderDocument(nil)), ParseOptions{LookupEnv: anyEnv}); err != nil {
		t.Fatalf("%v\n%s", err, renderDocument(nil))
	}
}

// TestNoProblemQuotesAValue plants a marker in every leaf key of a
// document, one key at a time: in values of the wrong type, wrong values,
// values that break the TOML syntax, and valid values (the document then
// fails elsewhere). No problem, and no error text, may show it: the path
// and the line say where a value is, the message says what was expected.
// Names are left out: an endpoint's name is its non-secret label, quoted
// by design (a duplicate name is named). Variables expand to the marker
// too, except UNSET, which is missing (and named, being a variable name).
func TestNoProblemQuotesAValue(t *testing.T) {
	const m = valueMarker
	lookup := func(name string) (string, bool) {
		if name == "UNSET" {
			return "", false
		}
		return "https://" + m + ".example/" + m + "\n" + m, true
	}
	wrong := []string{
		`"` + m + `"`,
		`"https://` + m + `.example/` + m + `?api-key=` + m + `"`,
		`"https://user:` + m + `@` + m + `.example/"`,
		`"HTTPS://` + m + `"`,
		`"ftp://` + m + `.example/"`,
		`"https://` + m + `:x:y/%zz"`,
		`"5s` + m + `"`,
		`"` + m + `5s"`,
		`"-` + m + `"`,
		`"1.` + m + `s"`,
		`"99999999999h` + m + `"`,
		`"${` + m + `"`,
		`"${UNSET}` + m + `"`,
		`"$${` + m + `}"`,
		`"` + m + `\n` + m + `"`,
		`'` + m + `'`,
		`"""` + m + `"""`,
		`["` + m + `"]`,
		`["` + m + `", "` + m + `"]`,
		`["", "` + m + `"]`,
		`{ ` + m + ` = "` + m + `" }`,
		`{ Authorization = "` + m + `\u0000" }`,
		`{ "Bad Name" = "` + m + `" }`,
		`{ X = 1, Y = "` + m + `" }`,
		`{ X = ["` + m + `"] }`,
	}
	// A valid value still reaches every message through the other checks:
	// a doc-wide problem (an unknown key) keeps the document failing.
	right := []string{
		`"https://` + m + `.example/` + m + `?api-key=` + m + `"`,
		`"https://a.example/${` + "KEY" + `}"`,
		`{ Authorization = "Bearer ` + m + `", "X-Key" = "${TOKEN}" }`,
		`["` + m + `"]`,
	}
	// Values that break the TOML syntax: go-toml's messages quote at most
	// one character.
	broken := []string{
		`"` + m,
		`"` + m + `\q"`,
		`"\u` + m + `"`,
		m,
		`1979-05-27T` + m,
		`["` + m + `"`,
		`{ a = "` + m + `" `,
		`"` + m + `" ` + m,
	}
	for _, k := range documentKeys() {
		if k.key == "name" {
			continue
		}
		var values []string
		values = append(values, wrong...)
		values = append(values, right...)
		values = append(values, broken...)
		for _, v := range values {
			doc := "unknown_key = 1\n" + renderDocument(map[string]string{k.path(): v})
			_, err := Parse([]byte(doc), ParseOptions{LookupEnv: lookup, Filename: "solroute.toml"})
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("%s = %s: err = %v, want a *ValidationError", k.path(), v, err)
			}
			if strings.Contains(err.Error(), m) {
				t.Errorf("%s = %s: the error shows the value:\n%v", k.path(), v, err)
				continue
			}
			for _, p := range verr.Problems {
				if strings.Contains(p.Path+p.Message, m) {
					t.Errorf("%s = %s: problem %q shows the value", k.path(), v, p)
				}
			}
		}
	}
}

// TestComparisonsNameTheOtherKey: a duration compared with another key
// names that key, and quotes a value only when it is a default the
// document left out (never a value of the document).
func TestComparisonsNameTheOtherKey(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"[retry]\ninitial_backoff = \"1500ms\"\nmax_backoff = \"1200ms\"\n",
			"2: retry.initial_backoff: must not exceed max_backoff\n"},
		{"[retry]\ninitial_backoff = \"3s\"\n",
			"2: retry.initial_backoff: must not exceed max_backoff (max_backoff is not in the document: its default is 2s)\n"},
		{"[retry]\nmax_backoff = \"50ms\"\n",
			"1: retry.initial_backoff: must not exceed max_backoff (not in the document: its default is 100ms)\n"},
		{"[pool.ejection]\nbase_time = \"1500ms\"\nmax_time = \"1200ms\"\n",
			"3: pool.ejection.max_time: must not be below base_time\n"},
		{"[pool.ejection]\nmax_time = \"100ms\"\n",
			"2: pool.ejection.max_time: must not be below base_time (base_time is not in the document: its default is 250ms)\n"},
	} {
		_, err := Parse([]byte(tt.doc+oneEndpoint), ParseOptions{Filename: "f"})
		if err == nil || !strings.Contains(err.Error()+"\n", "f:"+tt.want) {
			t.Errorf("%s: err = %v, want ...%s", tt.doc, err, tt.want)
			continue
		}
		// No value of the document, as written or as Go prints it.
		for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(tt.doc, -1) {
			d, _ := time.ParseDuration(m[1])
			if strings.Contains(err.Error(), m[1]) || strings.Contains(err.Error(), d.String()) {
				t.Errorf("%s: the error quotes %s:\n%v", tt.doc, m[1], err)
			}
		}
	}
}
