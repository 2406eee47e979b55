// Package endpoint describes the RPC endpoints solroute routes to and holds
// their live, per-role state.
//
// A [Spec] is what an operator configures: a non-secret Name, a secret URL
// and Headers, a Tier (0 is most preferred), capability tags and per-role
// [Limits]. The Name is the only way an endpoint is ever shown: no error,
// log line, snapshot or metric built by solroute carries the URL or a header
// value.
//
// At run time every (endpoint, role) pair owns one token bucket, one
// concurrency counter, one cooldown instant, three outcome counters and a
// passive health state machine; pairs never share any of them. A [Snapshot]
// is a copy of that state at one instant.
package endpoint
