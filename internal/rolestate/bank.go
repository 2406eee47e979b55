package rolestate

import (
	"math"
	"sync/atomic"
)

// bank is a Histogram's counts relative to one landmark, which never
// changes: moving the landmark (Histogram.rescale) makes a new bank.
//
// Writers add atomically, the total before the bucket; readers load the
// total, then the buckets. A reader concurrent with writers may so see a
// sample in the total and not yet in its bucket, which makes a quantile
// err long (the safe side for a timeout; with no bucket filled yet, no
// quantile at all: quantiles), or one in its bucket and not in
// the total, which moves a quantile by that one sample's weight at most.
// A sample written to a bank while another writer replaces it (once every
// histRescale decay times, about five minutes) may be lost: one sample in
// thousands, against a lock on every write.
type bank struct {
	// landmark is L, in nanoseconds since the Unix epoch.
	landmark int64
	// total is the sum of counts.
	total  atomicFloat
	counts [histBuckets]atomicFloat
}

// atomicFloat is a float64 with atomic load, store and add.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) load() float64 { return math.Float64frombits(f.bits.Load()) }

func (f *atomicFloat) store(v float64) { f.bits.Store(math.Float64bits(v)) }

// add adds d, retrying when another writer came in between.
func (f *atomicFloat) add(d float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// decayAdd replaces the value v with v×scale + d.
func (f *atomicFloat) decayAdd(scale, d float64) {
	if scale == 1 && d == 0 {
		return
	}
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)*scale+d)) {
			return
		}
	}
}
