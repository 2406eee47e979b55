package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync/atomic"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/registry"
)

// Monotonic reads (plans/009-consistency.md): a Session keeps the highest
// context slot returned per commitment; a read asks for at least that
// slot (minContextSlot) where the method takes one, and an answer below it
// is stale: retried elsewhere, or a *StaleError.

// Session is a high-water mark of the slots returned to one caller, per
// commitment. The zero value is an empty session, ready to use; it is safe
// for concurrent use. A Client keeps one of its own (Settings.
// MonotonicReads); WithSession gives a narrower scope.
type Session struct {
	marks [endpoint.Commitments]atomic.Uint64
}

// NewSession returns an empty Session.
func NewSession() *Session { return &Session{} }

// Slot returns the highest slot returned at commitment c (0: none).
func (s *Session) Slot(c endpoint.Commitment) uint64 {
	if c >= endpoint.Commitments {
		return 0
	}
	return s.marks[c].Load()
}

// raise records that slot was returned at commitment c.
func (s *Session) raise(c endpoint.Commitment, slot uint64) {
	if c >= endpoint.Commitments {
		return
	}
	m := &s.marks[c]
	for {
		old := m.Load()
		if slot <= old || m.CompareAndSwap(old, slot) {
			return
		}
	}
}

// StaleError is an answer older than a slot already returned to the same
// caller (or than the minContextSlot it asked for), from an endpoint that
// took no minContextSlot or ignored it. Its cause is node-behind: the call
// retries it elsewhere while it can.
type StaleError struct {
	// Commitment is the commitment the slots are at.
	Commitment endpoint.Commitment
	// Slot is the answer's context slot; Floor the slot it had to reach.
	Slot, Floor uint64
}

// Error reads "stale answer: context slot 940 (confirmed) is below slot
// 1000, already returned to this caller".
func (e *StaleError) Error() string {
	return fmt.Sprintf("stale answer: context slot %d (%s) is below slot %d, already returned to this caller",
		e.Slot, e.Commitment, e.Floor)
}

// slotPlan is what one call does with slots: the commitment its answer is
// at, the slot it must reach (floor, 0: none), and the session its answer
// raises (nil: none).
type slotPlan struct {
	slots      registry.Slots
	commitment endpoint.Commitment
	floor      uint64
	session    *Session
}

// planSlots returns the call's slot plan and its params, with
// minContextSlot added when the plan asks for one the caller did not set
// (the caller's params are never modified). It returns nil for a method
// that carries no slot.
func (c *Client) planSlots(ctx context.Context, method string, params []any) (*slotPlan, []any) {
	sl := registry.SlotsOf(method)
	if !sl.Tracked() {
		return nil, params
	}
	cfg := requestConfig{ok: true}
	if sl.Config >= 0 && sl.Config < len(params) {
		if cfg = configOf(params[sl.Config]); !cfg.ok {
			return nil, params // a commitment this code cannot read: no slot is comparable
		}
	}
	plan := &slotPlan{slots: sl, commitment: cfg.commitment}
	if sl.Pinned {
		plan.commitment = sl.Fixed
	}
	on, set := ctx.Value(monotonicKey{}).(bool)
	session, _ := ctx.Value(sessionKey{}).(*Session)
	switch {
	case set && !on:
		return plan, params
	case session != nil:
	case set || c.monotonic:
		session = &c.session
	}
	if session == nil {
		return plan, params
	}
	plan.session = session
	floor := session.Slot(plan.commitment)
	if ref, ok := c.pool.ReferenceSlot(plan.commitment); ok && floor > ref {
		// A mark no other endpoint comes near (an outlier's answer) must
		// not make every other endpoint refuse.
		floor = ref
	}
	plan.floor = max(floor, cfg.minContextSlot)
	if floor == 0 || !sl.MinContextSlot || cfg.minContextSlot > 0 {
		return plan, params
	}
	return plan, withMinContextSlot(params, sl.Config, cfg.object, floor)
}

// requestConfig is what a request's config object says about slots.
type requestConfig struct {
	commitment     endpoint.Commitment
	minContextSlot uint64
	// object is the config as a map, nil when absent; ok is false when the
	// config could not be read (then no minContextSlot is added).
	object map[string]any
	ok     bool
}

// configOf reads a config param: a map (solana-go's rpc.M, a
// map[string]any) directly, anything else through its JSON form. A nil
// param is an absent config. ok is false when it cannot be read as an
// object, or names a commitment that is not one.
func configOf(p any) requestConfig {
	var m map[string]any
	switch v := p.(type) {
	case nil:
		return requestConfig{ok: true}
	case rpc.M:
		m = v
	case map[string]any:
		m = v
	default:
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
			return requestConfig{}
		}
	}
	cfg := requestConfig{object: m, ok: true}
	if v, ok := m["commitment"]; ok && v != nil {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.String {
			return requestConfig{} // not a commitment this code can read
		}
		c, known := endpoint.ParseCommitment(rv.String())
		if !known {
			return requestConfig{}
		}
		cfg.commitment = c
	}
	switch v := m["minContextSlot"].(type) {
	case uint64:
		cfg.minContextSlot = v
	case int:
		cfg.minContextSlot = uint64(max(v, 0))
	case int64:
		cfg.minContextSlot = uint64(max(v, 0))
	case float64: // through JSON
		cfg.minContextSlot = uint64(max(v, 0))
	case json.Number:
		n, _ := v.Int64()
		cfg.minContextSlot = uint64(max(n, 0))
	}
	return cfg
}

// withMinContextSlot returns a copy of params whose config at index i is
// object (copied; nil: none) with minContextSlot set to slot. params must
// reach index i-1; a missing config is appended.
func withMinContextSlot(params []any, i int, object map[string]any, slot uint64) []any {
	if i > len(params) {
		return params
	}
	out := make([]any, max(len(params), i+1))
	copy(out, params)
	cfg := make(map[string]any, len(object)+1)
	maps.Copy(cfg, object)
	cfg["minContextSlot"] = slot
	out[i] = cfg
	return out
}
