package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/solroute/solroute/endpoint"
)

// parityExceptions lists the documents of testdata/parity/ that the loader
// refuses and the schema cannot: each reason is a rule JSON Schema has no
// words for (schema.json's description lists the same). The test requires
// every one of them to still disagree, so that a rule the schema learns
// leaves this list.
func parityExceptions() map[string]string {
	return map[string]string{
		"x-duplicate-names.toml":                     "unique endpoint names: JSON Schema has no uniqueness by property",
		"x-duration-sum-over.toml":                   "a duration in several units: the pattern bounds each number, not their sum",
		"x-backoff-order.toml":                       "initial_backoff ≤ max_backoff compares two keys (here, a default)",
		"x-ejection-order.toml":                      "max_time ≥ base_time compares two keys (here, a default)",
		"x-cluster-hash-zero.toml":                   "a base58 hash decoding to 32 bytes, not all zero: beyond a pattern",
		"x-url-bad-port.toml":                        "the URL past its scheme and the start of its host: the loader parses it",
		"x-url-variable-missing.toml":                "environment variables: the schema sees ${NAME}, not the environment",
		"x-name-a-date.toml":                         "TOML types JSON lacks: a date becomes a JSON string",
		"x-tier-a-float.toml":                        "TOML types JSON lacks: 1.0 becomes the JSON integer 1",
		"x-limits-url-bad-database.toml":             "a Redis URL past its scheme and the start of its host: the loader parses it",
		"x-subscribe-redundancy-over-endpoints.toml": "[subscribe] redundancy against the count of endpoints with a subscribe table: JSON Schema cannot count",
		"x-send-fan-out-over-endpoints.toml":         "[send] fan_out against the count of endpoints with a send role: JSON Schema cannot count",
		"x-budget-under-largest.toml":                "response_budget_bytes ≥ max_response_bytes compares two keys (here, a default)",
		"x-coalesce-undeclared.toml":                 "whether a coalesce entry is a read the client knows depends on the built-in registry and the [methods] tables",
	}
}

// parityEnv is the environment the corpus is loaded with: UNSET is the only
// missing variable.
func parityEnv(name string) (string, bool) {
	v, ok := map[string]string{
		"KEY":   "k3y",
		"TOKEN": "t0k3n",
		"URL":   "https://env.example/rpc",
		"HOST":  "env.example",
	}[name]
	return v, ok
}

// schemaVerdict reports whether the schema accepts the TOML document: it
// is converted TOML -> map -> JSON as TestExamplesMatchSchemaAndLoad does.
// A document JSON cannot hold (a NaN or infinite float) is refused: no
// JSON instance of it can be valid.
func schemaVerdict(t *testing.T, sch *jsonschema.Schema, data []byte) (bool, error) {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		t.Fatalf("the corpus holds only well-formed TOML: %v", err)
	}
	j, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	err = sch.Validate(inst)
	return err == nil, err
}

// TestSchemaAndParserAgree runs one corpus of valid and invalid documents
// through the loader and the schema and requires the same verdict, but for
// parityExceptions. A document's first line states the loader's verdict:
// "# valid", or "# invalid: PATH" with a path the loader must name.
func TestSchemaAndParserAgree(t *testing.T) {
	sch := compileSchema(t)
	files, err := filepath.Glob("testdata/parity/*.toml")
	if err != nil || len(files) < 40 {
		t.Fatalf("want at least 40 documents, got %d (%v)", len(files), err)
	}
	exceptions := parityExceptions()
	seen := map[string]bool{}
	var valid, invalid int
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(data, []byte("\n"))
			wantValid, wantPath := false, ""
			switch head := string(first); {
			case head == "# valid":
				wantValid = true
				valid++
			case strings.HasPrefix(head, "# invalid: "):
				wantPath = strings.TrimPrefix(head, "# invalid: ")
				invalid++
			default:
				t.Fatalf("first line %q: want '# valid' or '# invalid: PATH'", head)
			}

			_, perr := Parse(data, ParseOptions{LookupEnv: parityEnv, Filename: name})
			if wantValid && perr != nil {
				t.Fatalf("loader refused a valid document: %v", perr)
			}
			if !wantValid {
				var verr *ValidationError
				if !errors.As(perr, &verr) {
					t.Fatalf("loader: err = %v, want a *ValidationError", perr)
				}
				found := false
				for _, p := range verr.Problems {
					found = found || p.Path == wantPath
				}
				if !found {
					t.Errorf("loader names no problem at %s:\n%v", wantPath, perr)
				}
			}

			ok, serr := schemaVerdict(t, sch, data)
			reason, exception := exceptions[name]
			seen[name] = exception
			switch {
			case exception && ok == wantValid:
				t.Errorf("listed as an exception (%s) but the schema now agrees: remove it from parityExceptions", reason)
			case !exception && ok != wantValid:
				t.Errorf("schema says valid=%v, loader valid=%v:\nschema: %v\nloader: %v", ok, wantValid, serr, perr)
			}
		})
	}
	for name := range exceptions {
		if _, ok := seen[name]; !ok {
			t.Errorf("exception %s names no document of the corpus", name)
		}
	}
	if valid < 10 || invalid < 30 {
		t.Errorf("%d valid and %d invalid documents: the corpus needs both kinds", valid, invalid)
	}
}

// TestParityCorpusCoversEveryKey: every key the decoder knows appears in
// some document of the corpus, valid or invalid.
func TestParityCorpusCoversEveryKey(t *testing.T) {
	files, _ := filepath.Glob("testdata/parity/*.toml")
	used := map[string]bool{}
	known := knownKeys()
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for path := range indexPositions(data).lines {
			used[wildcard(stripIndexes(path), known)] = true
		}
	}
	for key := range known {
		if !used[key] {
			t.Errorf("no document of testdata/parity/ sets %s", key)
		}
	}
}

// schemaDefs reads schema.json's $defs and properties as raw JSON, numbers
// kept as written.
func schemaDefs(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var s map[string]any
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// dig walks nested JSON objects by key.
func dig(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("schema.json: no object at %q", k)
		}
		v = m[k]
	}
	return v
}

// TestSchemaBoundsAreTheParsers: the duration pattern is generated from
// maxDuration and the units the parser knows; the numeric bounds are
// endpoint.Validate's (held through its behaviour) and config's.
func TestSchemaBoundsAreTheParsers(t *testing.T) {
	s := schemaDefs(t)
	if got, want := dig(t, s, "$defs", "duration", "pattern"), durationPattern(maxDuration); got != want {
		t.Errorf("schema.json's duration pattern is not durationPattern(maxDuration):\n got %v\nwant %s", got, want)
	}
	limits := dig(t, s, "$defs", "limits", "properties")
	rate := dig(t, limits, "requests_per_second", "anyOf").([]any)
	min, _ := dig(t, rate[1], "minimum").(json.Number).Float64()
	max, _ := dig(t, rate[1], "maximum").(json.Number).Float64()
	// endpoint's bounds are unexported: its Validate takes the schema's
	// bounds and refuses the next float past each.
	rateOK := func(rps float64) bool {
		return endpoint.Validate([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("https://a.example"),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: rps}}}}) == nil
	}
	if !rateOK(min) || !rateOK(max) || rateOK(math.Nextafter(min, 0)) || rateOK(math.Nextafter(max, math.Inf(1))) {
		t.Errorf("schema rate bounds [%v, %v] are not endpoint.Validate's", min, max)
	}
	for _, key := range []string{"burst_capacity", "max_concurrent_requests"} {
		if got := dig(t, limits, key, "maximum"); got != json.Number(strconv.Itoa(math.MaxInt32)) {
			t.Errorf("%s maximum %v, want %d", key, got, math.MaxInt32)
		}
	}
}

// TestDurationPatternAgreesWithTheParser runs the schema's duration
// pattern and the parser on single numbers of every unit around every
// bound and precision, and on random sequences of them: a single number
// gets the same verdict from both; a sequence may be accepted by the
// pattern and refused by the parser only for its sum above maxDuration.
func TestDurationPatternAgreesWithTheParser(t *testing.T) {
	re := regexp.MustCompile(durationPattern(maxDuration))
	positive := regexp.MustCompile("[1-9]")
	parserOK := func(s string) (bool, string) {
		d, negative, problem := parseDuration(s)
		return !negative && problem == "", problem + map[bool]string{true: " positive", false: ""}[d > 0]
	}
	var singles []string
	for _, u := range durationUnits() {
		bound := int64(maxDuration / u.size)
		for _, n := range []int64{0, 1, 9, 10, bound - 1, bound, bound + 1, bound * 10, 99999999999} {
			if n < 0 {
				continue
			}
			ints := []string{strconv.FormatInt(n, 10), "00" + strconv.FormatInt(n, 10)}
			for _, i := range ints {
				singles = append(singles, i+u.name, i+"."+u.name)
				for d := 1; d <= u.decimals+2; d++ {
					singles = append(singles,
						i+"."+strings.Repeat("0", d)+u.name,
						i+"."+strings.Repeat("0", d-1)+"1"+u.name,
						i+"."+strings.Repeat("9", d)+u.name)
					if n == 0 {
						singles = append(singles, "."+strings.Repeat("0", d-1)+"5"+u.name)
					}
				}
			}
		}
	}
	singles = append(singles, "", "0", "5", "+5s", "-5s", ".s", ".", "s", "5S", "5 s", "5sec", "1e3s", "0x10s", "١s")
	for _, s := range singles {
		ok, why := parserOK(s)
		if got := re.MatchString(s); got != ok {
			t.Errorf("%q: pattern %v, parser %v (%s)", s, got, ok, why)
		}
		if ok && positive.MatchString(s) != strings.HasSuffix(why, "positive") {
			t.Errorf("%q: a non-zero digit %v, parser %s", s, positive.MatchString(s), why)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(singles[rng.IntN(len(singles))])
		}
		s := b.String()
		ok, why := parserOK(s)
		switch got := re.MatchString(s); {
		case got == ok:
		case got && why == "must be at most 1h":
			// The sum: the one thing the pattern cannot bound.
		default:
			t.Fatalf("%q: pattern %v, parser %v (%s)", s, got, ok, why)
		}
	}
}
