package pool

import "github.com/solroute/solroute/endpoint"

// Limiter supplies the token bucket of each (endpoint, role) in place of
// the in-process one, for example a bucket shared between processes
// (package redislimit's Limiter). solroute.Hooks.Limits takes one; the
// program that builds it closes it, after the clients that use it.
type Limiter interface {
	// NewBucket returns the bucket of spec's role, or nil for the
	// in-process bucket of the role's limits. The pool calls it once per
	// (endpoint, role), when the client is built.
	NewBucket(spec *endpoint.Spec, role endpoint.Role) Bucket
}
