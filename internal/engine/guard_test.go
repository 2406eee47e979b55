package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// methodsReceived lists the methods name received, in order.
func methodsReceived(e *env, name string) []string {
	var out []string
	for _, r := range e.server(name).Requests() {
		out = append(out, r.Method)
	}
	return out
}

// verified waits until no endpoint of e is unverified.
func (e *env) verified(t *testing.T) {
	t.Helper()
	eventually(t, func() bool {
		for _, s := range e.pool.Snapshot() {
			if s.Verification == endpoint.Unverified {
				return false
			}
		}
		return true
	})
}

// eventually waits until cond holds, an event of another goroutine
// (polled in real time, bounded by guard; never asserted on as a time).
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	ctx := guard(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition never held")
		case <-time.After(time.Millisecond):
		}
	}
}

func TestClusterGuardExcludesTheWrongCluster(t *testing.T) {
	devnet := member("backup", 0)
	devnet.Options.Cluster = "devnet"
	e := newEnv(t, []fixtures.Member{member("a", 0), devnet}, conf{Genesis: fixturedata.GenesisMainnetBeta}, nil)
	ctx := context.Background()
	for i := range 10 {
		if _, err := getBalance(ctx, e.client); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	e.verified(t)
	// backup was asked for its genesis hash, once, and nothing else, ever.
	if got := methodsReceived(e, "backup"); len(got) != 1 || got[0] != "getGenesisHash" {
		t.Fatalf("backup received %v", got)
	}
	// a paid one round trip, once.
	if got := methodsReceived(e, "a"); got[0] != "getGenesisHash" || strings.Count(strings.Join(got, " "), "getGenesisHash") != 1 {
		t.Fatalf("a received %v", got)
	}
	const reason = "serves devnet; the configuration says mainnet-beta"
	for _, s := range e.pool.Snapshot() {
		switch s.Name {
		case "backup":
			if s.Verification != endpoint.WrongCluster || s.Excluded != reason {
				t.Fatalf("backup's snapshot: %v %q", s.Verification, s.Excluded)
			}
		case "a":
			if s.Verification != endpoint.Verified {
				t.Fatalf("a's snapshot: %v", s.Verification)
			}
		}
	}
	// The line follows the exclusion.
	eventually(t, func() bool {
		logs := e.logs.String()
		return strings.Contains(logs, reason) && strings.Contains(logs, `"level":"ERROR"`)
	})
	// Sends too, and batches: nothing reaches backup.
	if _, err := e.client.CallBatch(ctx, batchOf("getHealth", "getSlot")); err != nil {
		t.Fatal(err)
	}
	if got := methodsReceived(e, "backup"); len(got) != 1 {
		t.Fatalf("backup received %v after a batch", got)
	}
}

func TestClusterGuardHoldsCallsUntilVerified(t *testing.T) {
	// a's first genesis check fails (a reset before any answer): calls
	// wait, bounded by their deadline, instead of reaching an endpoint not
	// yet checked; the check is retried on the pool's clock.
	a := member("a", 0)
	a.Options.Script = fixtures.FirstN(1, fixtures.Fault{Kind: fixtures.ResetOnAccept})
	// The call's deadline (5 s) outlasts the checker's first backoff (1 s).
	a.Read = &endpoint.Limits{RequestTimeout: 5 * time.Second}
	e := newEnv(t, []fixtures.Member{a}, conf{Genesis: fixturedata.GenesisMainnetBeta}, nil)
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	// The first check failed (a is degraded by it); the checker then waits
	// its first backoff (1 s), the call waits in Acquire.
	eventually(t, func() bool { return snapshotByName(t, e.pool, "a").State == endpoint.Degraded })
	if err := e.clock.BlockUntilContext(guard(t), 2); err != nil {
		t.Fatal(err)
	}
	if got := methodsReceived(e, "a"); len(got) != 0 {
		t.Fatalf("a received %v before its check passed", got)
	}
	e.clock.Advance(time.Second)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if got := methodsReceived(e, "a"); strings.Join(got, " ") != "getGenesisHash getBalance" {
		t.Fatalf("a received %v", got)
	}
}

func TestClusterGuardCannotCheckASendOnlyService(t *testing.T) {
	// A block engine that serves sendBundle and not getGenesisHash: the
	// guard lets it serve, and says it could not check it.
	eng := member("engine", 0)
	eng.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"getGenesisHash": fixtures.RPC(-32601)})
	e := newEnv(t, []fixtures.Member{member("a", 0), eng}, conf{Genesis: fixturedata.GenesisMainnetBeta}, nil)
	e.verified(t)
	eventually(t, func() bool { return strings.Contains(e.logs.String(), "cluster not checked") })
}

func TestSlotProbeIsPaidFromTheEndpointsLimits(t *testing.T) {
	a, b := slotted("a", 0), slotted("b", 0)
	// b has one token and no refill to speak of: the probe cannot take it
	// once a read has.
	b.Read = &endpoint.Limits{RequestTimeout: time.Second, RequestsPerSecond: 0.001, BurstCapacity: 1}
	e := newEnv(t, []fixtures.Member{a, b}, conf{SlotProbe: 2 * time.Second}, nil)
	ctx := context.Background()
	// Spend b's token.
	for served(e, "b", "getBalance") == 0 {
		if _, err := getBalance(ctx, e.client); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		if err := e.clock.BlockUntilContext(guard(t), 2); err != nil { // both probes wait
			t.Fatal(err)
		}
		e.clock.Advance(2 * time.Second)
		// Probed, and its permit given back: the prober is on its way to
		// its next timer, which the next BlockUntil sees.
		eventually(t, func() bool { return served(e, "a", "getSlot") == round+1 && e.pool.Outstanding() == 0 })
	}
	if got := served(e, "b", "getSlot"); got != 0 {
		t.Fatalf("b probed %d times with no token", got)
	}
	if s := snapshotByName(t, e.pool, "a"); s.Slot != e.server("a").Slot("confirmed") || s.SlotCommitment != rpc.CommitmentConfirmed {
		t.Fatalf("a's mark: %d at %v", s.Slot, s.SlotCommitment)
	}
	// Close stops the probes (goleak checks none outlives the package).
	_ = e.client.Close()
}

// batchOf is a batch of parameterless requests.
func batchOf(methods ...string) jsonrpc.RPCRequests {
	var out jsonrpc.RPCRequests
	for _, m := range methods {
		out = append(out, &jsonrpc.RPCRequest{Method: m})
	}
	return out
}

// guard bounds a wait on another goroutine in real time, so that a broken
// test fails instead of hanging. It is never what a test asserts on.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestRetryWithOnlyAnExcludedAlternativeRevisitsTheGoodEndpoint (issue
// 20, item 8): of two endpoints one serves another cluster and is
// excluded. A retryable failure on the good one must not be told "retry
// elsewhere, no delay" and then wait out the deadline for the excluded
// one: nobody else can take the call, so it revisits the good endpoint
// after its backoff.
func TestRetryWithOnlyAnExcludedAlternativeRevisitsTheGoodEndpoint(t *testing.T) {
	devnet := member("backup", 0)
	devnet.Options.Cluster = "devnet"
	rec := newRecorder()
	full := func(ceiling time.Duration) time.Duration { return ceiling }
	e := newEnv(t, []fixtures.Member{member("a", 0), devnet}, conf{Genesis: fixturedata.GenesisMainnetBeta,
		OnAttempt: rec.on, Retry: func(r *retrypolicy.Settings) { r.Jitter, r.InitialBackoff = full, 100*time.Millisecond }}, nil)
	e.verified(t)
	e.server("a").SetScript(fixtures.FirstN(2, fixtures.Status(503, ""))) // 1: getGenesisHash, 2: the read
	start := e.clock.Now()
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	var first transport.Attempt
	select {
	case first = <-rec.ch:
	case <-guard(t).Done():
		t.Fatal("no first attempt")
	}
	if first.Endpoint != "a" || first.Cause != retrypolicy.TemporaryHTTP {
		t.Fatalf("first attempt %+v", first)
	}
	if first.Decision.Delay != 100*time.Millisecond {
		e.clock.Advance(time.Second) // let the call end at its deadline
		t.Fatalf("first decision %+v (call ended: %v), want a revisit of a after its 100ms backoff",
			first.Decision, wait(t, done))
	}
	if err := e.clock.BlockUntilContext(guard(t), 1); err != nil { // the backoff
		t.Fatal(err)
	}
	e.clock.Advance(100 * time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if second := <-rec.ch; second.Endpoint != "a" || second.Cause != 0 {
		t.Fatalf("second attempt %+v, want a success on a", second)
	}
	if took := e.clock.Since(start); took != 100*time.Millisecond {
		t.Fatalf("the call took %v, want its backoff, 100ms", took)
	}
}
