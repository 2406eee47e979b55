package solroute

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/solroute/solroute/transport"
)

// ErrUnhealthy is matched (errors.Is) by every *UnhealthyError.
var ErrUnhealthy = errors.New("solroute: node unhealthy")

// codeNodeUnhealthy is agave's NodeUnhealthy JSON-RPC error code.
const codeNodeUnhealthy = -32005

// UnhealthyError is getHealth's answer from a node that is not healthy:
// JSON-RPC error -32005, or a result other than "ok".
type UnhealthyError struct {
	// NumSlotsBehind is how far the node is behind, when it says; nil
	// when unknown.
	NumSlotsBehind *int64
	// Message is the node's message (secret-free, as every error the
	// transport returns), or `a result other than "ok"`: that result is
	// not quoted, since a gateway's text may echo the request's key.
	Message string
	// Err is the transport's error (a *transport.CallError), nil when the
	// node answered a result other than "ok".
	Err error
}

// Error returns "solroute: node unhealthy: ..." with the slots behind when
// known.
func (e *UnhealthyError) Error() string {
	s := "solroute: node unhealthy"
	if e.NumSlotsBehind != nil {
		s += " (" + strconv.FormatInt(*e.NumSlotsBehind, 10) + " slots behind)"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is reports whether target is ErrUnhealthy.
func (e *UnhealthyError) Is(target error) bool { return target == ErrUnhealthy }

// Unwrap returns the transport's error.
func (e *UnhealthyError) Unwrap() error { return e.Err }

// GetHealth asks the pool's endpoints for their health: nil when one
// answers "ok". A node answering -32005 is retried on another endpoint by
// the transport; when none answers "ok" the error is an *UnhealthyError
// (errors.Is(err, ErrUnhealthy)) carrying the last node's numSlotsBehind.
// Other failures are the transport's *transport.CallError.
func (c *Client) GetHealth(ctx context.Context) error {
	var out required[string]
	err := c.engine.CallForInto(ctx, &out, "getHealth", nil)
	if err != nil {
		var rpcErr *transport.RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == codeNodeUnhealthy {
			ue := &UnhealthyError{Message: rpcErr.Message, Err: err}
			var data struct {
				NumSlotsBehind *int64 `json:"numSlotsBehind"`
			}
			if len(rpcErr.Data) != 0 && json.Unmarshal(rpcErr.Data, &data) == nil {
				ue.NumSlotsBehind = data.NumSlotsBehind
			}
			return ue
		}
		return err
	}
	if out.v != "ok" {
		// Not quoted: a gateway's own text may echo the request (its URL's
		// key, a header), and no endpoint is named here to redact it for.
		return &UnhealthyError{Message: `a result other than "ok"`}
	}
	return nil
}
