package solroute

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// feeEndpoints is how many endpoints' answers make up one union.
const feeEndpoints = 2

// feeMethod is the method PriorityFee asks.
const feeMethod = "getRecentPrioritizationFees"

// feeCandidates lists the read endpoints PriorityFee may ask, best first:
// not cooling down (a rate limit, an ejection), in step with the pool's
// reference slot, by tier, by balancing cost, by name. Only verified ones
// (or all, with no cluster to check): a call pinned to an endpoint may use
// one the cluster guard has not checked yet, which an estimate must not.
func (c *Client) feeCandidates() []string {
	var cands []endpoint.Snapshot
	for _, s := range c.pool.Snapshot() {
		if s.Role == endpoint.RoleRead && s.Verification == endpoint.Verified {
			cands = append(cands, s)
		}
	}
	slices.SortStableFunc(cands, func(a, b endpoint.Snapshot) int {
		return cmp.Or(
			cmp.Compare(cooling(a), cooling(b)),
			cmp.Compare(offStep(a), offStep(b)),
			cmp.Compare(a.Tier, b.Tier),
			cmp.Compare(a.Cost, b.Cost),
			cmp.Compare(a.Name, b.Name))
	})
	names := make([]string, len(cands))
	for i, s := range cands {
		names[i] = s.Name
	}
	return names
}

// cooling is 1 for an endpoint cooling down, else 0.
func cooling(s endpoint.Snapshot) int {
	if s.CooldownRemaining > 0 {
		return 1
	}
	return 0
}

// offStep is 1 for an endpoint lagging or an outlier, else 0.
func offStep(s endpoint.Snapshot) int {
	if s.SlotStanding != endpoint.InStep {
		return 1
	}
	return 0
}

// askFees asks the best feeEndpoints candidates at once, each pinned to
// itself, and the next candidate for each that fails, until feeEndpoints
// answered or none is left; it returns every answer and failure in the
// candidates' order, after every request ended. With no verified read
// endpoint (the cluster guard has checked none yet) it asks once, through
// the pool's own choice, which waits for the guard.
func (c *Client) askFees(ctx context.Context, keys []string) []feeAnswer {
	names := c.feeCandidates()
	if len(names) == 0 {
		return []feeAnswer{c.askAnyFees(ctx, keys)}
	}
	type ranked struct {
		rank int
		feeAnswer
	}
	results := make(chan ranked)
	next, running, answered := 0, 0, 0
	start := func() {
		rank, name := next, names[next]
		next, running = next+1, running+1
		go func() { results <- ranked{rank, c.askOneFees(ctx, name, keys)} }()
	}
	for running < feeEndpoints && next < len(names) {
		start()
	}
	got := make([]ranked, 0, feeEndpoints)
	for running > 0 {
		r := <-results
		running--
		got = append(got, r)
		if r.err == nil {
			answered++
		} else if answered+running < feeEndpoints && next < len(names) {
			start()
		}
	}
	slices.SortFunc(got, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]feeAnswer, len(got))
	for i, r := range got {
		out[i] = r.feeAnswer
	}
	return out
}

// askOneFees asks the endpoint named name alone (WithEndpoint: a retry
// stays on it), so its answer is known to be its own.
func (c *Client) askOneFees(ctx context.Context, name string, keys []string) feeAnswer {
	var out required[[]feeSample]
	err := c.engine.CallForInto(engine.WithEndpoint(ctx, name), &out, feeMethod, []any{keys})
	return feeAnswer{endpoint: name, samples: out.v, err: err}
}

// askAnyFees asks through the pool's own choice and learns from the
// attempts which endpoint answered.
func (c *Client) askAnyFees(ctx context.Context, keys []string) feeAnswer {
	var mu sync.Mutex
	name := ""
	seen := engine.AttemptFunc(func(_ context.Context, _ string, at transport.Attempt) {
		if !at.Failed() {
			mu.Lock()
			name = at.Endpoint
			mu.Unlock()
		}
	})
	var out required[[]feeSample]
	err := c.engine.CallForInto(engine.WithObserver(ctx, seen), &out, feeMethod, []any{keys})
	mu.Lock()
	defer mu.Unlock()
	return feeAnswer{endpoint: name, samples: out.v, err: err}
}
