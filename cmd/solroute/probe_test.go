package main

import (
	"encoding/json"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
)

func TestProbeAllHealthy(t *testing.T) {
	a := startServer(t, fixtures.Options{})
	b := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "alpha", url: a.URL()}, testEndpoint{name: "beta", url: b.URL(), tier: 1})
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitOK)
	for _, want := range []string{
		"getHealth", "getVersion", "getGenesisHash", "getBalance",
		"solana-core " + fixtures.RecordedSolanaCore,
		fixtures.GenesisMainnetBeta + " (mainnet-beta)",
		"2039280 lamports",
		"alpha: ok", "beta: ok", "every probed endpoint passed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	// Each endpoint alone: every canary reached each server once.
	for _, s := range []*fixtures.Server{a, b} {
		for _, m := range []string{"getHealth", "getVersion", "getGenesisHash", "getBalance"} {
			if n := s.Count(m); n != 1 {
				t.Errorf("%s received %s %d times, want 1", s.Name(), m, n)
			}
		}
	}
}

// TestProbeFlagsAnEndpointOnTheWrongCluster: a devnet endpoint in a
// mainnet-beta document is flagged in issue 13's words, "backup serves
// devnet; the document says mainnet-beta", and fails the probe.
func TestProbeFlagsAnEndpointOnTheWrongCluster(t *testing.T) {
	right := startServer(t, fixtures.Options{})
	wrong := startServer(t, fixtures.Options{Cluster: fixtures.ClusterDevnet})
	cfg := writeConfig(t, "mainnet-beta", testEndpoint{name: "main", url: right.URL()}, testEndpoint{name: "backup", url: wrong.URL(), tier: 1})

	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitFailed)
	for _, want := range []string{
		fixtures.GenesisDevnet + " (devnet)  MISMATCH: backup serves devnet; the document says mainnet-beta\n",
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
	if rep.OK || rep.ExpectedGenesis != fixtures.GenesisMainnetBeta || len(rep.Endpoints) != 2 {
		t.Fatalf("report %+v", rep)
	}
	m, w := rep.Endpoints[0], rep.Endpoints[1]
	if !m.OK || m.GenesisMismatch || m.GenesisCluster != "mainnet-beta" || len(m.Canaries) != 4 {
		t.Errorf("main endpoint %+v", m)
	}
	if w.OK || !w.GenesisMismatch || w.GenesisHash != fixtures.GenesisDevnet || w.GenesisCluster != "devnet" ||
		!slices.Equal(w.Problems, []string{"wrong cluster: serves devnet; the document says mainnet-beta"}) {
		t.Errorf("wrong endpoint %+v", w)
	}
	if m.BalanceLamports == nil || *m.BalanceLamports != fixtures.RecordedBalance || m.SolanaCore != fixtures.RecordedSolanaCore {
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
	odd := startServer(t, fixtures.Options{Cluster: fixtures.ClusterTestnet})
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
	if n := down.Count("getHealth"); n != 1 {
		t.Errorf("down received getHealth %d times, want 1 (no retries)", n)
	}
	if n := good.Count("getHealth"); n != 1 {
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
		if len(ep.Canaries) != 4 {
			t.Fatalf("%s: %d canaries, want 4", ep.Name, len(ep.Canaries))
		}
		for _, c := range ep.Canaries {
			if c.OK || c.Attempts != 1 || !strings.Contains(c.Error, "(1 attempt, last on ") {
				t.Errorf("%s %s: ok %v, %d attempts, error %q; want one failed attempt", ep.Name, c.Method, c.OK, c.Attempts, c.Error)
			}
		}
	}
	if n := resetting.Stats().Accepted; n != 4 {
		t.Errorf("the resetting endpoint accepted %d connections, want 4 (one per canary)", n)
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
