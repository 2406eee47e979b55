package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

func TestCallPrintsTheResult(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "a", url: s.URL()})
	r := runCmd(t, "call", "--config", cfg, "getBalance", `["11111111111111111111111111111111"]`)
	r.wantCode(t, exitOK)
	var got struct {
		Context struct{ Slot uint64 }
		Value   uint64
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not the JSON result: %v\n%s", err, r.stdout)
	}
	if got.Value != fixturedata.RecordedBalance || got.Context.Slot != fixturedata.RecordedSlot {
		t.Fatalf("result %+v, want balance %d at slot %d", got, fixturedata.RecordedBalance, fixturedata.RecordedSlot)
	}
	if r.stderr != "" {
		t.Fatalf("stderr without --attempts: %q", r.stderr)
	}
	// The cluster guard's one check, then the call, once.
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Method != "getGenesisHash" || reqs[1].Method != "getBalance" ||
		string(reqs[1].Params) != `["11111111111111111111111111111111"]` {
		t.Fatalf("server received %+v", reqs)
	}
}

// TestCallGetAccountInfo is the first thing a new user tried on the fake
// cluster (issue 11): it answers a real SPL Token account.
func TestCallGetAccountInfo(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	params := `["` + fixturedata.RecordedTokenAccount + `",{"encoding":"base64"}]`
	r := runCmd(t, "call", "--config", cfg, "getAccountInfo", params)
	r.wantCode(t, exitOK)
	var got struct {
		Context struct{ Slot uint64 }
		Value   struct {
			Data     [2]string
			Lamports uint64
			Owner    string
			Space    uint64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not the JSON result: %v\n%s", err, r.stdout)
	}
	data, err := base64.StdEncoding.DecodeString(got.Value.Data[0])
	if err != nil || len(data) != 165 || got.Value.Data[1] != "base64" {
		t.Fatalf("account data %q (%v)", got.Value.Data, err)
	}
	if got.Value.Owner != solana.TokenProgramID.String() || got.Value.Lamports != fixturedata.RecordedBalance ||
		got.Value.Space != 165 || got.Context.Slot != fixturedata.RecordedSlot {
		t.Errorf("result %+v", got)
	}
	if amount := binary.LittleEndian.Uint64(data[64:72]); amount != fixturedata.RecordedTokenAmount {
		t.Errorf("token amount %d, want %d", amount, fixturedata.RecordedTokenAmount)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Method != "getAccountInfo" || string(reqs[0].Params) != params {
		t.Fatalf("server received %+v", reqs)
	}
}

func TestCallFlagsAfterTheMethod(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	r := runCmd(t, "call", "getSlot", "--config", cfg, "--timeout", "5s")
	r.wantCode(t, exitOK)
	if strings.TrimSpace(r.stdout) != strconv.Itoa(fixturedata.RecordedSlot) {
		t.Fatalf("stdout %q, want the slot", r.stdout)
	}
}

func TestCallAttemptsAreJSONLines(t *testing.T) {
	bad := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Status(503, ""))})
	good := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "flaky", url: bad.URL()}, testEndpoint{name: "backup", url: good.URL(), tier: 1})
	r := runCmd(t, "call", "--config", cfg, "--attempts", "getSlot")
	r.wantCode(t, exitOK)
	got := lines(r.stderr)
	if len(got) != 2 {
		t.Fatalf("want 2 attempt lines, got %q", r.stderr)
	}
	var first, second attemptRead
	for i, dst := range []*attemptRead{&first, &second} {
		dec := json.NewDecoder(strings.NewReader(got[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			t.Fatalf("line %d is not an attempt: %v: %s", i+1, err, got[i])
		}
	}
	if first.Endpoint != "flaky" || first.Tier != 0 || first.HTTPStatus != 503 || first.Cause != "temporary-http" ||
		first.Dispatch != "answered" || !first.Retry || first.Decision != "retry" || first.Attempt != 1 {
		t.Errorf("first attempt %+v", first)
	}
	if second.Endpoint != "backup" || second.Tier != 1 || second.Decision != "success" || second.Cause != "none" || second.Attempt != 2 {
		t.Errorf("second attempt %+v", second)
	}
	for _, key := range []string{`"endpoint"`, `"tier"`, `"cause"`, `"dispatch"`, `"http_status"`, `"rpc_code"`, `"duration_ms"`, `"decision"`} {
		if !strings.Contains(got[0], key) {
			t.Errorf("attempt line lacks %s: %s", key, got[0])
		}
	}
}

func TestCallUsageErrors(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	tests := []usageCase{
		{"no method", []string{"call", "--config", cfg}, "METHOD is required"},
		{"no config", []string{"call", "getSlot"}, "--config FILE is required"},
		{"params not JSON", []string{"call", "--config", cfg, "getBalance", `["abc`}, "PARAMS_JSON is not valid JSON"},
		{"params not an array", []string{"call", "--config", cfg, "getBalance", `{"a":1}`}, "PARAMS_JSON must be a JSON array, not a JSON object"},
		{"too many arguments", []string{"call", "--config", cfg, "getSlot", "[]", "[]"}, "too many arguments"},
		{"bad timeout", []string{"call", "--config", cfg, "--timeout", "soon", "getSlot"}, "--timeout: soon is not a duration: write a number and a unit"},
		{"negative timeout", []string{"call", "--config", cfg, "--timeout", "-1s", "getSlot"}, "--timeout must not be negative"},
		{"missing file", []string{"call", "--config", filepath.Join(t.TempDir(), "nope.toml"), "getSlot"}, "cannot read config file"},
	}
	runUsageCases(t, tests)
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a usage error sent %d requests", n)
	}
}

func TestCallInvalidConfigListsEveryProblem(t *testing.T) {
	cfg := writeFile(t, "bad.toml", `
cluster = "moonnet"
[[endpoints]]
name = "a"
url = "http://127.0.0.1:1/${SOLROUTE_TEST_UNSET_VARIABLE}"
colour = "blue"
  [endpoints.roles.read]
  burst_capacity = -3
`)
	r := runCmd(t, "call", "--config", cfg, "getSlot")
	r.wantCode(t, exitUsage)
	for _, want := range []string{"cluster", "SOLROUTE_TEST_UNSET_VARIABLE", "colour", "burst_capacity", "4 problems"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if got := len(lines(r.stderr)); got != 5 {
		t.Errorf("want a heading and one line per problem (5 lines), got %d:\n%s", got, r.stderr)
	}
}

func TestCallFailedExitsOne(t *testing.T) {
	tests := []struct {
		name  string
		fault fixtures.Fault
		want  string
	}{
		{"rpc error", fixtures.RPC(-32602), "-32602"},
		{"http 503 everywhere", fixtures.Status(503, ""), "HTTP 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, fixtures.Options{Script: fixtures.Always(tt.fault)})
			cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
			r := runCmd(t, "call", "--config", cfg, "getSlot")
			r.wantCode(t, exitFailed)
			got := lines(r.stderr)
			if len(got) != 1 || !strings.Contains(got[0], tt.want) || !strings.HasPrefix(got[0], "solroute call: ") {
				t.Fatalf("want one line with %q, got %q", tt.want, r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: %q", r.stdout)
			}
		})
	}
}

func TestCallAmbiguousSendExitsThree(t *testing.T) {
	// (A CDN's 524 says the origin got the request and timed out.)
	for _, f := range []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, {Kind: fixtures.Hang}, fixtures.Status(524, "")} {
		kind := f.Kind
		t.Run(f.String(), func(t *testing.T) {
			a := startServer(t, fixtures.Options{Script: fixtures.Always(f)})
			b := startServer(t, fixtures.Options{})
			cfg := writeConfig(t, "", testEndpoint{name: "a", url: a.URL()}, testEndpoint{name: "b", url: b.URL(), tier: 1})
			tx, err := fixtures.SignedTransaction(42, "")
			if err != nil {
				t.Fatal(err)
			}
			wire, err := fixtures.EncodeTransaction(tx)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"call", "--config", cfg, "--attempts", "sendTransaction", `["` + wire + `",{"encoding":"base64"}]`}
			if kind == fixtures.Hang {
				args = append(args, "--timeout", "300ms")
			}
			r := runCmd(t, args...)
			r.wantCode(t, exitAmbiguous)
			if !strings.Contains(r.stderr, "check whether it landed before sending it again") {
				t.Errorf("stderr does not tell what to do:\n%s", r.stderr)
			}
			sig := tx.Signatures[0].String()
			if got := a.Deliveries(sig) + b.Deliveries(sig); got != 1 {
				t.Fatalf("transaction delivered %d times, want exactly once", got)
			}
			var att attemptRead
			if err := json.Unmarshal([]byte(lines(r.stderr)[0]), &att); err != nil {
				t.Fatal(err)
			}
			want := "maybe-dispatched"
			if kind == fixtures.HTTPStatus {
				want = "answered"
			}
			if att.Dispatch != want || att.Retry {
				t.Fatalf("attempt %+v, want %s and no retry", att, want)
			}
		})
	}
}

// TestCallWithNoEndpointForTheRoleIsAConfigError: a configuration that
// cannot serve the method is wrong before any request (issue 11).
func TestCallWithNoEndpointForTheRoleIsAConfigError(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	sendOnly := writeConfig(t, "", testEndpoint{name: "sender", url: s.URL(), roles: "send"})
	readOnly := writeConfig(t, "", testEndpoint{name: "reader", url: s.URL(), roles: "read"})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"read", []string{"call", "--config", sendOnly, "getSlot"},
			"solroute call: configuration error: getSlot needs an endpoint that serves role read, and none in " + sendOnly +
				" does (give one an [endpoints.roles.read] table)"},
		{"send", []string{"call", "--config", readOnly, "sendTransaction", `["AQ==",{"encoding":"base64"}]`},
			"solroute call: configuration error: sendTransaction needs an endpoint that serves role send, and none in " + readOnly +
				" does (give one an [endpoints.roles.send] table)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, tt.args...)
			r.wantCode(t, exitUsage)
			if got := lines(r.stderr); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("stderr %q, want the one line %q", r.stderr, tt.want)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: %q", r.stdout)
			}
		})
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("the server received %d requests", n)
	}
}

// TestCallNearMissIsRefused: a near miss of a known method is refused
// with the method meant, exit 2, before any request (issue 21: "getslot"
// was sent, treated like a send, after a hint); a method far from every
// known one (a provider's own) is still called, once.
func TestCallNearMissIsRefused(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	for _, tt := range []struct{ method, meant string }{{"getslot", "getSlot"}, {"getBalanse", "getBalance"}} {
		t.Run(tt.method, func(t *testing.T) {
			r := runCmd(t, "call", "--config", cfg, tt.method, "[]")
			r.wantCode(t, exitUsage)
			want := `solroute call: unknown method "` + tt.method + `": did you mean "` + tt.meant + `"? Nothing was sent; to call "` +
				tt.method + `" as written, declare it in ` + cfg + `'s [methods] (see 'solroute call --help')`
			if got := lines(r.stderr); len(got) != 1 || got[0] != want {
				t.Errorf("stderr %q, want the one line %q", r.stderr, want)
			}
		})
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a refused near miss sent %d requests", n)
	}
	r := runCmd(t, "call", "--config", cfg, "getCompletelyMadeUp", "[]")
	if strings.Contains(r.stderr, "did you mean") || r.code == exitUsage {
		t.Errorf("a far name was refused (exit %d): %q", r.code, r.stderr)
	}
	if n := s.Stats().Calls["getCompletelyMadeUp"]; n != 1 {
		t.Errorf("the server received getCompletelyMadeUp %d times, want 1: a provider's own method is called", n)
	}
}

// TestCallDeclaredMethodIsNoNearMiss: a method the configuration declares
// is called, however close to a built-in one ("getslot" declared is
// getslot); a typo of a declared method is refused with it.
func TestCallDeclaredMethodIsNoNearMiss(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeFile(t, "rpc.toml", `
[methods.getSlots]
role = "read"
class = "idempotent"

[methods.getslot]
role = "read"
class = "idempotent"

[[endpoints]]
name = "a"
url = "`+s.URL()+`"
  [endpoints.roles.read]
`)
	for _, method := range []string{"getSlots", "getslot"} {
		r := runCmd(t, "call", "--config", cfg, method)
		if strings.Contains(r.stderr, "did you mean") || r.code == exitUsage {
			t.Errorf("%s, declared, was refused (exit %d): %q", method, r.code, r.stderr)
		}
		if n := s.Stats().Calls[method]; n != 1 {
			t.Errorf("the server received %s %d times, want 1", method, n)
		}
	}
	r := runCmd(t, "call", "--config", cfg, "getSlotz")
	r.wantCode(t, exitUsage)
	if !strings.Contains(r.stderr, `unknown method "getSlotz": did you mean "getSlot"?`) {
		t.Fatalf("stderr %q does not refuse the typo", r.stderr)
	}
	r = runCmd(t, "call", "--config", cfg, "getSlotss")
	r.wantCode(t, exitUsage)
	if !strings.Contains(r.stderr, `did you mean "getSlots"?`) {
		t.Fatalf("stderr %q does not suggest the declared method", r.stderr)
	}
}

// attemptRead is an attempt line as a reader outside the library decodes
// it: the cause and dispatch state are text (the library writes them and
// never reads them back).
type attemptRead struct {
	attemptLine
	Cause    string `json:"cause"`
	Dispatch string `json:"dispatch"`
}
