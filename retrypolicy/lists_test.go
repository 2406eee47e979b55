package retrypolicy

import (
	"math"
	"time"
)

// Every value of each enum, for exhaustive tests and tables.
var (
	causes = [...]Cause{Connection, Timeout, RateLimited, TemporaryHTTP, NodeBehind,
		Request, RPCApplication, MalformedResponse, InvalidResponse, Canceled, Refused, RPCEndpoint}
	classes        = [...]Class{Idempotent, NeverAfterDispatch, NotApplicable}
	dispatchStates = [...]DispatchState{NotDispatched, MaybeDispatched, Answered}
)

// noDeadline is the TimeLeft of an attempt whose call has no deadline.
const noDeadline = time.Duration(math.MaxInt64)

// defaults is DefaultSettings with jitter j (nil: uniform).
func defaults(j func(time.Duration) time.Duration) Settings {
	s := DefaultSettings()
	s.Jitter = j
	return s
}
