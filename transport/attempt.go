package transport

import (
	"fmt"
	"strings"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// Attempt is one attempt of one call: the one report of it, in a
// *CallError's Attempts, in a solroute.CallRecord and to an Observer. An
// Observer's AttemptStarted gets the fields known when the pool admitted
// it (Endpoint, Tier, Number, Wait, Hedge, InDoubt); AttemptEnded gets
// them all.
type Attempt struct {
	// Endpoint is the endpoint's Name.
	Endpoint string
	// Tier is the endpoint's tier.
	Tier int
	// Number counts the call's attempts from 1, hedges included.
	Number int
	// Outcome is what happened: cause, dispatch state, HTTP status,
	// JSON-RPC code, the provider's delay and whose fault a failure was.
	retrypolicy.Outcome
	// Duration is the attempt's time on the pool's clock, from the permit
	// to the outcome.
	Duration time.Duration
	// Wait is how long the pool took to admit the attempt (a token, a
	// free slot, the end of a cooldown), on the pool's clock.
	Wait time.Duration
	// Timeout is the attempt's own bound: the adaptive or fixed attempt
	// timeout when a cut could buy another attempt (or
	// Settings.AttemptTimeout is set), else the call's budget; cut to the
	// time the call had left, and for a send that may have been written
	// by then, the time to the call's deadline. 0 when the attempt was
	// not made (no time left, or an endpoint unknown to the transport).
	Timeout time.Duration
	// Decision is what the call did next; zero on success.
	Decision retrypolicy.Decision
	// Hedge is true for an attempt sent as a hedge (Settings.HedgeAfter)
	// while an earlier attempt of the call was still running.
	Hedge bool
	// InDoubt is true for an attempt of a call that avoids doubt (a send)
	// routed to an endpoint in doubt, as a last resort.
	InDoubt bool
	// Err is the attempt's own error, secret-free and naming the endpoint
	// by its Name; nil on success. (A *CallError unwraps to the last
	// attempt's.)
	Err error
}

// describe is attempt n on one line.
func (a *Attempt) describe(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s (tier %d", n, a.Endpoint, a.Tier)
	if a.Hedge {
		b.WriteString(", hedge")
	}
	if a.InDoubt {
		b.WriteString(", in doubt, as a last resort")
	}
	fmt.Fprintf(&b, "): %s, %s", a.Cause, a.Dispatch)
	if a.HTTPStatus != 0 {
		fmt.Fprintf(&b, ", HTTP %d", a.HTTPStatus)
	}
	if a.RPCCode != 0 {
		fmt.Fprintf(&b, ", code %d", a.RPCCode)
	}
	fmt.Fprintf(&b, ", %s", a.Duration)
	if a.Decision.Reason != "" {
		b.WriteString(", ")
		b.WriteString(a.Decision.Reason)
		if a.Decision.Retry && a.Decision.Delay > 0 {
			fmt.Fprintf(&b, " after %s", a.Decision.Delay)
		}
	}
	return b.String()
}
