package solroute

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/solroute/solroute/internal/slots"
)

// PriorityFee's own coalescing, private to it and small so that the
// engine-wide coalescing of issue 25 can replace it: one fetch in flight
// per account set, shared by every caller that comes while it runs, and
// its answer reused while the cluster's slot, as the client knows it,
// has not moved on.

// feeCacheSize bounds the account sets a Client keeps answers for.
const feeCacheSize = 64

// feeCache lives on the Client (its zero value is ready); mu guards
// everything in it and the fields of its entries until their done closes.
type feeCache struct {
	mu      sync.Mutex
	entries map[string]*feeEntry
	waiting int // callers waiting on a fetch in flight, for the tests
	// moved, when a test asked for it, is closed (and cleared) when
	// waiting next changes: the tests' event for "n callers joined"
	// (priorityfee_export_test.go). Nil otherwise: no cost.
	moved chan struct{}
}

// waitMoved signals a change of waiting to a test watching it; f.mu is
// held.
func (f *feeCache) waitMoved() {
	if f.moved != nil {
		close(f.moved)
		f.moved = nil
	}
}

// feeEntry is one account set's fetch and, once done is closed, its
// outcome: a union, an error (no endpoint answered), or neither (the
// leader's ctx ended first: the waiters ask again).
type feeEntry struct {
	done  chan struct{}
	union *feeUnion
	err   error
	mark  feeMark
}

// feeMark is the cluster's slot when an answer arrived: the pool's
// reference slot at the first commitment that has one, else only the
// instant (the answer is then reused for one slot time).
type feeMark struct {
	at         time.Time
	commitment slots.Commitment
	slot       uint64
	ok         bool
}

// How a caller takes part in a fetch.
const (
	feeLead  = iota // it fetches
	feeWait         // it waits for the fetch in flight
	feeReuse        // the last answer is fresh
)

// get returns the union for keys: the fresh one, the one in flight, or
// a new one this caller fetches.
func (f *feeCache) get(ctx context.Context, c *Client, keys []string) (*feeUnion, error) {
	key := feeKey(keys)
	for {
		e, role := f.join(c, key)
		switch role {
		case feeLead:
			return f.lead(ctx, c, key, keys, e)
		case feeReuse:
			return e.union, nil
		}
		select {
		case <-e.done:
		case <-ctx.Done():
			f.left()
			return nil, fmt.Errorf("solroute: %s: waiting for the answer in flight: %w", feeMethod, context.Cause(ctx))
		}
		f.left()
		if e.union != nil || e.err != nil {
			return e.union, e.err
		}
	}
}

// join finds key's entry and this caller's part in it.
func (f *feeCache) join(c *Client, key string) (*feeEntry, int) {
	now := c.pool.Clock().Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.entries[key]; e != nil {
		select {
		case <-e.done:
			if e.union != nil && c.feeFresh(e.mark, now) {
				return e, feeReuse
			}
		default:
			f.waiting++
			f.waitMoved()
			return e, feeWait
		}
	}
	e := &feeEntry{done: make(chan struct{})}
	f.put(key, e)
	return e, feeLead
}

// left counts a waiter out.
func (f *feeCache) left() {
	f.mu.Lock()
	f.waiting--
	f.waitMoved()
	f.mu.Unlock()
}

// put adds e under key, making room first: answers done are dropped,
// then, while still full, any entry (its waiters keep their pointer).
func (f *feeCache) put(key string, e *feeEntry) {
	if f.entries == nil {
		f.entries = make(map[string]*feeEntry)
	}
	for k, old := range f.entries {
		if len(f.entries) < feeCacheSize {
			break
		}
		select {
		case <-old.done:
			delete(f.entries, k)
		default:
		}
	}
	for k := range f.entries {
		if len(f.entries) < feeCacheSize {
			break
		}
		delete(f.entries, k)
	}
	f.entries[key] = e
}

// lead fetches for every caller of e. When its own ctx ended before
// every endpoint asked answered, it shares nothing: the waiters ask
// again rather than inherit this caller's cancellation.
func (f *feeCache) lead(ctx context.Context, c *Client, key string, keys []string, e *feeEntry) (*feeUnion, error) {
	defer close(e.done)
	answers := c.askFees(ctx, keys)
	u := mergeFees(answers)
	var err error
	if len(u.endpoints) == 0 {
		u, err = nil, noFeeAnswer(answers)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil && (u == nil || len(u.failures) > 0) {
		if f.entries[key] == e {
			delete(f.entries, key)
		}
		return u, err
	}
	e.union, e.err = u, err
	if u != nil {
		e.mark = c.feeMark(c.pool.Clock().Now())
	}
	return u, err
}

// noFeeAnswer is the error of a fetch no endpoint answered: each one's.
func noFeeAnswer(answers []feeAnswer) error {
	errs := make([]error, 0, len(answers))
	for _, a := range answers {
		errs = append(errs, a.err)
	}
	return fmt.Errorf("solroute: %s: no endpoint answered: %w", feeMethod, errors.Join(errs...))
}

// feeMark is the cluster's slot now, as the pool knows it.
func (c *Client) feeMark(now time.Time) feeMark {
	book := c.pool.Slots()
	for _, cm := range [...]slots.Commitment{slots.Processed, slots.Confirmed, slots.Finalized} {
		if s, ok := book.Reference(now, cm); ok {
			return feeMark{at: now, commitment: cm, slot: s, ok: true}
		}
	}
	return feeMark{at: now}
}

// feeFresh reports whether an answer marked m may still be reused: the
// pool's reference slot has not moved from m's, or, without one, less
// than one slot time (400 ms) passed.
func (c *Client) feeFresh(m feeMark, now time.Time) bool {
	if !m.ok {
		return now.Sub(m.at) < slots.SlotTime
	}
	s, ok := c.pool.Slots().Reference(now, m.commitment)
	return ok && s == m.slot
}
