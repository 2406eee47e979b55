package endpoint

import "time"

// Defaults applied to zero-valued Ejection fields.
const (
	// DefaultEjectAfter is how many consecutive failures eject an
	// (endpoint, role) when Ejection.After is 0.
	DefaultEjectAfter = 5
	// DefaultEjectionBase is the first ejection's length when
	// Ejection.Base is 0.
	DefaultEjectionBase = 250 * time.Millisecond
	// DefaultEjectionMax caps an ejection's length when Ejection.Max is 0.
	DefaultEjectionMax = 2 * time.Second
)

// Ejection configures passive outlier ejection (Envoy's consecutive_5xx,
// Caddy's passive fail_duration): after After consecutive failures an
// (endpoint, role) is refused for Base × 2^(ejections since its last
// success), at most Max, through its cooldown. The zero value means the
// defaults.
type Ejection struct {
	// After is how many consecutive failures eject. 0 means
	// DefaultEjectAfter; a negative value never ejects.
	After int
	// Base is the first ejection's length; each further ejection without
	// a success in between lasts twice as long. 0 or negative means
	// DefaultEjectionBase.
	Base time.Duration
	// Max caps an ejection's length. 0 or negative means
	// DefaultEjectionMax; a Max below Base means Base.
	Max time.Duration
}

// Normalized returns e with every documented default applied.
func (e Ejection) Normalized() Ejection {
	if e.After == 0 {
		e.After = DefaultEjectAfter
	}
	if e.Base <= 0 {
		e.Base = DefaultEjectionBase
	}
	if e.Max <= 0 {
		e.Max = DefaultEjectionMax
	}
	e.Max = max(e.Max, e.Base)
	return e
}

// Enabled reports whether e ejects at all (After is not negative).
func (e Ejection) Enabled() bool { return e.After >= 0 }

// Duration returns the length of an ejection that follows prior ejections
// without a success in between: Base × 2^prior, capped at Max. e is
// normalised first, so the result is always positive and never above the
// normalised Max: the doubling stops at the cap and cannot overflow.
func (e Ejection) Duration(prior int) time.Duration {
	e = e.Normalized()
	d := e.Base
	for range prior {
		if d >= e.Max/2 {
			return e.Max
		}
		d *= 2
	}
	return min(d, e.Max)
}
