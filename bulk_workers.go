package solroute

import (
	"context"
	"sync"
)

// workers is the cap of a running bulk read and the workers under it.
// Each worker takes chunk indexes from one counter, so the cap is held by
// construction and goroutines are bounded by it, not by the input. An
// adaptive cap (bulkCall.capOf) starts at most at capStart and is asked
// again each time as many chunks as the cap have been read (about once
// per latency), growing at most twofold an ask: above the workers
// running, it starts more; below, workers leave as they finish a chunk.
// A slow start, because chunks beyond the need are not free: each waits
// in the pool for a token and is woken with every other waiter on each
// release and refill, CPU that a loaded client lacks (plans/018).
type workers struct {
	mu             sync.Mutex
	wg             sync.WaitGroup
	cap, running   int
	peak, sinceCap int
}

// spread reads chunks first.. on at most the cap's workers.
func (s *bulkState) spread(ctx context.Context, first int) {
	left := s.chunks - first
	if left <= 0 {
		return
	}
	s.next.Store(int64(first))
	w := &s.workers
	w.mu.Lock()
	w.cap = s.inflight
	if s.capOf != nil {
		w.cap = min(s.capOf(), capStart)
	}
	w.peak = w.cap
	w.running = min(w.cap, left)
	w.wg.Add(w.running)
	for range w.running {
		go s.work(ctx)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// work reads the next chunk until none is left, or the cap is below the
// workers running; once ctx is done, the chunks left fail with its
// error, unsent.
func (s *bulkState) work(ctx context.Context) {
	defer s.workers.wg.Done()
	for s.stays() {
		i := int(s.next.Add(1) - 1)
		if i >= s.chunks {
			s.leave()
			return
		}
		if err := ctx.Err(); err != nil {
			s.fail(i*s.size, min((i+1)*s.size, s.n), err)
			continue
		}
		_, _ = s.read(ctx, i, s.floor)
		s.readOne(ctx)
	}
}

// stays reports whether a worker may take another chunk: not when the
// cap fell below the workers running (it then leaves).
func (s *bulkState) stays() bool {
	w := &s.workers
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running > w.cap {
		w.running--
		return false
	}
	return true
}

// leave counts a worker out.
func (s *bulkState) leave() {
	s.workers.mu.Lock()
	s.workers.running--
	s.workers.mu.Unlock()
}

// readOne counts a chunk read and, for an adaptive cap, asks the rule
// again once the cap's worth of chunks has been read since it last did,
// starting workers up to a higher cap (within the chunks left). The
// caller is a running worker, so the wait group is not at zero.
func (s *bulkState) readOne(ctx context.Context) {
	if s.capOf == nil {
		return
	}
	w := &s.workers
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sinceCap++; w.sinceCap < max(w.cap, capMin) {
		return
	}
	w.sinceCap = 0
	w.cap = min(s.capOf(), 2*w.cap)
	w.peak = max(w.peak, w.cap)
	start := min(w.cap-w.running, s.chunks-int(s.next.Load()))
	for range start {
		w.running++
		w.wg.Add(1)
		go s.work(ctx)
	}
}
