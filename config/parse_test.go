package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// marker is planted in URLs and header values; no error may print it.
const marker = "SECRET-MARKER-7c1e"

// env is a fixed environment for the tests.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

// oneEndpoint is the smallest [[endpoints]] table, appended to documents
// that test other tables.
const oneEndpoint = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"

func TestParseFullDocument(t *testing.T) {
	doc := `cluster = "devnet"
[retry]
max_retries = 0
initial_backoff = "50ms"
max_backoff = "1s"
max_provider_delay = "30s"
retry_budget_ratio = 0.5
retry_budget_min_retries = 0
retry_budget_burst = 7
[transport]
max_response_bytes = 1024
attempt_timeout = "2s"
hedge_after = "300ms"
monotonic_reads = false
slot_probe_interval = "2s"
coalesce = ["getSlot", "getAsset"]
[pool]
doubt_window = "10s"
doubt_patience = "0s"
max_slot_lag = 32
history_avoid = "1m"
[pool.ejection]
consecutive_failures = 0
base_time = "1s"
max_time = "30s"
[limits]
backend = "redis"
url = "redis://:${TOKEN}@redis.example:6379/2"
key_prefix = "bots:"
replicas = 10
fail_closed = true
[methods.getAsset]
role = "read"
class = "idempotent"
[[endpoints]]
name = "primary-a"
url = "https://a.example/?api-key=${KEY}"
tier = 0
capabilities = ["archive", "fast"]
history = true
headers = { Authorization = "Bearer ${TOKEN}", "X-Literal" = "$${NOT_A_VAR}" }
  [endpoints.roles.read]
  requests_per_second = 50
  burst_capacity = 100
  max_concurrent_requests = 32
  request_timeout = "5s"
  pause_after_rate_limit = "1s"
  [endpoints.roles.send]
  requests_per_second = 5
[[endpoints]]
name = "${KEY}"
url = "http://127.0.0.1:8899"
tier = 2
  [endpoints.roles.send]
`
	d, err := Parse([]byte(doc), ParseOptions{LookupEnv: env(map[string]string{"KEY": "k", "TOKEN": "t"})})
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{
		Cluster: "devnet",
		Transport: &transport.Settings{
			Retry: retrypolicy.Settings{
				MaxRetries:         0, // as written: no retries
				TransparentRetries: 8, // absent: the default
				InitialBackoff:     50 * time.Millisecond,
				MaxBackoff:         time.Second,
				MaxProviderDelay:   30 * time.Second,
				BudgetRatio:        0.5,
				BudgetMinRetries:   0, // as written: no floor
				BudgetBurst:        7,
			},
			MaxResponseBytes:  1024,
			AttemptTimeout:    2 * time.Second,
			HedgeAfter:        300 * time.Millisecond,
			SlotProbeInterval: 2 * time.Second,
			Coalesce:          []string{"getSlot", "getAsset"},
		},
		Pool: &pool.Settings{
			Ejection:      endpoint.Ejection{After: 0, Base: time.Second, Max: 30 * time.Second},
			DoubtWindow:   10 * time.Second,
			DoubtPatience: 0,
			MaxSlotLag:    32,
			HistoryAvoid:  time.Minute,
		},
		Methods: map[string]methods.Method{"getAsset": {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}},
		Limits: Limits{Backend: BackendRedis, URL: endpoint.NewSecret("redis://:t@redis.example:6379/2"),
			KeyPrefix: "bots:", Replicas: 10, FailClosed: true},
		Endpoints: []endpoint.Spec{{
			Name:         "primary-a",
			URL:          endpoint.NewSecret("https://a.example/?api-key=k"),
			Tier:         0,
			Capabilities: []string{"archive", "fast"},
			History:      true,
			Headers:      map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer t"), "X-Literal": endpoint.NewSecret("${NOT_A_VAR}")},
			Roles: map[endpoint.Role]endpoint.Limits{
				endpoint.RoleRead: {RequestsPerSecond: 50, BurstCapacity: 100, MaxConcurrentRequests: 32,
					RequestTimeout: 5 * time.Second, PauseAfterRateLimit: time.Second},
				endpoint.RoleSend: {RequestsPerSecond: 5},
			},
		}, {
			Name:  "${KEY}", // names are never expanded
			URL:   endpoint.NewSecret("http://127.0.0.1:8899"),
			Tier:  2,
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleSend: {}},
		}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("Parse:\n got %#v\nwant %#v", *d, *want)
	}
	// %#v prints Secrets redacted (DeepEqual compared them), so name the
	// one that differs by hand.
	for i := range want.Endpoints {
		if !d.Endpoints[i].URL.Equal(want.Endpoints[i].URL) {
			t.Errorf("endpoints[%d].url differs", i)
		}
	}
	if h, ok := d.ExpectedGenesisHash(); !ok || h.String() != "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG" {
		t.Errorf("ExpectedGenesisHash = %v, %v", h, ok)
	}
}

// TestParseDefaults: every key left out keeps its package's default.
func TestParseDefaults(t *testing.T) {
	for _, doc := range []string{oneEndpoint, "[retry]\n[transport]\n[pool]\n[pool.ejection]\n[methods]\n" + oneEndpoint} {
		d, err := Parse([]byte(doc), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*d.Transport, transport.DefaultSettings()) || *d.Pool != pool.DefaultSettings() ||
			d.Cluster != "" || d.Methods != nil {
			t.Errorf("%q: %+v, want the defaults", doc, d)
		}
		if !reflect.DeepEqual(d.Endpoints[0].Roles, map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}) ||
			d.Endpoints[0].Headers != nil || d.Endpoints[0].Capabilities != nil {
			t.Errorf("endpoint = %+v", d.Endpoints[0])
		}
		if _, ok := d.ExpectedGenesisHash(); ok {
			t.Error("no cluster: no expected genesis hash")
		}
	}
}

// TestParseZerosAsWritten: an explicit zero means zero, where the settings
// read it so.
func TestParseZerosAsWritten(t *testing.T) {
	d, err := Parse([]byte(`[retry]
max_retries = 0
transparent_retries = 0
initial_backoff = "0s"
max_backoff = "0s"
max_provider_delay = "0s"
retry_budget_ratio = 0
retry_budget_min_retries = 0
retry_budget_burst = 0
[transport]
hedge_after = "0s"
monotonic_reads = false
slot_probe_interval = "0s"
[pool]
doubt_window = "0s"
doubt_patience = "0h0m0s"
max_slot_lag = 0
history_avoid = "0s"
[pool.ejection]
consecutive_failures = 0
base_time = "0s"
max_time = "0s"
`+oneEndpoint), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := transport.DefaultSettings()
	want.Retry = retrypolicy.Settings{}
	want.MonotonicReads = false
	if !reflect.DeepEqual(*d.Transport, want) || *d.Pool != (pool.Settings{}) {
		t.Errorf("got %+v and %+v, want zeros", *d.Transport, *d.Pool)
	}
}

// TestZeroMeansDefaultIsRefused: where a settings type reads 0 as its
// default, the document refuses an explicit 0.
func TestZeroMeansDefaultIsRefused(t *testing.T) {
	_, err := Parse([]byte(`[transport]
max_response_bytes = 0
attempt_timeout = "0s"
[[endpoints]]
name = "a"
url = "https://a.example"
  [endpoints.roles.read]
  request_timeout = "0ms"
  pause_after_rate_limit = "0s"
`), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{2, "transport.max_response_bytes", "must be positive (leave the key out for the default)"},
		{3, "transport.attempt_timeout", "must be positive (leave the key out for the default)"},
		{8, "endpoints[0].roles.read.request_timeout", "must be positive (leave the key out for the default)"},
		{9, "endpoints[0].roles.read.pause_after_rate_limit", "must be positive (leave the key out for the default)"},
	})
}

// TestHedgeAfterAuto: hedge_after, and only it, also takes "auto"
// (transport.HedgeAuto); a near miss says both forms it wants.
func TestHedgeAfterAuto(t *testing.T) {
	const endpoints = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n  [endpoints.roles.read]\n"
	d, err := Parse([]byte("[transport]\nhedge_after = \"auto\"\n"+endpoints), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Transport.HedgeAfter != transport.HedgeAuto {
		t.Fatalf("hedge_after = %v, want transport.HedgeAuto", d.Transport.HedgeAfter)
	}
	_, err = Parse([]byte("[transport]\nhedge_after = \"Auto\"\nattempt_timeout = \"auto\"\n"+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{2, "transport.hedge_after", `is neither "auto" nor a duration`},
		{3, "transport.attempt_timeout", "is not a duration"},
	})
}

func TestParseClusters(t *testing.T) {
	for _, tt := range []struct {
		cluster, hash string
	}{
		// Literal hashes (solana-rpc-facts.md), not the package's constants:
		// a typo there must fail here.
		{"mainnet-beta", "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"},
		{"devnet", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"},
		{"testnet", "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"},
		{"4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY", "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"},
	} {
		d, err := Parse([]byte("cluster = \""+tt.cluster+"\"\n"+oneEndpoint), ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.cluster, err)
		}
		if h, ok := d.ExpectedGenesisHash(); !ok || h.String() != tt.hash {
			t.Errorf("%s: ExpectedGenesisHash = %v, %v; want %s", tt.cluster, h, ok, tt.hash)
		}
	}
}

// problemWant is one expected problem: its line, its path and a fragment of
// its message.
type problemWant struct {
	line int
	path string
	msg  string
}

// checkProblems asserts err is a *ValidationError holding exactly want, in
// order, and printing no secret.
func checkProblems(t *testing.T, err error, want []problemWant) {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	if strings.Contains(err.Error(), marker) {
		t.Errorf("error prints a secret:\n%v", err)
	}
	if len(verr.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(verr.Problems), len(want), err)
	}
	for i, w := range want {
		p := verr.Problems[i]
		if p.Line != w.line || p.Path != w.path || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d = %q, want line %d %s: ...%s...", i, p, w.line, w.path, w.msg)
		}
		if strings.Contains(p.Message, marker) {
			t.Errorf("problem %d prints a secret: %q", i, p)
		}
	}
}

func TestParseProblems(t *testing.T) {
	lookup := env(map[string]string{"KEY": marker, "NEWLINE": "a\nb" + marker})
	tests := []struct {
		name string
		doc  string
		want []problemWant
	}{{
		name: "unknown keys everywhere at once",
		doc: `colour = "blue"
[retry]
max_retry = 3
[[endpoints]]
name = "a"
url = "https://a.example/` + marker + `"
weight = 1
  [endpoints.roles.read]
  rps = 5
  [endpoints.roles.archive]
`,
		want: []problemWant{
			{1, "colour", "unknown key"},
			{3, "retry.max_retry", "unknown key"},
			{7, "endpoints[0].weight", "unknown key"},
			{9, "endpoints[0].roles.read.rps", "unknown key"},
			{10, "endpoints[0].roles.archive", "unknown key"},
		},
	}, {
		name: "wrong types",
		doc: `cluster = 1
[retry]
max_retries = "3"
retry_budget_ratio = "high"
initial_backoff = 5
[[endpoints]]
name = 7
url = ["` + marker + `"]
tier = 1.5
capabilities = "archive"
headers = "Authorization: ` + marker + `"
  [endpoints.roles.read]
  requests_per_second = "50"
  burst_capacity = 1.5
  max_concurrent_requests = true
  request_timeout = 5
`,
		want: []problemWant{
			{1, "cluster", "must be a string, not an integer"},
			{3, "retry.max_retries", "must be an integer, not a string"},
			{4, "retry.retry_budget_ratio", "must be a number, not a string"},
			{5, "retry.initial_backoff", `must be a duration string such as "5s", not an integer`},
			{7, "endpoints[0].name", "must be a string, not an integer"},
			{8, "endpoints[0].url", "must be a string, not an array"},
			{9, "endpoints[0].tier", "must be an integer, not a float"},
			{10, "endpoints[0].capabilities", "must be an array of strings, not a string"},
			{11, "endpoints[0].headers", "must be a table of strings, not a string"},
			{13, "endpoints[0].roles.read.requests_per_second", "must be a number, not a string"},
			{14, "endpoints[0].roles.read.burst_capacity", "must be an integer, not a float"},
			{15, "endpoints[0].roles.read.max_concurrent_requests", "must be an integer, not a boolean"},
			{16, "endpoints[0].roles.read.request_timeout", "must be a duration string"},
		},
	}, {
		name: "bad values",
		doc: `cluster = "mainnet"
[retry]
max_retries = -1
initial_backoff = "5s"
max_backoff = "1s"
max_provider_delay = "-1s"
retry_budget_ratio = 1.5
retry_budget_min_retries = -1
[transport]
max_response_bytes = 2000000000
[[endpoints]]
name = "a"
url = "https://a.example"
tier = -1
capabilities = ["archive", ""]
headers = { "Bad Name" = "x", Good = "${NEWLINE}" }
  [endpoints.roles.read]
  requests_per_second = -5
  burst_capacity = -1
  max_concurrent_requests = -2
  request_timeout = "5 seconds"
  pause_after_rate_limit = "-1s"
  [endpoints.roles.send]
  requests_per_second = nan
`,
		want: []problemWant{
			{1, "cluster", "is not a known cluster"},
			{3, "retry.max_retries", "must be between 0 and 1048576"},
			{4, "retry.initial_backoff", "must not exceed max_backoff"},
			{6, "retry.max_provider_delay", "must not be negative"},
			{7, "retry.retry_budget_ratio", "must be between 0 and 1"},
			{8, "retry.retry_budget_min_retries", "must be between 0 and 1048576"},
			{10, "transport.max_response_bytes", "must be between 1 and 1073741824"},
			{14, "endpoints[0].tier", "must be 0 or more"},
			{15, "endpoints[0].capabilities[1]", "must not be empty"},
			{16, `endpoints[0].headers."Bad Name"`, "not a valid HTTP header name"},
			{16, "endpoints[0].headers.Good", "control characters"},
			{18, "endpoints[0].roles.read.requests_per_second", "must be 0 (unlimited) or more"},
			{19, "endpoints[0].roles.read.burst_capacity", "must be 0 (one second of requests_per_second) or more"},
			{20, "endpoints[0].roles.read.max_concurrent_requests", "must be 0 (unlimited) or more"},
			{21, "endpoints[0].roles.read.request_timeout", "is not a duration"},
			{22, "endpoints[0].roles.read.pause_after_rate_limit", "must not be negative"},
			{24, "endpoints[0].roles.send.requests_per_second", "finite"},
		},
	}, {
		name: "integers past 32 bits",
		doc: `[[endpoints]]
name = "a"
url = "https://a.example"
tier = 2147483648
  [endpoints.roles.read]
  max_concurrent_requests = -9223372036854775808
`,
		want: []problemWant{
			{4, "endpoints[0].tier", "must be at most 2147483647"},
			{6, "endpoints[0].roles.read.max_concurrent_requests", "must be 0 (unlimited) or more"},
		},
	}, {
		name: "environment",
		doc: `[[endpoints]]
name = "a"
url = "https://a.example/?k=${MISSING_KEY}&x=${KEY}&y=${MISSING_KEY}"
headers = { Authorization = "Bearer ${MISSING_TOKEN}", X = "${KEY", Y = "${KEY}" }
  [endpoints.roles.read]
`,
		want: []problemWant{
			{3, "endpoints[0].url", "environment variable MISSING_KEY is not set"},
			{4, "endpoints[0].headers.Authorization", "environment variable MISSING_TOKEN is not set"},
			{4, "endpoints[0].headers.X", "malformed ${...} reference"},
		},
	}, {
		name: "urls",
		doc: `[[endpoints]]
name = "a"
url = "ftp://a.example/` + marker + `"
  [endpoints.roles.read]
[[endpoints]]
name = "b"
url = "https://` + marker + `:x:y/%zz"
  [endpoints.roles.read]
[[endpoints]]
name = "c"
url = "https:///` + marker + `"
  [endpoints.roles.read]
[[endpoints]]
name = "d"
url = "${KEY}"
  [endpoints.roles.read]
`,
		want: []problemWant{
			{3, "endpoints[0].url", "must use the http or https scheme"},
			{7, "endpoints[1].url", "is not a valid URL"},
			{11, "endpoints[2].url", "must name a host"},
			{15, "endpoints[3].url", "must use the http or https scheme"},
			{15, "endpoints[3].url", "must name a host"},
		},
	}, {
		name: "endpoint.Validate's problems join the others",
		doc: `cluster = "nope"
[[endpoints]]
name = "dup"
url = "https://a.example"
  [endpoints.roles.read]
[[endpoints]]
name = "dup"
url = "https://b.example"
  [endpoints.roles.read]
[[endpoints]]
url = "https://c.example"
  [endpoints.roles.read]
[[endpoints]]
name = "noroles"
url = "https://d.example"
`,
		want: []problemWant{
			{1, "cluster", "is not a known cluster"},
			{7, "endpoints[1].name", `"dup" is already the name of endpoints[0]`},
			{10, "endpoints[2].name", "is required"},
			{13, "endpoints[3].roles", "at least one role"},
		},
	}, {
		name: "no endpoints",
		doc:  `cluster = "devnet"`,
		want: []problemWant{{0, "endpoints", "at least one endpoint is required"}},
	}, {
		name: "syntax error stops early",
		doc: `[[endpoints]]
name = "a"
url = https://a.example/` + marker + `
`,
		want: []problemWant{{3, "", "unexpected character"}},
	}, {
		name: "unterminated string",
		doc: `[[endpoints]]
url = "https://a.example/` + marker + `
`,
		want: []problemWant{{2, "", "new lines"}},
	}, {
		name: "duplicate key",
		doc: `[[endpoints]]
name = "a"
name = "b"
`,
		want: []problemWant{{3, "endpoints[0].name", "already defined"}},
	}, {
		name: "value where a table belongs",
		doc: `[[endpoints]]
name = "a"
url = "https://a.example"
roles = 5
`,
		want: []problemWant{{4, "endpoints[0].roles", "must be a table, not an integer"}},
	}, {
		name: "value where a role's table belongs",
		doc: `[[endpoints]]
name = "a"
url = "https://a.example"
roles = { read = 5 }
`,
		want: []problemWant{{4, "endpoints[0].roles.read", "must be a table, not an integer"}},
	}, {
		name: "value where endpoints belong",
		doc:  `endpoints = "` + marker + `"`,
		want: []problemWant{{1, "endpoints", "must be an array of tables ([[endpoints]]), not a string"}},
	}, {
		name: "not a table in endpoints",
		doc:  `endpoints = [1]`,
		want: []problemWant{{1, "endpoints[0]", "must be a table, not an integer"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.doc), ParseOptions{LookupEnv: lookup})
			if d != nil {
				t.Errorf("Parse returned a Document with an error")
			}
			checkProblems(t, err, tt.want)
		})
	}
}

// TestMovedKeys: a key of the earlier layout, in its old place, says where
// it went.
func TestMovedKeys(t *testing.T) {
	_, err := Parse([]byte(`[transport]
doubt_window = "30s"
doubt_patience = "250ms"
[ejection]
consecutive_failures = 3
base_time = "1s"
`+oneEndpoint), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{2, "transport.doubt_window", "moved to [pool]"},
		{3, "transport.doubt_patience", "moved to [pool]"},
		{4, "ejection", "moved to [pool.ejection]"},
	})
}

// TestDidYouMean: an unknown key close to a known key of its table names
// it; one that is not close gets none.
func TestDidYouMean(t *testing.T) {
	_, err := Parse([]byte(`Cluster = "devnet"
endpoint = 1
[retry]
max-retries = 3
initial_backof = "1s"
retry_budget_bust = 1
[transport]
hedge_afterr = "1s"
[pool.ejection]
base_tim = "1s"
[methods.getAsset]
rol = "read"
class = "idempotent"
[[endpoints]]
name = "a"
uri = "https://a.example"
teir = 1
  [endpoints.roles.reads]
  [endpoints.roles.read]
  request_timout = "1s"
  requests_per_minute = 60
`), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{1, "Cluster", "unknown key; did you mean cluster?"},
		{2, "endpoint", "unknown key; did you mean endpoints?"},
		{4, "retry.max-retries", "unknown key; did you mean max_retries?"},
		{5, "retry.initial_backof", "unknown key; did you mean initial_backoff?"},
		{6, "retry.retry_budget_bust", "unknown key; did you mean retry_budget_burst?"},
		{8, "transport.hedge_afterr", "unknown key; did you mean hedge_after?"},
		{10, "pool.ejection.base_tim", "unknown key; did you mean base_time?"},
		{11, "methods.getAsset.role", "is required"},
		{12, "methods.getAsset.rol", "unknown key; did you mean role?"},
		{14, "endpoints[0].url", "is required"},
		{16, "endpoints[0].uri", "unknown key; did you mean url?"},
		{17, "endpoints[0].teir", "unknown key; did you mean tier?"},
		{18, "endpoints[0].roles.reads", "unknown key; did you mean read?"},
		{20, "endpoints[0].roles.read.request_timout", "unknown key; did you mean request_timeout?"},
		{21, "endpoints[0].roles.read.requests_per_minute", "unknown key"},
	})
	var verr *ValidationError
	errors.As(err, &verr)
	if msg := verr.Problems[len(verr.Problems)-1].Message; msg != "unknown key" {
		t.Errorf("requests_per_minute: %q, want no suggestion", msg)
	}
}

func TestValidationErrorText(t *testing.T) {
	_, err := Parse([]byte("colour = 1\n[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\ntier = -1\n[endpoints.roles.read]\n"),
		ParseOptions{Filename: "solroute.toml"})
	const want = `config: solroute.toml: invalid configuration (2 problems):
  solroute.toml:1: colour: unknown key
  solroute.toml:5: endpoints[0].tier: must be 0 or more`
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n%v\nwant\n%s", err, want)
	}
	_, err = Parse([]byte("colour = 1\n"), ParseOptions{})
	if !strings.HasPrefix(err.Error(), "config: invalid configuration (2 problems):\n  line 1: colour: unknown key\n") {
		t.Fatalf("err without a file name =\n%v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	t.Setenv("SOLROUTE_TEST_KEY", "k")
	if err := os.WriteFile(good, []byte("[[endpoints]]\nname = \"a\"\nurl = \"https://a.example/${SOLROUTE_TEST_KEY}\"\n[endpoints.roles.read]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if d.Endpoints[0].URL.Reveal() != "https://a.example/k" {
		t.Errorf("Load did not expand from the process environment")
	}

	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("tier = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.File != bad || !strings.Contains(err.Error(), bad+":1: tier: unknown key") {
		t.Errorf("Load(bad) = %v", err)
	}

	_, err = Load(filepath.Join(dir, "missing.toml"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "config: ") {
		t.Errorf("Load(missing) = %v, want a config: error matching os.ErrNotExist", err)
	}
}

func TestParseInlineForms(t *testing.T) {
	// Endpoints as an inline array of tables and roles as dotted keys are
	// the same document; problems still get their lines.
	doc := `endpoints = [
  { name = "a", url = "https://a.example", roles.read.requests_per_second = 5 },
  { name = "b", url = "https://b.example", roles = { send = { burst_capacity = -3 } } },
]
`
	_, err := Parse([]byte(doc), ParseOptions{})
	checkProblems(t, err, []problemWant{{3, "endpoints[1].roles.send.burst_capacity", "or more"}})

	d, err := Parse([]byte(strings.Replace(doc, "-3", "3, requests_per_second = 1", 1)), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Endpoints[0].Roles[endpoint.RoleRead].RequestsPerSecond; got != 5 {
		t.Errorf("endpoints[0] read rate = %v", got)
	}
	if got := d.Endpoints[1].Roles[endpoint.RoleSend]; got.BurstCapacity != 3 || got.RequestsPerSecond != 1 {
		t.Errorf("endpoints[1] send = %+v", got)
	}
}

// TestParseEjection: [pool.ejection] as written, its own rules, and its
// order rule with the defaults named.
func TestParseEjection(t *testing.T) {
	for _, tc := range []struct {
		table string
		want  endpoint.Ejection
	}{
		{"", endpoint.DefaultEjection()},
		{"consecutive_failures = 0", endpoint.Ejection{After: 0, Base: 250 * time.Millisecond, Max: 2 * time.Second}},
		{"consecutive_failures = 3\nbase_time = \"1s\"\nmax_time = \"30s\"",
			endpoint.Ejection{After: 3, Base: time.Second, Max: 30 * time.Second}},
		{"max_time = \"250ms\"", endpoint.Ejection{After: 5, Base: 250 * time.Millisecond, Max: 250 * time.Millisecond}},
	} {
		d, err := Parse([]byte("[pool.ejection]\n"+tc.table+"\n"+oneEndpoint), ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", tc.table, err)
		}
		if d.Pool.Ejection != tc.want {
			t.Errorf("%q: Ejection %+v, want %+v", tc.table, d.Pool.Ejection, tc.want)
		}
	}
	_, err := Parse([]byte("[pool.ejection]\nconsecutive_failures = -1\nmax_time = \"100ms\"\nafter = 3\n"+oneEndpoint), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{2, "pool.ejection.consecutive_failures", "must be between 0 (never eject) and 1048576"},
		{3, "pool.ejection.max_time", "must not be below base_time (base_time is not in the document: its default is 250ms)"},
		{4, "pool.ejection.after", "unknown key"},
	})
	// A base_time refused is not compared with max_time.
	_, err = Parse([]byte("[pool.ejection]\nbase_time = \"-1s\"\nmax_time = \"100ms\"\n"+oneEndpoint), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "pool.ejection.base_time", "must not be negative"}})
	_, err = Parse([]byte("[pool.ejection]\nbase_time = \"0s\"\n"+oneEndpoint), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "pool.ejection.base_time",
		"must be positive when consecutive_failures is (consecutive_failures is not in the document: its default is 5)"}})
}

// TestParseLimitsProblems: [limits] problems name their key and line and
// quote nothing of the URL (here a password from the environment). The
// URL's query options are go-redis's, checked by redislimit.New
// (TestNewRefusesUnknownQueryOption): config links no Redis client.
func TestParseLimitsProblems(t *testing.T) {
	lookup := env(map[string]string{"KEY": marker})
	for _, tt := range []struct {
		doc  string
		want []problemWant
	}{{
		doc: "[limits]\nbackend = \"redis\"\nurl = \"https://:${KEY}@redis.example/0\"\nreplicas = 0\n",
		want: []problemWant{
			{3, "limits.url", "must start with redis://, rediss:// or unix://"},
			{4, "limits.replicas", "must be positive (leave the key out for the default)"},
		},
	}, {
		doc:  "[limits]\nbackend = \"redis\"\n",
		want: []problemWant{{1, "limits.url", `is required with backend = "redis"`}},
	}, {
		doc:  "[limits]\nurl = \"redis://:${KEY}@redis.example/0\"\n",
		want: []problemWant{{2, "limits.url", `is used only with backend = "redis"`}},
	}, {
		doc:  "[limits]\nbackend = \"Redis\"\nurl = \"redis://:${KEY}@redis.example/" + marker + "\"\n",
		want: []problemWant{{2, "limits.backend", `must be "local" or "redis"`}},
	}, {
		doc:  "[limits]\nbackend = \"redis\"\nurl = \"redis://:${KEY}@redis.example:" + marker + "/0\"\n",
		want: []problemWant{{3, "limits.url", "is not a valid URL"}},
	}} {
		_, err := Parse([]byte(tt.doc+oneEndpoint), ParseOptions{LookupEnv: lookup})
		checkProblems(t, err, tt.want)
	}
}
