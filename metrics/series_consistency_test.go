package metrics_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/retrypolicy"
)

// TestSeriesAgreeWithCallRecord: 64 callers, 20 calls each
// (getBalance, getSlot, getLatestBlockhash coalesced, a batch), over
// three endpoints failing one request in five with a 503. A CallRecord
// on the client sees every call and attempt; the event series must
// count the same: calls, attempts, decisions, hedges.
func TestSeriesAgreeWithCallRecord(t *testing.T) {
	ms := []fixtures.Member{member("a", 0), member("b", 0), member("c", 0)}
	for i := range ms {
		ms[i].Options.Script = fixtures.Chaos(uint64(i+1), 0.2, fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	}
	e := newEnv(t, ms, func(o *solroute.Options) { o.Transport.Retry.MaxRetries = 2 })
	var rec solroute.CallRecord
	e.client.Observe(&rec)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			ctx := context.Background()
			for j := range 20 {
				switch (i + j) % 3 {
				case 0:
					_ = e.getBalance(ctx)
				case 1:
					_, _ = e.client.RPC().GetSlot(ctx, rpc.CommitmentConfirmed)
				case 2:
					_, _ = e.client.RPC().GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
				}
			}
		})
	}
	wg.Wait()
	calls := rec.Calls()
	attempts, decisions, hedges := 0, 0, 0
	for _, c := range calls {
		attempts += len(c.Attempts)
		for _, a := range c.Attempts {
			if a.Decision.Rule != retrypolicy.Rule(0) {
				decisions++
			}
			if a.Hedge {
				hedges++
			}
		}
	}
	body, s := e.scrape()
	sum := func(name string) float64 {
		var v float64
		for k, x := range s {
			if strings.HasPrefix(k, name+"{") || k == name {
				v += x
			}
		}
		return v
	}
	t.Logf("%d calls, %d attempts, %d decisions", len(calls), attempts, decisions)
	if got := sum("solroute_calls_total"); int(got) != len(calls) || len(calls) != 64*20 {
		t.Errorf("calls_total %v, CallRecord %d, made %d", got, len(calls), 64*20)
	}
	if got := sum("solroute_attempts_total"); int(got) != attempts {
		t.Errorf("attempts_total %v, CallRecord %d", got, attempts)
	}
	if got := sum("solroute_retry_decisions_total"); int(got) != decisions {
		t.Errorf("retry_decisions_total %v, CallRecord %d", got, decisions)
	}
	if got := sum("solroute_hedges_total"); int(got) != hedges {
		t.Errorf("hedges_total %v, CallRecord %d", got, hedges)
	}
	if t.Failed() {
		t.Log(body)
	}
}
