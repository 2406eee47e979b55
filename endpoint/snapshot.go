package endpoint

import (
	"cmp"
	"encoding/json"
	"math"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
)

// Snapshot is a copy of one (endpoint, role) state at one instant. It holds
// no URL and no header.
type Snapshot struct {
	Name string
	Tier int
	Role Role
	// State is the passive health state.
	State Health
	// RequestsPerSecond and Burst are the configured (normalised) bucket;
	// RequestsPerSecond 0 means unlimited.
	RequestsPerSecond float64
	Burst             int
	// Tokens is how many tokens the bucket holds now (+Inf when unlimited).
	Tokens float64
	// MaxConcurrent is the concurrency cap (0 means unlimited) and InFlight
	// the requests holding a slot now.
	MaxConcurrent int
	InFlight      int
	// CooldownRemaining is how long the endpoint still cools down after a
	// rate limit or an ejection (0 when it does not); State says which.
	CooldownRemaining time.Duration
	// DoubtRemaining is how long the endpoint stays in doubt (see
	// Runtime.DoubtedAt): 0 when it is not.
	DoubtRemaining time.Duration
	// Successes, Failures and RateLimits count the outcomes reported so far.
	Successes  uint64
	Failures   uint64
	RateLimits uint64
	// Admitted counts the requests admitted so far, and Share is that
	// count's part of every admission of the role (0 to 1), both since the
	// pool was built.
	Admitted uint64
	Share    float64
	// RefusedByRate counts the admissions the token bucket refused, and
	// RefusedByLimit those the concurrency cap refused, since the pool was
	// built: a request that tries several endpoints, or the same one
	// after a wait, counts once per refusal. Ejections counts the passive
	// ejections.
	RefusedByRate  uint64
	RefusedByLimit uint64
	Ejections      uint64
	// Latency is the role's latency estimate now (peak EWMA, decayed on
	// read; 0 before any sample), and Cost its balancing cost inside its
	// tier: the estimate, or the mean age of the requests in flight when
	// longer, times (in flight + 1). Of two admissible peers, the lower
	// cost is taken.
	Latency time.Duration
	Cost    time.Duration
	// LatencyP50, LatencyP95 and LatencyP99 are the role's recent
	// latency quantiles over its timed requests (reads decoded into a
	// value, while the adaptive attempt timeout or hedge_after = "auto"
	// uses them; every method summed, each answer weighted by
	// e^(-age/10 s)), each the upper bound of a bucket at most 25 % wide;
	// 0 when nothing was timed. ErrorRate is the share of the role's
	// recent outcomes (weighted the same way) that were its own failures:
	// resets, timeouts, 5xx, broken answers; rate limits, the caller's
	// cancellations and answers the caller caused are not outcomes of
	// the endpoint and do not count. 0 before any outcome.
	LatencyP50 time.Duration
	LatencyP95 time.Duration
	LatencyP99 time.Duration
	ErrorRate  float64
	// Slot is the latest slot the endpoint answered at, at
	// SlotCommitment (its freshest mark, as solana-go names it; 0: no slot
	// seen; JSON shows "" as finalized, a node's default). SlotLag is how
	// many slots it is behind the pool's reference (negative: ahead), at
	// the commitment where that distance is largest; 0 when not known.
	// SlotStanding says whether that makes it a last resort. Every role
	// of an endpoint shows the same.
	Slot           uint64
	SlotCommitment rpc.CommitmentType
	SlotLag        int64
	SlotStanding   SlotStanding
	// Verification is where the endpoint stands with the cluster guard,
	// and Excluded, for WrongCluster, why ("serves devnet; the
	// configuration says mainnet-beta").
	Verification Verification
	Excluded     string
	// History is the endpoint's declaration (Spec.History), and Avoided
	// the history methods it is avoided for now, because it answered one
	// of them that it lacks the history asked for (-32001, -32011,
	// -32018, -32019), each with the time left; nil when none. Every
	// role of an endpoint shows the same.
	History bool
	Avoided map[string]time.Duration
}

// avoided is Snapshot.Avoided in JSON: each time left as a duration
// string.
type avoided map[string]string

// snapshotJSON is the JSON shape of a Snapshot.
type snapshotJSON struct {
	Name              string   `json:"name"`
	Tier              int      `json:"tier"`
	Role              string   `json:"role"`
	State             string   `json:"state"`
	RequestsPerSecond float64  `json:"requests_per_second"`
	Burst             int      `json:"burst_capacity"`
	Tokens            *float64 `json:"tokens"`
	MaxConcurrent     int      `json:"max_concurrent_requests"`
	InFlight          int      `json:"in_flight"`
	CooldownRemaining string   `json:"cooldown_remaining"`
	DoubtRemaining    string   `json:"doubt_remaining"`
	Successes         uint64   `json:"successes"`
	Failures          uint64   `json:"failures"`
	RateLimits        uint64   `json:"rate_limits"`
	Admitted          uint64   `json:"admitted"`
	Share             float64  `json:"share"`
	RefusedByRate     uint64   `json:"refused_by_rate"`
	RefusedByLimit    uint64   `json:"refused_by_limit"`
	Ejections         uint64   `json:"ejections"`
	Latency           string   `json:"latency"`
	Cost              string   `json:"cost"`
	LatencyP50        string   `json:"latency_p50"`
	LatencyP95        string   `json:"latency_p95"`
	LatencyP99        string   `json:"latency_p99"`
	ErrorRate         float64  `json:"error_rate"`
	Slot              uint64   `json:"slot"`
	SlotCommitment    string   `json:"slot_commitment"`
	SlotLag           int64    `json:"slot_lag"`
	SlotStanding      string   `json:"slot_standing"`
	Verification      string   `json:"verification"`
	Excluded          string   `json:"excluded,omitempty"`
	History           bool     `json:"history,omitempty"`
	Avoided           avoided  `json:"avoided,omitempty"`
}

// MarshalJSON renders the snapshot with snake_case keys, the role and state
// by name, the cooldown as a duration string and tokens as null when
// unlimited (JSON has no +Inf).
func (s Snapshot) MarshalJSON() ([]byte, error) {
	j := snapshotJSON{
		Name:              s.Name,
		Tier:              s.Tier,
		Role:              s.Role.String(),
		State:             s.State.String(),
		RequestsPerSecond: s.RequestsPerSecond,
		Burst:             s.Burst,
		MaxConcurrent:     s.MaxConcurrent,
		InFlight:          s.InFlight,
		CooldownRemaining: s.CooldownRemaining.String(),
		DoubtRemaining:    s.DoubtRemaining.String(),
		Successes:         s.Successes,
		Failures:          s.Failures,
		RateLimits:        s.RateLimits,
		Admitted:          s.Admitted,
		Share:             s.Share,
		RefusedByRate:     s.RefusedByRate,
		RefusedByLimit:    s.RefusedByLimit,
		Ejections:         s.Ejections,
		Latency:           s.Latency.String(),
		Cost:              s.Cost.String(),
		LatencyP50:        s.LatencyP50.String(),
		LatencyP95:        s.LatencyP95.String(),
		LatencyP99:        s.LatencyP99.String(),
		ErrorRate:         s.ErrorRate,
		Slot:              s.Slot,
		SlotCommitment:    string(cmp.Or(s.SlotCommitment, rpc.CommitmentFinalized)), // "" is a node's default
		SlotLag:           s.SlotLag,
		SlotStanding:      s.SlotStanding.String(),
		Verification:      s.Verification.String(),
		Excluded:          s.Excluded,
		History:           s.History,
	}
	for m, d := range s.Avoided {
		if j.Avoided == nil {
			j.Avoided = make(avoided, len(s.Avoided))
		}
		j.Avoided[m] = d.String()
	}
	if !math.IsInf(s.Tokens, 0) && !math.IsNaN(s.Tokens) {
		j.Tokens = &s.Tokens
	}
	return json.Marshal(j)
}
