package retry

import (
	"math"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// Every value of each enum, for exhaustive tests and tables.
var (
	causes = [...]retrypolicy.Cause{retrypolicy.Connection, retrypolicy.Timeout, retrypolicy.RateLimited, retrypolicy.TemporaryHTTP, retrypolicy.NodeBehind,
		retrypolicy.Request, retrypolicy.RPCApplication, retrypolicy.MalformedResponse, retrypolicy.InvalidResponse, retrypolicy.Canceled, retrypolicy.Refused, retrypolicy.RPCEndpoint}
	classes        = [...]retrypolicy.Class{retrypolicy.Idempotent, retrypolicy.NeverAfterDispatch, retrypolicy.NotApplicable}
	dispatchStates = [...]retrypolicy.DispatchState{retrypolicy.NotDispatched, retrypolicy.MaybeDispatched, retrypolicy.Answered}
)

// noDeadline is the TimeLeft of an attempt whose call has no deadline.
const noDeadline = time.Duration(math.MaxInt64)

// defaults is DefaultSettings with jitter j (nil: uniform).
func defaults(j func(time.Duration) time.Duration) retrypolicy.Settings {
	s := retrypolicy.DefaultSettings()
	s.Jitter = j
	return s
}
