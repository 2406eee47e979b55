package solroute

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
)

// maxPilots is how many chunks a floored bulk read tries, one at a time,
// for the floor before it gives up on the rest: a chunk may fail on its
// own (an answer too large, keys a node refuses), and the call should not
// fail for that; three in a row say the method fails everywhere.
const maxPilots = 3

// bulkCall is one bulk read: n inputs in chunks of size, read by ask at
// most inflight at a time (0: as many as capOf says, asked again as the
// call runs: bulk_workers.go).
type bulkCall struct {
	method            string
	n, size, inflight int
	// capOf is the adaptive cap's rule on the pool now (adaptiveCap);
	// used when inflight is 0.
	capOf func() int
	// floored: the first chunk read sets the floor every other chunk is
	// read at or past (minSlot, when higher).
	floored bool
	minSlot uint64
	// ask reads inputs [lo, hi) at or past floor (0: any slot), writes
	// their values in place and returns the answer's context slot (0:
	// none). On an error it leaves the values nil.
	ask func(ctx context.Context, lo, hi int, floor uint64) (uint64, error)
}

// bulkState is a bulkCall running.
type bulkState struct {
	*bulkCall
	chunks  int
	floor   uint64
	highest atomic.Uint64
	next    atomic.Int64 // the next chunk a worker takes
	mu      sync.Mutex
	failed  []BulkChunk
	// workers holds the cap and the workers running under it.
	workers workers
}

// bulkRun is what a run found: the floor, the highest context slot seen,
// the largest cap it ran under (0: no chunk spread).
type bulkRun struct {
	floor, highest uint64
	inflight       int
}

// run reads every chunk of b and returns what it found and, when a chunk
// failed, a *BulkError.
func (b *bulkCall) run(ctx context.Context) (bulkRun, error) {
	if b.n == 0 {
		return bulkRun{}, nil
	}
	s := &bulkState{bulkCall: b, chunks: (b.n + b.size - 1) / b.size}
	first := 0
	if b.floored {
		first = s.pilot(ctx)
	}
	s.spread(ctx, first)
	return bulkRun{floor: s.floor, highest: s.highest.Load(), inflight: s.workers.peak}, s.err()
}

// pilot reads chunks alone, from the first, until one answers (at most
// maxPilots): its context slot, or minSlot when higher, is the floor. It
// returns the first chunk not read yet; when none answered, the rest is
// recorded as not sent and it returns s.chunks.
func (s *bulkState) pilot(ctx context.Context) int {
	var last error
	i := 0
	for ; i < s.chunks && i < maxPilots; i++ {
		slot, err := s.read(ctx, i, s.minSlot)
		if err == nil {
			s.floor = max(slot, s.minSlot)
			return i + 1
		}
		last = err
		if ctx.Err() != nil {
			i++
			break
		}
	}
	if lo := i * s.size; lo < s.n {
		s.fail(lo, s.n, &unsentError{method: s.method, pilots: i, cause: last})
	}
	return s.chunks
}

// read reads chunk i at or past floor, recording its slot or its failure.
func (s *bulkState) read(ctx context.Context, i int, floor uint64) (uint64, error) {
	lo, hi := i*s.size, min((i+1)*s.size, s.n)
	slot, err := s.ask(ctx, lo, hi, floor)
	if err != nil {
		s.fail(lo, hi, err)
		return 0, err
	}
	for {
		old := s.highest.Load()
		if slot <= old || s.highest.CompareAndSwap(old, slot) {
			return slot, nil
		}
	}
}

// fail records that inputs [lo, hi) were not read, for err.
func (s *bulkState) fail(lo, hi int, err error) {
	s.mu.Lock()
	s.failed = append(s.failed, BulkChunk{Start: lo, End: hi, Err: err})
	s.mu.Unlock()
}

// err is the call's *BulkError, nil when every chunk was read: the
// failures in input order, neighbours with one cause (a context's end,
// the unsent rest) merged into one range.
func (s *bulkState) err() error {
	if len(s.failed) == 0 {
		return nil
	}
	slices.SortFunc(s.failed, func(a, b BulkChunk) int { return a.Start - b.Start })
	merged := s.failed[:1]
	for _, f := range s.failed[1:] {
		last := &merged[len(merged)-1]
		if last.End == f.Start && sameError(last.Err, f.Err) {
			last.End = f.End
			continue
		}
		merged = append(merged, f)
	}
	return &BulkError{Method: s.method, Inputs: s.n, Failed: merged}
}

// sameError reports whether a and b are one error value (comparable and
// equal), as every chunk failing with ctx.Err() shares.
func sameError(a, b error) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}
