package endpoint

import (
	"encoding/json"
	"math"
	"time"
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
	// Latency is the role's latency estimate now (peak EWMA, decayed on
	// read; 0 before any sample), and Cost its balancing cost inside its
	// tier: the estimate, or the mean age of the requests in flight when
	// longer, times (in flight + 1). Of two admissible peers, the lower
	// cost is taken.
	Latency time.Duration
	Cost    time.Duration
	// Slot is the latest slot the endpoint answered at, at
	// SlotCommitment (its freshest mark; 0: no slot seen). SlotLag is how
	// many slots it is behind the pool's reference (negative: ahead), at
	// the commitment where that distance is largest; 0 when not known.
	// SlotStanding says whether that makes it a last resort. Every role
	// of an endpoint shows the same.
	Slot           uint64
	SlotCommitment Commitment
	SlotLag        int64
	SlotStanding   SlotStanding
	// Verification is where the endpoint stands with the cluster guard,
	// and Excluded, for WrongCluster, why ("serves devnet; the
	// configuration says mainnet-beta").
	Verification Verification
	Excluded     string
}

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
	Latency           string   `json:"latency"`
	Cost              string   `json:"cost"`
	Slot              uint64   `json:"slot"`
	SlotCommitment    string   `json:"slot_commitment"`
	SlotLag           int64    `json:"slot_lag"`
	SlotStanding      string   `json:"slot_standing"`
	Verification      string   `json:"verification"`
	Excluded          string   `json:"excluded,omitempty"`
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
		Latency:           s.Latency.String(),
		Cost:              s.Cost.String(),
		Slot:              s.Slot,
		SlotCommitment:    s.SlotCommitment.String(),
		SlotLag:           s.SlotLag,
		SlotStanding:      s.SlotStanding.String(),
		Verification:      s.Verification.String(),
		Excluded:          s.Excluded,
	}
	if !math.IsInf(s.Tokens, 0) && !math.IsNaN(s.Tokens) {
		j.Tokens = &s.Tokens
	}
	return json.Marshal(j)
}
