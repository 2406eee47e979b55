package engine

import (
	"context"
	"time"

	"github.com/solroute/solroute/internal/admission"
)

// attemptRun is one attempt of a call: its permit, when it started, and
// what it ended with.
type attemptRun struct {
	pm *admission.Permit
	// ctx is the attempt's context: the call's, as the Observers
	// returned it from AttemptStarted.
	ctx        context.Context
	start, end time.Time
	// wait is how long the pool took to admit it; number is its place
	// among the call's attempts, from 1, hedges included.
	wait   time.Duration
	number int
	o      outcome
	// hedge marks the attempt started as a hedge while another ran.
	hedge bool
	// superseded marks an attempt canceled because the other attempt of
	// its hedged pair answered first.
	superseded bool
}
