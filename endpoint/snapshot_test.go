package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"
)

const marker = "SECRET-7f3a"

func secretSpec() Spec {
	return Spec{
		Name:    "primary-a",
		URL:     NewSecret("https://user:" + marker + "@rpc.example.com/" + marker + "/?api-key=" + marker),
		Headers: map[string]Secret{"Authorization": NewSecret("Bearer " + marker)},
		Roles:   map[Role]Limits{RoleRead: {RequestsPerSecond: 5}, RoleSend: {}},
	}
}

// TestNothingPrintsSecrets renders specs and snapshots every way a caller
// might and checks the URL and header values never appear.
func TestNothingPrintsSecrets(t *testing.T) {
	spec := secretSpec()
	var renders []string
	for _, v := range []any{spec, &spec, []Spec{spec}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			renders = append(renders, fmt.Sprintf(verb, v))
		}
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("spec", "spec", spec)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("spec", "spec", spec)
	renders = append(renders, logs.String())

	for _, role := range []Role{RoleRead, RoleSend} {
		s := Snapshot{Name: spec.Name, Role: role, State: RateLimited, InFlight: 1, CooldownRemaining: time.Second}
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("json.Marshal(snapshot %s): %v", role, err)
		}
		renders = append(renders, fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), string(js))
	}
	for i, r := range renders {
		if strings.Contains(r, marker) {
			t.Errorf("render %d leaks a secret: %s", i, r)
		}
		if !strings.Contains(r, "primary-a") {
			t.Errorf("render %d does not name the endpoint: %s", i, r)
		}
	}
}

func TestSnapshotJSON(t *testing.T) {
	js, err := json.Marshal(Snapshot{Name: "primary-a", Role: RoleSend, Tokens: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"primary-a","tier":0,"role":"send","state":"available","requests_per_second":0,"burst_capacity":0,"tokens":null,"max_concurrent_requests":0,"in_flight":0,"cooldown_remaining":"0s","doubt_remaining":"0s","successes":0,"failures":0,"rate_limits":0,"admitted":0,"share":0,"refused_by_rate":0,"refused_by_limit":0,"ejections":0,"latency":"0s","cost":"0s","latency_p50":"0s","latency_p95":"0s","latency_p99":"0s","error_rate":0,"slot":0,"slot_commitment":"finalized","slot_lag":0,"slot_standing":"in-step","verification":"verified"}`
	if string(js) != want {
		t.Errorf("json:\n%s\nwant:\n%s", js, want)
	}
}

// TestSnapshotJSONHistory: the declaration and the avoided methods, with
// the time left as a duration string; neither key when there is nothing.
func TestSnapshotJSONHistory(t *testing.T) {
	b, err := json.Marshal(Snapshot{Name: "archive", History: true, Avoided: map[string]time.Duration{"getTransaction": 4 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"history":true,"avoided":{"getTransaction":"4m0s"}`) {
		t.Fatalf("JSON %s", s)
	}
	b, _ = json.Marshal(Snapshot{Name: "plain"})
	if s := string(b); strings.Contains(s, "history") || strings.Contains(s, "avoided") {
		t.Fatalf("JSON %s shows history keys with nothing to show", s)
	}
}
