package engine_test

// A provider's rate limit cools its (endpoint, role) down whichever entry
// point met it (a review, stop 34: the callback and a batch member's did
// not).

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

func snapOf(t *testing.T, e *env, name string, role endpoint.Role) endpoint.Snapshot {
	t.Helper()
	for _, s := range e.pool.Snapshot() {
		if s.Name == name && s.Role == role {
			return s
		}
	}
	t.Fatalf("no snapshot of %s/%s", name, role)
	return endpoint.Snapshot{}
}

// readAll is a callback that reads the body and accepts it, as a caller
// decoding the raw answer itself would.
func readAll(_ *http.Request, r *http.Response) error {
	_, err := io.ReadAll(r.Body)
	return err
}

// TestCallbackRPCRateLimitCoolsTheEndpoint: a JSON-RPC rate limit
// (code 429 in an HTTP 200, which docs/errors.md's table lists as "rate
// limited": "a rate limit instead cools the endpoint down") met through
// CallWithCallback ("under the same rules as CallForInto") must cool the
// endpoint's read role for pause_after_rate_limit, as it does through
// CallForInto (control below) and as an HTTP 429 does through the callback
// (control below). Observed: no rate limit recorded, no cooldown, and a
// second call at the same instant reaches the refusing server again.
func TestCallbackRPCRateLimitCoolsTheEndpoint(t *testing.T) {
	cases := []struct {
		name  string
		fault fixtures.Fault
		call  func(*env) error
	}{
		{"into, rpc 429 (control)", fixtures.Fault{Kind: fixtures.RPCError, RPCCode: 429},
			func(e *env) error { _, err := getBalance(context.Background(), e.client); return err }},
		{"callback, http 429 (control)", fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429},
			func(e *env) error {
				return e.client.CallWithCallback(context.Background(), "getBalance", []any{somePubkey}, readAll)
			}},
		{"callback, rpc 429", fixtures.Fault{Kind: fixtures.RPCError, RPCCode: 429},
			func(e *env) error {
				return e.client.CallWithCallback(context.Background(), "getBalance", []any{somePubkey}, readAll)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// a (tier 0) refuses its first request with the rate limit; b
			// (tier 1) answers. The first call fails over to b.
			e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
			e.server("a").SetScript(fixtures.FirstN(1, tc.fault))
			if err := tc.call(e); err != nil {
				t.Fatalf("first call: %v", err)
			}
			s := snapOf(t, e, "a", endpoint.RoleRead)
			if s.RateLimits != 1 || s.CooldownRemaining != (endpoint.Limits{}.Normalized().PauseAfterRateLimit) {
				t.Errorf("after the rate limit: a's read role has rate limits %d, cooldown %v; want 1 and %v",
					s.RateLimits, s.CooldownRemaining, endpoint.Limits{}.Normalized().PauseAfterRateLimit)
			}
			// Same instant (the fake clock has not moved): a must be
			// cooling down, so the second call goes to b only.
			if err := tc.call(e); err != nil {
				t.Fatalf("second call: %v", err)
			}
			if n := len(e.server("a").Requests()); n != 1 {
				t.Errorf("a received %d requests within its cooldown's first instant, want 1 (the refused one)", n)
			}
		})
	}
}

// TestBatchMemberRateLimitCoolsTheEndpoint: a batch of two reads
// whose second member the provider refuses with its rate limit (JSON-RPC
// 429, a per-member quota as batching providers count one). The batch
// itself is the caller's to read member by member (docs/errors.md,
// "Batches"), but the provider has said this endpoint's role is over its
// limit; docs/errors.md: "A rate limit instead cools the endpoint down".
// Nothing was recorded, the role was not cooled and the next batch at the
// same instant went to the same server.
func TestBatchMemberRateLimitCoolsTheEndpoint(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
	e.server("a").SetScript(func(c fixtures.Call) fixtures.Fault {
		if c.N == 1 && c.Index == 1 {
			return fixtures.Fault{Kind: fixtures.RPCError, RPCCode: 429}
		}
		return fixtures.Fault{}
	})
	batch := func() jsonrpc.RPCRequests {
		return jsonrpc.RPCRequests{
			{Method: "getBalance", Params: []any{somePubkey}},
			{Method: "getBalance", Params: []any{somePubkey}},
		}
	}
	out, err := e.client.CallBatch(context.Background(), batch())
	if err != nil {
		t.Fatal(err)
	}
	if out[1].Error == nil || out[1].Error.Code != 429 {
		t.Fatalf("member 1: %+v, want the provider's rate limit", out[1])
	}
	s := snapOf(t, e, "a", endpoint.RoleRead)
	if s.RateLimits != 1 || s.CooldownRemaining <= 0 {
		t.Errorf("a member's rate limit left a's read role with rate limits %d, cooldown %v; want 1 and the pause",
			s.RateLimits, s.CooldownRemaining)
	}
	if _, err := e.client.CallBatch(context.Background(), batch()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.server("a").Requests()); n != 2 { // Requests counts members
		t.Errorf("a received %d members at the instant it said rate limited, want 2 (the first batch's)", n)
	}
}
