// Package endpoint describes the RPC endpoints solroute routes to and holds
// their live, per-role state.
//
// A [Spec] is what an operator configures: a non-secret Name, a secret URL
// and Headers, a Tier (0 is most preferred), capability tags and per-role
// [Limits]. [Validate] reports every problem of a configuration at once. The
// Name is the only way an endpoint is ever shown: no error, log line,
// snapshot or metric built by solroute carries the URL or a header value.
// Those are [Secret]s, which print as "[redacted]" under every fmt verb,
// log/slog and encoding/json, even inside a struct that holds a Spec in an
// unexported field (Spec's own String, GoString and LogValue leave them out
// too).
//
// At run time every (endpoint, role) pair owns one [Runtime]: a token
// [Bucket] (by default a golang.org/x/time/rate Limiter driven only through
// its explicit-time methods), a concurrency counter, a cooldown instant,
// three outcome counters and a passive health state machine; pairs never
// share any of them. [Runtime.AdmitAt] checks, in order, the deadline, the
// cooldown, a free slot and a token, and is transactional: a refusal holds
// and spends nothing ([Runtime.AdmitEjectedAt], the pool's panic mode, lets
// a running ejection through). Health changes only through outcomes
// (Available --failure--> Degraded, Available or Degraded --[Ejection].After
// consecutive failures--> Ejected, any --rate limit--> RateLimited,
// Degraded --success--> Available) and time transitions applied on read
// (RateLimited or Ejected --cooldown over--> Degraded); a generation counter
// drops success and failure outcomes admitted before the last transition.
//
// Every method takes the instant explicitly: this package never reads a
// clock. A [Snapshot] is a copy of one pair's state at one instant.
package endpoint
