package endpoint

import (
	"errors"
	"time"
)

// Ejection configures passive outlier ejection (Envoy's consecutive_5xx,
// Caddy's passive fail_duration): after After consecutive failures an
// (endpoint, role) is refused for Base × 2^(ejections since its last
// success), at most Max, through its cooldown. Values are taken as
// written: the zero Ejection never ejects. DefaultEjection returns the
// defaults.
type Ejection struct {
	// After is how many consecutive failures eject. 0: never.
	After int `toml:"consecutive_failures"`
	// Base is the first ejection's length; each further ejection without
	// a success in between lasts twice as long. It must be positive when
	// After is.
	Base time.Duration `toml:"base_time"`
	// Max caps an ejection's length; a Max below Base means Base.
	Max time.Duration `toml:"max_time"`
}

// DefaultEjection returns the defaults: 5 failures in a row eject for 250
// ms, doubling per ejection without a success in between, up to 2 s. Short
// on purpose: an ejection steers traffic away from a failing peer; it does
// not judge it dead (panic mode admits an ejected one when too few are
// left).
func DefaultEjection() Ejection {
	return Ejection{After: 5, Base: 250 * time.Millisecond, Max: 2 * time.Second}
}

// maxEjection bounds Base and Max.
const maxEjection = time.Hour

// Validate reports every field out of range, joined: a negative count, a
// Base or Max outside [0, 1h], a zero Base while After is
// positive. Problems name fields by their TOML keys and quote no value.
func (e Ejection) Validate() error {
	var errs []error
	if e.After < 0 || e.After > 1<<20 {
		errs = append(errs, &Problem{Path: "consecutive_failures", Message: "must be between 0 (never eject) and 1048576"})
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"base_time", e.Base}, {"max_time", e.Max}} {
		if d.v < 0 || d.v > maxEjection {
			errs = append(errs, &Problem{Path: d.key, Message: "must be between 0s and 1h"})
		}
	}
	if e.After > 0 && e.Base <= 0 {
		errs = append(errs, &Problem{Path: "base_time", Message: "must be positive when consecutive_failures is"})
	}
	return errors.Join(errs...)
}
