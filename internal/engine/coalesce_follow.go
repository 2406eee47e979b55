package engine

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// follower is one caller waiting for flights of its read: its own
// deadline and slot plan, set when it first joined one.
type follower struct {
	c      *Engine
	method string
	info   transport.CallInfo
	// deadline is the call's own, as its plain call would have it
	// (zero: none known, the leader's then bounds the wait);
	// ctxDeadline: it is the context's.
	deadline    time.Time
	ctxDeadline bool
	// plan is what the caller's own call would hold the answer to.
	plan    slots.Plan
	tracked bool
	// joined is the tests' hook for the flight it joined last (nil: none;
	// coalescer.join).
	joined func()
}

// newFollower sets up the caller of method under ctx as a follower, now.
func (c *Engine) newFollower(ctx context.Context, method string, params []any) *follower {
	e, known := c.registry.Lookup(method)
	now := c.clock.Now()
	w := &follower{c: c, method: method,
		info: transport.CallInfo{Method: method, Known: known, Role: e.Role, Class: e.Class, Start: now, Coalesced: true}}
	if def, err := c.pool.DefaultTimeout(admission.Request{Role: e.Role, Method: method}); err == nil {
		cs := callState{ownTimeout: e.Timeout}
		cs.setDeadline(ctx, now, def)
		w.deadline, w.ctxDeadline = cs.deadline, cs.ctxDeadline
	}
	w.tracked, _ = c.book.Plan(now, method, params, c.sessionFor(ctx), &w.plan)
	return w
}

// follow waits for f and returns the caller's outcome, or again when
// the leader's own context ended f (the caller then joins anew). params
// are the call's (not kept in w: a caller's params must not escape the
// plain path's stack).
func (w *follower) follow(ctx context.Context, f *flight, out any, params []any) (again bool, err error) {
	c := w.c
	var expired <-chan time.Time
	if !w.deadline.IsZero() {
		t := c.clock.NewTimer(w.deadline.Sub(c.clock.Now()))
		defer t.Stop()
		expired = t.Chan()
	}
	if w.joined != nil { // waiting, its deadline's timer armed: the tests' event
		w.joined()
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		c.coalesce.left(f)
		return false, w.end(ctx, &transport.CallError{Method: w.method, Cause: retrypolicy.Canceled, Errs: contextErrs(ctx)})
	case <-expired:
		c.coalesce.left(f)
		return false, w.end(ctx, w.deadlineErr(ctx))
	}
	return w.settled(ctx, f, out, params)
}

// settled returns the caller's outcome of f, which ended: again when the
// leader's own context ended it; its own call (one, plain: never joined
// to another flight) when no copy of the result was kept for it (the
// response budget had no room), when the leader failed at its own higher
// floor (spared), or when the result is below the caller's floor;
// otherwise the leader's failure, or the result decoded into out. It
// counts the caller out of f once done with f.raw (coalescer.left).
func (w *follower) settled(ctx context.Context, f *flight, out any, params []any) (again bool, err error) {
	c := w.c
	if f.again || f.own || f.err != nil {
		c.coalesce.left(f)
		switch {
		case f.again:
			return true, nil
		case f.own || w.spared(f):
			return false, c.callForInto(w.bounded(ctx), out, w.method, params)
		}
		return false, w.end(ctx, f.err)
	}
	if !w.takes(f.raw) {
		// Below the caller's own floor (or not shown fresh): its own call.
		c.coalesce.left(f)
		return false, c.callForInto(w.bounded(ctx), out, w.method, params)
	}
	err = decodeShared(w.method, f.raw, out)
	c.coalesce.left(f)
	return false, w.end(ctx, err)
}

// spared reports whether f's failure may be the leader's own floor's
// (node-behind: -32016, a stale answer, an outlier) and the caller's
// floor is below the leader's: its own call may be answered, as an
// answer below the leader's floor may be taken by it.
func (w *follower) spared(f *flight) bool {
	ce, ok := f.err.(*transport.CallError)
	return ok && ce.Cause == retrypolicy.NodeBehind && w.plan.Floor < f.floor
}

// takes reports whether the caller may take the shared result raw: its
// slot is one the caller's own call would accept (its floor and ceiling);
// the slot then raises the caller's session, as its own answer would.
func (w *follower) takes(raw json.RawMessage) bool {
	if !w.tracked {
		return true
	}
	slot, ok, object := resultSlot(raw, w.plan.Traits)
	switch {
	case !ok:
		// The leader's exchange refused an RpcResponse with no slot; a
		// result that is no object (null) carries none to judge.
		return !(object && w.plan.Traits.Context)
	case w.plan.Judge(slot) != nil:
		return false
	}
	w.plan.Raise(slot)
	return true
}

// resultSlot reads the slot of a result under traits t: the result
// itself (getSlot), or its context.slot; object says the result is a
// JSON object. The leader's exchange already refused a result whose
// members are ambiguous (wire.Scan), so this is the slot it judged.
func resultSlot(raw json.RawMessage, t slots.Traits) (slot uint64, ok, object bool) {
	if t.Result {
		s, err := strconv.ParseUint(string(raw), 10, 64)
		return s, err == nil, false
	}
	if len(raw) == 0 || raw[0] != '{' {
		return 0, false, false
	}
	var r struct {
		Context *struct {
			Slot *uint64 `json:"slot"`
		} `json:"context"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Context == nil || r.Context.Slot == nil {
		return 0, false, true
	}
	return *r.Context.Slot, true, true
}

// deadlineErr is the caller's error when its own deadline passed while
// it waited: a Timeout that matches pool.ErrDeadline, and
// context.DeadlineExceeded when the deadline was the context's.
func (w *follower) deadlineErr(ctx context.Context) error {
	ce := &transport.CallError{Method: w.method, Cause: retrypolicy.Timeout, Errs: []error{&waitDeadlineError{method: w.method}}}
	if ctx.Err() != nil {
		ce.Errs = append(ce.Errs, contextErrs(ctx)...)
	} else if w.ctxDeadline {
		ce.Errs = append(ce.Errs, context.DeadlineExceeded)
	}
	return ce
}

// end reports the caller's call, which shared another's, to its
// Observers (CallInfo.Coalesced: no attempt of its own) and returns err.
func (w *follower) end(ctx context.Context, err error) error {
	obs := w.c.observersFor(ctx)
	if obs == nil {
		return err
	}
	for _, o := range obs {
		ctx = o.CallStarted(ctx, w.info)
	}
	r := transport.CallResult{Err: err, Duration: w.c.clock.Now().Sub(w.info.Start)}
	if ce, ok := err.(*transport.CallError); ok {
		r.Cause, r.Ambiguous = ce.Cause, ce.Ambiguous
	}
	for _, o := range obs {
		o.CallEnded(ctx, w.info, r)
	}
	return err
}

// bounded is ctx for a call the follower makes itself after waiting (a
// leader that gave up, an answer below its floor): its deadline is the
// one it joined with, not a new budget from now (the engine cuts a call's
// deadline to its context's, on the pool's clock), and its Observers see
// it start when it joined (joinedKey: CallInfo.Start, and the Duration
// that counts the wait).
func (w *follower) bounded(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, joinedKey{}, w.info.Start)
	if w.deadline.IsZero() || w.ctxDeadline {
		return ctx // none known, or the context's own already
	}
	return deadlineCtx{Context: ctx, deadline: w.deadline}
}

// joinedKey holds, in a follower's own call's context, when it joined
// the flight it waited for: that call's start (Engine.do).
type joinedKey struct{}

// deadlineCtx is a context whose deadline is a follower's own: it
// reports it for the engine to enforce on the pool's clock and ends only
// when its parent does.
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

// Deadline reports the follower's deadline.
func (c deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// waitDeadlineError says a caller's deadline passed while it waited for
// the identical call in flight. It matches admission.ErrDeadline (the
// pool's ErrDeadline), as a call the pool admitted nowhere in time does.
type waitDeadlineError struct{ method string }

func (e *waitDeadlineError) Error() string {
	return "transport: " + e.method + ": the deadline passed while waiting for the identical call in flight"
}

// Is matches admission.ErrDeadline.
func (e *waitDeadlineError) Is(target error) bool { return target == admission.ErrDeadline }

// left counts a follower of f out, done with f.raw: the last one, once
// the call ended, gives f's charge back (release).
func (k *coalescer) left(f *flight) {
	k.mu.Lock()
	f.followers--
	k.release(f)
	k.mu.Unlock()
}
