package retry_test

import (
	"fmt"
	"time"

	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/retrypolicy"
)

// A transport drives one Call per JSON-RPC call: after each failed attempt
// it asks Next, waits Delay on its own clock, and moves to another endpoint
// when told to.
func ExamplePolicy() {
	// One Policy per client; the jitter source is exact here so the output
	// is stable (it returns the backoff ceiling itself).
	s := retrypolicy.DefaultSettings()
	s.Jitter = func(ceiling time.Duration) time.Duration { return ceiling }
	p := retry.New(s)

	c := p.Begin()
	defer c.End()

	// What the transport saw on three attempts of getBalance.
	outcomes := []retry.Input{
		{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched}},
		{Outcome: retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered, ProviderDelay: 2 * time.Second}},
		{Outcome: retrypolicy.Outcome{Cause: retrypolicy.RPCApplication, Dispatch: retrypolicy.Answered}},
	}
	for i, a := range outcomes {
		a.Number, a.Class, a.TimeLeft = i+1, retrypolicy.Idempotent, 10*time.Second
		d := c.Next(a)
		fmt.Printf("attempt %d: retry=%v delay=%v elsewhere=%v transparent=%v: %s\n",
			a.Number, d.Retry, d.Delay, d.OtherEndpoint, d.Transparent, d.Reason)
		if !d.Retry {
			break
		}
	}
	// Output:
	// attempt 1: retry=true delay=0s elsewhere=true transparent=true: never sent; retry elsewhere at once, uncounted
	// attempt 2: retry=true delay=2s elsewhere=true transparent=false: rate limited; retry elsewhere
	// attempt 3: retry=false delay=0s elsewhere=false transparent=false: rpc application error: any endpoint would answer the same
}

// A sendTransaction whose request may have reached a node is never resent,
// whatever the failure.
func ExampleDecide() {
	d := retry.Decide(retrypolicy.DefaultSettings(), retry.Input{
		Number:   1,
		Outcome:  retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.MaybeDispatched},
		Class:    retrypolicy.NeverAfterDispatch,
		TimeLeft: time.Second,
	}, retry.Retries{})
	fmt.Println(d.Retry, d.Rule, "-", d.Reason)
	// Output: false maybe-dispatched - never after dispatch: may have reached the server
}

func ExampleParseRetryAfter() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, h := range []string{"120", "Sun, 01 Mar 2026 12:00:30 GMT", "-5", "99999999999999999999"} {
		d, ok := retry.ParseRetryAfter(h, now)
		fmt.Println(d, ok)
	}
	// Output:
	// 2m0s true
	// 30s true
	// 0s false
	// 2562047h47m16.854775807s true
}
