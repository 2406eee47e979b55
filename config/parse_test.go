package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
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

func TestParseFullDocument(t *testing.T) {
	doc := `cluster = "devnet"
[retry]
max_retries = 0
initial_backoff = "50ms"
max_backoff = "1s"
max_provider_delay = "30s"
retry_budget_ratio = 0.5
retry_budget_min_retries = 0
[transport]
max_response_bytes = 1024
doubt_window = "10s"
hedge_after = "300ms"
[[endpoints]]
name = "primary-a"
url = "https://a.example/?api-key=${KEY}"
tier = 0
capabilities = ["archive", "fast"]
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
	cfg, err := Parse([]byte(doc), ParseOptions{LookupEnv: env(map[string]string{"KEY": "k", "TOKEN": "t"})})
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Cluster: "devnet",
		Retry: Retry{
			MaxRetries:       -1, // the document's explicit 0: no retries
			InitialBackoff:   50 * time.Millisecond,
			MaxBackoff:       time.Second,
			MaxProviderDelay: 30 * time.Second,
			BudgetRatio:      0.5,
			BudgetMinRetries: -1, // the document's explicit 0: no floor
		},
		MaxResponseBytes: 1024,
		DoubtWindow:      10 * time.Second,
		HedgeAfter:       300 * time.Millisecond,
		Endpoints: []Endpoint{{
			Name:         "primary-a",
			URL:          endpoint.NewSecret("https://a.example/?api-key=k"),
			Tier:         0,
			Capabilities: []string{"archive", "fast"},
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
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("Parse:\n got %#v\nwant %#v", *cfg, *want)
	}
	// %#v prints Secrets redacted (DeepEqual compared them), so name the
	// one that differs by hand.
	for i := range want.Endpoints {
		if !cfg.Endpoints[i].URL.Equal(want.Endpoints[i].URL) {
			t.Errorf("endpoints[%d].url differs", i)
		}
	}

	specs, err := cfg.EndpointSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if specs[0].URL.Reveal() != "https://a.example/?api-key=k" || specs[0].Headers["Authorization"].Reveal() != "Bearer t" ||
		specs[1].Tier != 2 || !specs[1].Serves(endpoint.RoleSend) || specs[1].Serves(endpoint.RoleRead) {
		t.Errorf("EndpointSpecs = %+v", specs)
	}
	// The specs are copies: changing them leaves the Config alone.
	specs[0].Capabilities[0] = "changed"
	specs[0].Roles[endpoint.RoleRead] = endpoint.Limits{}
	if cfg.Endpoints[0].Capabilities[0] != "archive" || cfg.Endpoints[0].Roles[endpoint.RoleRead].BurstCapacity != 100 {
		t.Error("EndpointSpecs shares memory with the Config")
	}
	wantRetry := retrypolicy.Settings{MaxRetries: 0, InitialBackoff: 50 * time.Millisecond, MaxBackoff: time.Second,
		MaxProviderDelay: 30 * time.Second, BudgetRatio: 0.5, BudgetMinRetries: 0, BudgetBurst: 100}
	if got := cfg.RetrySettings(); !reflect.DeepEqual(got, wantRetry) {
		t.Errorf("RetrySettings = %+v, want %+v", got, wantRetry)
	}
	if got := cfg.TransportSettings(); got.MaxResponseBytes != 1024 || !reflect.DeepEqual(got.Retry, wantRetry) {
		t.Errorf("TransportSettings = %+v", got)
	}
	if h, ok := cfg.ExpectedGenesisHash(); !ok || h.String() != DevnetGenesis {
		t.Errorf("ExpectedGenesisHash = %v, %v", h, ok)
	}
}

func TestParseDefaults(t *testing.T) {
	cfg, err := Parse([]byte("[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Retry != (Retry{}) || cfg.MaxResponseBytes != 0 || cfg.Cluster != "" {
		t.Errorf("absent tables must leave zero settings (the defaults): %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Endpoints[0].Roles, map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}) ||
		cfg.Endpoints[0].Headers != nil || cfg.Endpoints[0].Capabilities != nil {
		t.Errorf("endpoint = %+v", cfg.Endpoints[0])
	}
	if _, ok := cfg.ExpectedGenesisHash(); ok {
		t.Error("no cluster: no expected genesis hash")
	}
	if got := cfg.TransportSettings(); !reflect.DeepEqual(got, transport.DefaultSettings()) {
		t.Errorf("TransportSettings = %+v, want the defaults", got)
	}
}

func TestParseClusters(t *testing.T) {
	for _, tt := range []struct {
		cluster, hash string
	}{
		{"mainnet-beta", MainnetBetaGenesis},
		{"devnet", DevnetGenesis},
		{"testnet", TestnetGenesis},
		{TestnetGenesis, TestnetGenesis},
	} {
		doc := "cluster = \"" + tt.cluster + "\"\n[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"
		cfg, err := Parse([]byte(doc), ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.cluster, err)
		}
		if h, ok := cfg.ExpectedGenesisHash(); !ok || h.String() != tt.hash {
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
max_provider_delay = "0s"
retry_budget_ratio = 0
retry_budget_min_retries = -1
[transport]
max_response_bytes = 0
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
			{3, "retry.max_retries", "must not be negative"},
			{4, "retry.initial_backoff", "must not exceed retry.max_backoff"},
			{6, "retry.max_provider_delay", "must be positive"},
			{7, "retry.retry_budget_ratio", "greater than 0 and at most 1"},
			{8, "retry.retry_budget_min_retries", "must not be negative"},
			{10, "transport.max_response_bytes", "must be positive"},
			{14, "endpoints[0].tier", "must not be negative"},
			{15, "endpoints[0].capabilities[1]", "must not be empty"},
			{16, `endpoints[0].headers."Bad Name"`, "not a valid HTTP header name"},
			{16, "endpoints[0].headers.Good", "control characters"},
			{18, "endpoints[0].roles.read.requests_per_second", "must not be negative"},
			{19, "endpoints[0].roles.read.burst_capacity", "must not be negative"},
			{20, "endpoints[0].roles.read.max_concurrent_requests", "must not be negative"},
			{21, "endpoints[0].roles.read.request_timeout", "is not a duration"},
			{22, "endpoints[0].roles.read.pause_after_rate_limit", "must be positive"},
			{24, "endpoints[0].roles.send.requests_per_second", "finite"},
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
url = "/relative/` + marker + `"
  [endpoints.roles.read]
[[endpoints]]
name = "d"
url = "${KEY}"
  [endpoints.roles.read]
`,
		want: []problemWant{
			{3, "endpoints[0].url", "absolute http or https URL"},
			{7, "endpoints[1].url", "absolute http or https URL"},
			{11, "endpoints[2].url", "absolute http or https URL"},
			{15, "endpoints[3].url", "absolute http or https URL"},
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
			{7, "endpoints[1].name", ""},
			{10, "endpoints[2].name", ""},
			{13, "endpoints[3].roles", "at least one role"},
		},
	}, {
		name: "no endpoints",
		doc:  `cluster = "devnet"`,
		want: []problemWant{{0, "endpoints", "at least one [[endpoints]]"}},
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
roles = 5
`,
		want: []problemWant{{3, "endpoints[0].roles", "must be a table, not a TOML integer"}},
	}, {
		name: "value where endpoints belong",
		doc:  `endpoints = "` + marker + `"`,
		want: []problemWant{{1, "endpoints", "must be an array of tables ([[endpoints]]), not a TOML string"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc), ParseOptions{LookupEnv: lookup})
			if cfg != nil {
				t.Errorf("Parse returned a Config with an error")
			}
			checkProblems(t, err, tt.want)
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	_, err := Parse([]byte("colour = 1\n[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\ntier = -1\n[endpoints.roles.read]\n"),
		ParseOptions{Filename: "solroute.toml"})
	const want = `config: solroute.toml: invalid configuration (2 problems):
  solroute.toml:1: colour: unknown key
  solroute.toml:5: endpoints[0].tier: must not be negative`
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
	cfg, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoints[0].URL.Reveal() != "https://a.example/k" {
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
	checkProblems(t, err, []problemWant{{3, "endpoints[1].roles.send.burst_capacity", "must not be negative"}})

	cfg, err := Parse([]byte(strings.Replace(doc, "-3", "3, requests_per_second = 1", 1)), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Endpoints[0].Roles[endpoint.RoleRead].RequestsPerSecond; got != 5 {
		t.Errorf("endpoints[0] read rate = %v", got)
	}
	if got := cfg.Endpoints[1].Roles[endpoint.RoleSend]; got.BurstCapacity != 3 || got.RequestsPerSecond != 1 {
		t.Errorf("endpoints[1] send = %+v", got)
	}
}

func TestParseDoubtWindow(t *testing.T) {
	const endpoints = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.send]\n"
	for _, tc := range []struct {
		value string
		want  time.Duration
	}{
		{"", 0},                              // absent: the transport's default
		{`doubt_window = "0s"`, -1},          // explicit zero: off
		{`doubt_window = "1m"`, time.Minute}, // as written
		{`doubt_window = "250ms"`, 250 * time.Millisecond},
	} {
		cfg, err := Parse([]byte("[transport]\n"+tc.value+"\n"+endpoints), ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if cfg.DoubtWindow != tc.want {
			t.Errorf("%q: DoubtWindow %v, want %v", tc.value, cfg.DoubtWindow, tc.want)
		}
	}
	_, err := Parse([]byte("[transport]\ndoubt_window = \"-1s\"\n"+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "transport.doubt_window", "must not be negative"}})
	_, err = Parse([]byte("[transport]\ndoubt_window = 30\n"+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "transport.doubt_window", "must be a duration string"}})

	for value, want := range map[string]time.Duration{"": 0, `"0s"`: -1, `"100ms"`: 100 * time.Millisecond} {
		doc := "[transport]\n" + endpoints
		if value != "" {
			doc = "[transport]\ndoubt_patience = " + value + "\n" + endpoints
		}
		cfg, err := Parse([]byte(doc), ParseOptions{})
		if err != nil {
			t.Fatalf("doubt_patience %s: %v", value, err)
		}
		if cfg.DoubtPatience != want {
			t.Errorf("doubt_patience %s: %v, want %v", value, cfg.DoubtPatience, want)
		}
	}
	_, err = Parse([]byte("[transport]\ndoubt_patience = \"-5ms\"\n"+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "transport.doubt_patience", "must not be negative"}})
}

func TestParseEjection(t *testing.T) {
	const endpoints = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"
	for _, tc := range []struct {
		table string
		want  endpoint.Ejection
	}{
		{"", endpoint.Ejection{}}, // absent: the defaults
		{"consecutive_failures = 0", endpoint.Ejection{After: -1}},
		{"consecutive_failures = 3\nbase_time = \"1s\"\nmax_time = \"30s\"",
			endpoint.Ejection{After: 3, Base: time.Second, Max: 30 * time.Second}},
		{"max_time = \"250ms\"", endpoint.Ejection{Max: 250 * time.Millisecond}}, // = the default base
	} {
		cfg, err := Parse([]byte("[ejection]\n"+tc.table+"\n"+endpoints), ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", tc.table, err)
		}
		if cfg.Ejection != tc.want {
			t.Errorf("%q: Ejection %+v, want %+v", tc.table, cfg.Ejection, tc.want)
		}
	}
	_, err := Parse([]byte("[ejection]\nconsecutive_failures = -1\nbase_time = \"0s\"\nmax_time = \"100ms\"\nafter = 3\n"+endpoints), ParseOptions{})
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	for _, want := range []string{
		"ejection.consecutive_failures: must not be negative (0 means never eject)",
		"ejection.base_time: must be positive",
		"ejection.max_time: must not be below ejection.base_time (its default, 250ms)",
		"ejection.after",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestNewPoolTakesEjection(t *testing.T) {
	// consecutive_failures = 2: the second failure in a row ejects.
	cfg, err := Parse([]byte("[ejection]\nconsecutive_failures = 2\n[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(cfg, ClientOptions{Clock: clockwork.NewFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		pm, err := p.Acquire(context.Background(), pool.Request{Role: endpoint.RoleRead, Method: "getSlot"})
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		pm.Done(retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched,
			Fault: retrypolicy.EndpointFault})
	}
	if s := p.Snapshot()[0]; s.State != endpoint.Ejected {
		t.Fatalf("after 2 failures the endpoint is %v, want ejected", s.State)
	}
}
