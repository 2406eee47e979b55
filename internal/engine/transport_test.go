package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
)

var somePubkey = solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")

func getBalance(ctx context.Context, c *engine.Engine) (*rpc.GetBalanceResult, error) {
	var out *rpc.GetBalanceResult
	err := c.CallForInto(ctx, &out, "getBalance", []any{somePubkey})
	return out, err
}

func TestCallForIntoDecodesRecorded(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{}, nil)
	out, err := getBalance(context.Background(), e.client)
	if err != nil {
		t.Fatal(err)
	}
	if out.Value != fixturedata.RecordedBalance || out.Context.Slot != fixturedata.RecordedSlot {
		t.Fatalf("got %+v", out)
	}
	got := e.server("a").Requests()
	if len(got) != 1 || got[0].Method != "getBalance" || got[0].Header.Get("Idempotency-Key") != "" ||
		got[0].Header.Get("X-Idempotency-Key") != "" {
		t.Fatalf("requests %+v", got)
	}
}

// failure is one way an endpoint fails a call, and how the test drives it.
type failure struct {
	name  string
	fault fixtures.Fault
	cause retrypolicy.Cause
	// timeout: the attempt only ends when the pool's clock passes the
	// attempt's timeout.
	timeout bool
	// down/tls: the endpoint refuses connections / is reached over https.
	down, tls bool
	// small response limit for OversizedBody.
	limit int64
}

// readFailures are every retryable failure of a read.
var readFailures = []failure{
	{name: "refused", down: true, cause: retrypolicy.Connection},
	{name: "tls mismatch", tls: true, cause: retrypolicy.Connection},
	{name: "reset on accept", fault: fixtures.Fault{Kind: fixtures.ResetOnAccept}, cause: retrypolicy.Connection},
	{name: "reset after read", fault: fixtures.Fault{Kind: fixtures.ResetAfterRead}, cause: retrypolicy.Connection},
	{name: "hang", fault: fixtures.Fault{Kind: fixtures.Hang}, cause: retrypolicy.Timeout, timeout: true},
	{name: "slow body", fault: fixtures.Fault{Kind: fixtures.SlowBody, Delay: time.Hour}, cause: retrypolicy.Timeout, timeout: true},
	{name: "http 408", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 408}, cause: retrypolicy.Timeout},
	{name: "http 429", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429}, cause: retrypolicy.RateLimited},
	{name: "http 500", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 500}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 502", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 502}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 503", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 504", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 504}, cause: retrypolicy.TemporaryHTTP},
	{name: "rpc 429", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: 429}, cause: retrypolicy.RateLimited},
	{name: "rpc -32005", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32005}, cause: retrypolicy.NodeBehind},
	{name: "rpc -32004", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32004}, cause: retrypolicy.NodeBehind},
	{name: "rpc -32014", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32014}, cause: retrypolicy.NodeBehind},
	{name: "rpc -32016", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32016}, cause: retrypolicy.NodeBehind},
	{name: "malformed", fault: fixtures.Fault{Kind: fixtures.Malformed}, cause: retrypolicy.MalformedResponse},
	{name: "truncated", fault: fixtures.Fault{Kind: fixtures.Truncated}, cause: retrypolicy.MalformedResponse},
	{name: "wrong id", fault: fixtures.Fault{Kind: fixtures.WrongID}, cause: retrypolicy.MalformedResponse},
	{name: "oversized", fault: fixtures.Fault{Kind: fixtures.OversizedBody, Size: 4096}, cause: retrypolicy.MalformedResponse, limit: 1024},
}

// setup builds a cluster of "bad" (tier 0, failing with f) and "good" at
// goodTier.
func (f failure) setup(t *testing.T, goodTier int, s conf) *env {
	bad := member("bad", 0)
	if !f.down && !f.tls {
		bad.Options.Script = fixtures.Always(f.fault)
	}
	s.MaxResponseBytes = f.limit
	e := newEnv(t, []fixtures.Member{bad, member("good", goodTier)}, s, func(specs []endpoint.Spec) {
		if f.tls {
			for i := range specs {
				if specs[i].Name == "bad" {
					specs[i].URL = endpoint.NewSecret("https://" + specs[i].URL.Reveal()[len("http://"):])
				}
			}
		}
	})
	if f.down {
		e.server("bad").SetDown(true)
	}
	return e
}

// run makes call, driving the clock for timeout failures.
func (f failure) run(t *testing.T, e *env, call func() error) error {
	ch := async(call)
	if f.timeout {
		e.expire(e.server("bad"), 1, time.Second/2)
	}
	return wait(t, ch)
}

func TestFailoverOnEveryRetryableCause(t *testing.T) {
	for _, goodTier := range []int{0, 1} {
		for _, f := range readFailures {
			t.Run(f.name+"/good tier "+string(rune('0'+goodTier)), func(t *testing.T) {
				if f.timeout && goodTier == 0 {
					t.Skip("a timeout needs the call to start on bad; covered by the tier-1 case")
				}
				rec := newRecorder()
				e := f.setup(t, goodTier, conf{OnAttempt: rec.on})
				// With both in tier 0, round robin may start on good: call
				// until bad has been tried once.
				for range 2 {
					var out *rpc.GetBalanceResult
					err := f.run(t, e, func() error {
						return e.client.CallForInto(context.Background(), &out, "getBalance", []any{somePubkey})
					})
					if err != nil {
						t.Fatalf("call failed: %v", err)
					}
					if out == nil || out.Value != fixturedata.RecordedBalance {
						t.Fatalf("result %+v", out)
					}
					as := rec.drain()
					if as[0].Endpoint == "good" {
						if len(as) != 1 || as[0].Cause != 0 {
							t.Fatalf("attempts %+v", as)
						}
						continue
					}
					if len(as) != 2 || as[0].Cause != f.cause || as[1].Endpoint != "good" || as[1].Cause != 0 {
						t.Fatalf("attempts %+v", as)
					}
					if !as[0].Decision.Retry || !as[0].Decision.OtherEndpoint {
						t.Fatalf("decision %+v", as[0].Decision)
					}
					return
				}
				t.Fatal("bad was never tried")
			})
		}
	}
}
