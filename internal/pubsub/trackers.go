package pubsub

// verdict is what a tracker makes of a notification.
type verdict uint8

const (
	deliver   verdict = iota // new: deliver it
	duplicate                // delivered already (by another endpoint, or twice)
	stale                    // older than what was delivered: never delivered
)

// tracker deduplicates one stream's notifications and keeps them in
// context-slot order: a stream never delivers an older context slot than
// one it delivered.
type tracker interface {
	offer(it *item) verdict
}

// newTracker returns the tracker of a kind; window is how many slots back
// the program and logs trackers remember what they delivered.
func newTracker(k kind, window uint64) tracker {
	switch k {
	case kAccount:
		return &accountTracker{}
	case kProgram, kLogs:
		return &keyTracker{window: window, byContent: k == kProgram, seen: make(map[string]keySeen)}
	case kSignature:
		return &onceTracker{}
	}
	return &numberTracker{}
}

// slotWindow is how many slots back a numberTracker tells a duplicate from
// a stale one.
const slotWindow = 1024

// numberTracker orders slots and roots by number: each delivered once,
// never one below the last.
type numberTracker struct {
	has  bool
	last uint64
	bits [slotWindow / 64]uint64 // delivered, by slot modulo the window
}

func (t *numberTracker) offer(it *item) verdict {
	s := it.slot
	if t.has && s <= t.last {
		if t.last-s < slotWindow && t.bits[s%slotWindow/64]&(1<<(s%64)) != 0 {
			return duplicate
		}
		return stale
	}
	if t.has && s-t.last >= slotWindow {
		t.bits = [slotWindow / 64]uint64{}
	} else if t.has {
		for x := t.last + 1; x < s; x++ { // slots skipped: not delivered
			t.bits[x%slotWindow/64] &^= 1 << (x % 64)
		}
	}
	t.bits[s%slotWindow/64] |= 1 << (s % 64)
	t.has, t.last = true, s
	return deliver
}

// accountTracker delivers an account's state when it differs from the
// last one delivered, at a context slot no older: the same state from
// another endpoint (at its own context slot) or read back is a duplicate.
type accountTracker struct {
	has  bool
	slot uint64
	hash uint64
}

func (t *accountTracker) offer(it *item) verdict {
	switch {
	case t.has && it.hash == t.hash:
		return duplicate
	case t.has && it.slot < t.slot:
		return stale
	}
	t.has, t.slot, t.hash = true, it.slot, it.hash
	return deliver
}

// keyTracker deduplicates program notifications by account and content,
// logs by signature, over a window of recent slots, and keeps the stream
// in context-slot order.
type keyTracker struct {
	window    uint64
	byContent bool
	last      uint64
	seen      map[string]keySeen
	fifo      []keyAt // in delivery order, for eviction
}

type keySeen struct {
	slot uint64
	hash uint64
}

type keyAt struct {
	key  string
	slot uint64
}

// maxKeys bounds what a keyTracker remembers.
const maxKeys = 16384

func (t *keyTracker) offer(it *item) verdict {
	if s, ok := t.seen[it.key]; ok && (!t.byContent || s.hash == it.hash) {
		return duplicate
	}
	if it.slot < t.last {
		return stale
	}
	t.last = it.slot
	t.seen[it.key] = keySeen{slot: it.slot, hash: it.hash}
	t.fifo = append(t.fifo, keyAt{it.key, it.slot})
	for len(t.fifo) > 0 && (len(t.fifo) > maxKeys || t.fifo[0].slot+t.window < t.last) {
		old := t.fifo[0]
		t.fifo = t.fifo[1:]
		if s, ok := t.seen[old.key]; ok && s.slot == old.slot {
			delete(t.seen, old.key)
		}
	}
	return deliver
}

// onceTracker delivers the first notification only (a signature's).
type onceTracker struct{ done bool }

func (t *onceTracker) offer(*item) verdict {
	if t.done {
		return duplicate
	}
	t.done = true
	return deliver
}
