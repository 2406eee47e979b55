package rolestate

import (
	"fmt"
	"time"
)

// BlockReason says which admission check refused a request. The checks run
// in this order: deadline, cooldown (BlockedByCooldown or
// BlockedByEjection), concurrency, token.
type BlockReason uint8

const (
	// NotBlocked means the request was (or would be) admitted.
	NotBlocked BlockReason = iota
	// BlockedByDeadline means the instant of admission was at or past the
	// caller's deadline.
	BlockedByDeadline
	// BlockedByCooldown means a cooldown after a rate limit still runs.
	BlockedByCooldown
	// BlockedByConcurrency means every concurrency slot is held.
	BlockedByConcurrency
	// BlockedByRate means the token bucket is empty.
	BlockedByRate
	// BlockedByEjection means the endpoint is ejected after consecutive
	// failures (its state is Ejected) and the ejection still runs.
	BlockedByEjection
	// BlockedByVerification means the cluster guard has not yet verified
	// the endpoint's genesis hash.
	BlockedByVerification
	// BlockedByCluster means the endpoint serves another cluster than the
	// configured one: it is out for good.
	BlockedByCluster
)

// String returns "admitted", "deadline", "cooldown", "concurrency",
// "rate", "ejection", "verification" or "wrong-cluster".
func (r BlockReason) String() string {
	switch r {
	case NotBlocked:
		return "admitted"
	case BlockedByDeadline:
		return "deadline"
	case BlockedByCooldown:
		return "cooldown"
	case BlockedByConcurrency:
		return "concurrency"
	case BlockedByRate:
		return "rate"
	case BlockedByEjection:
		return "ejection"
	case BlockedByVerification:
		return "verification"
	case BlockedByCluster:
		return "wrong-cluster"
	}
	return fmt.Sprintf("block reason(%d)", uint8(r))
}

// Block is why one admission was refused and when it may clear.
type Block struct {
	// Reason is the first check that refused.
	Reason BlockReason
	// Until is when the block clears by itself: the end of the cooldown
	// or ejection, or the next token. It is zero for BlockedByConcurrency (a release clears
	// it) and BlockedByDeadline (nothing does).
	Until time.Time
	// InFlight and MaxConcurrent are the slots held and the cap, set for
	// BlockedByConcurrency.
	InFlight, MaxConcurrent int
}

// Describe says why in a few words, relative to now: "cooldown 1.2s left",
// "ejected 1.2s left", "8/8 in flight", "no token for 40ms", "past the
// deadline" or "free".
func (b Block) Describe(now time.Time) string {
	switch b.Reason {
	case NotBlocked:
		return "free"
	case BlockedByDeadline:
		return "past the deadline"
	case BlockedByCooldown:
		return "cooldown " + roundForHumans(b.Until.Sub(now)).String() + " left"
	case BlockedByConcurrency:
		return fmt.Sprintf("%d/%d in flight", b.InFlight, b.MaxConcurrent)
	case BlockedByRate:
		return "no token for " + roundForHumans(b.Until.Sub(now)).String()
	case BlockedByEjection:
		return "ejected " + roundForHumans(b.Until.Sub(now)).String() + " left"
	case BlockedByVerification:
		return "cluster not yet verified"
	case BlockedByCluster:
		return "serves another cluster"
	}
	return b.Reason.String()
}

// roundForHumans keeps a wait readable: whole milliseconds from 1ms up,
// whole microseconds below.
func roundForHumans(d time.Duration) time.Duration {
	if d >= time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
