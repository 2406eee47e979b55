package metrics

import (
	"strconv"

	"github.com/solroute/solroute/endpoint"
)

// Options tune a Collector. The zero value is valid: every zero field
// means its default.
type Options struct {
	// Namespace prefixes every series name ("solroute_calls_total"). ""
	// means "solroute". It must be a metric name: letters, digits
	// and underscores, not starting with a digit.
	Namespace string
	// MaxMethods bounds how many distinct known methods get a method
	// label of their own; the calls of any further method are labelled
	// "other" (transport.OtherMethod), as unknown methods always are. 0 means 128:
	// room for every built-in method (84), "batch" and some declared ones;
	// a negative value labels every method "other".
	MaxMethods int
	// DurationBuckets are the upper bounds, in seconds, of the call and
	// attempt duration histograms. Nil means 100 µs to 30 s in steps of
	// 1, 2.5 and 5 (.0001, .00025, .0005, .001, ... 10, 30): client_golang's
	// DefBuckets (5 ms to 10 s) extended down to a loopback or same-rack
	// attempt and up to a heavy method's timeout, so that
	// histogram_quantile reads a latency from 100 µs to 10 s within its
	// bucket, at most 2.5 times off (plans/012-observability.md).
	DurationBuckets []float64
	// WaitBuckets are those of the admission wait histogram. Nil means
	// 100 µs to 10 s (.0001, .0005, .001, .005, ... 5, 10): most admissions
	// wait nothing and fall in the first; a wait for a token or a free
	// slot lasts from an attempt's duration up.
	WaitBuckets []float64
	// DelayBuckets are those of the provider delay histogram (the
	// Retry-After values providers send). Nil means 100 ms to 5 minutes
	// (.1, .5, 1, 2, 5, 10, 30, 60, 300; Retry-After is given in whole
	// seconds).
	DelayBuckets []float64
}

// The defaults of Options, as its field docs give them.
const (
	defaultNamespace  = "solroute"
	defaultMaxMethods = 128
)

// defaultDurationBuckets returns a new slice of Options.DurationBuckets's
// default.
func defaultDurationBuckets() []float64 {
	return []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
}

// defaultWaitBuckets returns a new slice of Options.WaitBuckets's default.
func defaultWaitBuckets() []float64 {
	return []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 10}
}

// defaultDelayBuckets returns a new slice of Options.DelayBuckets's default.
func defaultDelayBuckets() []float64 {
	return []float64{.1, .5, 1, 2, 5, 10, 30, 60, 300}
}

// Validate reports the first invalid field of o as an *endpoint.Problem
// (the module's one shape of a wrong setting) whose Path is the field's
// name ("Namespace", "WaitBuckets"), quoting no value; or nil. New panics
// with that error.
func (o Options) Validate() error {
	if o.Namespace != "" && !metricName(o.Namespace) {
		return &endpoint.Problem{Path: "Namespace", Message: "is not a metric name (letters, digits and underscores, not starting with a digit)"}
	}
	for _, b := range []struct {
		field string
		v     []float64
	}{{"DurationBuckets", o.DurationBuckets}, {"WaitBuckets", o.WaitBuckets}, {"DelayBuckets", o.DelayBuckets}} {
		if b.v != nil && len(b.v) == 0 {
			return &endpoint.Problem{Path: b.field, Message: "is empty (nil means the default)"}
		}
		for i := 1; i < len(b.v); i++ {
			if !(b.v[i] > b.v[i-1]) {
				return &endpoint.Problem{Path: b.field, Message: "must increase strictly: element " + strconv.Itoa(i) + " does not"}
			}
		}
	}
	return nil
}

// metricName reports whether s is a metric name under Prometheus's
// classic rules, without a colon: [a-zA-Z_][a-zA-Z0-9_]*.
func metricName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// normalized returns o with every zero field set to its default.
func (o Options) normalized() Options {
	if o.Namespace == "" {
		o.Namespace = defaultNamespace
	}
	switch {
	case o.MaxMethods == 0:
		o.MaxMethods = defaultMaxMethods
	case o.MaxMethods < 0:
		o.MaxMethods = 0
	}
	if o.DurationBuckets == nil {
		o.DurationBuckets = defaultDurationBuckets()
	}
	if o.WaitBuckets == nil {
		o.WaitBuckets = defaultWaitBuckets()
	}
	if o.DelayBuckets == nil {
		o.DelayBuckets = defaultDelayBuckets()
	}
	return o
}
