package admission

import (
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/slots"
)

// Request asks for a permit.
type Request struct {
	// Role is the role the permit must serve.
	Role endpoint.Role
	// Method is the JSON-RPC method, for errors and logs, and the key of
	// the latency a timed request records.
	Method string
	// Timed asks the pool to time Method on the endpoint it admits: the
	// permit's Done adds the attempt's latency (admission to Done, on the
	// pool's clock) to that (endpoint, role)'s recent distribution of
	// Method when the attempt was answered, and Permit.Latency reports
	// it. The transport sets it for the reads it times adaptively or
	// hedges at HedgeAuto. False records nothing and costs nothing.
	Timed bool
	// Capabilities every candidate must carry. Nil means none.
	Capabilities []string
	// Avoid names endpoints this call already failed on. They are skipped
	// while another endpoint can take the request (compatible, and let
	// through by the cluster guard: the rule of Pool.HasAlternative); when
	// none can, Avoid is ignored.
	Avoid []string
	// AvoidDoubt asks for an endpoint that is not in doubt (see
	// Settings.DoubtWindow): one in doubt is admitted only when no
	// compatible, non-avoided candidate outside doubt, in any tier, can be
	// admitted at that instant, and only after Settings.DoubtPatience (at
	// most half the time left before the deadline); before that, a request
	// that finds every other candidate blocked waits for the earliest of a
	// freed slot, a refill, a cooldown's end and that instant. When every
	// compatible candidate is in doubt, it changes nothing. The transport
	// sets it for calls that must never be sent twice.
	AvoidDoubt bool
	// Endpoint, when set, restricts the request to the endpoint of that
	// Name (Capabilities and Avoid still apply): the transport's own
	// checks of one endpoint (the cluster guard's genesis check, the slot
	// probe) use it, paid from that endpoint's limits like any request.
	// Such a request may use an endpoint still awaiting verification.
	Endpoint string
	// Slot, when its Floor is not 0, is the slot the answer must reach
	// (a read that carries minContextSlot, or whose older answer would be
	// refused; slots.Plan.Need). An endpoint off the reference slot
	// (lagging, an outlier; pool.Settings.MaxSlotLag) whose known slot is
	// below it is not tried at all, not even as a last resort: it could
	// only refuse. One in step whose latest reading (taken less than a
	// second ago, extrapolated to now) is short of it is tried only after
	// the others, and after a moment's patience (one slot, at most half
	// the time left): the slot-aware choice (plans/009-consistency.md).
	Slot slots.Need
	// History marks a history read (methods.ReadsHistory): it tries the
	// endpoints that declare history first, in any tier, then the others,
	// and last those avoided for Method because they answered a read of
	// it that they lack the history asked for (Settings.HistoryAvoid);
	// the later ones after a moment's patience (one slot, at most half
	// the time left). Its outcome records such an answer.
	History bool
	// Proven asks for the candidates that answered since they last failed
	// (health Available) before those that have not (Degraded: failed and
	// not answered since, or back from a cooldown or an ejection): these
	// become last resorts, tried after every other candidate in any tier
	// and after one slot's patience, and inside each tier the Available
	// come first. No candidate is skipped. The transport sets it for a
	// read's attempt that is its call's last chance
	// (plans/008-balancing.md, "The last chance"): an endpoint whose cost
	// has decayed since it last failed is probed by attempts that can
	// afford to lose, not by the one a call has left.
	Proven bool
	// Retry marks a read's retry (its call's attempt 2 or later). For a
	// read that carries a floor (Slot), a candidate that nothing says
	// answers (rolestate.Runtime.UnansweredAt) and whose slot nothing fresh
	// tells is then a last resort, as one known short of the floor is
	// (lastresort.go): a first
	// attempt may go and find out where such an endpoint is, a retry is
	// not spent on it (plans/009-consistency.md, "Unknown is not ahead").
	Retry bool
	// Deadline bounds the wait. Zero means now + DefaultTimeout for this
	// role and these capabilities. A deadline later than ctx's is cut to it.
	Deadline time.Time
}
