package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
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
	// marks are the highest context slot returned per commitment: the
	// slot of the bank that served an answer (a -32016 never returns).
	// results are the highest slot getSlot returned (methods.Slots.
	// Result): a node's slot answer, which may run ahead of the bank that
	// serves its next read, so it raises a mark of its own
	// (plans/009-consistency.md).
	marks   [endpoint.Commitments]atomic.Uint64
	results [endpoint.Commitments]atomic.Uint64
	// cached holds the marks of methods whose answers carry a cache's
	// slot (methods.Slots.Cached): method name → *atomic.Uint64.
	cached sync.Map
}

// NewSession returns an empty Session.
func NewSession() *Session { return &Session{} }

// Slot returns the highest slot returned at commitment c (0: none): a
// read's context slot, or getSlot's answer, whichever is higher.
func (s *Session) Slot(c endpoint.Commitment) uint64 {
	if c >= endpoint.Commitments {
		return 0
	}
	return max(s.marks[c].Load(), s.results[c].Load())
}

// raise records that a read returned context slot slot at commitment c.
func (s *Session) raise(c endpoint.Commitment, slot uint64) {
	if c < endpoint.Commitments {
		raiseMark(&s.marks[c], slot)
	}
}

// slotPlan is what one call does with slots: the commitment its answer is
// at, the slot it must reach (floor, 0: none), and the session its answer
// raises (nil: none).
type slotPlan struct {
	slots      methods.Slots
	commitment endpoint.Commitment
	floor      uint64
	// ceiling, when not 0, is the highest slot an answer may be at:
	// beyond it, it is ahead of what the endpoints agree on by more than
	// any honest node could be (an *OutlierError). inStep is the lowest
	// slot of an endpoint in step with the others: the agreed slot less
	// the allowed lag (0: not known).
	ceiling, inStep uint64
	// asked is the minContextSlot the request carries (0: none), the
	// caller's or the one added for the floor.
	asked   uint64
	session *Session
	// mark, when not nil, is the mark the answer is held to and raises in
	// place of its commitment's: a cached method's own (cachedslots.go).
	mark *atomic.Uint64
}

// raise records that slot was returned under the plan.
func (p *slotPlan) raise(slot uint64) {
	switch {
	case p.mark != nil:
		raiseMark(p.mark, slot)
	case p.slots.Result:
		raiseMark(&p.session.results[p.commitment], slot)
	default:
		p.session.raise(p.commitment, slot)
	}
}

// poisonedAbove is how far above the pool's reference slot a caller's
// mark must be to be taken for a lie and lowered: an hour of slots. A
// mark only gets there from an answer taken before any two endpoints
// agreed (later, an answer that far ahead is refused: slotPlan.ceiling).
const poisonedAbove = 9000

// planSlots fills plan for a call of method with params, and reports
// whether the method carries a slot at all, and the minContextSlot to add
// to the request (0: none) when the plan asks for one the caller did not
// set.
func (c *Engine) planSlots(ctx context.Context, method string, params []any, plan *slotPlan) (tracked bool, inject uint64) {
	sl := methods.SlotsOf(method)
	if !sl.Tracked() {
		return false, 0
	}
	if sl.Cached {
		c.planCached(ctx, method, sl, plan)
		return true, 0
	}
	cfg := requestConfig{ok: true}
	if sl.Config >= 0 && sl.Config < len(params) {
		if cfg = configOf(params[sl.Config]); !cfg.ok {
			return false, 0 // a commitment this code cannot read: no slot is comparable
		}
	}
	*plan = slotPlan{slots: sl, commitment: cfg.commitment, asked: cfg.minContextSlot}
	if sl.Pinned {
		plan.commitment = sl.Fixed
	}
	session := c.sessionFor(ctx)
	if session == nil {
		return true, 0
	}
	plan.session = session
	floor := c.bankFloor(session, plan)
	held := uint64(0) // getSlot's answers never go back either
	if sl.Result {
		held = session.results[plan.commitment].Load()
	}
	plan.floor = max(floor, held, cfg.minContextSlot)
	if floor == 0 || !sl.MinContextSlot || cfg.minContextSlot > 0 {
		return true, 0
	}
	plan.asked = floor
	return true, floor
}

// bankFloor is the slot a bank must reach for a read under plan, with
// session's marks: the context mark, raised to bounded staleness. It
// sets plan.ceiling. getSlot's answers raise no floor of the banks (a
// node's slot answer may run ahead of every bank of the cluster); its
// own answers are held to both marks (planSlots).
func (c *Engine) bankFloor(session *Session, plan *slotPlan) uint64 {
	mark, result := &session.marks[plan.commitment], &session.results[plan.commitment]
	floor := mark.Load()
	ref, ok := c.pool.ReferenceSlot(plan.commitment)
	if !ok {
		return floor
	}
	lag := c.pool.MaxSlotLag()
	// The floor comes from what two endpoints reported (agreed), the
	// ceiling from the reference extrapolated to now: guessing the
	// chain's pace high may only widen what is accepted, never ask for a
	// slot no endpoint has reached (a stalled chain would then fail
	// every read with -32016).
	agreed, _ := c.pool.AgreedSlot(plan.commitment)
	if floor > ref+poisonedAbove {
		// A mark an hour of slots past anything two endpoints agree on
		// was a lie (taken before any two had answered): it must not
		// hold this caller's reads hostage.
		lowerMark(mark, agreed)
		floor = agreed
	}
	if result.Load() > ref+poisonedAbove {
		lowerMark(result, agreed)
	}
	// Bounded staleness: never more than the allowed lag behind what two
	// endpoints reported, even for a caller with no mark yet; and nothing
	// further ahead than they could be by the answer's time.
	plan.ceiling, plan.inStep = ref+2*lag, agreed-min(agreed, lag)
	return max(floor, plan.inStep)
}

// sawSlot tells the pool the slot pm's endpoint answered or refused at
// (o.slot), and marks a refusal a few slots short of the call's floor
// (no more than the pool's MaxSlotLag), from an endpoint in step (within
// MaxSlotLag of what two endpoints agree on), as not yet: the client's
// own bound, not the endpoint's fault, which the retry policy retries
// uncounted where the slot is (retrypolicy.Outcome.NotYet). A refusal
// further down is a lagging endpoint's failure, as before. A getSlot
// answer is the slot the endpoint claims, which may run ahead of its
// banks; a context slot, a stale answer's or a -32016's, is its bank's.
func (c *Engine) sawSlot(cs *callState, pm *admission.Permit, o *outcome) {
	p := cs.slots
	if o.slot == 0 || p == nil || p.slots.Cached { // a cache's slot says nothing of the node's
		return
	}
	refused := o.RPCCode == codeMinContextSlotNotReached
	if refused && o.slot >= p.asked {
		// agave refuses exactly when its bank is below the slot asked,
		// and names that bank: a refusal at or past it (or with no slot
		// asked) contradicts itself, and its slot teaches nothing.
		return
	}
	if p.slots.Result && !refused {
		pm.SawSlot(p.commitment, o.slot)
	} else {
		pm.SawBank(p.commitment, o.slot)
	}
	if gap := p.short(o.slot, c.pool.MaxSlotLag()); gap > 0 && o.Cause == retrypolicy.NodeBehind {
		o.NotYet, o.Fault = gap, retrypolicy.LocalFault
	}
}

// short is how many slots slot is short of the plan's floor, when it is
// by no more than lag and slot is in step (at or past inStep); 0
// otherwise.
func (p *slotPlan) short(slot, lag uint64) uint64 {
	if slot >= p.floor || slot < p.inStep || p.floor-slot > lag {
		return 0
	}
	return p.floor - slot
}

// slotRequest sets req's floor from the plan: the slot the answer must
// reach, at which commitment, and whether the answer is the endpoint's
// slot itself (admission.Request.SlotAnswer).
func (p *slotPlan) slotRequest(req *admission.Request) {
	if p != nil && p.floor > 0 {
		req.MinSlot, req.MinSlotCommitment, req.SlotAnswer = p.floor, p.commitment, p.slots.Result
	}
}

// slotElsewhere reports, for an attempt refused a few slots short of its
// floor (o.NotYet), whether an endpoint outside tried may have that slot
// (admission.Pool.SlotElsewhere): the not-yet retry then goes at once.
func (c *Engine) slotElsewhere(o *outcome, req admission.Request, tried []string) bool {
	return o.NotYet > 0 && req.Endpoint == "" && c.pool.SlotElsewhere(req, tried)
}

// sessionFor returns the session a call under ctx keeps its marks in, nil
// when its reads are not monotonic.
func (c *Engine) sessionFor(ctx context.Context) *Session {
	on, set := ctx.Value(monotonicKey{}).(bool)
	session, _ := ctx.Value(sessionKey{}).(*Session)
	switch {
	case set && !on:
		return nil
	case session != nil:
		return session
	case set || c.monotonic:
		return &c.session
	}
	return nil
}

// requestConfig is what a request's config object says about slots.
type requestConfig struct {
	commitment     endpoint.Commitment
	minContextSlot uint64
	// ok is false when the config could not be read.
	ok bool
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
	cfg := requestConfig{ok: true}
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
