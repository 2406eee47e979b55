package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
)

var somePubkey = solana.MustPublicKeyFromBase58(fixturedata.RecordedTokenOwner)

// getBalance makes one typed getBalance through e's client.
func (e *env) getBalance(ctx context.Context) error {
	_, err := e.client.GetBalance(ctx, somePubkey, solroute.BalanceOptions{})
	return err
}

// TestFailoverSeries: a tier-0 endpoint answers 503 and the call fails
// over to tier 1: one attempt each, the first a temporary-http retry, and
// one successful call.
func TestFailoverSeries(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0, "read"), member("b", 1, "read")})
	e.server("a").SetFault(fixtures.Status(503, ""))
	if err := e.getBalance(context.Background()); err != nil {
		t.Fatal(err)
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_calls_total", "method=getBalance", "role=read", "outcome=ok"):                              1,
		series("solroute_call_duration_seconds_count", "method=getBalance", "role=read"):                            1,
		series("solroute_attempts_total", "endpoint=a", "role=read", "method=getBalance", "outcome=temporary-http"): 1,
		series("solroute_attempts_total", "endpoint=b", "role=read", "method=getBalance", "outcome=ok"):             1,
		series("solroute_attempt_duration_seconds_count", "endpoint=a", "role=read"):                                1,
		series("solroute_attempt_duration_seconds_count", "endpoint=b", "role=read"):                                1,
		series("solroute_admission_wait_seconds_count", "endpoint=a", "role=read"):                                  1,
		series("solroute_retry_decisions_total", "method=getBalance", "decision=retry"):                             1,
		series("solroute_endpoint_admissions_total", "endpoint=a", "role=read"):                                     1,
		series("solroute_endpoint_admissions_total", "endpoint=b", "role=read"):                                     1,
		series("solroute_endpoint_state", "endpoint=a", "role=read", "state=degraded"):                              1,
		series("solroute_endpoint_state", "endpoint=a", "role=read", "state=available"):                             0,
		series("solroute_endpoint_state", "endpoint=b", "role=read", "state=available"):                             1,
		series("solroute_endpoint_info", "endpoint=b", "role=read", "tier=1"):                                       1,
		series("solroute_hedges_total", "endpoint=b", "role=read"):                                                  0,
		series("solroute_calls_in_flight"):                                                                          0,
		series("solroute_retries_in_flight"):                                                                        0,
	})
	if got := s.matching("solroute_calls_total"); len(got) != 1 {
		t.Errorf("calls_total series %q, want the one successful call", got)
	}
	if got := s.matching("solroute_ambiguous_calls_total"); len(got) != 0 {
		t.Errorf("ambiguous calls %q, want none", got)
	}
	if got := s[series("solroute_retry_budget_tokens")]; got <= 0 {
		t.Errorf("retry budget tokens %v, want some left", got)
	}
}

// TestRateLimitSeries: an endpoint answers HTTP 429 with Retry-After: 2;
// the call fails over, the provider's delay is observed, the endpoint's
// rate limit counted, and it shows rate-limited with its cooldown, which
// runs down as the pool's clock moves.
func TestRateLimitSeries(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0, "read"), member("b", 1, "read")})
	e.server("a").SetFault(fixtures.Status(429, "2"))
	if err := e.getBalance(context.Background()); err != nil {
		t.Fatal(err)
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_attempts_total", "endpoint=a", "role=read", "method=getBalance", "outcome=rate-limited"): 1,
		series("solroute_provider_delay_seconds_count", "endpoint=a", "role=read"):                                1,
		series("solroute_provider_delay_seconds_sum", "endpoint=a", "role=read"):                                  2,
		series("solroute_provider_delay_seconds_count", "endpoint=b", "role=read"):                                0,
		series("solroute_endpoint_rate_limits_total", "endpoint=a", "role=read"):                                  1,
		series("solroute_endpoint_rate_limits_total", "endpoint=b", "role=read"):                                  0,
		series("solroute_endpoint_state", "endpoint=a", "role=read", "state=rate-limited"):                        1,
		series("solroute_endpoint_cooldown_remaining_seconds", "endpoint=a", "role=read"):                         2,
		series("solroute_endpoint_cooldown_remaining_seconds", "endpoint=b", "role=read"):                         0,
		series("solroute_retry_decisions_total", "method=getBalance", "decision=retry"):                           1,
		series("solroute_calls_total", "method=getBalance", "role=read", "outcome=ok"):                            1,
	})
	e.clock.Advance(1500 * time.Millisecond)
	body, s = e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_endpoint_cooldown_remaining_seconds", "endpoint=a", "role=read"): 0.5,
	})
}

// TestRefusalSeries: an endpoint with a one-token bucket takes the first
// call; the pool refuses it the second (its bucket is empty), which goes
// to tier 1.
func TestRefusalSeries(t *testing.T) {
	limited := member("limited", 0, "read")
	limited.Read = &endpoint.Limits{RequestTimeout: time.Second, RequestsPerSecond: 1, BurstCapacity: 1}
	e := newEnv(t, []fixtures.Member{limited, member("spare", 1, "read")})
	for range 2 {
		if err := e.getBalance(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_endpoint_admissions_total", "endpoint=limited", "role=read"):                     1,
		series("solroute_endpoint_admissions_total", "endpoint=spare", "role=read"):                       1,
		series("solroute_endpoint_refusals_total", "endpoint=limited", "role=read", "reason=rate"):        1,
		series("solroute_endpoint_refusals_total", "endpoint=limited", "role=read", "reason=concurrency"): 0,
		series("solroute_endpoint_tokens", "endpoint=limited", "role=read"):                               0,
	})
	if got := s.matching("solroute_endpoint_tokens", "endpoint=spare"); len(got) != 0 {
		t.Errorf("an unlimited bucket shows tokens: %q", got)
	}
}

// TestAmbiguousSendSeries: a send whose connection resets after the
// request was read may have landed: it is not resent, and the call counts
// as ambiguous.
func TestAmbiguousSendSeries(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("bad", 0, "send"), member("good", 1, "send")})
	e.server("bad").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	var sig solana.Signature
	err := e.client.CallForInto(context.Background(), &sig, "sendTransaction", signedTx(t, 900))
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ErrAmbiguousDispatch", err)
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_ambiguous_calls_total", "method=sendTransaction"):                                             1,
		series("solroute_calls_total", "method=sendTransaction", "role=send", "outcome=connection"):                    1,
		series("solroute_attempts_total", "endpoint=bad", "role=send", "method=sendTransaction", "outcome=connection"): 1,
		series("solroute_retry_decisions_total", "method=sendTransaction", "decision=maybe-dispatched"):                1,
		series("solroute_endpoint_admissions_total", "endpoint=good", "role=send"):                                     0,
		series("solroute_endpoint_in_doubt", "endpoint=bad", "role=send"):                                              1,
		series("solroute_endpoint_in_doubt", "endpoint=good", "role=send"):                                             0,
	})
	if got := s.matching("solroute_attempts_total", "endpoint=good"); len(got) != 0 {
		t.Errorf("the send was resent: %q", got)
	}
}

// TestInDoubtSendSeries: with the only send endpoint in doubt, the next
// send goes there as a last resort and counts as such.
func TestInDoubtSendSeries(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("only", 0, "send")})
	e.server("only").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	var sig solana.Signature
	if err := e.client.CallForInto(context.Background(), &sig, "sendTransaction", signedTx(t, 901)); !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ErrAmbiguousDispatch", err)
	}
	e.server("only").SetFault(fixtures.Fault{})
	if err := e.client.CallForInto(context.Background(), &sig, "sendTransaction", signedTx(t, 902)); err != nil {
		t.Fatal(err)
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_in_doubt_attempts_total", "endpoint=only"):                         1,
		series("solroute_ambiguous_calls_total", "method=sendTransaction"):                  1,
		series("solroute_calls_total", "method=sendTransaction", "role=send", "outcome=ok"): 1,
	})
}

// TestHedgeSeries: the first endpoint hangs; after HedgeAfter the call
// hedges to the second, which answers, and the first attempt is
// superseded.
func TestHedgeSeries(t *testing.T) {
	const hedgeAfter = 50 * time.Millisecond
	e := newEnv(t, []fixtures.Member{member("a", 0, "read"), member("b", 0, "read")},
		func(o *solroute.Options) { o.Transport.HedgeAfter = hedgeAfter })
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	guard, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard, not a measurement
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.getBalance(context.Background()) }()
	// Of two idle peers the pool takes the first; a hangs, and the call
	// waits on its attempt timer and its hedge timer.
	if err := e.server("a").WaitRequests(guard, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(guard, 2); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-guard.Done():
		t.Fatal("the hedged call never returned")
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_hedges_total", "endpoint=b", "role=read"):                                            1,
		series("solroute_hedges_total", "endpoint=a", "role=read"):                                            0,
		series("solroute_attempts_total", "endpoint=a", "role=read", "method=getBalance", "outcome=canceled"): 1,
		series("solroute_attempts_total", "endpoint=b", "role=read", "method=getBalance", "outcome=ok"):       1,
		series("solroute_retry_decisions_total", "method=getBalance", "decision=superseded"):                  1,
		series("solroute_calls_total", "method=getBalance", "role=read", "outcome=ok"):                        1,
		series("solroute_call_duration_seconds_sum", "method=getBalance", "role=read"):                        hedgeAfter.Seconds(),
		series("solroute_attempt_duration_seconds_sum", "endpoint=b", "role=read"):                            0,
	})
}

// TestLaggingEndpointSeries: of three endpoints, one answers 100 slots
// behind the others; once each has answered, it shows a slot lag of 100
// and the others 0. The servers' and the pool's clocks stand still, so
// the slots do not move.
func TestLaggingEndpointSeries(t *testing.T) {
	members := []fixtures.Member{member("a", 0, "read"), member("b", 0, "read"), member("lagging", 0, "read")}
	for i := range members {
		members[i].Options.Slots = &fixtures.SlotOptions{}
	}
	members[2].Options.Slots.Lag = 100
	e := newEnv(t, members)
	body, s := e.scrape()
	if got := s.matching("solroute_endpoint_lag_slots"); len(got) != 0 {
		t.Errorf("slot lag before any slot is known: %q\n%s", got, body)
	}
	// Each endpoint answers once: the others are avoided. The lagging one
	// first, so that monotonic reads do not hold it back.
	for _, name := range []string{"lagging", "a", "b"} {
		var avoid []string
		for _, m := range members {
			if m.Name != name {
				avoid = append(avoid, m.Name)
			}
		}
		if err := e.getBalance(engine.WithAvoid(context.Background(), avoid...)); err != nil {
			t.Fatal(err)
		}
	}
	var slotA float64
	for _, snap := range e.client.Snapshot() {
		if snap.Name == "a" {
			slotA = float64(snap.Slot)
		}
	}
	body, s = e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_endpoint_lag_slots", "endpoint=lagging"): 100,
		series("solroute_endpoint_lag_slots", "endpoint=a"):       0,
		series("solroute_endpoint_lag_slots", "endpoint=b"):       0,
		series("solroute_endpoint_slot", "endpoint=a"):            slotA,
		series("solroute_endpoint_slot", "endpoint=lagging"):      slotA - 100,
		series("solroute_endpoint_excluded", "endpoint=lagging"):  0,
	})
	if slotA == 0 {
		t.Error("endpoint a's slot is not known")
	}
}
