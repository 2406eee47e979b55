package endpoint

import "fmt"

// SlotStanding says whether an endpoint's slot makes it a last resort
// for requests (plans/009-consistency.md).
type SlotStanding uint8

const (
	// InStep: within the allowed lag of the pool's reference slot, or not
	// known (no fresh slot, no reference).
	InStep SlotStanding = iota
	// Lagging: more than the allowed lag behind the reference.
	Lagging
	// Outlier: it reported a slot more than the allowed lag ahead of the
	// reference, which no other endpoint corroborates (what it answered,
	// not its mark extrapolated: a silent endpoint is not ahead).
	Outlier
)

// String returns "in-step", "lagging" or "outlier".
func (s SlotStanding) String() string {
	switch s {
	case InStep:
		return "in-step"
	case Lagging:
		return "lagging"
	case Outlier:
		return "outlier"
	}
	return fmt.Sprintf("slot standing(%d)", uint8(s))
}

// Verification is where an endpoint stands with the cluster guard: with a
// cluster configured, every endpoint is checked once (its genesis hash)
// before it serves a call.
type Verification uint8

const (
	// Verified: checked, or no cluster to check against.
	Verified Verification = iota
	// Unverified: the check has not succeeded yet; no call may use it.
	Unverified
	// WrongCluster: it serves another cluster; it is out for good.
	WrongCluster
)

// String returns "verified", "unverified" or "wrong-cluster".
func (v Verification) String() string {
	switch v {
	case Verified:
		return "verified"
	case Unverified:
		return "unverified"
	case WrongCluster:
		return "wrong-cluster"
	}
	return fmt.Sprintf("verification(%d)", uint8(v))
}
