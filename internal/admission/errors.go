package admission

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/rolestate"
)

// ErrNoEndpoint is returned at once when no endpoint serves the role with
// the required capabilities.
var ErrNoEndpoint = errors.New("pool: no endpoint serves this role and capabilities")

// ErrDeadline is matched (errors.Is) by the *DeadlineError returned when no
// candidate could be admitted before the deadline.
var ErrDeadline = errors.New("pool: no endpoint admitted before the deadline")

// NoEndpointError is returned at once by Acquire when no endpoint serves
// the role with the required capabilities. It matches ErrNoEndpoint.
type NoEndpointError struct {
	Method       string
	Role         endpoint.Role
	Capabilities []string
}

// Error names the method, role and capabilities.
func (e *NoEndpointError) Error() string {
	return fmt.Sprintf("pool: %s: no endpoint serves role %s with capabilities %q", e.Method, e.Role, e.Capabilities)
}

// Is matches ErrNoEndpoint.
func (e *NoEndpointError) Is(target error) bool { return target == ErrNoEndpoint }

// Candidate is one endpoint Acquire considered, and what blocked it.
type Candidate struct {
	// Endpoint is the endpoint's Name.
	Endpoint string
	// Tier is the endpoint's tier.
	Tier int
	// Block is why it could not take the request when Acquire gave up.
	Block rolestate.Block
	// InDoubt is true for an endpoint in doubt that the request, which
	// avoids doubt (Request.AvoidDoubt), used only as a last resort.
	InDoubt bool
	// OffSlot is true for an endpoint lagging behind, or an outlier ahead
	// of, the pool's reference slot (Settings.MaxSlotLag), which the
	// request used only as a last resort.
	OffSlot bool
	// ShortOfSlot is true for an endpoint in step whose latest reading
	// was short of the slot the request had to reach (Request.MinSlot),
	// which the request used only after the others.
	ShortOfSlot bool
	// NoHistory is true for an endpoint that declares no history, which a
	// history read (Request.History) used only after those that do.
	NoHistory bool
	// Avoided is true for an endpoint avoided for the method of a history
	// read (it answered one that it lacks the history asked for), which
	// the read used only after every other.
	Avoided bool
	// Unchecked is, for an endpoint the cluster guard still holds, why its
	// check has no answer yet (Pool.Unchecked); "" otherwise.
	Unchecked string
}

// DeadlineError is returned by Acquire when no candidate could be admitted
// before the deadline. It matches ErrDeadline, and unwraps to the context's
// error when the context's own deadline was the one reached.
type DeadlineError struct {
	Method string
	Role   endpoint.Role
	// Deadline is the deadline Acquire worked under, At the instant it gave
	// up (never before Deadline).
	Deadline, At time.Time
	// Candidates lists every candidate, by tier then configuration order,
	// with why it was blocked at At.
	Candidates []Candidate
	// Context is the context's error when the context's deadline ended the
	// wait, nil otherwise.
	Context error
}

// Error reads "pool: getBalance (read): no endpoint admitted before the
// deadline: primary-a: cooldown 1.2s left; primary-b: 8/8 in flight;
// backup-a: no token for 40ms".
func (e *DeadlineError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pool: %s (%s): no endpoint admitted before the deadline", e.Method, e.Role)
	for i, c := range e.Candidates {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(c.Endpoint)
		b.WriteString(": ")
		if c.InDoubt {
			b.WriteString("in doubt, ")
		}
		if c.OffSlot {
			b.WriteString("off the reference slot, ")
		}
		if c.ShortOfSlot {
			b.WriteString("short of the slot asked, ")
		}
		if c.NoHistory {
			b.WriteString("no history declared, ")
		}
		if c.Avoided {
			b.WriteString("avoided for the method (lacks its history), ")
		}
		b.WriteString(c.Block.Describe(e.At))
		if c.Unchecked != "" {
			b.WriteString(" (its check: ")
			b.WriteString(c.Unchecked)
			b.WriteString(")")
		}
	}
	return b.String()
}

// Is matches ErrDeadline.
func (e *DeadlineError) Is(target error) bool { return target == ErrDeadline }

// Unwrap returns the context's error, if it was the context's deadline.
func (e *DeadlineError) Unwrap() error { return e.Context }
