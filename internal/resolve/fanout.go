package resolve

import (
	"context"
	"errors"
	"sync"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// CopyWatcher is told of a fan-out's events: package metrics' Observer
// implements it, and the root hands every Observer that does to the
// fan-outs (Hooks.Copies). Its methods are called from the sending
// goroutine and must not block.
type CopyWatcher interface {
	// CopyEnded: one copy sent to endpoint ended, accepted (answered
	// with the signature, or that it was already processed), refused
	// with proof that nothing was dispatched, or neither (ambiguous).
	CopyEnded(endpoint string, accepted, refused bool)
	// FirstAccepted: a fanned-out transaction landed (or failed on
	// chain), and endpoint accepted a copy of it first.
	FirstAccepted(endpoint string)
}

// Hooks are what the root adds to a send: the signature watch and the
// fan-out's watchers. The zero value polls alone and tells no one.
type Hooks struct {
	Watch  Watcher
	Copies []CopyWatcher
}

// copyEnd is how one copy ended.
type copyEnd struct {
	name              string
	err               error
	accepted, refused bool
}

// sendCopy sends params as sendTransaction to the endpoint named name
// alone (engine.WithEndpointOnce: its limits, cooldown and doubt, and the
// never-after-dispatch rule, apply as to any send). It makes one attempt,
// transparent retries aside: an attempt refused before dispatch ends the
// copy there (refused), with that attempt's error, rather than waiting
// for the endpoint's backoff or cooldown, and its decision says so
// (max-retries), not a retry the copy never makes. An error that does
// not match ErrAmbiguousDispatch proves no server acted: refused too.
func sendCopy(ctx context.Context, tc *engine.Engine, name string, params []any) copyEnd {
	var mu sync.Mutex
	var refusal error
	last := engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
		if a.Failed() && !a.Decision.Transparent {
			mu.Lock()
			refusal = a.Err
			mu.Unlock()
		}
	})
	var sig string
	err := tc.CallForInto(engine.WithObserver(engine.WithEndpointOnce(ctx, name), last), &sig, "sendTransaction", params)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case err == nil || alreadyProcessed(err):
		return copyEnd{name: name, accepted: true}
	case errors.Is(err, engine.ErrAmbiguousDispatch):
		return copyEnd{name: name, err: err}
	case refusal != nil:
		err = refusal
	}
	return copyEnd{name: name, err: err, refused: true}
}

// fanout is one transaction's copies: what each endpoint did with them.
type fanout struct {
	tc       *engine.Engine
	k        int
	watchers []CopyWatcher
	copies   []confirm.Copy
	index    map[string]int
	first    string
}

// newFanout starts the record of a fan-out of k copies.
func newFanout(tc *engine.Engine, k int, watchers []CopyWatcher) *fanout {
	return &fanout{tc: tc, k: k, watchers: watchers, index: make(map[string]int, k)}
}

// entry returns name's Copy, added at its first use.
func (f *fanout) entry(name string) *confirm.Copy {
	i, ok := f.index[name]
	if !ok {
		i = len(f.copies)
		f.index[name] = i
		f.copies = append(f.copies, confirm.Copy{Endpoint: name})
	}
	return &f.copies[i]
}

// record counts a copy's end and tells the watchers.
func (f *fanout) record(e copyEnd) {
	c := f.entry(e.name)
	c.Sent++
	switch {
	case e.accepted:
		c.Accepted++
		if f.first == "" {
			f.first = e.name
		}
	case e.refused:
		c.Refused++
	}
	if e.err != nil {
		c.Err = e.err
	}
	for _, w := range f.watchers {
		w.CopyEnded(e.name, e.accepted, e.refused)
	}
}

// send sends the first copies of params: to the best k endpoints (see
// targets) that can take one at once, at once, each refused one replaced
// by the next not yet given one; every copy has ended when it returns.
// One of the best k that cannot take a copy at once (cooling down, out of
// tokens, in doubt) is skipped, not waited for. When none can (or the
// cluster guard has verified none yet, at startup), one copy goes through
// the pool's own choice, which waits for the first free one. It returns
// nil when an endpoint accepted a copy; else an error joining the copies'
// errors, which matches ErrAmbiguousDispatch when some copy may have
// reached a server (sent: resolve it) and does not when every one was
// refused (nothing sent).
func (f *fanout) send(ctx context.Context, params []any) error {
	var names []string
	for i, t := range targets(f.tc) {
		switch {
		case t.now:
			names = append(names, t.name)
		case i < f.k:
			f.entry(t.name).Skipped++
		}
	}
	if len(names) == 0 {
		e := anyCopy(ctx, f.tc, params)
		if e.name == "" {
			return e.err // no attempt was made: no copy went anywhere
		}
		f.record(e)
	} else {
		f.race(ctx, names, params)
	}
	return f.outcome()
}

// race runs the copies to names in order, k at once, each refused one
// replaced by the next; it returns when every one it started ended.
func (f *fanout) race(ctx context.Context, names []string, params []any) {
	results := make(chan copyEnd)
	next, running := 0, 0
	start := func() {
		name := names[next]
		f.entry(name)
		next, running = next+1, running+1
		go func() { results <- sendCopy(ctx, f.tc, name, params) }()
	}
	for running < f.k && next < len(names) {
		start()
	}
	for running > 0 {
		e := <-results
		running--
		f.record(e)
		if e.refused && next < len(names) && ctx.Err() == nil {
			start()
		}
	}
}

// outcome is send's error: nil when a copy was accepted.
func (f *fanout) outcome() error {
	var ambiguous, refused []error
	for _, c := range f.copies {
		switch {
		case c.Accepted > 0:
			return nil
		case c.Sent > c.Refused:
			ambiguous = append(ambiguous, c.Err)
		case c.Sent > 0:
			refused = append(refused, c.Err)
		}
	}
	if len(ambiguous) > 0 {
		return errors.Join(ambiguous...)
	}
	return errors.Join(refused...)
}
