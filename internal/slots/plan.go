package slots

import (
	"encoding/json"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/transport"
)

// Plan is what one call does with slots: the commitment its answer is at,
// the slot it must reach (Floor, 0: none), and the session its answer
// raises (nil: none). Book.Plan fills it; the call reads it.
type Plan struct {
	// Traits are the method's (TraitsOf).
	Traits     Traits
	Commitment Commitment
	// Floor is the least slot an answer may be at (0: none): the
	// session's mark, raised to bounded staleness, or the caller's own
	// minContextSlot.
	Floor uint64
	// ceiling, when not 0, is the highest slot an answer may be at:
	// beyond it, it is ahead of what the endpoints agree on by more than
	// any honest node could be (a *transport.OutlierError). inStep is the
	// lowest slot of an endpoint in step with the others: the agreed slot
	// less the allowed lag (0: not known).
	ceiling, inStep uint64
	// asked is the minContextSlot the request carries (0: none), the
	// caller's or the one added for the floor.
	asked uint64
	// Session is where the answer's slot is kept (nil: reads are not
	// monotonic for this call).
	Session *Session
	// mark, when not nil, is the mark the answer is held to and raises in
	// place of its commitment's: a cached method's own.
	mark *atomic.Uint64
}

// Need is what the pool's slot-aware choice needs of the plan: its floor
// (the zero Need when it has none).
func (p *Plan) Need() Need {
	if p == nil || p.Floor == 0 {
		return Need{}
	}
	return Need{Floor: p.Floor, Commitment: p.Commitment, Answer: p.Traits.Result}
}

// Judge says whether an answer at slot is one the call accepts: nil, a
// *transport.StaleError when it is below the floor, a
// *transport.OutlierError when it is past the ceiling.
func (p *Plan) Judge(slot uint64) error {
	if slot < p.Floor {
		return &transport.StaleError{Commitment: p.Commitment.Type(), Slot: slot, Floor: p.Floor}
	}
	if p.ceiling > 0 && slot > p.ceiling {
		return &transport.OutlierError{Commitment: p.Commitment.Type(), Slot: slot, Ceiling: p.ceiling}
	}
	return nil
}

// Raise records that slot was returned under the plan, when it keeps a
// session.
func (p *Plan) Raise(slot uint64) {
	switch {
	case p.Session == nil:
	case p.mark != nil:
		raiseMark(p.mark, slot)
	case p.Traits.Result:
		raiseMark(&p.Session.results[p.Commitment], slot)
	default:
		p.Session.raise(p.Commitment, slot)
	}
}

// poisonedAbove is how far above the reference slot a caller's mark must
// be to be taken for a lie and lowered: an hour of slots. A mark only
// gets there from an answer taken before any two endpoints agreed (later,
// an answer that far ahead is refused: Plan.ceiling).
const poisonedAbove = 9000

// Plan fills p for a call of method with params at now, whose answers
// keep their marks in session (nil: reads are not monotonic for it), and
// reports whether the method carries a slot at all, and the
// minContextSlot to add to the request (0: none) when the plan asks for
// one the caller did not set (never for getSlot, Traits.Result: its
// answer is the node's claim, held to both marks on return). It is the one place a read's floor is
// computed: from the session's marks, the agreed slot and the reference.
func (b *Book) Plan(now time.Time, method string, params []any, session *Session, p *Plan) (tracked bool, inject uint64) {
	sl := TraitsOf(method)
	if !sl.Tracked() {
		return false, 0
	}
	if sl.Cached {
		b.planCached(now, method, sl, session, p)
		return true, 0
	}
	cfg := requestConfig{ok: true}
	if sl.Config >= 0 && sl.Config < len(params) {
		if cfg = configOf(params[sl.Config]); !cfg.ok {
			return false, 0 // a commitment this code cannot read: no slot is comparable
		}
	}
	*p = Plan{Traits: sl, Commitment: cfg.commitment, asked: cfg.minContextSlot}
	if sl.Pinned {
		p.Commitment = sl.Fixed
	}
	if session == nil {
		return true, 0
	}
	p.Session = session
	floor := b.bankFloor(now, session, p)
	held := uint64(0) // getSlot's answers never go back either
	if sl.Result {
		held = session.results[p.Commitment].Load()
	}
	p.Floor = max(floor, held, cfg.minContextSlot)
	// getSlot asks no bank for a slot: its answer is judged against both
	// marks when it comes back (Judge), and a minContextSlot at the
	// context mark would refuse it at a node whose slot answer runs ahead
	// of its banks, the one node that may have the result mark (on a
	// stalled chain, for the whole stall).
	if floor == 0 || !sl.MinContextSlot || sl.Result || cfg.minContextSlot > 0 {
		return true, 0
	}
	p.asked = floor
	return true, floor
}

// bankFloor is the slot a bank must reach for a read under p, with
// session's marks: the context mark, raised to bounded staleness. It
// sets p.ceiling. getSlot's answers raise no floor of the banks (a node's
// slot answer may run ahead of every bank of the cluster); its own
// answers are held to both marks (Plan).
func (b *Book) bankFloor(now time.Time, session *Session, p *Plan) uint64 {
	mark, result := &session.marks[p.Commitment], &session.results[p.Commitment]
	floor := mark.Load()
	ref, ok := b.Reference(now, p.Commitment)
	if !ok {
		return floor
	}
	lag := b.maxLag
	// The floor comes from what two endpoints reported (agreed), the
	// ceiling from the reference extrapolated to now: guessing the
	// chain's pace high may only widen what is accepted, never ask for a
	// slot no endpoint has reached (a stalled chain would then fail
	// every read with -32016).
	agreed, _ := b.Agreed(now, p.Commitment)
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
	p.ceiling, p.inStep = ref+2*lag, agreed-min(agreed, lag)
	return max(floor, p.inStep)
}

// A method whose answer carries its node's cache slot (Traits.Cached: agave's getLargestAccounts keeps one answer per filter, whatever
// the commitment, for up to two hours) says, with its context.slot, how old
// its value is, not where the node's bank is. Its reads never go back in
// time against the same method's answers in the same session: an answer
// below the highest slot the session got from the method is stale, retried
// elsewhere or a *transport.StaleError. It is held to no other mark and to no
// bounded staleness (a two-hour-old cache is the method's documented
// answer), it raises no commitment's mark and it never feeds the pool's
// lag tracking (a cache's slot would mark an in-step node far behind). An
// answer past what the endpoints' processed banks could hold is an
// outlier (plans/009-consistency.md).

// planCached fills p for a call of the cached method.
func (b *Book) planCached(now time.Time, method string, sl Traits, session *Session, p *Plan) {
	*p = Plan{Traits: sl, Commitment: Processed}
	ref, known := b.Reference(now, Processed)
	if known {
		p.ceiling = ref + 2*b.maxLag
	}
	if session == nil {
		return
	}
	p.Session, p.mark = session, session.cachedMark(method)
	p.Floor = p.mark.Load()
	if known && p.Floor > ref+poisonedAbove {
		// Taken before any two endpoints agreed, an hour past them: a lie.
		lowerMark(p.mark, ref)
		p.Floor = ref
	}
}

// Answered records what an answer at slot (refused: a -32016's
// contextSlot) from the endpoint of m tells of it, under plan p, at now,
// and returns how many slots it was short of the plan's floor when that
// is a few (no more than MaxLag) and the endpoint is in step (within
// MaxLag of what two endpoints agree on): not yet, the client's own
// bound, not the endpoint's fault, which the retry policy retries
// uncounted where the slot is (retrypolicy.Outcome.NotYet); 0 otherwise.
// A refusal further down is a lagging endpoint's failure. A getSlot answer
// is the slot the endpoint claims, which may run ahead of its banks; a
// context slot, a stale answer's or a -32016's, is its bank's. A cache's
// slot (Traits.Cached) says nothing of the node and is not recorded.
func (b *Book) Answered(now time.Time, m *Marks, p *Plan, slot uint64, refused bool) (notYet uint64) {
	if slot == 0 || p == nil || p.Traits.Cached {
		return 0
	}
	if refused && slot >= p.asked {
		// agave refuses exactly when its bank is below the slot asked,
		// and names that bank: a refusal at or past it (or with no slot
		// asked) contradicts itself, and its slot teaches nothing.
		return 0
	}
	if p.Traits.Result && !refused {
		b.SawSlot(now, m, p.Commitment, slot)
	} else {
		b.SawBank(now, m, p.Commitment, slot)
	}
	return p.short(slot, b.maxLag)
}

// short is how many slots slot is short of the plan's floor, when it is
// by no more than lag and slot is in step (at or past inStep); 0
// otherwise.
func (p *Plan) short(slot, lag uint64) uint64 {
	if slot >= p.Floor || slot < p.inStep || p.Floor-slot > lag {
		return 0
	}
	return p.Floor - slot
}

// requestConfig is what a request's config object says about slots.
type requestConfig struct {
	commitment     Commitment
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
		c, known := ParseCommitment(rv.String())
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
