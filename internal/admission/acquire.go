package admission

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/internal/slots"
)

// selection is which candidates of a role one request may use.
type selection struct {
	rs    *roleSet
	caps  []string
	avoid []string
	// only is Request.Endpoint: the one endpoint the request may use, one
	// awaiting verification included ("": any).
	only string
	// last marks, by member index, the candidates the request uses only
	// as a last resort, and why (lastDoubt, lastSlot, lastShort); the
	// zero lastMarks when there are none, or when no other compatible
	// candidate (outside avoid) exists. lastAt is when those in doubt, or
	// short of Request.MinSlot, may be used; those off the slot reference
	// may be at once, in a second pass (lastresort.go).
	last     lastMarks
	lastAt   time.Time
	slotLast bool
	// avoidsDoubt is Request.AvoidDoubt with doubt on: a permit says
	// whether its endpoint was in doubt.
	avoidsDoubt bool
	// hist is, for a history read, its method's number + 1 among the
	// pool's history methods (0: none; history.go), and avoidLast is set
	// when some candidate is avoided for it: a third pass. (Beside the
	// bools above: the selection does not grow.)
	hist      uint16
	avoidLast bool
	// proven is Request.Proven: each tier's Available candidates first
	// (balance.go).
	proven bool
	// timeout is the smallest RequestTimeout of the compatible candidates.
	timeout time.Duration
	// ctxDeadline is set when the deadline is ctx's: reaching it is then
	// also ctx's deadline passing, whichever of the two wakes Acquire.
	ctxDeadline bool
	// timed is Request.Method when Request.Timed is set: the method whose
	// latency a permit records ("": none).
	timed string
}

// selection fills sel, a zero selection, with the role's candidates
// filtered by capabilities, and decides whether Avoid applies: only when
// a candidate outside it can take the request (spare). It reports false
// when no candidate is compatible. (It fills the caller's value rather
// than return one: the selection is large, and Acquire's fast path would
// copy it.)
func (p *Pool) selection(sel *selection, req *Request) bool {
	rs := p.roleSet(req.Role)
	if rs == nil || len(rs.ordered) == 0 {
		return false
	}
	sel.rs = rs
	sel.proven = req.Proven
	if req.Timed {
		sel.timed = req.Method
	}
	if len(req.Capabilities) == 0 && len(req.Avoid) == 0 && req.Endpoint == "" {
		sel.timeout = rs.timeout
		return true
	}
	sel.caps, sel.only = req.Capabilities, req.Endpoint
	compatible := false
	for _, m := range rs.ordered {
		if !sel.compatible(m) {
			continue
		}
		if !compatible || m.timeout < sel.timeout {
			sel.timeout = m.timeout
		}
		compatible = true
	}
	if len(req.Avoid) > 0 && p.spare(sel, req.Avoid, req.Slot) {
		sel.avoid = req.Avoid
	}
	return compatible
}

// compatible reports whether m is configured for a request of this
// selection: it carries the capabilities, and is the endpoint asked for
// (Request.Endpoint) if one is.
func (s *selection) compatible(m *member) bool {
	if len(s.caps) > 0 && !hasCapabilities(m.spec, s.caps) {
		return false
	}
	return s.only == "" || m.spec.Name == s.only
}

// takes is the pool's one answer to "can this endpoint take the
// request?", Avoid aside: m is compatible, and the cluster guard lets it
// through (verified; one awaiting its check only for the check itself).
// When it cannot, b says why (the guard's block). Whether a retry has
// somewhere else to go (HasAlternative), whether Avoid applies (spare)
// and which candidates a scan tries all ask it. Limits, cooldowns,
// ejections and doubt are not part of it: they pass, and a scan waits
// for them; an endpoint the guard holds back may never serve.
func (s *selection) takes(m *member) (b rolestate.Block, ok bool) {
	if !s.compatible(m) {
		return b, false
	}
	sh := m.rt.Shared()
	if sh.Admissible(s.only != "") {
		return b, true
	}
	if v, _ := sh.Verification(); v == endpoint.WrongCluster {
		return rolestate.Block{Reason: rolestate.BlockedByCluster}, false
	}
	return rolestate.Block{Reason: rolestate.BlockedByVerification}, false
}

// spare reports whether a candidate outside avoid can take a request of
// this selection (takes) that needs need: for a read that carries a
// floor, one that is not unproven at it (lastresort.go). A candidate that
// nothing says answers, and whose slot nothing fresh tells, is no reason
// to keep a retry off the endpoints it was refused by for being a slot
// short (plans/009-consistency.md, "Unknown is not ahead").
func (p *Pool) spare(sel *selection, avoid []string, need slots.Need) bool {
	aware := need.Floor > 0 && p.slots.MaxLag() > 0
	var now time.Time
	if aware {
		now = p.clock.Now()
	}
	for _, m := range sel.rs.ordered {
		if _, ok := sel.takes(m); ok && !slices.Contains(avoid, m.spec.Name) && !(aware && p.unproven(m, now, need)) {
			return true
		}
	}
	return false
}

// Acquire returns a permit for one request, or an error: ErrNoEndpoint at
// once, ctx's error when ctx ends first, or a *DeadlineError naming every
// candidate and why it was blocked. It never returns after the deadline.
//
// The deadline is req.Deadline, or now + DefaultTimeout when zero, cut to
// ctx's deadline (read on the pool's clock) when that is sooner. No permit
// is granted at or after it.
func (p *Pool) Acquire(ctx context.Context, req Request) (*Permit, error) {
	var sel selection
	if !p.selection(&sel, &req) {
		return nil, &NoEndpointError{Method: req.Method, Role: req.Role, Capabilities: req.Capabilities}
	}
	// Not ctx.Err(): clockwork's fake-clock contexts block in Err until
	// they are done.
	select {
	case <-ctx.Done():
		return nil, p.contextError(&req, ctx.Err())
	default:
	}
	now := p.clock.Now()
	deadline := req.Deadline
	if deadline.IsZero() {
		deadline = now.Add(sel.timeout)
	}
	if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
		deadline = d
		sel.ctxDeadline = true
	}
	p.lastResorts(&sel, &req, now, deadline)
	// The fast path: one scan, no channel, no timer.
	if pm, _, late := p.scan(&sel, now, deadline, nil); pm != nil {
		return pm, nil
	} else if late {
		return nil, p.deadlineError(&sel, &req, now, deadline, nil)
	}
	return p.wait(ctx, &sel, &req, deadline)
}

// TryAcquire is Acquire without waiting: a permit when a candidate can be
// admitted now, nil otherwise (nothing free, ErrNoEndpoint, or the
// deadline already passed). It starts no timer. The deadline is
// req.Deadline, or now + DefaultTimeout when zero.
func (p *Pool) TryAcquire(req Request) *Permit {
	return p.tryAcquire(&req, false)
}

// TryAcquireElsewhere is TryAcquire for a request that must not go to
// the endpoints in req.Avoid: nil, having spent nothing, when no
// candidate outside them takes the request, where TryAcquire would
// ignore Avoid and admit an avoided one. The transport uses it for
// hedges, which are worth sending only at once and only to another
// endpoint than the attempt they back up.
func (p *Pool) TryAcquireElsewhere(req Request) *Permit {
	return p.tryAcquire(&req, true)
}

// tryAcquire is TryAcquire, or with elsewhere TryAcquireElsewhere.
func (p *Pool) tryAcquire(req *Request, elsewhere bool) *Permit {
	var sel selection
	if !p.selection(&sel, req) || elsewhere && len(req.Avoid) > 0 && sel.avoid == nil {
		return nil
	}
	now := p.clock.Now()
	deadline := req.Deadline
	if deadline.IsZero() {
		deadline = now.Add(sel.timeout)
	}
	p.lastResorts(&sel, req, now, deadline)
	pm, _, _ := p.scan(&sel, now, deadline, nil)
	return pm
}

// scan tries every candidate at most once, by tier, the last resorts (if
// any) in a second pass after every other candidate (and, for a history
// read, those avoided for its method in a third: history.go). Inside a tier it
// tries first the cheaper of two candidates drawn at random, then the
// other, then the rest in round-robin order (see balance.go): balancing
// chooses among the admissible, the limits decide who is. It returns a
// permit, or the earliest instant a cooldown ends or a token refills
// among the blocked candidates (zero when only concurrency blocks them),
// or late when now is at or past the deadline. held, when not nil, is the
// member whose slot the wait queue handed the request: admitted on that
// slot if the scan gets to it first.
func (p *Pool) scan(sel *selection, now, deadline time.Time, held *member) (pm *Permit, wakeAt time.Time, late bool) {
	// When ejections hold back more than half the candidates, the scan runs
	// again in panic mode (Envoy's healthy panic threshold, 50 %): the few
	// left, busy or throttled, cannot carry the role's traffic alone.
	t := tally{}
	var buf [32]uint32
	for pass := range sel.passes(now) {
		for _, g := range sel.rs.tiers {
			for _, k := range g.order(buf[:0], sel, pass, p.seed, now) {
				m := g.members[k]
				if b, ok := sel.takes(m); !ok {
					t.blocked(b)
					continue
				}
				var a rolestate.Admission
				var b rolestate.Block
				var ok bool
				if m != held { // written out, not admitAt: the fast path's call inlines
					a, b, ok = m.rt.AdmitAt(now, deadline)
				} else {
					a, b, ok = m.rt.AdmitHeldAt(now, deadline, false)
				}
				if ok {
					return p.permit(sel, m, a, deadline), time.Time{}, false
				}
				if b.Reason == rolestate.BlockedByDeadline {
					return nil, time.Time{}, true
				}
				t.blocked(b)
			}
		}
	}
	if sel.last.any() {
		// Counted only now that nobody was admitted: the fast path pays
		// nothing for them.
		sel.heldBack(now, &t) // the last resorts whose time has not come
	}
	if 2*t.ejected > t.seen {
		if pm := p.panicScan(sel, now, deadline, held, &t); pm != nil {
			return pm, time.Time{}, false
		}
	}
	return nil, t.wakeAt, false
}

// admitAt admits a request on m at now: AdmitAt, or AdmitHeldAt on the
// slot the wait queue handed the request (held); with ejected, their
// panic-mode forms.
func (m *member) admitAt(now, deadline time.Time, held, ejected bool) (rolestate.Admission, rolestate.Block, bool) {
	switch {
	case held:
		return m.rt.AdmitHeldAt(now, deadline, ejected)
	case ejected:
		return m.rt.AdmitEjectedAt(now, deadline)
	}
	return m.rt.AdmitAt(now, deadline)
}

// tally is what a scan learnt from the candidates it could not admit.
type tally struct {
	seen, ejected int
	// wakeAt is the earliest instant a block clears by itself.
	wakeAt time.Time
}

// blocked counts one refusal.
func (t *tally) blocked(b rolestate.Block) {
	t.seen++
	if b.Reason == rolestate.BlockedByEjection {
		t.ejected++
	}
	t.until(b.Until)
}

// until brings wakeAt forward to u, if sooner (a zero u: no change).
func (t *tally) until(u time.Time) {
	if !u.IsZero() && (t.wakeAt.IsZero() || u.Before(t.wakeAt)) {
		t.wakeAt = u
	}
}

// panicScan admits the first candidate, by tier and in the same round-robin
// order as the scan before it, that only an ejection held back. The scan
// calls it when ejections hold back more than half the candidates. Ejection
// is for steering traffic to healthier peers; when too few are left to take
// it, ejection must not turn a failing pool into a refusing one (Envoy's
// healthy panic threshold), nor pile every call on one ejected endpoint.
// Last resorts come last here too. A permit so granted reports its
// outcome as usual: a success resets the failure count and the ejection
// backoff, a failure counts toward the next ejection; the running ejection
// ends on its own. Without a permit it brings t's wakeAt forward to when a
// refusal of its own ends (a token, a rate-limit cooldown), which the scan
// before it did not see behind the ejection.
func (p *Pool) panicScan(sel *selection, now, deadline time.Time, held *member, t *tally) *Permit {
	for pass := range sel.passes(now) {
		for _, g := range sel.rs.tiers {
			n, start := g.rotated()
			for i := range n {
				m := g.members[(start+i)%n]
				if !sel.tries(m, pass, now) {
					continue
				}
				if _, ok := sel.takes(m); !ok {
					continue
				}
				a, b, ok := m.admitAt(now, deadline, m == held, true)
				if ok {
					return p.permit(sel, m, a, deadline)
				}
				t.until(b.Until)
			}
		}
	}
	return nil
}

// permit is the Permit for an admission a of m. For a request that avoids
// doubt it records whether m was in doubt: taken as a last resort. For a
// timed request it holds the histogram its Done feeds.
func (p *Pool) permit(sel *selection, m *member, a rolestate.Admission, deadline time.Time) *Permit {
	inDoubt := sel.avoidsDoubt && m.rt.InDoubtAt(m.rt.AdmittedAt(a))
	pm := &Permit{m: m, adm: a, deadline: deadline, inDoubt: inDoubt, hist: sel.hist}
	if sel.timed != "" {
		pm.lat = m.rt.Timing(sel.timed)
	}
	return pm
}

// deadlineError probes every candidate at now to say why it is blocked. A
// candidate may have seen a later instant than now (time never goes back
// inside a Runtime), so At is at least the deadline.
func (p *Pool) deadlineError(sel *selection, req *Request, now, deadline time.Time, ctxErr error) error {
	if now.Before(deadline) {
		now = deadline
	}
	if ctxErr == nil && sel.ctxDeadline {
		ctxErr = context.DeadlineExceeded
	}
	e := &DeadlineError{Method: req.Method, Role: req.Role, Deadline: deadline, At: now, Context: ctxErr}
	for _, m := range sel.rs.ordered {
		if sel.admits(m) {
			why := sel.lastResort(m)
			b, ok := sel.takes(m)
			if ok {
				b = m.rt.ProbeAt(now, time.Time{})
			}
			c := Candidate{Endpoint: m.spec.Name, Tier: m.spec.Tier,
				Block: b, InDoubt: why == lastDoubt, OffSlot: why == lastSlot || why == lastNever, ShortOfSlot: why == lastShort,
				NoHistory: why == lastNoHistory, Avoided: why == lastAvoided}
			if b.Reason == rolestate.BlockedByVerification {
				c.Unchecked = m.rt.Shared().Unchecked()
			}
			e.Candidates = append(e.Candidates, c)
		}
	}
	return e
}

// contextError wraps ctx's error with the method and role.
func (p *Pool) contextError(req *Request, err error) error {
	return fmt.Errorf("pool: %s (%s): waiting for an endpoint: %w", req.Method, req.Role, err)
}
