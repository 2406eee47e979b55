package endpoint

// Health is the passive health state of one (endpoint, role):
//
//	Available   --failure-->                      Degraded
//	Available   --Ejection.After-th failure-->    Ejected
//	Degraded    --Ejection.After-th failure-->    Ejected
//	Ejected     --Ejection.After-th failure-->    Ejected (longer)
//	any         --rate limit-->                   RateLimited
//	RateLimited --cooldown over-->                Degraded
//	Ejected     --ejection over-->                Degraded
//	Degraded    --success-->                      Available
//
// Failures are counted consecutively (a success resets the count); an
// Ejected endpoint only sees outcomes when admitted by
// Runtime.AdmitEjectedAt (panic mode), and a success there leaves the
// ejection running. An ejection whose end falls inside a longer running
// cooldown changes nothing, so a rate-limited endpoint stays RateLimited.
type Health uint8

const (
	// Available is the starting state: the last outcome was a success.
	Available Health = iota
	// Degraded follows a failure, or the end of a cooldown.
	Degraded
	// RateLimited holds while a provider-imposed cooldown runs.
	RateLimited
	// Ejected holds while an ejection after consecutive failures runs
	// (see Ejection).
	Ejected
)

// String returns "available", "degraded", "rate-limited" or "ejected".
func (h Health) String() string {
	switch h {
	case Available:
		return "available"
	case Degraded:
		return "degraded"
	case RateLimited:
		return "rate-limited"
	case Ejected:
		return "ejected"
	}
	return "unknown health state"
}
