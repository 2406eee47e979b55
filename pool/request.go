package pool

import (
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Request asks for a permit.
type Request struct {
	// Role is the role the permit must serve.
	Role endpoint.Role
	// Method is the JSON-RPC method, for errors and logs only.
	Method string
	// Capabilities every candidate must carry. Nil means none.
	Capabilities []string
	// Avoid names endpoints this call already failed on. They are skipped
	// while any other compatible endpoint exists; when every compatible
	// endpoint is avoided, Avoid is ignored.
	Avoid []string
	// LastResort names endpoints to use only when nothing else can be had:
	// a candidate in LastResort is admitted only when no compatible,
	// non-avoided candidate outside it, in any tier, can be admitted at
	// that instant.
	// From LastResortAt on, a last resort admissible now is preferred to
	// waiting for another candidate. The transport fills it, for calls
	// that must never be sent twice, with the endpoints that recently left
	// an attempt in doubt. Nil means none.
	LastResort []string
	// LastResortAt holds the last resorts back until that instant: before
	// it a request that finds every other candidate blocked waits (for the
	// earliest of that instant, a freed slot, a refill, a cooldown's end)
	// rather than take one. Zero means at once; at or after the deadline
	// means never.
	LastResortAt time.Time
	// Deadline bounds the wait. Zero means now + DefaultTimeout for this
	// role and these capabilities. A deadline later than ctx's is cut to it.
	Deadline time.Time
}
