package pubsub

import (
	"context"
	"sync"
)

// policy is how a subscriber's buffer makes room for a slow reader.
type policy uint8

const (
	// dropOldest keeps the newest items (slots, roots, logs); the logs'
	// drops become a gap event.
	dropOldest policy = iota
	// keepLatest keeps one item, the newest (an account's state, a
	// signature's result).
	keepLatest
	// keepLatestPerKey keeps the newest item of each key (a program's
	// accounts), moved to the back so the order stays by slot; past the
	// limit the oldest key goes, as a gap.
	keepLatestPerKey
)

// policyOf is a kind's buffer policy.
func policyOf(k kind) policy {
	switch k {
	case kAccount, kSignature:
		return keepLatest
	case kProgram:
		return keepLatestPerKey
	}
	return dropOldest
}

// subscriber is one caller's subscription: a bounded buffer the engine
// pushes to without ever waiting, and the caller reads.
type subscriber struct {
	st     *stream
	policy policy
	limit  int
	gaps   bool // dropped items become a gap event (program, logs)
	wake   chan struct{}

	mu       sync.Mutex // guards everything below
	q        []*item
	current  map[string]*item // keepLatestPerKey: the live item of each key
	live     int              // items in q that are current
	overflow *GapError        // slots dropped, delivered before what follows
	err      error            // the end, once the buffer is read
	closed   bool             // Close: nothing more is read
	read     uint64           // items handed to the caller
	pushed   uint64           // values (not gaps) delivered to the buffer
	dropped  uint64
}

func newSubscriber(st *stream, limit int) *subscriber {
	s := &subscriber{st: st, policy: policyOf(st.spec.kind), limit: limit, wake: make(chan struct{}, 1),
		gaps: st.spec.kind == kProgram || st.spec.kind == kLogs}
	if s.policy == keepLatestPerKey {
		s.current = make(map[string]*item)
	}
	return s
}

// push adds an item and returns how many it dropped to make room.
func (s *subscriber) push(it *item) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return 0
	}
	dropped := 0
	switch s.policy {
	case keepLatest:
		if s.live > 0 {
			s.q, s.live, dropped = s.q[:0], 0, 1
		}
	case keepLatestPerKey:
		if old := s.current[it.key]; old != nil && it.gap == nil {
			delete(s.current, it.key) // superseded: skipped when read
			s.live--
			dropped++
		}
	}
	s.q = append(s.q, it)
	s.live++
	if it.gap == nil {
		s.pushed++
	}
	if s.current != nil && it.gap == nil {
		s.current[it.key] = it
	}
	for s.live > s.limit {
		n := s.dropFront()
		if n == 0 {
			break
		}
		dropped += n
	}
	s.dropped += uint64(dropped)
	s.signal()
	return dropped
}

// dropFront lets the oldest live item go (never a gap event: the gap
// is what tells of the loss); its slot joins the overflow gap when the
// kind reports gaps.
func (s *subscriber) dropFront() int {
	for i, it := range s.q {
		if !s.isLive(it) || it.gap != nil {
			continue
		}
		if i == 0 {
			s.q = s.q[1:]
		} else {
			s.q = append(s.q[:i:i], s.q[i+1:]...)
		}
		s.live--
		if s.current != nil {
			delete(s.current, it.key)
		}
		if s.gaps {
			if s.overflow == nil {
				s.overflow = &GapError{From: it.slot, To: it.slot, Reason: "overflow"}
			}
			s.overflow.From, s.overflow.To = min(s.overflow.From, it.slot), max(s.overflow.To, it.slot)
		}
		return 1
	}
	return 0 // only gaps are left: they all stay
}

// isLive reports whether a queued item is still to be read.
func (s *subscriber) isLive(it *item) bool {
	return s.current == nil || it.gap != nil || s.current[it.key] == it
}

// signal wakes a reader. s.mu must be held.
func (s *subscriber) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// finish ends the subscription with err once its buffer is read.
func (s *subscriber) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	s.signal()
}

// close ends the subscription at once: what is buffered is not read.
func (s *subscriber) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.q, s.live = true, nil, 0
	if s.err == nil {
		s.err = ErrClosed
	}
	s.signal()
}

// pop returns the next item, waiting for one; the subscription's end
// once its buffer is read.
func (s *subscriber) pop(ctx context.Context) (*item, error) {
	for {
		s.mu.Lock()
		if g := s.overflow; g != nil && !s.closed {
			s.overflow = nil
			s.read++
			s.mu.Unlock()
			return &item{gap: g, slot: g.To}, nil
		}
		for len(s.q) > 0 {
			it := s.q[0]
			s.q = s.q[1:]
			if !s.isLive(it) {
				continue
			}
			s.live--
			if s.current != nil && it.gap == nil {
				delete(s.current, it.key)
			}
			s.read++
			s.mu.Unlock()
			return it, nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// ended returns the subscription's end: nil while it runs.
func (s *subscriber) ended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
