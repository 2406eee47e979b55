// Package rolestate is the live state of one (endpoint, role) of a pool.
//
// Every (endpoint, role) pair owns one [Runtime]: a token
// [Bucket] (by default a golang.org/x/time/rate Limiter driven only through
// its explicit-time methods), a concurrency counter, a cooldown instant,
// three outcome counters and a passive health state machine; pairs never
// share any of them. [Runtime.AdmitAt] checks, in order, the deadline, the
// cooldown, a free slot and a token, and is transactional: a refusal holds
// and spends nothing ([Runtime.AdmitEjectedAt], the pool's panic mode, lets
// a running ejection through). Health changes only through outcomes
// (Available --failure--> Degraded, Available or Degraded --endpoint.Ejection.After
// consecutive failures--> Ejected, any --rate limit--> RateLimited,
// Degraded --success--> Available) and time transitions applied on read
// (RateLimited or Ejected --cooldown over--> Degraded); a generation counter
// drops success and failure outcomes admitted before the last transition.
//
// Every method takes the instant explicitly: this package never reads a
// clock. An endpoint.Snapshot is a copy of one pair's state at one instant.
//
// It is the pool's machinery (internal/admission): users read its state
// through solroute.Client.Snapshot.
package rolestate
