package metrics

import "testing"

// TestDefaultDurationBucketsLayout: 100 µs to 10 s at least, each bound
// up to 10 s at most 2.5 times the one before, so that a quantile is read
// within that factor anywhere in the range.
func TestDefaultDurationBucketsLayout(t *testing.T) {
	for name, bs := range map[string][]float64{"duration": defaultDurationBuckets(), "wait": defaultWaitBuckets()} {
		if bs[0] > 100e-6 || bs[len(bs)-1] < 10 {
			t.Errorf("%s buckets %v: want 100 µs to 10 s at least", name, bs)
		}
		for i := 1; i < len(bs); i++ {
			if name == "duration" && bs[i] <= 10 && bs[i]/bs[i-1] > 2.5+1e-9 {
				t.Errorf("%s buckets: %g follows %g, more than 2.5 times", name, bs[i], bs[i-1])
			}
		}
	}
}
