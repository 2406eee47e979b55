package retry

import (
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// What the machinery reads of an attempt's Outcome besides the rule users
// read (Outcome.Failed, Outcome.MayHaveActed): whose fault, doubt, whether
// a hedged pair is settled, a provider's pause.

// Endpoint reports whether the attempt of outcome o failed by its endpoint's doing, so
// that it counts against the endpoint's health.
func Endpoint(o retrypolicy.Outcome) bool { return o.Failed() && o.Fault == retrypolicy.EndpointFault }

// Doubtful reports whether the attempt of outcome o ended, by its endpoint's doing, the
// way that would leave a call that must never be sent twice ambiguous: the
// endpoint failed and a server may have acted. Such an attempt, of any
// method, puts its endpoint in doubt (see the pool's AvoidDoubt). One
// exception: an endpoint's JSON-RPC error that says only that the node
// does not keep what was asked (transaction history, a cleaned-up block,
// a secondary index; docs/errors.md) is no sign that it fails sends.
func Doubtful(o retrypolicy.Outcome) bool {
	return Endpoint(o) && o.MayHaveActed() && !(o.Cause == retrypolicy.RPCEndpoint && rpcGap(o.RPCCode))
}

// Settles reports whether outcome o decides its call whatever another
// endpoint would say: a success, or a failure any endpoint would repeat
// (an HTTP 4xx that is the request's, a JSON-RPC application error, a
// result that does not decode). A hedged pair takes the first outcome that
// settles.
func Settles(o retrypolicy.Outcome) bool {
	switch o.Cause {
	case 0, retrypolicy.Request, retrypolicy.RPCApplication, retrypolicy.InvalidResponse:
		return true
	}
	return false
}

// Pause reports whether, by outcome o, the provider asked the endpoint to pause (a rate
// limit, or a 503 with Retry-After), for how long at least (0: the
// endpoint's own pause).
func Pause(o retrypolicy.Outcome) (time.Duration, bool) {
	if o.Cause == retrypolicy.RateLimited || (o.Cause == retrypolicy.TemporaryHTTP && o.ProviderDelay > 0) {
		return o.ProviderDelay, true
	}
	return 0, false
}
