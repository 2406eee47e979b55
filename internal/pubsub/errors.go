package pubsub

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for the decisions a caller makes.
var (
	// ErrClosed is what a subscription returns once closed, by its Close
	// or the engine's.
	ErrClosed = errors.New("pubsub: subscription closed")
	// ErrDone is what a signature subscription returns after its one
	// notification.
	ErrDone = errors.New("pubsub: subscription done")
	// ErrInvalidParams marks a subscribe every endpoint refused for its
	// params (JSON-RPC -32602): the request is at fault, not an endpoint.
	ErrInvalidParams = errors.New("pubsub: invalid params")
	// ErrNoEndpoint marks a subscribe no endpoint could take (each one
	// down, refusing or full).
	ErrNoEndpoint = errors.New("pubsub: no endpoint can serve the subscription")
	// ErrGap marks a GapError.
	ErrGap = errors.New("pubsub: gap")
)

// GapError is a program or logs subscription's notice that notifications
// of a slot range may have been missed: every endpoint holding it failed,
// or a slow reader let its buffer overflow. Notifications cannot be read
// back for those; a reader that must not miss any reads the state again
// (getProgramAccounts, getSignaturesForAddress). It is not the end: the
// subscription goes on.
type GapError struct {
	// From and To are the slots, both included, that may be missing.
	From, To uint64
	// Reason says why: "failover" or "overflow".
	Reason string
}

// Error describes the gap.
func (e *GapError) Error() string {
	return fmt.Sprintf("pubsub: gap: notifications of slots %d to %d may be missing (%s)", e.From, e.To, e.Reason)
}

// Is matches ErrGap.
func (e *GapError) Is(target error) bool { return target == ErrGap }

// RPCError is a JSON-RPC error an endpoint answered a subscribe with,
// its message and data redacted of the endpoint's secrets.
type RPCError struct {
	Code    int
	Message string
}

// Error names the code and message.
func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Is matches ErrInvalidParams for -32602.
func (e *RPCError) Is(target error) bool { return target == ErrInvalidParams && e.Code == -32602 }

// EndpointError is one endpoint's failure, named by its label, the
// operation ("dial", "handshake", "read", "subscribe", "stall", "lag")
// and the cause (redacted: it never holds the URL, its path or query, nor
// a header value).
type EndpointError struct {
	Endpoint string
	Op       string
	Err      error
}

// Error names the endpoint, the operation and the cause.
func (e *EndpointError) Error() string {
	return fmt.Sprintf("pubsub: endpoint %q: %s: %v", e.Endpoint, e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *EndpointError) Unwrap() error { return e.Err }

// SubscribeError is a subscribe that no endpoint took: what each endpoint
// tried answered, in order.
type SubscribeError struct {
	// Method is the subscribe method ("accountSubscribe", ...).
	Method string
	// Attempts holds each endpoint's failure.
	Attempts []*EndpointError
	// invalid is set when every endpoint refused the params.
	invalid bool
}

// Error lists the attempts.
func (e *SubscribeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pubsub: %s: ", e.Method)
	if e.invalid {
		b.WriteString("refused for its params")
	} else {
		b.WriteString("no endpoint could take it")
	}
	for i, a := range e.Attempts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%q %s: %v", a.Endpoint, a.Op, a.Err)
	}
	return b.String()
}

// Is matches ErrInvalidParams when every endpoint refused the params,
// ErrNoEndpoint otherwise.
func (e *SubscribeError) Is(target error) bool {
	return (e.invalid && target == ErrInvalidParams) || (!e.invalid && target == ErrNoEndpoint)
}

// Unwrap returns the attempts, for errors.As.
func (e *SubscribeError) Unwrap() []error {
	out := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		out[i] = a
	}
	return out
}
