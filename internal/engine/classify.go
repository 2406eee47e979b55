package engine

import (
	"context"
	"errors"
	"net"

	"github.com/solroute/solroute/retrypolicy"
)

// classifyErr returns the cause of an error that ended an attempt while
// sending or reading: ctx is the caller's context, actx the attempt's.
// Checks go by what is known, most specific first; never by message text.
func classifyErr(ctx, actx context.Context, err error) retrypolicy.Cause {
	// The caller's context ended. At its deadline, the call's time ran out:
	// the call's deadline is never later than ctx's and the attempt's
	// bound is cut to it, so the attempt's timer and ctx reach it at one
	// instant, in either order, and either way it is a timeout at the
	// call's deadline (attempt judges whose). Otherwise the caller gave
	// up: nothing was learnt about the endpoint.
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return retrypolicy.Timeout
		}
		return retrypolicy.Canceled
	}
	// Its hedge settled the call (firstCancel): nothing was learnt either.
	if errors.Is(context.Cause(actx), errSuperseded) {
		return retrypolicy.Canceled
	}
	// The attempt's own timer (pool clock) fired: the endpoint was slow.
	if errors.Is(context.Cause(actx), errAttemptTimeout) {
		return retrypolicy.Timeout
	}
	// A timeout reported by the network stack.
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return retrypolicy.Timeout
	}
	// Everything else that ends an exchange without a usable answer (dial,
	// DNS, TLS, reset, EOF, "HTTP response to HTTPS client") is the
	// connection's failure. Whether the request left is the dispatch
	// tracker's business, not this function's.
	return retrypolicy.Connection
}
