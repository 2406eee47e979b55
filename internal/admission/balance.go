package admission

import (
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Balancing inside a tier (plans/008-balancing.md): the power of two
// choices over a peak-EWMA latency cost (finagle, tower, linkerd2-proxy).
// Of the tier's candidates this scan may try, two are drawn at random and
// the one with the lower cost (rolestate.Runtime.CostAt: the latency
// estimate, or the mean age of the requests in flight when longer, times
// in flight + 1) is tried first, then the other, then the rest in
// round-robin order. When the two cost the same, the round-robin order
// alone decides, so equal peers share exactly evenly (but a member that
// costs more than the pair never goes before it). So the limits stay hard (every candidate is still
// tried before the request waits), a slow or hanging peer loses almost
// every draw, and two draws rather than a full scan keep independent
// callers from herding onto the same apparent minimum (Mitzenmacher, "How
// Useful Is Old Information?").

// order appends to dst the indices of g's members this pass may try
// (pass 0: the first; then the last resorts' passes) in the order to try
// them, and returns it: the balancer's order (balanced), and for a last
// chance (Request.Proven) the Available members first.
func (g *tierGroup) order(dst []uint32, sel *selection, pass int, seed uint64, now time.Time) []uint32 {
	dst = g.balanced(dst, sel, pass, seed, now)
	if sel.proven && len(dst) > 1 {
		provenFirst(g, dst, now)
	}
	return dst
}

// balanced is order before the last chance's preference. The first pass
// moves the tier's counter on, which both rotates the round-robin start
// and draws the pair; the last resorts' passes reuse the draw of the
// first.
func (g *tierGroup) balanced(dst []uint32, sel *selection, pass int, seed uint64, now time.Time) []uint32 {
	n := uint32(len(g.members))
	var x uint32
	if pass == 0 {
		x = g.next.Add(1)
	} else {
		x = g.next.Load()
	}
	start := (x - 1) % n
	for i := range n {
		k := (start + i) % n
		if sel.tries(g.members[k], pass, now) {
			dst = append(dst, k)
		}
	}
	if len(dst) < 2 {
		return dst
	}
	r := splitmix64(uint64(x) ^ seed)
	c := uint64(len(dst))
	i := int(r % c)
	j := int((r >> 32) % (c - 1))
	if j >= i {
		j++
	}
	ci, cj := g.members[dst[i]].rt.CostAt(now), g.members[dst[j]].rt.CostAt(now)
	if ci == cj {
		// A tie (idle peers with no latency to tell apart): the rotation
		// decides, so equal peers share exactly evenly, unless it would
		// put first a member that costs more than the pair (one that
		// failed, beside two idle peers); then the pair goes first, in
		// rotation order.
		if g.members[dst[0]].rt.CostAt(now) <= ci {
			return dst
		}
		if j < i {
			i, j = j, i
		}
	}
	if cj < ci {
		i, j = j, i
	}
	// The cheaper to the front, the other second, the rest in rotation
	// order.
	toFront(dst, i)
	if j < i {
		j++
	}
	toFront(dst[1:], j-1)
	return dst
}

// provenFirst moves, stably, the members of order (indices into g's
// members) whose health at now is Available before the others: a last
// chance (Request.Proven) tries an endpoint that answered since it last
// failed before one that has not, whatever their costs, and keeps the
// balancer's order within each group.
func provenFirst(g *tierGroup, order []uint32, now time.Time) {
	front := 0
	for i, k := range order {
		if g.members[k].rt.StateAt(now) == endpoint.Available {
			if i != front {
				toFront(order[front:], i-front)
			}
			front++
		}
	}
}

// toFront moves s[k] to s[0], shifting s[:k] up by one.
func toFront(s []uint32, k int) {
	v := s[k]
	copy(s[1:k+1], s[:k])
	s[0] = v
}

// splitmix64 is SplitMix64's finaliser (Steele, Lea, Flood, 2014): a
// counter in, a well-mixed 64-bit value out, with no state and no lock.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
