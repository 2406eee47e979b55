package transport

import (
	"context"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// An Observer sees every call a client makes and every attempt of it, as
// they happen: metrics, traces and solroute.CallRecord plug in here, for
// every call (solroute.Client.Observe, solroute.Hooks.Observers) or for
// the calls under one context (solroute.WithObserver). Its
// methods run on the goroutine that made the call, but for a hedge's
// (Settings.HedgeAfter): the hedge starts on its timer's goroutine, where
// its AttemptStarted runs, and its request runs on a goroutine of its
// own, so an Observer must not rely on goroutine affinity; they must be
// safe for concurrent use, must not block, and must not keep the values
// they are given past their return. Nothing they are given holds a URL or
// a header value.
//
// A call sees CallStarted once, then for each attempt AttemptStarted and
// AttemptEnded (the attempts of a hedged pair overlap), then CallEnded. A
// call the pool admits nowhere has no attempt. A call refused before it
// starts (params that do not encode, a nil callback, an empty batch) is
// not observed: it returns its *CallError at once and reaches no pool. The contexts an Observer
// returns must derive from the context it was given; they are threaded
// through every Observer of the call in the order they were added (the
// client's, then the context's), and each method receives the last one.
type Observer interface {
	// CallStarted is called before the call asks the pool for an
	// endpoint, with the caller's context. The context it returns is the
	// call's from then on: its waits and attempts run under it, and the
	// Observer's other methods for the call receive it.
	CallStarted(ctx context.Context, call CallInfo) context.Context
	// AttemptStarted is called once the pool admitted an attempt, before
	// its request is written, with the call's context. The context it
	// returns is the attempt's: the request runs under it and
	// AttemptEnded receives it. a holds what is known at admission:
	// Endpoint, Tier, Number, Wait, Hedge, InDoubt.
	AttemptStarted(ctx context.Context, call CallInfo, a Attempt) context.Context
	// AttemptEnded is called once the attempt's decision is known, with
	// AttemptStarted's context.
	AttemptEnded(ctx context.Context, call CallInfo, a Attempt)
	// CallEnded is called when the call returns, with the call's context.
	CallEnded(ctx context.Context, call CallInfo, r CallResult)
}

// CallInfo describes a call to an Observer.
type CallInfo struct {
	// Method is the JSON-RPC method; "batch" for CallBatch.
	Method string
	// Known is set when the client's registry knows Method (built in or
	// declared), and for a batch. Any string can reach a Client as a
	// method name: an Observer that labels by method should collapse the
	// unknown ones into one value.
	Known bool
	// Role is the role the call needs.
	Role endpoint.Role
	// Class is how the call may be retried: a batch has its strictest
	// member's class.
	Class retrypolicy.Class
	// Batch is the number of requests of a batch; 0 for a single call.
	Batch int
	// Start is when the call began, on the pool's clock.
	Start time.Time
	// Coalesced is set for a call that shared another's identical read in
	// flight (Settings.Coalesce) and made no attempt of its own: its
	// CallStarted and CallEnded come together when it ends, Start being
	// when it joined. The call it shared is observed as any other.
	Coalesced bool
}

// OtherMethod is what MethodLabel names a method the registry does not
// know by: the one value metrics and span names collapse unknown methods
// into, so that any number of them stays one label.
const OtherMethod = "other"

// MethodLabel is the call's method as a label: Method when the registry
// knows it, OtherMethod otherwise.
func (c CallInfo) MethodLabel() string {
	if c.Known {
		return c.Method
	}
	return OtherMethod
}

// CallResult is how a call ended.
type CallResult struct {
	// Err is nil on success, a *CallError otherwise.
	Err error
	// Cause is the *CallError's Cause; 0 on success.
	Cause retrypolicy.Cause
	// Attempts is how many attempts the call made, hedges included.
	Attempts int
	// Duration is the call's time on the pool's clock.
	Duration time.Duration
	// Ambiguous is set when an attempt may have reached a server and the
	// call was not resent (errors.Is(Err, ErrAmbiguousDispatch)).
	Ambiguous bool
}
