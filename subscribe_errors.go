package solroute

import (
	"errors"
	"fmt"

	"github.com/solroute/solroute/internal/pubsub"
)

// The errors of subscriptions a caller decides on with errors.Is and
// errors.As.
var (
	// ErrSubscriptionClosed is what a Subscription returns once closed,
	// by its Close or the Client's, and what a subscribe on a closed
	// Client returns.
	ErrSubscriptionClosed = pubsub.ErrClosed
	// ErrSubscriptionDone is what a signature subscription returns after
	// its one notification.
	ErrSubscriptionDone = pubsub.ErrDone
	// ErrGap is matched by a *GapError.
	ErrGap = pubsub.ErrGap
)

// GapError is a program or logs subscription's notice that notifications
// of the slots From to To (both included) may have been missed: every
// endpoint holding it failed (Reason "failover"), or a slow reader let its
// buffer overflow ("overflow"). Such notifications cannot be read back: a
// reader that must miss none reads the state again (getProgramAccounts,
// getSignaturesForAddress). The subscription goes on.
type GapError = pubsub.GapError

// SubscribeError is a subscribe no subscribe endpoint took, with each
// endpoint's answer in Attempts (a *SubscribeAttemptError each, named by
// the endpoint's label, never its URL). When every endpoint refused the
// params (JSON-RPC -32602, a filter the node refuses) it also matches
// ErrInvalidInput.
type SubscribeError = pubsub.SubscribeError

// SubscribeAttemptError is one endpoint's failure in a SubscribeError:
// its label (Endpoint), the operation (Op: "dial", "handshake", "read",
// "subscribe", "stall", "lag") and the cause, redacted of the URL, its
// path and query, and every header value.
type SubscribeAttemptError = pubsub.EndpointError

// errNoSubscribeEndpoint is a subscribe on a Client none of whose
// endpoints serves the subscribe role.
func errNoSubscribeEndpoint(method string) error {
	return fmt.Errorf("solroute: %s: no endpoint serves the subscribe role (set Endpoint.Subscribe, or an [endpoints.subscribe] table): %w", method, ErrNoEndpoint)
}

// subscribeError maps the engine's refusal for the params to
// ErrInvalidInput, keeping the *SubscribeError for errors.As.
func subscribeError(err error) error {
	if errors.Is(err, pubsub.ErrInvalidParams) {
		return fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return err
}
