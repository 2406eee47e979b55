package main

import (
	"context"

	"github.com/solroute/solroute/transport"
)

// onAttempt is a transport.Observer that sees only the end of each
// attempt, with its call's method: how the commands count and print
// attempts (solroute.Hooks.Observers).
type onAttempt func(ctx context.Context, method string, a transport.Attempt)

// CallStarted returns ctx.
func (f onAttempt) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context { return ctx }

// AttemptStarted returns ctx.
func (f onAttempt) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded calls f.
func (f onAttempt) AttemptEnded(ctx context.Context, call transport.CallInfo, a transport.Attempt) {
	f(ctx, call.Method, a)
}

// CallEnded does nothing.
func (f onAttempt) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}
