package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http/httptrace"
	"sync"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Coalescing (issue 25, plans/018-reads-at-scale.md §4): identical reads
// in flight share one upstream call. The first caller of a (method,
// params) leads: it makes the call as any other, its result kept raw.
// Callers that come while it runs follow: each waits, bounded by its own
// context and budget, then decodes the raw result into its own value
// (or returns the leader's *CallError as it is). A leader whose own
// context ended its call shares nothing: its followers ask again, one of
// them leading. A result the leader's own type refused is still shared;
// a failure of the leader's own floor is not shared with a follower of a
// lower floor, nor a result the response budget could not hold: those
// followers ask on their own (coalesce_follow.go).

// coalescer is an Engine's coalescing state; its zero value coalesces
// nothing.
type coalescer struct {
	// methods are Settings.Coalesce, read-only after New (nil: off).
	methods map[string]struct{}
	// budget is the Engine's response byte budget, which a result kept
	// for followers is charged to (keep).
	budget *budget
	seed   maphash.Seed
	mu     sync.Mutex
	// flights are the calls in flight by the hash of their request
	// (a flight holds its key: a collision shares nothing).
	flights map[uint64]*flight
	// joined, when set (tests), is called each time a follower joined a
	// flight, once it waits with its deadline's timer armed
	// (follower.follow).
	joined func()
}

// flight is one shared call. Its fields are written by the leader, under
// the coalescer's mu, before done is closed; followers read them after.
type flight struct {
	key  []byte
	hash uint64
	k    *coalescer
	// out is the leader's own value; x its exchange into it (share).
	out any
	x   intoExchange
	// done is made by the first follower (a call nobody joins makes no
	// channel) and closed when the call ended.
	done chan struct{}
	// ended is set when the call ended.
	ended bool
	// raw is the result as the server sent it; err the call's error.
	raw json.RawMessage
	err error
	// charged is what raw holds of the response budget (0: nothing),
	// released when the call ended and its last follower is done with it
	// (release).
	charged int64
	// floor is the leader's slot floor (slots.Plan.Floor; 0: none).
	floor uint64
	// again: the leader's own context ended the call; followers ask again.
	again bool
	// own: the result came but the budget could not hold a copy of it
	// for the followers; each asks on its own.
	own bool
	// followers counts those waiting, and those still to decode raw
	// (release).
	followers int
}

// init sets k to coalesce the methods of list, checked against reg, its
// shared results charged to b: every entry must be a read the registry
// holds as Idempotent; a send, an undeclared method or one that may not
// be resent is refused, by name.
func (k *coalescer) init(list []string, reg *methods.Registry, b *budget) error {
	if len(list) == 0 {
		return nil
	}
	k.methods, k.seed, k.flights, k.budget = make(map[string]struct{}, len(list)), maphash.MakeSeed(), make(map[uint64]*flight), b
	for _, m := range list {
		e, known := reg.Lookup(m)
		if !known || e.Role != endpoint.RoleRead || e.Class != retrypolicy.Idempotent {
			k.methods = nil
			return fmt.Errorf("transport: coalesce: %q is not a read the method registry holds as idempotent: only such reads may share one call", m)
		}
		k.methods[m] = struct{}{}
	}
	return nil
}

// shareable reports whether a call under ctx may share another's call:
// its context routes nowhere of its own (no pinned endpoint, no
// capabilities, no endpoints to avoid) and watches no request of its
// own: no Observer of its own (WithObserver: the resolver and
// PriorityFee learn from a call's attempts which endpoint answered, a
// CallRecord shows them) and no httptrace.ClientTrace.
func shareable(ctx context.Context) bool {
	return ctx.Value(endpointKey{}) == nil && len(capabilitiesFrom(ctx)) == 0 && ctx.Value(avoidKey{}) == nil &&
		ctx.Value(observerKey{}) == nil && httptrace.ContextClientTrace(ctx) == nil
}

// callCoalesced is CallForInto for a method of Settings.Coalesce.
func (c *Engine) callCoalesced(ctx context.Context, out any, method string, params []any) error {
	if !shareable(ctx) {
		return c.callForInto(ctx, out, method, params)
	}
	key, err := wire.EncodeRequest(0, method, params)
	if err != nil {
		return c.callForInto(ctx, out, method, params) // which says why
	}
	var w *follower
	for {
		f, lead, joined := c.coalesce.join(key)
		if lead {
			if w != nil { // it waited already: its call keeps the deadline it joined with
				ctx = w.bounded(ctx)
			}
			return c.lead(ctx, out, method, params, f)
		}
		if w == nil {
			w = c.newFollower(ctx, method, params)
		}
		w.joined = joined
		if again, err := w.follow(ctx, f, out, params); !again {
			return err
		}
	}
}

// join returns the flight of key and whether this caller leads it (a
// new flight) or follows it; a follower also gets the tests' hook (nil
// unless a test set one), read under the lock join holds anyway, for
// follower.follow to call once it waits.
func (k *coalescer) join(key []byte) (f *flight, lead bool, joined func()) {
	h := maphash.Bytes(k.seed, key)
	k.mu.Lock()
	defer k.mu.Unlock()
	if cur := k.flights[h]; cur != nil && string(cur.key) == string(key) {
		if cur.done == nil {
			cur.done = make(chan struct{})
		}
		cur.followers++
		return cur, false, k.joined
	}
	f = &flight{key: key, hash: h, k: k}
	if k.flights[h] == nil { // else a collision: this one runs unshared
		k.flights[h] = f
	}
	return f, true, nil
}

// lead makes f's call for the leader into out. Without hedging the
// call decodes straight into out, as a plain call does, and keeps the
// raw result only when followers joined before its answer came (share);
// a hedge decodes into a fresh value of its target's type, so a hedging
// engine has the call keep the raw result and decodes it into out after
// (from its own reference: the last follower may drop f.raw, release).
func (c *Engine) lead(ctx context.Context, out any, method string, params []any, f *flight) error {
	f.out = out
	target := any(f)
	if c.hedgeAfter != 0 {
		target = &f.raw
	}
	settled := false
	defer func() {
		if !settled { // a panic in the call (the leader's own decoder): its followers ask on their own
			c.coalesce.settle(f, errLeaderPanicked, true)
		}
	}()
	err := c.callInto(ctx, target, method, params, f)
	raw := f.raw
	settled = true
	c.coalesce.settle(f, err, endedByCaller(ctx, err))
	if err != nil || c.hedgeAfter == 0 {
		return err
	}
	return decodeShared(method, raw, out)
}

// errLeaderPanicked ends a flight whose leader's call panicked (its own
// decoder, say): the followers ask again on their own, and what the
// flight held for them is given back to the budget.
var errLeaderPanicked = errors.New("transport: the identical call in flight panicked")

// share is the exchange that decodes body: x itself, but for the leader
// of a shared read (lead), whose target is its flight: then an exchange
// into the leader's own value, and body's result kept for the followers
// that joined before it came. No one joins the flight after.
func (x *intoExchange) share(body []byte) *intoExchange {
	f, ok := x.out.(*flight)
	if !ok {
		return x
	}
	f.x, f.x.out = *x, f.out
	f.k.drop(f) // an earlier attempt's
	if f.k.close(f) {
		f.k.keep(f, body)
	}
	return &f.x
}

// keep copies body's result into f.raw for f's followers, charged to
// the response budget, which the body itself still holds: len(body)
// first (the result is part of it), then only what the copy holds. When
// the budget has no room, nothing is copied and the followers ask on
// their own (f.own): a copy never takes the budget past its limit, and
// no one waits for room.
func (k *coalescer) keep(f *flight, body []byte) {
	n := int64(len(body))
	if ok, _ := k.budget.take(n); !ok {
		f.own = true
		return
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &env) == nil { // wire.Scan refused any other spelling of result
		f.raw = env.Result
	}
	f.charged = int64(len(f.raw))
	k.budget.release(n - f.charged)
}

// drop lets go of what f kept of an answer, and its charge: an earlier
// attempt's, or one no follower will read. Only the leader calls it,
// before f.done is closed.
func (k *coalescer) drop(f *flight) {
	k.budget.release(f.charged)
	f.raw, f.charged, f.own = nil, 0, false
}

// close takes f out of the flights joinable and reports whether it has
// followers waiting.
func (k *coalescer) close(f *flight) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.flights[f.hash] == f {
		delete(k.flights, f.hash)
	}
	return f.followers > 0
}

// endedByCaller reports whether a call under ctx that ended with err was
// ended by ctx: it ended (canceled, its deadline), or its deadline was
// the call's and the call stopped at it before ctx noticed (endedBy).
func endedByCaller(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	_, has := ctx.Deadline()
	return has && errors.Is(err, context.DeadlineExceeded)
}

// settle ends f with err; again says the leader's own context ended it.
// A result the leader's own type refused (its decodeError) is, for the
// followers, a success: each decodes its own copy. A failure of any
// other kind is shared as it is (and no copy kept is needed).
func (k *coalescer) settle(f *flight, err error, again bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.flights[f.hash] == f {
		delete(k.flights, f.hash)
	}
	ownType := refusedByType(err)
	if ownType && f.raw != nil {
		err = nil
	}
	if !again && err == nil && f.raw != nil && f.charged == 0 && f.followers > 0 {
		k.hold(f) // a hedging leader's result, not charged yet
	}
	// A call that succeeded without keeping a result (none came through
	// share while followers waited) cannot serve them: they ask again.
	f.err, f.again, f.ended = err, again || err == nil && f.raw == nil && !f.own && f.followers > 0, true
	if f.again || err != nil && !ownType {
		k.drop(f) // no follower reads the result, nor asks on its own
	}
	k.release(f)
	if f.done != nil {
		close(f.done)
	}
}

// hold charges f.raw, a hedging leader's own result, to the budget for
// f's followers, or, when the budget has no room, has them ask on their
// own. k.mu is held.
func (k *coalescer) hold(f *flight) {
	if ok, _ := k.budget.take(int64(len(f.raw))); ok {
		f.charged = int64(len(f.raw))
		return
	}
	f.own = true
}

// release gives f's charge back once the call ended and no follower is
// left to decode f.raw, and drops it. k.mu is held.
func (k *coalescer) release(f *flight) {
	if f.ended && f.followers == 0 && f.charged != 0 {
		k.budget.release(f.charged)
		f.raw, f.charged = nil, 0
	}
}

// refusedByType reports whether err ended a call because its result did
// not decode into the caller's type (InvalidResponse, a decodeError): a
// fault of that caller's value, not of the answer.
func refusedByType(err error) bool {
	ce, ok := err.(*transport.CallError)
	if !ok || ce.Cause != retrypolicy.InvalidResponse {
		return false
	}
	var de *decodeError
	return errors.As(err, &de)
}

// decodeShared decodes a shared raw result into out (nil: discard), as
// the call's own exchange would: a result that does not fit out's type is
// the caller's InvalidResponse, no other caller's.
func decodeShared(method string, raw json.RawMessage, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &transport.CallError{Method: method, Cause: retrypolicy.InvalidResponse, Errs: []error{&decodeError{err: err}}}
	}
	return nil
}
