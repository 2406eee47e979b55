package solroute

import "slices"

// feeWindow is how many recent slots the union keeps, counted back from
// its newest: agave's cache holds 150 blocks (MAX_NUM_RECENT_BLOCKS), so
// an endpoint behind contributes only the part of its history that
// overlaps the freshest endpoint's.
const feeWindow = 150

// feeSample is one element of getRecentPrioritizationFees' result.
type feeSample struct {
	Slot              uint64 `json:"slot"`
	PrioritizationFee uint64 `json:"prioritizationFee"`
}

// feeAnswer is what one endpoint said: its samples, or why it said none.
type feeAnswer struct {
	endpoint string
	samples  []feeSample
	err      error
}

// feeUnion is the merged history every caller of one account set shares:
// read only once built.
type feeUnion struct {
	fees        []uint64 // ascending, one per slot of the window
	first, last uint64   // the window's oldest and newest slot with a fee
	endpoints   []string // answered
	failures    []error  // one per endpoint asked that did not answer
}

// mergeFees builds the union of the answers: per slot the highest fee
// any endpoint reported (two honest nodes report the same block alike;
// when they differ one is wrong, and a fee too low costs a transaction
// that does not land while one too high costs a bounded overpayment),
// the slots older than feeWindow below the newest dropped, the fees
// sorted.
func mergeFees(answers []feeAnswer) *feeUnion {
	u := &feeUnion{}
	bySlot := make(map[uint64]uint64, feeWindow)
	for _, a := range answers {
		if a.err != nil {
			u.failures = append(u.failures, a.err)
			continue
		}
		u.endpoints = append(u.endpoints, a.endpoint)
		for _, s := range a.samples {
			if f, ok := bySlot[s.Slot]; !ok || s.PrioritizationFee > f {
				bySlot[s.Slot] = s.PrioritizationFee
			}
			u.last = max(u.last, s.Slot)
		}
	}
	oldest := uint64(0)
	if u.last >= feeWindow {
		oldest = u.last - feeWindow + 1
	}
	u.first = u.last
	u.fees = make([]uint64, 0, min(len(bySlot), feeWindow))
	for slot, f := range bySlot {
		if slot >= oldest {
			u.fees = append(u.fees, f)
			u.first = min(u.first, slot)
		}
	}
	slices.Sort(u.fees)
	return u
}

// estimate is the union's fee at bp basis points (0..10000) by nearest
// rank: the smallest fee with at least bp/10000 of the samples at or
// below it, the rank ceil(bp·n/10000) counted from 1 (0 takes the first,
// the lowest; 10000 the last, the highest). The slices are the caller's
// own copies.
func (u *feeUnion) estimate(bp int) PriorityFeeEstimate {
	e := PriorityFeeEstimate{Samples: len(u.fees), Endpoints: slices.Clone(u.endpoints), Failures: slices.Clone(u.failures)}
	if n := len(u.fees); n > 0 {
		rank := max((bp*n+9999)/10000, 1)
		e.MicroLamports, e.FirstSlot, e.LastSlot = u.fees[rank-1], u.first, u.last
	}
	return e
}
