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
	// Deadline bounds the wait. Zero means now + DefaultTimeout for this
	// role and these capabilities. A deadline later than ctx's is cut to it.
	Deadline time.Time
}
