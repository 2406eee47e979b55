package solroute

import (
	"context"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Observe adds o to the Observers of every call that starts from now on:
// how package metrics and package tracing plug into a Client (see
// docs/observability.md). A nil o is ignored.
func (c *Client) Observe(o transport.Observer) { c.transport.Observe(o) }

// RetryBudget returns the client's retry budget now: the calls and
// counted retries under way and the tokens left (see retrypolicy.Usage).
func (c *Client) RetryBudget() retrypolicy.Usage { return c.transport.RetryBudget() }

// CallRecord collects the calls made under a context, each with every
// attempt: endpoint, duration, admission wait, dispatch state, cause and
// decision. See WithCallRecord.
type CallRecord = engine.CallRecord

// WithCallRecord returns a context whose calls, through any entry point
// (RPC(), the typed calls, SendAndConfirm's sends), are recorded in r as
// they end:
//
//	var rec solroute.CallRecord
//	bal, err := c.GetBalance(solroute.WithCallRecord(ctx, &rec), pk, solroute.BalanceOptions{})
//	for _, a := range rec.Attempts() { ... a.Endpoint, a.Duration, a.Cause ... }
func WithCallRecord(ctx context.Context, r *CallRecord) context.Context {
	return engine.WithCallRecord(ctx, r)
}
