package slots

import "github.com/solroute/solroute/endpoint"

// Commitments is the number of commitment levels, for arrays indexed by
// endpoint.Commitment.
const Commitments = 3

// ParseCommitment reads a request's commitment name. The deprecated names
// agave still accepts map to their levels ("max" and "root" to finalized,
// "singleGossip" to confirmed, "recent" and "single" to processed); "" is
// finalized. ok is false for anything else.
func ParseCommitment(s string) (c endpoint.Commitment, ok bool) {
	switch s {
	case "", "finalized", "max", "root":
		return endpoint.Finalized, true
	case "confirmed", "singleGossip":
		return endpoint.Confirmed, true
	case "processed", "recent", "single":
		return endpoint.Processed, true
	}
	return endpoint.Finalized, false
}
