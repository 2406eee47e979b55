package rolestate

import (
	"sync/atomic"

	"github.com/solroute/solroute/endpoint"
)

// healthWord packs a Health and its generation into one atomic word, so the
// state and the generation always change together: the low 2 bits hold the
// state, the rest the generation.
type healthWord uint64

func (w healthWord) state() endpoint.Health { return endpoint.Health(w & 3) }
func (w healthWord) generation() uint64     { return uint64(w >> 2) }

// next is the word after a transition to h: one generation later.
func (w healthWord) next(h endpoint.Health) healthWord {
	return healthWord((w.generation()+1)<<2 | uint64(h))
}

// healthMachine is the passive health state machine of one (endpoint,
// role). Its only writer is setState; the time transitions (RateLimited or
// Ejected -> Degraded once the cooldown is over) are applied on read by
// stateAt, so no
// timer or goroutine is involved. Every transition bumps a generation:
// success and failure outcomes carry the generation they were admitted
// under and are ignored for the state when it has changed since, so a slow
// answer cannot undo a newer state.
type healthMachine struct {
	word atomic.Uint64
	// onChange, when set, is called after every transition that changes
	// the state (from != to).
	onChange func(from, to endpoint.Health)
}

// load returns the current word without applying time transitions.
func (m *healthMachine) load() healthWord { return healthWord(m.word.Load()) }

// setState moves from the word old to state to, bumping the generation. It
// fails (false) when another transition happened since old was read.
func (m *healthMachine) setState(old healthWord, to endpoint.Health) bool {
	if !m.word.CompareAndSwap(uint64(old), uint64(old.next(to))) {
		return false
	}
	if from := old.state(); from != to && m.onChange != nil {
		m.onChange(from, to)
	}
	return true
}

// stateAt returns the word at n (nanoseconds since the Runtime's epoch),
// first applying the time transitions: RateLimited or Ejected -> Degraded
// when c is over at n, RateLimited -> Ejected when only c's ejection
// still runs.
func (m *healthMachine) stateAt(n int64, c *cooldown) healthWord {
	for {
		w := m.load()
		s := w.state()
		if s != endpoint.RateLimited && s != endpoint.Ejected {
			return w
		}
		to := endpoint.Degraded
		if reason, _, active := c.blockAt(n); active {
			if s != endpoint.RateLimited || reason != BlockedByEjection {
				return w
			}
			// The provider's pause is over, an ejection still runs.
			to = endpoint.Ejected
		}
		if m.setState(w, to) {
			return w.next(to)
		}
	}
}

// succeeded applies Degraded --success--> Available for an outcome admitted
// under generation gen.
func (m *healthMachine) succeeded(w healthWord, gen uint64) {
	if w.generation() == gen && w.state() == endpoint.Degraded {
		m.setState(w, endpoint.Available)
	}
}

// failed applies Available --failure--> Degraded for an outcome admitted
// under generation gen.
func (m *healthMachine) failed(w healthWord, gen uint64) {
	if w.generation() == gen && w.state() == endpoint.Available {
		m.setState(w, endpoint.Degraded)
	}
}

// rateLimited moves to RateLimited from any state, whatever generation the
// outcome was admitted under: a rate limit is the provider speaking now.
// When already RateLimited the generation is bumped anyway, so that a
// reader who saw the previous cooldown end cannot turn the state Degraded
// while the extended cooldown runs (its compare-and-swap fails).
func (m *healthMachine) rateLimited() {
	for !m.setState(m.load(), endpoint.RateLimited) {
	}
}

// ejected moves to Ejected from any state, whatever its generation: the
// caller decided the ejection (under the Runtime's streak lock, for an
// outcome of the current generation) and has already moved the cooldown to
// its end. Like rateLimited, it bumps the generation even when already
// Ejected, so that a reader who saw the previous cooldown end cannot turn
// the state Degraded while the new one runs.
func (m *healthMachine) ejected() {
	for !m.setState(m.load(), endpoint.Ejected) {
	}
}
