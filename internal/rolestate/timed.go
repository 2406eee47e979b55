package rolestate

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// MaxTimedMethods bounds how many methods one (endpoint, role) keeps a
// Histogram of. A Solana client calls a few dozen methods at most (the
// registry knows about 80); past the bound a method is not timed, and the
// transport keeps its fixed rule for it. It bounds the memory a caller
// naming methods at random could make a pool hold (about 700 bytes per
// histogram).
const MaxTimedMethods = 64

// timedMethods is a Runtime's histograms by method: a map replaced whole
// on the rare insertion (copy on write), so that a lookup is one atomic
// load and one map read, with no lock.
type timedMethods struct {
	mu sync.Mutex // serialises insertions
	m  atomic.Pointer[map[string]*Histogram]
}

// get returns the histogram of method, or nil when there is none.
func (t *timedMethods) get(method string) *Histogram {
	if m := t.m.Load(); m != nil {
		return (*m)[method]
	}
	return nil
}

// getOrAdd returns the histogram of method, adding an empty one when
// there is none and fewer than MaxTimedMethods are kept; nil otherwise.
func (t *timedMethods) getOrAdd(method string) *Histogram {
	if h := t.get(method); h != nil {
		return h
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.m.Load()
	n := 0
	if old != nil {
		if h := (*old)[method]; h != nil {
			return h
		}
		n = len(*old)
	}
	if n >= MaxTimedMethods {
		return nil
	}
	m := make(map[string]*Histogram, n+1)
	if old != nil {
		maps.Copy(m, *old)
	}
	h := newHistogram(method)
	m[method] = h
	t.m.Store(&m)
	return h
}

// Timing returns the latency histogram of method on this role, adding an
// empty one the first time; nil when the role already times
// MaxTimedMethods other methods.
func (r *Runtime) Timing(method string) *Histogram { return r.timed.getOrAdd(method) }

// TimingOf returns the latency histogram of method on this role, or nil
// when the role has never timed it. It adds nothing.
func (r *Runtime) TimingOf(method string) *Histogram { return r.timed.get(method) }

// TimingSummaryAt returns the quantiles of every method this role timed,
// summed with each histogram decayed to now: the role's recent latency
// over its timed requests. Its Weight is 0 when nothing was timed.
func (r *Runtime) TimingSummaryAt(now time.Time) Summary {
	m := r.timed.m.Load()
	if m == nil {
		return Summary{}
	}
	var sum Sum
	for _, h := range *m {
		sum.Add(now, h)
	}
	return sum.Summary()
}
