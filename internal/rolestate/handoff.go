package rolestate

import "time"

// The pool's side of a freed slot handed to a waiting request
// (internal/admission/wake.go): the slot taken back at once, so that a
// request arriving meanwhile finds the role full, then admitted for the
// waiter or given back.

// AdmitHeldAt is AdmitAt for a request that already holds a concurrency
// slot, one TakeSlot took for it: the slot is not counted again, and on a
// refusal the request still holds it (ReturnSlot gives it back). With
// ejected it is AdmitEjectedAt's panic mode: a running ejection does not
// block.
func (r *Runtime) AdmitHeldAt(now, deadline time.Time, ejected bool) (a Admission, b Block, ok bool) {
	return r.admitAt(now, deadline, ejected, true)
}

// TakeSlot takes a free concurrency slot without admitting a request, and
// reports false when every slot is held (or the role has no cap): the pool
// hands a freed slot to the waiter it wakes, so that a request arriving
// meanwhile cannot take it (AdmitHeldAt, ReturnSlot).
func (r *Runtime) TakeSlot() bool {
	for {
		v := r.inFlight.Load()
		if r.maxConc == 0 || v >= r.maxConc {
			return false
		}
		if r.inFlight.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// ReturnSlot gives back a slot TakeSlot took and no request was admitted
// on. It does not call OnSlotFreed: the pool routes the slot itself.
func (r *Runtime) ReturnSlot() {
	if r.inFlight.Add(-1) < 0 {
		panic("endpoint: ReturnSlot without a held slot")
	}
}

// UsableAt reports whether a request holding a slot could be admitted at
// now, an ejection aside: no rate-limit cooldown runs and a token is
// ready. The pool hands a freed slot on only then. (An ejection passes:
// panic mode may use the endpoint, and a scan alone knows.)
func (r *Runtime) UsableAt(now time.Time) bool {
	at, _ := r.peek(now)
	return !r.UsableFrom(now).After(at)
}

// UsableFrom is the earliest instant, at or after now, at which UsableAt
// would report true if nobody took a token meanwhile: the end of a
// rate-limit cooldown, then the bucket's next token.
func (r *Runtime) UsableFrom(now time.Time) time.Time {
	at, n := r.peek(now)
	if b, ok := r.cooldownBlock(n); ok && b.Reason != BlockedByEjection {
		at = b.Until
	}
	if r.rated {
		at = r.bucket.ReadyAt(at)
	}
	return at
}
