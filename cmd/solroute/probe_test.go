package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

func TestProbeAllHealthy(t *testing.T) {
	a := startServer(t, fixtures.Options{})
	b := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "alpha", url: a.URL()}, testEndpoint{name: "beta", url: b.URL(), tier: 1})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitOK)
	for _, want := range []string{
		"getHealth", "getVersion", "getGenesisHash", "getBalance",
		"solana-core " + fixturedata.RecordedSolanaCore,
		fixturedata.GenesisMainnetBeta + " (mainnet-beta)",
		"2039280 lamports",
		"alpha: ok", "beta: ok", "every probed endpoint passed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	// Each endpoint alone: every canary reached each server once.
	for _, s := range []*fixtures.Server{a, b} {
		for _, m := range []string{"getHealth", "getVersion", "getGenesisHash", "getBalance", "getSlot"} {
			if n := s.Stats().Calls[m]; n != 1 {
				t.Errorf("%s received %s %d times, want 1", s.URL(), m, n)
			}
		}
	}
}

// TestProbeFlagsAnEndpointOnTheWrongCluster: a devnet endpoint in a
// mainnet-beta document is flagged in issue 13's words, "backup serves
// devnet; the document says mainnet-beta", and fails the probe.
func TestProbeFlagsAnEndpointOnTheWrongCluster(t *testing.T) {
	right := startServer(t, fixtures.Options{})
	wrong := startServer(t, fixtures.Options{Cluster: fixturedata.ClusterDevnet})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "main", url: right.URL()}, testEndpoint{name: "backup", url: wrong.URL(), tier: 1})

	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	for _, want := range []string{
		fixturedata.GenesisDevnet + " (devnet)  MISMATCH: backup serves devnet; the document says mainnet-beta\n",
		"backup: FAILED: wrong cluster: serves devnet; the document says mainnet-beta\n",
		"main: ok", "1 of 2 endpoint(s) FAILED: backup",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}

	r = runCmd(t, "probe", "--config", cfg, "--json")
	r.wantCode(t, exitFailed)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	if rep.OK || rep.ExpectedGenesis != fixturedata.GenesisMainnetBeta || len(rep.Endpoints) != 2 {
		t.Fatalf("report %+v", rep)
	}
	m, w := rep.Endpoints[0], rep.Endpoints[1]
	if !m.OK || m.GenesisMismatch || m.GenesisCluster != "mainnet-beta" || len(m.Canaries) != 5 {
		t.Errorf("main endpoint %+v", m)
	}
	if w.OK || !w.GenesisMismatch || w.GenesisHash != fixturedata.GenesisDevnet || w.GenesisCluster != "devnet" ||
		!slices.Equal(w.Problems, []string{"wrong cluster: serves devnet; the document says mainnet-beta"}) ||
		w.SlotLag != nil || w.SlotStanding != "" { // another chain's slot is compared with nothing
		t.Errorf("wrong endpoint %+v", w)
	}
	if m.BalanceLamports == nil || *m.BalanceLamports != fixturedata.RecordedBalance || m.SolanaCore != fixturedata.RecordedSolanaCore {
		t.Errorf("main endpoint's balance or version: %+v", m)
	}
}

// TestProbeNamesAnUnknownCluster: a cluster known by its genesis hash only
// is named by it.
func TestProbeNamesAnUnknownCluster(t *testing.T) {
	const localnet = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn" // a 32-byte hash of no public cluster
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, localnet, testEndpoint{name: "main", url: s.URL()})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	want := "main: FAILED: wrong cluster: serves mainnet-beta; the document says the cluster with genesis " + localnet + "\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("report lacks %q:\n%s", want, r.stdout)
	}
}

func TestProbeWithoutClusterComparesEndpoints(t *testing.T) {
	a := startServer(t, fixtures.Options{})
	b := startServer(t, fixtures.Options{})
	odd := startServer(t, fixtures.Options{Cluster: fixturedata.ClusterTestnet})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: a.URL()}, testEndpoint{name: "odd", url: odd.URL()}, testEndpoint{name: "b", url: b.URL()})
	r := runCmd(t, "probe", "--config", cfg, "--json")
	r.wantCode(t, exitFailed)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, ep := range rep.Endpoints {
		if ep.GenesisMismatch != (ep.Name == "odd") {
			t.Errorf("%s: genesis_mismatch %v", ep.Name, ep.GenesisMismatch)
		}
	}
	if want := []string{"wrong cluster: serves testnet; the other endpoints serve mainnet-beta"}; !slices.Equal(rep.Endpoints[1].Problems, want) {
		t.Errorf("odd's problems %q, want %q", rep.Endpoints[1].Problems, want)
	}
}

func TestProbeFailingEndpoint(t *testing.T) {
	good := startServer(t, fixtures.Options{})
	down := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Status(503, ""))})
	unhealthy := startServer(t, fixtures.Options{Script: fixtures.ByMethod(map[string]fixtures.Fault{"getHealth": fixtures.RPC(-32005)})})
	cfg := writeConfig(t, "mainnet-beta",
		testEndpoint{name: "good", url: good.URL()},
		testEndpoint{name: "down", url: down.URL()},
		testEndpoint{name: "behind", url: unhealthy.URL()})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	for _, want := range []string{"good: ok", "down: FAILED: getHealth: HTTP 503", "behind: FAILED: getHealth: ", "2 of 3 endpoint(s) FAILED: down, behind"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	// No failover and no retry: the failing server got exactly one
	// request per canary, the good one never saw another's canaries.
	if n := down.Stats().Calls["getHealth"]; n != 1 {
		t.Errorf("down received getHealth %d times, want 1 (no retries)", n)
	}
	if n := good.Stats().Calls["getHealth"]; n != 1 {
		t.Errorf("good received getHealth %d times, want 1 (no failover)", n)
	}
}

func TestProbeSkipsSendOnlyEndpoints(t *testing.T) {
	a := startServer(t, fixtures.Options{})
	sender := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "reader", url: a.URL()}, testEndpoint{name: "sender", url: sender.URL(), roles: "send"})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitOK)
	if !strings.Contains(r.stdout, "sender: skipped") {
		t.Errorf("report does not skip the send-only endpoint:\n%s", r.stdout)
	}
	if n := sender.Stats().Requests; n != 0 {
		t.Errorf("the send-only endpoint received %d requests", n)
	}
}

func TestProbeAddress(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "a", url: s.URL()})
	const vote = "Vote111111111111111111111111111111111111111"
	r := runCmd(t, "probe", "--config", cfg, "--address", vote)
	r.wantCode(t, exitOK)
	var params string
	for _, req := range s.Requests() {
		if req.Method == "getBalance" {
			params = string(req.Params)
		}
	}
	if !strings.Contains(params, vote) {
		t.Fatalf("getBalance params %s do not name %s", params, vote)
	}
}

func TestProbeUsageErrors(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "a", url: s.URL()})
	tests := []usageCase{
		{"invalid pubkey", []string{"probe", "--config", cfg, "--address", "not-a-key"}, `invalid --address "not-a-key"`},
		{"short pubkey", []string{"probe", "--config", cfg, "--address", "1111"}, `invalid --address "1111"`},
		{"no config", []string{"probe"}, "--config FILE is required"},
		{"positional", []string{"probe", "--config", cfg, "extra"}, `unexpected argument "extra"`},
		{"missing file", []string{"probe", "--config", cfg + ".missing"}, "cannot read config file"},
	}
	runUsageCases(t, tests)
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a usage error sent %d requests", n)
	}
}

func TestProbeWithNothingToProbeFails(t *testing.T) {
	sender := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "sender", url: sender.URL(), roles: "send"})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	if !strings.Contains(r.stdout, "no endpoint could be probed") {
		t.Errorf("report does not say nothing was probed:\n%s", r.stdout)
	}
}

// TestProbeMakesOneRequestPerCanary: "no failover, no retries", as the
// help says, holds for a connection that never carried the request too,
// which the transport would otherwise retry transparently (issue 11).
func TestProbeMakesOneRequestPerCanary(t *testing.T) {
	resetting := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Fault{Kind: fixtures.ResetOnAccept})})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String() // nothing listens there once closed
	_ = ln.Close()
	cfg := writeConfig(t, "mainnet-beta",
		testEndpoint{name: "resetting", url: resetting.URL()},
		testEndpoint{name: "refused", url: "http://" + refused + "/"})

	r := runCmd(t, "probe", "--config", cfg, "--json")
	r.wantCode(t, exitFailed)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	for _, ep := range rep.Endpoints {
		if len(ep.Canaries) != 5 {
			t.Fatalf("%s: %d canaries, want 5", ep.Name, len(ep.Canaries))
		}
		for _, c := range ep.Canaries {
			if c.OK || c.Attempts != 1 || !strings.Contains(c.Error, "(1 attempt, last on ") {
				t.Errorf("%s %s: ok %v, %d attempts, error %q; want one failed attempt", ep.Name, c.Method, c.OK, c.Attempts, c.Error)
			}
		}
	}
	if n := resetting.Stats().Accepted; n != 5 {
		t.Errorf("the resetting endpoint accepted %d connections, want 5 (one per canary)", n)
	}

	// The table shows what ended each canary, not only its category.
	r = runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	for _, want := range []string{
		"FAILED: connection (not-dispatched): dial tcp " + refused + ": connect: connection refused",
		"refused: FAILED: getHealth: connection (not-dispatched): dial tcp ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "attempts)") {
		t.Errorf("table reports a canary with other than one attempt:\n%s", r.stdout)
	}
}

// runProbeOnClock runs the command with args on clock (a fake clock
// stands still: every canary reads the slot model at one instant).
func runProbeOnClock(t *testing.T, clock clockwork.Clock, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, clock: clock, buildInfo: debug.ReadBuildInfo}
	code := e.dispatch(context.Background(), args)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// slotServers starts one fake endpoint per lag, their slot models on
// clock from one origin: their slots differ by their lags only.
func slotServers(t *testing.T, clock clockwork.Clock, lags ...uint64) []*fixtures.Server {
	t.Helper()
	origin := clock.Now()
	var out []*fixtures.Server
	for _, lag := range lags {
		out = append(out, startServer(t, fixtures.Options{Name: fmt.Sprintf("lag-%d", lag), Clock: clock,
			Slots: &fixtures.SlotOptions{Origin: origin, Lag: lag}}))
	}
	return out
}

// TestProbeShowsEachEndpointsLag: issue 13, "probe shows each endpoint's
// lag". Two endpoints in step and one 100 slots behind: the laggard's LAG
// is 100 and it fails the probe as lagging; the others' is 0.
func TestProbeShowsEachEndpointsLag(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := slotServers(t, clock, 0, 100, 3)
	cfg := writeConfig(t, "mainnet-beta",
		testEndpoint{name: "main", url: s[0].URL()},
		testEndpoint{name: "behind", url: s[1].URL()},
		testEndpoint{name: "spare", url: s[2].URL(), tier: 1})
	ref := s[0].Slot("confirmed")

	r := runProbeOnClock(t, clock, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	for _, want := range []string{
		"ENDPOINT  TIER  LAG  CANARY ",
		"\nmain      0     0    getHealth ",
		"\nbehind    0     100  getHealth ",
		"\nspare     1     3    getHealth ",
		fmt.Sprintf("getSlot         0        %d (confirmed)  LAGGING: 100 slots behind the others\n", ref-100),
		fmt.Sprintf("LAG: slots behind %d (confirmed), the highest slot another endpoint is within 16 of (max_slot_lag)\n", ref),
		"main: ok\n",
		"behind: FAILED: lagging: 100 slots behind the others (max_slot_lag 16)\n",
		"spare: ok\n",
		"probe: 1 of 3 endpoint(s) FAILED: behind\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}

	// One getSlot per endpoint, at confirmed, and no minContextSlot: the
	// probe reads what the endpoint has.
	for _, srv := range s {
		var params []string
		for _, req := range srv.Requests() {
			if req.Method == "getSlot" {
				params = append(params, string(req.Params))
			}
		}
		if len(params) != 1 || params[0] != `[{"commitment":"confirmed"}]` {
			t.Errorf("%s: getSlot params %q, want one [{\"commitment\":\"confirmed\"}]", srv.URL(), params)
		}
	}

	r = runProbeOnClock(t, clock, "probe", "--config", cfg, "--json")
	r.wantCode(t, exitFailed)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	if rep.SlotReference == nil || *rep.SlotReference != ref || rep.MaxSlotLag != 16 {
		t.Fatalf("slot_reference %v, max_slot_lag %d; want %d and 16", rep.SlotReference, rep.MaxSlotLag, ref)
	}
	for i, want := range []struct {
		lag      int64
		standing string
		ok       bool
	}{{0, "in-step", true}, {100, "lagging", false}, {3, "in-step", true}} {
		ep := rep.Endpoints[i]
		if ep.Slot == nil || *ep.Slot != ref-uint64(want.lag) || ep.SlotCommitment != "confirmed" ||
			ep.SlotLag == nil || *ep.SlotLag != want.lag || ep.SlotStanding != want.standing || ep.OK != want.ok {
			t.Errorf("%s: slot %v (%s), lag %v, %s, ok %v; want lag %d, %s, ok %v",
				ep.Name, ep.Slot, ep.SlotCommitment, ep.SlotLag, ep.SlotStanding, ep.OK, want.lag, want.standing, want.ok)
		}
	}
}

// TestProbeWithMaxSlotLagZeroShowsLagOnly: with max_slot_lag = 0 the pool
// does not route by lag, so the probe shows the lag and flags nothing.
func TestProbeWithMaxSlotLagZeroShowsLagOnly(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := slotServers(t, clock, 0, 100, 0)
	cfg := writeConfig(t, "mainnet-beta",
		testEndpoint{name: "a", url: s[0].URL()}, testEndpoint{name: "behind", url: s[1].URL()}, testEndpoint{name: "b", url: s[2].URL()})
	appendFile(t, cfg, "\n[pool]\nmax_slot_lag = 0\n")
	r := runProbeOnClock(t, clock, "probe", "--config", cfg)
	r.wantCode(t, exitOK)
	for _, want := range []string{"\nbehind    0     100  getHealth ", "max_slot_lag is 0, so no lag is flagged", "behind: ok\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "LAGGING") {
		t.Errorf("a lag flagged with max_slot_lag = 0:\n%s", r.stdout)
	}
}

// TestProbeLagUnknownWithoutCorroboration: two endpoints 100 slots apart
// corroborate neither slot, so neither lags: as in the pool, one endpoint
// cannot make another lag.
func TestProbeLagUnknownWithoutCorroboration(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := slotServers(t, clock, 0, 100)
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "a", url: s[0].URL()}, testEndpoint{name: "b", url: s[1].URL()})
	r := runProbeOnClock(t, clock, "probe", "--config", cfg, "--json")
	r.wantCode(t, exitOK)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	if rep.SlotReference != nil {
		t.Errorf("slot_reference %d, want none", *rep.SlotReference)
	}
	for _, ep := range rep.Endpoints {
		if ep.Slot == nil || ep.SlotLag != nil || ep.SlotStanding != "" {
			t.Errorf("%s: slot %v, lag %v, standing %q; want a slot and no lag", ep.Name, ep.Slot, ep.SlotLag, ep.SlotStanding)
		}
	}
	r = runProbeOnClock(t, clock, "probe", "--config", cfg)
	for _, want := range []string{"\na         0     -    getHealth ", "LAG: not known: no two endpoints answered getSlot within 16 slots of each other\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCheckSlots: the lag rule on answers read at different instants. A
// slot read earlier is extrapolated at one slot per 400 ms to the last
// answer's instant, so an endpoint whose canaries ran late is not taken
// for one ahead; an endpoint far ahead that none corroborates is an
// outlier; one that did not answer, or is on another cluster, has no lag.
func TestCheckSlots(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	slot := func(s uint64) *uint64 { return &s }
	r := &probeReport{Endpoints: []endpointReport{
		{Name: "early", Slot: slot(1000), slotAt: t0},
		{Name: "late", Slot: slot(1005), slotAt: t0.Add(2 * time.Second)}, // 5 slots later: in step
		{Name: "behind", Slot: slot(960), slotAt: t0.Add(time.Second)},
		{Name: "ahead", Slot: slot(1100), slotAt: t0.Add(2 * time.Second)},
		{Name: "silent"},
		{Name: "devnet", Slot: slot(2000), slotAt: t0, GenesisMismatch: true}, // another chain: compared with nothing
	}}
	r.checkSlots(16)
	if r.SlotReference == nil || *r.SlotReference != 1005 {
		t.Fatalf("reference %v, want 1005", r.SlotReference)
	}
	want := []struct {
		lag      any
		standing string
		problems int
	}{{int64(0), "in-step", 0}, {int64(0), "in-step", 0}, {int64(43), "lagging", 1}, {int64(-95), "outlier", 1}, {nil, "", 0}, {nil, "", 0}}
	for i, ep := range r.Endpoints {
		var lag any
		if ep.SlotLag != nil {
			lag = *ep.SlotLag
		}
		if lag != want[i].lag || ep.SlotStanding != want[i].standing || len(ep.Problems) != want[i].problems {
			t.Errorf("%s: lag %v, %q, problems %q; want %v, %q, %d problem(s)",
				ep.Name, lag, ep.SlotStanding, ep.Problems, want[i].lag, want[i].standing, want[i].problems)
		}
	}
	if p := r.Endpoints[3].Problems; len(p) == 1 && p[0] != "outlier: 95 slots ahead of the others, which none comes near (max_slot_lag 16)" {
		t.Errorf("outlier's problem %q", p[0])
	}
}

// appendFile appends data to the file at path.
func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
